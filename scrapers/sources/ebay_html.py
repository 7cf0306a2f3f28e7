"""eBay search result pages (active and sold), in both markups eBay has served, on eBay's US, UK,
DE, CA and AU sites (``GPUVALUE_EBAY_HTML_MARKETS``), each read in its own currency.

Since about July 2026 eBay answers logged-out sold and completed searches with a sign-in page, and
it shows a bot challenge now and then: any page that is not a result list is told apart
(``page_refusal``) rather than read as "no results". Where the sold search is refused, the same
searches are read as active listings: asking prices (``sold=False``, kind ``asking`` downstream),
never passed off as sold; where those are refused too, the search fails in one line that says what
eBay did and what the user can do.

Sold prices are only visible on eBay's search pages (the Browse API shows active
listings only), so these pages are the source of realised prices. eBay serves two
markups: the current ``li.s-card`` cards and the older ``li.s-item`` rows (still found in
archived pages, sometimes minified with unquoted attributes). Both are read with lxml
and only inside the result list, so a page costs milliseconds.

Choices worth knowing:
- A price range ("$46.95 to $49.95") is several variants at several prices, not one
  price: ``price`` is None for it (``currency`` is still recorded).
- A card that ended unsold ("Ended  Jul 20, 2026") gets ``ended=True, sold=False`` and
  ``price=None``: its last asking price or bid is not a price anybody paid, and only sold
  listings carry a sale price.
- Shipping "estimates" depend on the viewer's location, so they are recorded as unknown
  (None), as the Browse parser does for calculated shipping. Free shipping is 0.
- Titles are whitespace-collapsed; the hidden "Opens in a new window or tab" text,
  the glued "New Listing" badge and the scrambled "Sponsored" marker never reach them.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, Literal
from urllib.parse import quote_plus, urlsplit

from lxml import etree
from lxml import html as lxml_html
from pydantic import BaseModel, Field, field_validator
from pydantic_settings import NoDecode

from gpuvalue.models.records import FetchedPage, Listing
from gpuvalue.models.source_batches import ParsedSource, SourceFetch
from gpuvalue.scrapers.ebay_links import item_id_from_link, link_without_query, marketplace_of
from gpuvalue.scrapers.ebay_markets import DEFAULT_EBAY_MARKETS, EBAY_MARKETS, EbayMarket, market, market_of_site
from gpuvalue.scrapers.errors import BOT_CHALLENGE_WORDS, AccessRefused, FetchError, ParseError, RobotsDisallowed
from gpuvalue.scrapers.money import DOLLARS, find_price
from gpuvalue.scrapers.source import FetchContext, Source

NAME = "ebay-html"
Markup = Literal["s-card", "s-item"]


@dataclass(frozen=True)
class EbayResultsPage:
    listings: list[Listing]
    stated_count: int | None
    markup: Markup


def ebay_search_url(
    query: str, *, sold: bool, site: str = "www.ebay.com", category_id: str = "27386", page: int = 1
) -> str:
    """Search URL with a fixed parameter order; sold searches ask for completed sales only."""
    params = [("_nkw", quote_plus(query)), ("_sacat", category_id)]
    if sold:
        params += [("LH_Sold", "1"), ("LH_Complete", "1")]
    params += [("_ipg", "240"), ("_pgn", str(int(page)))]
    return f"https://{site}/sch/i.html?" + "&".join(f"{k}={v}" for k, v in params)


def _has_class(name: str) -> str:
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


_CARD_XPATH = etree.XPath(f".//li[{_has_class('s-card')}]")
_ITEM_XPATH = etree.XPath(f".//li[{_has_class('s-item')}]")
_RESULTS_XPATH = etree.XPath(f"//ul[{_has_class('srp-results')}]")
_COUNT_XPATH = etree.XPath(f"//*[{_has_class('srp-controls__count-heading')}]")
_H1_XPATH = etree.XPath("//h1")

_COUNT = re.compile(
    r"(\d[\d.,\s]*)\+?\s*(?:results|Ergebnisse|résultats|risultati|resultados|resultaten|wyników)", re.I
)
_NO_RESULTS = re.compile(r"\b(?:0|No) (?:exact matches|results) found\b|Keine genauen Treffer|0 Ergebnisse", re.I)
_RANGE = re.compile(r"\s(?:to|bis|à|a|tot)\s", re.I)
_BIDS = re.compile(r"^(\d[\d.,]*)\s*(?:bids?|Gebote?|enchères?|offerte?|pujas?)\b", re.I)
_FREE_SHIPPING = re.compile(
    r"^(?:Free (?:delivery|shipping|postage|standard shipping)|Kostenloser Versand|Gratis\b|Livraison gratuite|"
    r"Spedizione gratuita|Envío gratis)",
    re.I,
)
_SHIPPING_WORDS = re.compile(r"delivery|shipping|postage|Versand|livraison|spedizione|envío", re.I)
_ESTIMATE = re.compile(r"estimate|geschätzt|estimation", re.I)
_BUY_NOW = re.compile(r"^(?:Buy It Now|Sofort-Kaufen|Achat immédiat|Compralo Subito)$", re.I)
_BEST_OFFER = re.compile(r"Best Offer|Preisvorschlag|offre directe|proposta d'acquisto", re.I)
_NEW_LISTING = re.compile(r"^\s*(?:New Listing|Neues Angebot|Nuovo annuncio|Nouvelle annonce)\s*", re.I)
_OPENS_NEW_WINDOW = re.compile(
    r"\s*(?:Opens in a new window or tab|Wird in neuem Fenster oder Tab geöffnet)\s*$", re.I
)
_AUCTION_OVER = re.compile(r"Time left\s*Ended|Restzeit\s*Beendet", re.I)
_SOLD_DATE = re.compile(r"^(?:Sold|Verkauft)\s+(.+)$", re.I)
_ENDED_DATE = re.compile(r"^(?:Ended|Beendet)\s+(.+)$", re.I)
_PLACEHOLDER_TITLE = "shop on ebay"


def _text(node) -> str:
    return " ".join(node.text_content().replace("\xa0", " ").split())


def _decode(body: bytes | str, url: str) -> str:
    if isinstance(body, str):
        text = body
    else:
        try:
            text = bytes(body).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ParseError(NAME, url, f"page is not UTF-8 ({exc.reason} at byte {exc.start})") from None
    if "\x00" in text:
        raise ParseError(NAME, url, "page contains NUL bytes: binary, not HTML")
    if "<" not in text:
        raise ParseError(NAME, url, "page contains no markup")
    return text


def parse_money(text: str, site_currency: str | None = None, decimal: str | None = None) -> tuple[float, str] | None:
    """(amount, ISO currency) of the first amount in ``text``, e.g. "EUR 1.234,56" -> 1234.56 EUR,
    read by the one money parser (``scrapers/money.py``). A bare "$" is the site's dollar (USD on
    ebay.com, CAD on ebay.ca, AUD on ebay.com.au); ``decimal`` is the site's decimal mark where known."""
    found = find_price(text, default=site_currency if site_currency in DOLLARS else None, decimal=decimal)
    if found is None or found.written is None:
        return None
    return found.amount, found.currency or "USD"


def _site_currency(url: str) -> str | None:
    """The currency a bare "$" means on the page's site (USD, CAD, AUD), else None."""
    site = EBAY_MARKETS.get(marketplace_of(url) or "")
    return site.currency if site is not None and site.currency in DOLLARS else None


# A result list, whatever its markup: the classes every results page eBay served carries.
_RESULT_LIST = re.compile(
    r"""class\s*=\s*["']?[^"'>]*\b(?:srp-results|s-card|s-item|srp-controls__count-heading)\b""", re.I)
_CHALLENGE = re.compile(r"splashui/challenge|" + BOT_CHALLENGE_WORDS, re.I)  # eBay's challenge pages live in /splashui/
_SIGN_IN = re.compile(
    r"signin\.ebay\.|/signin/|eBayISAPI\.dll\?SignIn|<form[^>]*sign-?in|name=[\"']?(?:userid|pass)\b|"
    r"sign in to (?:your account|continue|see)|sign in or create|please sign in|bitte (?:melden sie sich an|einloggen)",
    re.I)


def page_refusal(body: bytes | str, final_url: str | None = None) -> str | None:
    """What eBay answered instead of a result list ("a sign-in page", "a bot challenge", "a page that is
    not a result list"), or None for a results page (an empty one included). Results pages carry
    sign-in links too, so only a page without a result list is looked at further."""
    text = body if isinstance(body, str) else bytes(body[:2_000_000]).decode("utf-8", "replace")
    if _RESULT_LIST.search(text):
        return None
    if final_url and re.match(r"https?://signin\.", final_url):
        return "a sign-in page"
    if final_url and "/splashui/" in final_url:  # eBay's challenge pages live there
        return "a bot challenge"
    if _CHALLENGE.search(text):
        return "a bot challenge"
    if _SIGN_IN.search(text):
        return "a sign-in page"
    return "a page that is not a result list"


def _stated_count(root) -> int | None:
    candidates = list(_COUNT_XPATH(root)) or list(_H1_XPATH(root))
    for node in candidates:
        text = _text(node)
        match = _COUNT.search(text)
        if match:
            digits = re.sub(r"\D", "", match.group(1))
            if digits:
                return int(digits)
        if _NO_RESULTS.search(text):
            return 0
    return None


def _date(text: str) -> datetime | None:
    cleaned = " ".join(text.split()).replace(".", "")
    for fmt in ("%b %d, %Y", "%d %b %Y", "%d %B %Y", "%B %d, %Y"):
        try:
            return datetime.strptime(cleaned, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


def _price(text: str, site_currency: str | None, decimal: str | None = None) -> tuple[float | None, str | None]:
    """(price, currency); a range keeps its currency but has no single price."""
    money = parse_money(text, site_currency, decimal)
    if money is None:
        return None, None
    if _RANGE.search(f" {text} "):
        return None, money[1]
    return money


def _shipping(texts: list[str], site_currency: str | None, decimal: str | None = None) -> float | None:
    for text in texts:
        if _FREE_SHIPPING.search(text):
            return 0.0
        if _SHIPPING_WORDS.search(text) and text.lstrip().startswith("+"):
            if _ESTIMATE.search(text):
                return None
            money = parse_money(text, site_currency, decimal)
            if money is not None:
                return money[0]
    return None


def _buying_option(texts: list[str]) -> tuple[str, int | None]:
    """Same convention as the Browse parser: AUCTION first, then Buy It Now and Best Offer."""
    bids: int | None = None
    best_offer = buy_now = False
    for text in texts:
        match = _BIDS.match(text)
        if match and bids is None:
            bids = int(re.sub(r"\D", "", match.group(1)))
        best_offer = best_offer or bool(_BEST_OFFER.search(text))
        buy_now = buy_now or bool(_BUY_NOW.match(text))
    options = ["AUCTION"] if bids is not None else []
    if buy_now or bids is None:
        options.append("FIXED_PRICE")
    if best_offer:
        options.append("BEST_OFFER")
    return ",".join(options), bids


def _clean_title(text: str) -> str:
    text = _OPENS_NEW_WINDOW.sub("", text)
    text = _NEW_LISTING.sub("", text)
    return " ".join(text.split())


def _title_text(title_node) -> str:
    """Title text without hidden helper spans and "New Listing" badges."""
    title = copy.deepcopy(title_node)
    for node in title.xpath(f".//*[{_has_class('clipped')} or {_has_class('LIGHT_HIGHLIGHT')}]"):
        if "clipped" in node.get("class", "").split() or _NEW_LISTING.match(_text(node) + " "):
            node.drop_tree()
    return _clean_title(_text(title))


def _first(node, xpath: str):
    found = node.xpath(xpath)
    return found[0] if found else None


@dataclass(frozen=True)
class _Card:
    listing_id: str | None
    link: str | None
    title: str
    subtitle: str | None
    condition: str | None
    price_text: str | None
    attribute_texts: list[str]
    caption: str | None


def _s_card(card) -> _Card:
    link_node = _first(card, f".//a[{_has_class('s-card__link')}][@href]")
    link = link_node.get("href") if link_node is not None else None
    title_node = _first(card, f".//*[{_has_class('s-card__title')}]")
    title = _title_text(title_node) if title_node is not None else ""
    subtitle_spans = [
        _text(span) for span in card.xpath(f".//*[{_has_class('s-card__subtitle')}]/span") if _text(span)
    ]
    # Three price spans "$a", " to ", "$b" are a range; two plain ones are an auction's
    # current bid followed by its Buy It Now price, and the bid comes first.
    prices = [_text(p) for p in card.xpath(f".//*[{_has_class('s-card__price')}]")]
    price_text: str | None
    if any(_RANGE.search(f" {p} ") for p in prices):
        price_text = " ".join(prices)
    else:
        price_text = next((p for p in prices if parse_money(p)), None)
    attributes = [_text(row) for row in card.xpath(f".//*[{_has_class('s-card__attribute-row')}]")]
    caption_node = _first(card, f".//*[{_has_class('s-card__caption')}]")
    return _Card(
        listing_id=card.get("data-listingid") or None,
        link=link,
        title=title,
        subtitle=" · ".join(subtitle_spans[1:]) or None,
        condition=subtitle_spans[0] if subtitle_spans else None,
        price_text=price_text,
        attribute_texts=[a for a in attributes if a],
        caption=_text(caption_node) if caption_node is not None else None,
    )


def _s_item(item) -> _Card:
    link_node = _first(item, f".//a[{_has_class('s-item__link')}][@href]")
    link = link_node.get("href") if link_node is not None else None
    title_node = _first(item, f".//*[{_has_class('s-item__title')}]")
    title = _title_text(title_node) if title_node is not None else ""
    condition_node = _first(
        item,
        f".//*[{_has_class('s-item__subtitle')}]//*[{_has_class('SECONDARY_INFO')}]"
        f" | .//*[{_has_class('s-item__normalizedCondition')}]",
    )
    subtitles = [
        _text(node)
        for node in item.xpath(f".//*[{_has_class('s-item__subtitle')}]")
        if not node.xpath(f".//*[{_has_class('SECONDARY_INFO')}]") and _text(node)
    ]
    price_node = _first(item, f".//*[{_has_class('s-item__price')}]")
    details = [
        _text(node)
        for node in item.xpath(
            f".//*[{_has_class('s-item__shipping')} or {_has_class('s-item__logisticsCost')}"
            f" or {_has_class('s-item__bids')} or {_has_class('s-item__bidCount')}"
            f" or {_has_class('s-item__purchase-options')} or {_has_class('s-item__purchaseOptions')}"
            f" or {_has_class('s-item__purchaseOptionsWithIcon')} or {_has_class('s-item__purchase-options-with-icon')}"
            f" or {_has_class('s-item__freeXDays')}]"
        )
    ]
    caption_node = _first(
        item,
        f".//*[{_has_class('s-item__title--tagblock')}]//*[{_has_class('POSITIVE')} or {_has_class('NEGATIVE')}]"
        f" | .//*[{_has_class('s-item__caption--signal')}]",
    )
    return _Card(
        listing_id=None,
        link=link,
        title=title,
        subtitle=" · ".join(subtitles) or None,
        condition=_text(condition_node).rstrip(" |") or None if condition_node is not None else None,
        price_text=_text(price_node) if price_node is not None else None,
        attribute_texts=[d for d in dict.fromkeys(details) if d],
        caption=_text(caption_node) if caption_node is not None else None,
    )


def _is_placeholder(card: _Card) -> bool:
    """eBay's "Shop on eBay" filler cards and hidden row templates are not listings."""
    if card.title.casefold() == _PLACEHOLDER_TITLE:
        return True
    if card.link and item_id_from_link(card.link) is None and re.search(r"/itm/123456(?:[?/#]|$)", card.link):
        return True
    return card.link is None and not card.title and card.price_text is None


def _listing(card: _Card, url: str, fetched_at: datetime, site_currency: str | None,
             decimal: str | None = None) -> Listing:
    listing_id = card.listing_id if card.listing_id and card.listing_id.isdigit() else None
    link_id = item_id_from_link(card.link or "")
    listing_id = link_id or listing_id
    if listing_id is None:
        raise ParseError(NAME, url, f"result without an item id (title {card.title[:60]!r}): markup changed?")
    if not card.title:
        raise ParseError(NAME, url, f"result {listing_id} without a title: markup changed?")
    price, currency = _price(card.price_text, site_currency, decimal) if card.price_text else (None, None)
    sold = ended = False
    sold_at = None
    caption = card.caption or ""
    if sold_match := _SOLD_DATE.match(caption):
        sold = ended = True
        sold_at = _date(sold_match.group(1))
    elif _ENDED_DATE.match(caption):
        ended = True
        price = None
    buying_option, bid_count = _buying_option(card.attribute_texts)
    if bid_count == 0 and any(_AUCTION_OVER.search(text) for text in card.attribute_texts):
        # An auction that ran out without a single bid did not sell.
        ended = True
        price = None
    return Listing(
        source=NAME,
        listing_id=listing_id,
        title=card.title,
        subtitle=card.subtitle,
        price=price,
        currency=currency,
        shipping=_shipping(card.attribute_texts, site_currency, decimal),
        condition=card.condition,
        buying_option=buying_option,
        bid_count=bid_count,
        sold=sold,
        ended=ended,
        sold_at=sold_at,
        seen_at=fetched_at,
        url=link_without_query(card.link) if card.link else None,
        marketplace=marketplace_of(url) or (marketplace_of(card.link) if card.link else None),
    )


def parse_ebay_results(html: bytes | str, url: str, fetched_at: datetime) -> EbayResultsPage:
    """Every real listing on one search results page, in page order.

    Raises ParseError when the page is not an eBay results page, or when it states
    results but no listing can be read from it (the markup changed).
    """
    text = _decode(html, url)
    try:
        # huge_tree: without it libxml2 silently drops everything after a text node of more
        # than 10 MB (a big inline script), which would read as "no results". A parser per
        # call, because lxml parsers must not be shared between threads.
        parser = lxml_html.HTMLParser(huge_tree=True, remove_comments=True)
        root = lxml_html.document_fromstring(text, parser=parser)
    except (etree.ParserError, ValueError) as exc:
        raise ParseError(NAME, url, f"unreadable HTML: {exc}") from None
    stated_count = _stated_count(root)
    containers = _RESULTS_XPATH(root) or [root]
    cards = [node for container in containers for node in _CARD_XPATH(container)]
    markup: Markup = "s-card"
    reader: Callable[[Any], _Card] = _s_card
    if not cards:
        cards = [node for container in containers for node in _ITEM_XPATH(container)]
        if cards:
            markup, reader = "s-item", _s_item
    site_currency = _site_currency(url)
    site = market_of_site(urlsplit(url).hostname or "")
    decimal = site.decimal if site is not None else None  # "1.234" on ebay.de is 1,234 euros
    listings: list[Listing] = []
    for node in cards:
        card = reader(node)
        if _is_placeholder(card):
            continue
        listings.append(_listing(card, url, fetched_at, site_currency, decimal))
    if not listings:
        if stated_count == 0:
            return EbayResultsPage(listings=[], stated_count=0, markup=markup)
        if stated_count is None and not cards:
            raise ParseError(NAME, url, "no result list and no result count: not an eBay results page?")
        raise ParseError(NAME, url, f"page states {stated_count} results but none could be read: markup changed?")
    return EbayResultsPage(listings=listings, stated_count=stated_count, markup=markup)


# ---- the source ------------------------------------------------------------------------------

class EbayHtmlSettings(BaseModel):
    # NoDecode: GPUVALUE_EBAY_HTML_MARKETS=US,UK,DE is a plain comma list (JSON works too).
    ebay_html_markets: Annotated[tuple[str, ...], NoDecode] = Field(
        default=DEFAULT_EBAY_MARKETS, description="eBay sites whose search pages ebay-html reads (US, UK, DE, CA, AU)")

    @field_validator("ebay_html_markets", mode="before")
    @classmethod
    def _markets(cls, value: object) -> object:
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                import json

                value = json.loads(text)
            else:
                value = [part for part in text.split(",") if part.strip()]
        return tuple(dict.fromkeys(market(str(name)).code for name in value))  # type: ignore[attr-defined]


_WHAT_TO_DO = ("eBay's Browse API reads active listings with keys (EBAY_CLIENT_ID and EBAY_CLIENT_SECRET, "
               "source ebay-browse)")


def _get(ctx: FetchContext, out: SourceFetch, url: str) -> tuple[FetchedPage | None, str | None]:
    """A search page and what eBay did instead of answering it (None when it answered)."""
    try:
        page = ctx.client.get(url, source=NAME)
    except RobotsDisallowed as exc:
        if "//signin." in exc.url:  # sent to the sign-in site, which robots.txt closes to us
            return None, "a sign-in page"
        out.warnings.append(f"{NAME}: skipped, robots.txt disallows it: {exc}")
        ctx.report(out.warnings[-1])
        return None, "robots.txt"
    except AccessRefused as exc:
        return None, f"a refusal ({exc.what.removesuffix(' (not retried)')})"
    return page, page_refusal(page.body, getattr(page, "final_url", None))


def _market_fetch(ctx: FetchContext, m: EbayMarket, queries: list[str]) -> tuple[SourceFetch, str | None]:
    """One market's searches, sold first, then active listings once eBay refuses the sold ones; and what
    eBay did where it refused every search (None where it answered some)."""
    out = SourceFetch(NAME)
    sold, read = True, 0
    for i, query in enumerate(queries, start=1):
        kind = "sold" if sold else "active"
        ctx.step(f"{NAME}: {m.label} {kind} search {i}/{len(queries)}: {query}", i, len(queries))
        page, refusal = _get(ctx, out, ebay_search_url(query, sold=sold, site=m.site))
        if refusal and sold and refusal != "robots.txt":
            out.warnings.append(f"{NAME}: {m.label} answered the sold search with {refusal} (sold results need "
                                "an eBay account since 2026-07); reading its active listings instead: asking "
                                f"prices, never counted as sold. {_WHAT_TO_DO}")
            ctx.report(out.warnings[-1])
            sold, kind = False, "active"
            page, refusal = _get(ctx, out, ebay_search_url(query, sold=False, site=m.site))
        if refusal:
            if refusal != "robots.txt" and read == 0:
                return out, refusal
            if refusal != "robots.txt":
                out.warnings.append(f"{NAME}: {m.label} answered the {kind} search for {query!r} with {refusal} "
                                    f"after {read} searches; its other searches skipped. {_WHAT_TO_DO}")
            break  # the same wall or rule covers every search of the site
        assert page is not None
        out.pages.append(page)
        read += 1
    return out, None


def _fetch(ctx: FetchContext) -> SourceFetch:
    """Every market at once (each is its own site, so the client's one-request-per-site spacing still
    holds), merged in market order. A market that fails or refuses leaves the others; the source fails
    only when no market gave a page."""
    queries = list(ctx.shopping_list or ctx.settings.ebay_queries)
    markets = [market(code) for code in getattr(ctx.settings, "ebay_html_markets", DEFAULT_EBAY_MARKETS)]
    with ThreadPoolExecutor(max_workers=max(1, len(markets)), thread_name_prefix="ebay-html") as pool:
        futures = [pool.submit(_market_fetch, ctx, m, queries) for m in markets]
    out = SourceFetch(NAME)
    refused: dict[str, list[EbayMarket]] = {}  # what eBay did -> the markets that did it to every search
    errors: list[tuple[EbayMarket, FetchError]] = []
    for m, future in zip(markets, futures, strict=True):
        try:
            fetched, refusal = future.result()
        except FetchError as exc:
            errors.append((m, exc))
            continue
        out.pages += fetched.pages
        out.warnings += fetched.warnings
        if refusal:
            refused.setdefault(refusal, []).append(m)
    if not out.pages and errors:
        raise errors[0][1]
    for m, failure in errors:
        out.warnings.append(f"{NAME}: {m.label} failed: {failure.what}")
    for refusal, refusing in refused.items():
        line = (f"{', '.join(m.label for m in refusing)} answered every search with {refusal}, not a result list: "
                f"nothing read there. {_WHAT_TO_DO}")
        if not out.pages:
            raise AccessRefused(f"https://{refusing[0].site}/", line)
        out.warnings.append(f"{NAME}: {line}")
    return out


def _parse(page: FetchedPage) -> ParsedSource:
    return ParsedSource(NAME, "listing", listings=list(parse_ebay_results(page.body, page.url, page.fetched_at).listings))


SOURCE = Source(
    name=NAME,
    kind="listing",
    export_kind="listings",
    attribution="Used-market prices: eBay listings (eBay Inc. and its sellers)",
    licence="eBay content; prices cited as facts",
    fetch=_fetch,
    parse=_parse,
    settings=EbayHtmlSettings,
    sample_url="https://www.ebay.com/sch/i.html?_nkw=rtx",
    fixtures=("listings/ebay_srp_scard_sold_2026-07_seller_auctionetl.html.gz",
              "listings/ebay_srp_sitem_2022-11_apple_ebayde_parsy.html.gz"),
    hosts=tuple(m.site.removeprefix("www.") for m in EBAY_MARKETS.values()),
)
