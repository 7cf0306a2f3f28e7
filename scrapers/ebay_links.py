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


# A link as eBay writes it: lower-case http(s), a plain host name, a path of URL characters, then
# nothing, a query or a fragment. For such a link, its host and its part before the query are what
# urlsplit and urlunsplit give, read without them: urlsplit caches 128 links, and the links of an
# export are all different (a fifth of a CSV import's parsing went to the two calls per row).
_PLAIN_LINK = re.compile(r"https?://([A-Za-z0-9.-]+)(?:/[!$-;=@-Z_a-z~]*)?")


def _plain_link(link: str) -> re.Match[str] | None:
    match = _PLAIN_LINK.match(link)
    if match is None or (match.end() < len(link) and link[match.end()] not in "?#"):
        return None
    return match


def link_without_query(link: str) -> str | None:
    """The link without query and fragment: tracking parameters change on every request. None for
    a link no URL parser reads (``http://[x``: an unclosed IPv6 host), which a page or an export
    may hold: the listing stays, without its link."""
    plain = _plain_link(link)
    if plain is not None:
        return link[: plain.end()]
    try:
        parts = urlsplit(link)
    except ValueError:
        return None
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


def marketplace_of(link: str) -> str | None:
    plain = _plain_link(link)
    if plain is not None:
        return MARKETPLACE_BY_HOST.get(plain.group(1).lower())
    try:
        host = urlsplit(link).netloc.lower()
    except ValueError:
        return None
    return MARKETPLACE_BY_HOST.get(host)
