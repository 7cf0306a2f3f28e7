"""eBay Buy Browse API (item_summary/search): request building and response parsing.

The API is the sanctioned way to read active eBay listings; it needs an application
token (client-credentials grant). Requests are built here as plain data so the HTTP
client stays generic and recordings replay byte for byte.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from pydantic import BaseModel, Field, SecretStr

from gpuvalue.models.coverage import DEFAULT_EBAY_MAX_PAGES
from gpuvalue.models.records import FetchedPage, Listing
from gpuvalue.models.source_batches import ParsedSource, SourceFetch
from gpuvalue.scrapers.ebay_links import link_without_query, marketplace_of
from gpuvalue.scrapers.errors import NotRecordedError, ParseError
from gpuvalue.scrapers.source import FetchContext, Recording, Source, at_midnight_utc, page_from_file

NAME = "ebay-browse"
BROWSE_SEARCH_ENDPOINT = "https://api.ebay.com/buy/browse/v1/item_summary/search"
OAUTH_TOKEN_URL = "https://api.ebay.com/identity/v1/oauth2/token"
OAUTH_SCOPE = "https://api.ebay.com/oauth/api_scope"
GRAPHICS_CARDS_CATEGORY = "27386"
# eBay's daily Browse API call limit (BROWSE_DAILY_CALL_LIMIT) and the pages per search a run asks
# for by default are models/coverage.py's, where `gpuvalue coverage` reads them without this module.


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
        raise ParseError(NAME, OAUTH_TOKEN_URL, "token response is not a JSON object")
    token = data.get("access_token")
    expires = data.get("expires_in")
    if not isinstance(token, str) or not token:
        what = data.get("error_description") or data.get("error") or "no access_token"
        raise ParseError(NAME, OAUTH_TOKEN_URL, f"token response: {what}")
    if isinstance(expires, bool) or not isinstance(expires, int | float) or expires <= 0:
        raise ParseError(NAME, OAUTH_TOKEN_URL, "token response: missing or bad expires_in")
    return token, int(expires)


def parse_browse_search(
    body: bytes, url: str, fetched_at: datetime, marketplace: str | None = None
) -> BrowsePage:
    """One page of search results.

    Prices are recorded as the API states them for the searching marketplace: eBay has
    already converted a foreign seller's price into the marketplace currency
    (``convertedFromValue`` keeps the original, which we do not use), and that converted
    amount is what a buyer there pays.
    """
    data = _load_json(body, url)
    if not isinstance(data, dict):
        raise ParseError(NAME, url, "response is not a JSON object (expected the search envelope)")
    if "errors" in data and "itemSummaries" not in data:
        raise ParseError(NAME, url, f"API error response: {str(data['errors'])[:200]}")
    total = _optional_int(data.get("total"), "total", url)
    limit = _optional_int(data.get("limit"), "limit", url)
    offset = _optional_int(data.get("offset"), "offset", url)
    if total is None and "itemSummaries" not in data:
        raise ParseError(NAME, url, "neither total nor itemSummaries: not a search response")
    items = data.get("itemSummaries")
    if items is None:
        if total:
            raise ParseError(NAME, url, f"total is {total} but there are no itemSummaries: markup changed?")
        items = []
    if not isinstance(items, list):
        raise ParseError(NAME, url, "itemSummaries is not a list")
    next_url = data.get("next")
    if next_url is not None and not isinstance(next_url, str):
        raise ParseError(NAME, url, "next is not a string")
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
            raise ParseError(NAME, url, f"body is not UTF-8: {exc}") from None
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ParseError(NAME, url, f"body is not JSON: {str(exc)[:120]}") from None


def _optional_int(value: Any, name: str, url: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParseError(NAME, url, f"{name} is not an integer: {value!r:.60}")
    return value


def _amount(node: Any, what: str, url: str) -> tuple[float, str]:
    if not isinstance(node, dict):
        raise ParseError(NAME, url, f"{what} is not an object")
    value, currency = node.get("value"), node.get("currency")
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        raise ParseError(NAME, url, f"{what}.value missing or not a number")
    if not isinstance(currency, str) or not currency:
        raise ParseError(NAME, url, f"{what}.currency missing")
    if isinstance(value, str):  # the API's amounts are strings ("2299.90"), read by the one money parser
        from gpuvalue.scrapers.money import parse_amount  # its patterns take 30 ms to compile: `coverage` reads EbaySettings only

        parsed = parse_amount(value, decimal=".")
        if parsed is None:
            raise ParseError(NAME, url, f"{what}.value is not a number: {value!r:.40}")
        amount = parsed
    else:
        amount = float(value)
    if amount != amount or amount in (float("inf"), float("-inf")) or amount < 0:
        raise ParseError(NAME, url, f"{what}.value is not a usable amount: {value!r:.40}")
    return amount, currency


def _shipping(options: Any, currency: str, url: str) -> float | None:
    """Cheapest fixed shipping in the item's currency; 0 is free, None is unknown.

    CALCULATED shipping depends on the buyer's address; a cost the API shows for it was
    worked out for some default address, so it is not recorded as the listing's cost.
    """
    if options is None:
        return None
    if not isinstance(options, list):
        raise ParseError(NAME, url, "shippingOptions is not a list")
    costs: list[float] = []
    for option in options:
        if not isinstance(option, dict):
            raise ParseError(NAME, url, "shippingOptions entry is not an object")
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
    raise ParseError(NAME, url, "item has neither legacyItemId nor a v1|<id>|<variant> itemId")


def _buying_option(options: Any, url: str) -> str | None:
    """AUCTION first when present, then the other options in the API's order.

    The first token is the listing's primary format; BEST_OFFER and a Buy It Now beside
    an auction are kept after it, comma-joined (e.g. "FIXED_PRICE,BEST_OFFER").
    """
    if options is None:
        return None
    if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
        raise ParseError(NAME, url, "buyingOptions is not a list of strings")
    ordered = [o for o in options if o == "AUCTION"] + [o for o in options if o != "AUCTION"]
    unique = list(dict.fromkeys(ordered))
    return ",".join(unique) if unique else None


def _web_url(value: Any) -> str | None:
    """The item page without its per-request tracking query, so it is stable across fetches."""
    if not isinstance(value, str) or not value:
        return None
    return link_without_query(value)


def _listing_from_summary(item: Any, url: str, fetched_at: datetime, marketplace: str | None) -> Listing:
    """Map one itemSummary.

    For an auction the price is the current bid (recorded, never used as a market
    price downstream); a Buy It Now price beside it is not kept.
    ``marketplace`` is the listing's own marketplace when the API states it, else the one its
    item link's host belongs to, else the marketplace that was searched when the caller knows
    it (a saved page does not say which was searched, so it is never assumed).
    """
    if not isinstance(item, dict):
        raise ParseError(NAME, url, "itemSummaries entry is not an object")
    title = item.get("title")
    if not isinstance(title, str) or not title.strip():
        raise ParseError(NAME, url, "item without a title")
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
        raise ParseError(NAME, url, "bidCount is not an integer")
    condition = item.get("condition")
    if condition is not None and not isinstance(condition, str):
        raise ParseError(NAME, url, "condition is not a string")
    item_marketplace = item.get("listingMarketplaceId")
    return Listing(
        source=NAME,
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
        marketplace=(item_marketplace if isinstance(item_marketplace, str) and item_marketplace
                     else _marketplace_of_link(item.get("itemWebUrl")) or marketplace),
    )


def _marketplace_of_link(link: Any) -> str | None:
    return marketplace_of(link) if isinstance(link, str) and link else None


def next_page_url(body: bytes, url: str) -> str | None:
    """Only the envelope's ``next`` link, for the fetch to page on without parsing the records twice
    (a page read from a file keeps its ``next`` as written: nothing follows it)."""
    data = _load_json(body, url)
    return _next_link(data.get("next"), url) if isinstance(data, dict) else None


def _next_link(value: Any, url: str) -> str | None:
    """The envelope's next page, on this page's own host over https. The fetch sends the API token with
    it, so a link elsewhere, or one no URL parser reads, is refused rather than followed."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ParseError(NAME, url, "next is not a string")
    try:
        here, there = urlsplit(url), urlsplit(value)
    except ValueError:
        raise ParseError(NAME, url, f"next is not a link: {value!r:.80}") from None
    if there.scheme != "https" or not there.hostname or there.hostname != here.hostname:
        raise ParseError(NAME, url, f"next leads off {here.hostname}: {value!r:.80}")
    return value


# ---- the source ------------------------------------------------------------------------------

# The searches made when the flow passes no shopping list (no catalog yet, or a fetch run on its own);
# a daily run searches what the coverage rule derives from the catalog (models/coverage.py). These
# are also the searches the replay archive holds.
DEFAULT_EBAY_QUERIES = (
    "NVIDIA GeForce RTX 4070", "NVIDIA GeForce RTX 4070 Ti", "NVIDIA GeForce RTX 4080", "NVIDIA GeForce RTX 4090",
    "NVIDIA GeForce RTX 5070 Ti", "NVIDIA GeForce RTX 5080", "NVIDIA GeForce RTX 5090", "AMD Radeon RX 580X",
    "AMD Radeon RX 590", "AMD Radeon RX 7600 XT", "AMD Radeon RX 7700 XT", "AMD Radeon RX 7800 XT",
    "AMD Radeon RX 7900 XT", "AMD Radeon RX 7900 XTX", "NVIDIA RTX A5000", "NVIDIA A10", "NVIDIA A30", "NVIDIA A40",
    "NVIDIA A100 PCIe", "NVIDIA A100 SXM", "NVIDIA H100 PCIe", "NVIDIA H100 SXM", "NVIDIA L4", "NVIDIA L40",
    "NVIDIA L40S", "NVIDIA T4", "NVIDIA Tesla P100", "NVIDIA Tesla V100 16GB", "NVIDIA Tesla V100 32GB",
)


class EbaySettings(BaseModel):
    """Shared by both eBay sources."""

    ebay_queries: tuple[str, ...] = DEFAULT_EBAY_QUERIES
    ebay_marketplace: str = "EBAY_US"
    ebay_max_pages: int = Field(default=DEFAULT_EBAY_MAX_PAGES, ge=1, le=50, description="result pages per eBay search (100 items each)")
    ebay_client_id: SecretStr | None = Field(default=None, validation_alias="EBAY_CLIENT_ID")
    ebay_client_secret: SecretStr | None = Field(default=None, validation_alias="EBAY_CLIENT_SECRET")


# Browse API responses saved as bare item arrays: (file slug, live query, capture date, commit in gpu-agent).
_GPUAGENT = "activescott/gpu-agent"
_RECORDED = (
    ("nvidia-geforce-rtx-4070", "NVIDIA GeForce RTX 4070", "2025-11-25", "384ca734a8ec1e989dd3568287da68f081aafd83"),
    ("nvidia-geforce-rtx-4070-ti", "NVIDIA GeForce RTX 4070 Ti", "2025-11-25", "384ca734a8ec1e989dd3568287da68f081aafd83"),
    ("nvidia-geforce-rtx-4080", "NVIDIA GeForce RTX 4080", "2025-11-25", "384ca734a8ec1e989dd3568287da68f081aafd83"),
    ("nvidia-geforce-rtx-5070-ti", "NVIDIA GeForce RTX 5070 Ti", "2025-11-25", "384ca734a8ec1e989dd3568287da68f081aafd83"),
    ("nvidia-geforce-rtx-5080", "NVIDIA GeForce RTX 5080", "2025-11-25", "384ca734a8ec1e989dd3568287da68f081aafd83"),
    ("nvidia-geforce-rtx-5090", "NVIDIA GeForce RTX 5090", "2025-11-25", "384ca734a8ec1e989dd3568287da68f081aafd83"),
    ("amd-radeon-rx-7600-xt", "AMD Radeon RX 7600 XT", "2025-11-25", "384ca734a8ec1e989dd3568287da68f081aafd83"),
    ("nvidia-geforce-rtx-4090", "NVIDIA GeForce RTX 4090", "2023-12-05", "60fd744567741b93b4641ff4c6121e5107c56118"),
    ("amd-radeon-rx-7700-xt", "AMD Radeon RX 7700 XT", "2024-01-17", "97f6fafff3d4f150e7dcbba4c4324539f2419f56"),
    ("amd-radeon-rx-7800-xt", "AMD Radeon RX 7800 XT", "2024-01-17", "97f6fafff3d4f150e7dcbba4c4324539f2419f56"),
    ("amd-radeon-rx-7900-xt", "AMD Radeon RX 7900 XT", "2023-12-13", "0c9f054a28bef7d27a6ecf14cb1cdc9b1632a374"),
    ("amd-radeon-rx-7900-xtx", "AMD Radeon RX 7900 XTX", "2023-12-13", "0c9f054a28bef7d27a6ecf14cb1cdc9b1632a374"),
    ("amd-radeon-rx-590", "AMD Radeon RX 590", "2023-12-13", "0c9f054a28bef7d27a6ecf14cb1cdc9b1632a374"),
    ("amd-radeon-rx-580x", "AMD Radeon RX 580X", "2023-12-13", "0c9f054a28bef7d27a6ecf14cb1cdc9b1632a374"),
    ("nvidia-rtx-a5000", "NVIDIA RTX A5000", "2023-12-02", "7638790d82f50c888bc45d5767767a323d0b3c7a"),
    ("nvidia-a30", "NVIDIA A30", "2023-12-02", "7638790d82f50c888bc45d5767767a323d0b3c7a"),
    ("nvidia-a40", "NVIDIA A40", "2023-12-02", "7638790d82f50c888bc45d5767767a323d0b3c7a"),
    ("nvidia-a100-pcie", "NVIDIA A100 PCIe", "2023-12-02", "7638790d82f50c888bc45d5767767a323d0b3c7a"),
    ("nvidia-h100-pcie", "NVIDIA H100 PCIe", "2023-12-02", "7638790d82f50c888bc45d5767767a323d0b3c7a"),
    ("nvidia-t4", "NVIDIA T4", "2023-12-21", "fac714bbb6d70abb7426b4f29e19190a4b932992"),
    ("nvidia-a10", "NVIDIA A10", "2023-12-21", "fac714bbb6d70abb7426b4f29e19190a4b932992"),
    ("nvidia-a100-sxm", "NVIDIA A100 SXM", "2023-12-03", "b949fb463c907a2aa2942cfa30cb643df672f13b"),
    ("nvidia-h100-sxm", "NVIDIA H100 SXM", "2023-12-03", "85ffb0f67db6bbdd569ef292e772983266760c07"),
    ("nvidia-l4", "NVIDIA L4", "2023-12-03", "04d8d54934c1a6eb1a3dbff9644089c6d1a5756e"),
    ("nvidia-l40", "NVIDIA L40", "2023-12-03", "04d8d54934c1a6eb1a3dbff9644089c6d1a5756e"),
    ("nvidia-l40s", "NVIDIA L40S", "2023-12-03", "04d8d54934c1a6eb1a3dbff9644089c6d1a5756e"),
    ("nvidia-tesla-p100", "NVIDIA Tesla P100", "2024-01-11", "7dfd21aef1f41324878ebece98c6cfaf2498a29a"),
    ("nvidia-tesla-v100-16gb", "NVIDIA Tesla V100 16GB", "2024-01-11", "37c288f65b3f1eaa0e8d4d972901cd90b75bbe44"),
    ("nvidia-tesla-v100-32gb", "NVIDIA Tesla V100 32GB", "2024-01-11", "37c288f65b3f1eaa0e8d4d972901cd90b75bbe44"),
)


def _fetch(ctx: FetchContext) -> SourceFetch:
    s = ctx.settings
    out = SourceFetch(NAME)
    if ctx.replay:  # the replay transport answers token requests itself; no credential is sent
        client_id, secret = "replay", "replay"
    elif s.ebay_client_id is None or s.ebay_client_secret is None:
        out.warnings.append("ebay-browse: EBAY_CLIENT_ID / EBAY_CLIENT_SECRET not set; skipped")
        return out
    else:
        client_id, secret = s.ebay_client_id.get_secret_value(), s.ebay_client_secret.get_secret_value()
    url, headers, form = token_request(client_id, secret)
    token_page = ctx.client.post_form(url, source=NAME, data=form, headers=headers)
    token, _ = parse_token_response(token_page.body)
    headers = browse_headers(token, s.ebay_marketplace)
    queries = list(ctx.shopping_list or s.ebay_queries)
    if ctx.replay:
        # The archive's searches were worded before the coverage rule (e.g. "NVIDIA T4" where the rule
        # asks for "NVIDIA Tesla T4"): a replay makes those too, so no recorded listing goes unread.
        queries += [q for _, q, _, _ in _RECORDED if q not in queries]
    unrecorded = 0
    for i, query in enumerate(queries, start=1):
        ctx.step(f"ebay-browse: search {i}/{len(queries)}: {query}", i, len(queries))
        next_url: str | None = browse_search_url(query)
        pages = 0
        while next_url and pages < s.ebay_max_pages:
            try:
                page = ctx.client.get(next_url, source=NAME, headers=headers)
            except NotRecordedError:  # only a replay transport answers so: the archive never saw this search
                if pages == 0:  # a search whose later pages were never saved still counts as recorded
                    unrecorded += 1
                break
            out.pages.append(page)
            pages += 1
            next_url = next_page_url(page.body, page.url)
    if unrecorded:
        # A replay archive holds the searches someone once made; the rest are skipped, said once.
        out.warnings.append(f"ebay-browse: {unrecorded} of {len(queries)} searches have no recording in the replay "
                            "archive; skipped")
    return out


def _parse(page: FetchedPage) -> ParsedSource:
    return ParsedSource(NAME, "listing", listings=list(parse_browse_search(page.body, page.url, page.fetched_at).listings))


def _replay(fixtures: Path) -> Iterator[Recording]:
    for slug, query, day, commit in _RECORDED:
        items = json.loads((fixtures / f"listings/ebay_browse_api_gpuagent/search-listings-{slug}.json").read_bytes())
        url = browse_search_url(query)
        envelope = {"href": url, "total": len(items), "limit": 100, "offset": 0, "itemSummaries": items}
        body = json.dumps(envelope, ensure_ascii=False, indent=1).encode("utf-8")
        yield Recording(
            page_from_file(NAME, body, url, at_midnight_utc(date.fromisoformat(day)), "application/json"),
            f"derived: {_GPUAGENT}@{commit}:data/test-data/api-responses/search-listings-{slug}.json ({day}), "
            "a bare itemSummary array wrapped in the Browse API's search envelope",
        )


SOURCE = Source(
    name=NAME,
    kind="listing",
    export_kind="listings",
    attribution="Used-market prices: eBay listings (eBay Inc. and its sellers)",
    licence="eBay content; prices cited as facts",
    fetch=_fetch,
    parse=_parse,
    replay=_replay,
    settings=EbaySettings,
    sample_url=BROWSE_SEARCH_ENDPOINT + "?q=x",
    fixtures=("listings/browse_search_envelope_rtx-a5000_limit3.json",
              "listings/search-listings-nvidia-geforce-rtx-4080.json"),
)
