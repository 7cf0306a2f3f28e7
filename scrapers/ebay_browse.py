"""eBay Buy Browse API (item_summary/search): request building and response parsing.

The API is the sanctioned way to read active eBay listings; it needs an application
token (client-credentials grant). Requests are built here as plain data so the HTTP
client stays generic and recordings replay byte for byte.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

from gpuvalue.models.records import Listing
from gpuvalue.scrapers.errors import ParseError

SOURCE = "ebay-browse"
BROWSE_SEARCH_ENDPOINT = "https://api.ebay.com/buy/browse/v1/item_summary/search"
OAUTH_TOKEN_URL = "https://api.ebay.com/identity/v1/oauth2/token"
OAUTH_SCOPE = "https://api.ebay.com/oauth/api_scope"
GRAPHICS_CARDS_CATEGORY = "27386"


@dataclass(frozen=True)
class BrowsePage:
    listings: list[Listing]
    total: int | None
    next_url: str | None
    offset: int
    limit: int


def browse_search_url(
    query: str, *, category_id: str = GRAPHICS_CARDS_CATEGORY, limit: int = 100, offset: int = 0
) -> str:
    """Search URL with a fixed parameter order, so the same search is the same recording."""
    q = quote(query, safe="")
    return f"{BROWSE_SEARCH_ENDPOINT}?q={q}&category_ids={quote(category_id, safe='')}&limit={int(limit)}&offset={int(offset)}"


def browse_headers(token: str, marketplace: str = "EBAY_US") -> dict[str, str]:
    """The marketplace travels in a header, not the URL: the API ignores it as a parameter."""
    return {
        "Authorization": f"Bearer {token}",
        "X-EBAY-C-MARKETPLACE-ID": marketplace,
        "Accept": "application/json",
    }


def token_request(client_id: str, client_secret: str) -> tuple[str, dict[str, str], dict[str, str]]:
    """(url, headers, form data) of the client-credentials token request."""
    basic = base64.b64encode(f"{client_id}:{client_secret}".encode()).decode("ascii")
    headers = {
        "Authorization": f"Basic {basic}",
        "Content-Type": "application/x-www-form-urlencoded",
    }
    form = {"grant_type": "client_credentials", "scope": OAUTH_SCOPE}
    return OAUTH_TOKEN_URL, headers, form


def parse_token_response(body: bytes) -> tuple[str, int]:
    """(access token, lifetime in seconds) from the token endpoint's JSON."""
    data = _load_json(body, OAUTH_TOKEN_URL)
    if not isinstance(data, dict):
        raise ParseError(SOURCE, OAUTH_TOKEN_URL, "token response is not a JSON object")
    token = data.get("access_token")
    expires = data.get("expires_in")
    if not isinstance(token, str) or not token:
        what = data.get("error_description") or data.get("error") or "no access_token"
        raise ParseError(SOURCE, OAUTH_TOKEN_URL, f"token response: {what}")
    if isinstance(expires, bool) or not isinstance(expires, int | float) or expires <= 0:
        raise ParseError(SOURCE, OAUTH_TOKEN_URL, "token response: missing or bad expires_in")
    return token, int(expires)


def parse_browse_search(
    body: bytes, url: str, fetched_at: datetime, marketplace: str = "EBAY_US"
) -> BrowsePage:
    """One page of search results.

    Prices are recorded as the API states them for the searching marketplace: eBay has
    already converted a foreign seller's price into the marketplace currency
    (``convertedFromValue`` keeps the original, which we do not use), and that converted
    amount is what a buyer there pays.
    """
    data = _load_json(body, url)
    if not isinstance(data, dict):
        raise ParseError(SOURCE, url, "response is not a JSON object (expected the search envelope)")
    if "errors" in data and "itemSummaries" not in data:
        raise ParseError(SOURCE, url, f"API error response: {str(data['errors'])[:200]}")
    total = _optional_int(data.get("total"), "total", url)
    limit = _optional_int(data.get("limit"), "limit", url)
    offset = _optional_int(data.get("offset"), "offset", url)
    if total is None and "itemSummaries" not in data:
        raise ParseError(SOURCE, url, "neither total nor itemSummaries: not a search response")
    items = data.get("itemSummaries")
    if items is None:
        if total:
            raise ParseError(SOURCE, url, f"total is {total} but there are no itemSummaries: markup changed?")
        items = []
    if not isinstance(items, list):
        raise ParseError(SOURCE, url, "itemSummaries is not a list")
    next_url = data.get("next")
    if next_url is not None and not isinstance(next_url, str):
        raise ParseError(SOURCE, url, "next is not a string")
    listings = [_listing_from_summary(item, url, fetched_at, marketplace) for item in items]
    return BrowsePage(
        listings=listings,
        total=total,
        next_url=next_url,
        offset=offset if offset is not None else 0,
        limit=limit if limit is not None else len(listings),
    )


def _load_json(body: bytes, url: str) -> Any:
    if isinstance(body, str):
        text = body
    else:
        try:
            text = bytes(body).decode("utf-8")
        except (UnicodeDecodeError, TypeError) as exc:
            raise ParseError(SOURCE, url, f"body is not UTF-8: {exc}") from None
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ParseError(SOURCE, url, f"body is not JSON: {str(exc)[:120]}") from None


def _optional_int(value: Any, name: str, url: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParseError(SOURCE, url, f"{name} is not an integer: {value!r:.60}")
    return value


def _amount(node: Any, what: str, url: str) -> tuple[float, str]:
    if not isinstance(node, dict):
        raise ParseError(SOURCE, url, f"{what} is not an object")
    value, currency = node.get("value"), node.get("currency")
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        raise ParseError(SOURCE, url, f"{what}.value missing or not a number")
    if not isinstance(currency, str) or not currency:
        raise ParseError(SOURCE, url, f"{what}.currency missing")
    try:
        amount = float(value)
    except ValueError:
        raise ParseError(SOURCE, url, f"{what}.value is not a number: {value!r:.40}") from None
    if amount != amount or amount in (float("inf"), float("-inf")) or amount < 0:
        raise ParseError(SOURCE, url, f"{what}.value is not a usable amount: {value!r:.40}")
    return amount, currency


def _shipping(options: Any, currency: str, url: str) -> float | None:
    """Cheapest fixed shipping in the item's currency; 0 is free, None is unknown.

    CALCULATED shipping depends on the buyer's address; a cost the API shows for it was
    worked out for some default address, so it is not recorded as the listing's cost.
    """
    if options is None:
        return None
    if not isinstance(options, list):
        raise ParseError(SOURCE, url, "shippingOptions is not a list")
    costs: list[float] = []
    for option in options:
        if not isinstance(option, dict):
            raise ParseError(SOURCE, url, "shippingOptions entry is not an object")
        if option.get("shippingCostType") != "FIXED":
            continue
        cost = option.get("shippingCost")
        if cost is None:
            continue
        amount, cost_currency = _amount(cost, "shippingCost", url)
        if cost_currency == currency:
            costs.append(amount)
    return min(costs) if costs else None


def _listing_id(item: dict[str, Any], url: str) -> str:
    legacy = item.get("legacyItemId")
    if isinstance(legacy, str | int) and not isinstance(legacy, bool) and str(legacy).strip():
        return str(legacy).strip()
    item_id = item.get("itemId")
    if isinstance(item_id, str):
        parts = item_id.split("|")
        if len(parts) >= 2 and parts[1].strip():
            return parts[1].strip()
    raise ParseError(SOURCE, url, "item has neither legacyItemId nor a v1|<id>|<variant> itemId")


def _buying_option(options: Any, url: str) -> str | None:
    """AUCTION first when present, then the other options in the API's order.

    The first token is the listing's primary format; BEST_OFFER and a Buy It Now beside
    an auction are kept after it, comma-joined (e.g. "FIXED_PRICE,BEST_OFFER").
    """
    if options is None:
        return None
    if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
        raise ParseError(SOURCE, url, "buyingOptions is not a list of strings")
    ordered = [o for o in options if o == "AUCTION"] + [o for o in options if o != "AUCTION"]
    unique = list(dict.fromkeys(ordered))
    return ",".join(unique) if unique else None


def _web_url(value: Any) -> str | None:
    """The item page without its per-request tracking query, so it is stable across fetches."""
    if not isinstance(value, str) or not value:
        return None
    parts = urlsplit(value)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


def _listing_from_summary(item: Any, url: str, fetched_at: datetime, marketplace: str) -> Listing:
    """Map one itemSummary.

    For an auction the price is the current bid (recorded, never used as a market
    price downstream); a Buy It Now price beside it is not kept.
    ``marketplace`` is the listing's own marketplace when the API states it, else the
    marketplace that was searched.
    """
    if not isinstance(item, dict):
        raise ParseError(SOURCE, url, "itemSummaries entry is not an object")
    title = item.get("title")
    if not isinstance(title, str) or not title.strip():
        raise ParseError(SOURCE, url, "item without a title")
    buying_option = _buying_option(item.get("buyingOptions"), url)
    is_auction = buying_option is not None and buying_option.startswith("AUCTION")
    price_node = item.get("currentBidPrice") if is_auction and item.get("currentBidPrice") else item.get("price")
    if price_node is None:
        price, currency = None, None
    else:
        price, currency = _amount(price_node, "price", url)
    shipping = _shipping(item.get("shippingOptions"), currency, url) if currency else None
    bid_count = item.get("bidCount")
    if bid_count is not None and (isinstance(bid_count, bool) or not isinstance(bid_count, int)):
        raise ParseError(SOURCE, url, "bidCount is not an integer")
    condition = item.get("condition")
    if condition is not None and not isinstance(condition, str):
        raise ParseError(SOURCE, url, "condition is not a string")
    item_marketplace = item.get("listingMarketplaceId")
    return Listing(
        source=SOURCE,
        listing_id=_listing_id(item, url),
        title=" ".join(title.split()),
        price=price,
        currency=currency,
        shipping=shipping,
        condition=condition,
        buying_option=buying_option,
        bid_count=bid_count,
        sold=False,
        seen_at=fetched_at,
        url=_web_url(item.get("itemWebUrl")),
        marketplace=item_marketplace if isinstance(item_marketplace, str) and item_marketplace else marketplace,
    )
