"""eBay item links: item ids, tracking-free URLs and the marketplace a host belongs to.

Shared by the HTML and CSV parsers, which both meet eBay item links in their many forms
(``/itm/<id>``, ``/itm/<slug>/<id>``, with per-click tracking queries).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

_ITEM_ID = re.compile(r"/itm/(?:[^/?#]*/)?(\d{9,19})(?:[/?#]|$)")

MARKETPLACE_BY_HOST = {
    "www.ebay.com": "EBAY_US",
    "ebay.com": "EBAY_US",
    "www.ebay.co.uk": "EBAY_GB",
    "www.ebay.de": "EBAY_DE",
    "www.ebay.fr": "EBAY_FR",
    "www.ebay.it": "EBAY_IT",
    "www.ebay.es": "EBAY_ES",
    "www.ebay.ca": "EBAY_CA",
    "www.ebay.com.au": "EBAY_AU",
    "www.ebay.at": "EBAY_AT",
    "www.ebay.ch": "EBAY_CH",
    "www.ebay.nl": "EBAY_NL",
    "www.ebay.ie": "EBAY_IE",
    "www.ebay.pl": "EBAY_PL",
}


def item_id_from_link(link: str) -> str | None:
    """The numeric item id of an ``/itm/`` link, or None for anything else."""
    match = _ITEM_ID.search(link or "")
    return match.group(1) if match else None


def link_without_query(link: str) -> str | None:
    """The link without query and fragment: tracking parameters change on every request. None for
    a link no URL parser reads (``http://[x``: an unclosed IPv6 host), which a page or an export
    may hold: the listing stays, without its link."""
    try:
        parts = urlsplit(link)
    except ValueError:
        return None
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


def marketplace_of(link: str) -> str | None:
    try:
        host = urlsplit(link).netloc.lower()
    except ValueError:
        return None
    return MARKETPLACE_BY_HOST.get(host)
