"""r/hardwareswap and its sister subreddits: selling posts split into priced items.

A post's title says what the seller has (``[H] ...``) and wants (``[W] ...``); prices
live only in the body, as free text, lines like ``RTX 3080 - $450 shipped``, table rows
``| 3070 | $380 |`` or ``3080 12GB: 500 CAD``. Each item of the ``[H]`` part becomes one
listing, priced from the body line that names it. An item whose price cannot be found
keeps ``price=None`` rather than borrowing another item's price.

With Reddit app credentials the source reads the authenticated JSON listing
(``oauth.reddit.com``), which Reddit's API terms allow for scripts with a token. Without them it
asks for each subreddit's Atom feed (``/r/<sub>/new/.rss``), since about 2026-05-29 Reddit answers
anonymous ``.json`` requests with 403 whatever the User-Agent; but only where Reddit's robots.txt
allows it (the HTTP client reads it, through protego). Reddit's robots.txt of 2026 disallows the feeds,
so a keyless run reads no Reddit posts and says so in one line naming the keys that would; where the
feeds are allowed they answer with 429 rate limits that the client waits out (Retry-After, bounded).
The feed has no flair, so nothing read from it is known sold: its prices are asking prices. The subreddits are a setting
(``GPUVALUE_HARDWARESWAP_SUBREDDITS``), each priced in its own currency where a post writes a bare
"$" (``CURRENCY_BY_SUBREDDIT``).
"""

from __future__ import annotations

import html as html_lib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlencode, urlsplit
from xml.etree import ElementTree

from lxml import html as lxml_html
from pydantic import BaseModel, SecretStr, field_validator
from pydantic import Field as _Field
from pydantic_settings import NoDecode

from gpuvalue.models.records import FetchedPage, Listing
from gpuvalue.models.source_batches import ParsedSource, SourceFetch
from gpuvalue.scrapers.bounded import DtdRefused, declares_dtd, json_document, xml_root
from gpuvalue.scrapers.errors import AccessRefused, FetchError, HostUnreachable, NotRecordedError, ParseError, RobotsDisallowed
from gpuvalue.scrapers.http import RobotsUnavailable
from gpuvalue.scrapers.money import iter_prices
from gpuvalue.scrapers.source import FetchContext, Recording, Source, page_from_file

NAME = "hardwareswap"
REDDIT = "https://www.reddit.com"
SOLD_FLAIRS = frozenset({"sold", "closed", "completed", "trade completed"})
SKIPPED_FLAIRS = frozenset({"buying", "mod approved", "mod post", "meta", "announcement", "price check"})
# The currency of a bare "$" (or no currency at all) in each subreddit's posts; one not listed is USD.
CURRENCY_BY_SUBREDDIT = {"hardwareswap": "USD", "canadianhardwareswap": "CAD", "hardwareswapuk": "GBP",
                         "hardwareswapaustralia": "AUD"}
DEFAULT_SUBREDDITS = ("hardwareswap", "CanadianHardwareSwap", "hardwareswapuk", "HardwareSwapAustralia")

_TAG = re.compile(r"\[\s*([HW])\s*\]", re.I)
_PAYMENT_WORDS = re.compile(
    r"\b(?:pay ?pal|cash|local|emt|e-?transfer|etrans|venmo|zelle|g&s|f&f|money|monies|trades?|offers?|"
    r"google wallet|verified|or|and|g ?& ?s|\$\d+)\b|[,/+&]",
    re.I,
)
_ITEM_SPLIT = re.compile(r"\s*(?:,|;|\||\s&\s|\s&amp;\s|\band\b(?=\s+(?:an?\s+)?[A-Z0-9]))\s*")
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "the a an and or with w for in of to x gb tb mb new used bnib sealed brand box boxed edition "
    "ea each shipped local pickup only plus".split()
)
_STRIKE = re.compile(r"~~.*?~~", re.S)
_MARKDOWN_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


@dataclass(frozen=True)
class RedditPage:
    listings: list[Listing]
    after: str | None
    posts_seen: int


def hardwareswap_new_url(
    subreddit: str = "hardwareswap", limit: int = 100, after: str | None = None, *, authenticated: bool = True
) -> str:
    """Newest posts as JSON; the pipeline uses the authenticated form (``oauth.reddit.com``)."""
    params: list[tuple[str, str]] = [("limit", str(int(limit))), ("raw_json", "1")]
    if after:
        params.append(("after", after))
    query = urlencode(params)
    if authenticated:
        return f"https://oauth.reddit.com/r/{subreddit}/new?{query}"
    return f"https://www.reddit.com/r/{subreddit}/new.json?{query}"


def hardwareswap_feed_url(subreddit: str = "hardwareswap", limit: int = 100) -> str:
    """Newest posts as an Atom feed: what Reddit still serves without app credentials."""
    return f"https://www.reddit.com/r/{subreddit}/new/.rss?limit={int(limit)}"


def _subreddit_of(url: str, fallback: str | None = None) -> str:
    match = re.search(r"/r/([A-Za-z0-9_]+)", url or "")
    name = match.group(1) if match else (fallback or "hardwareswap")
    return name.lower()


def have_part(title: str) -> str | None:
    """The text after ``[H]`` up to ``[W]`` (or the end), unescaped; None without an [H] tag."""
    text = html_lib.unescape(title)
    tags = list(_TAG.finditer(text))
    for index, tag in enumerate(tags):
        if tag.group(1).upper() == "H":
            end = tags[index + 1].start() if index + 1 < len(tags) else len(text)
            return text[tag.end() : end].strip(" -:")
    return None


def _is_payment_only(have: str) -> bool:
    """``[H] PayPal, Local cash`` is a buying post: nothing but money words."""
    leftover = _PAYMENT_WORDS.sub(" ", have)
    return not re.search(r"[A-Za-z0-9]", leftover)


def split_items(have: str) -> list[str]:
    """The separate things in an [H] part; "X99 Mobo + Xeon" stays one bundle."""
    pieces: list[str] = []
    current, depth = "", 0
    index = 0
    while index < len(have):
        char = have[index]
        if char == "(":
            depth += 1
        elif char == ")" and depth:
            depth -= 1
        if depth == 0:
            match = _ITEM_SPLIT.match(have, index)
            if match and match.end() > index:
                pieces.append(current)
                current = ""
                index = match.end()
                continue
        current += char
        index += 1
    pieces.append(current)
    items = []
    for piece in pieces:
        item = re.sub(r"^(?:and|also|plus)\s+", "", " ".join(piece.split()).strip(" -:.!"), flags=re.I)
        if item and _tokens(item) and not _is_payment_only(item):
            items.append(item)
    return items


def _tokens(text: str) -> list[str]:
    return [t for t in _WORD.findall(text.lower()) if t not in _STOP]


_REFERENCE_PRICE = re.compile(r"(?:retail|msrp|paid|bought (?:it )?for|originally|new for|value|worth)\W*(?:\w+\W*){0,3}$", re.I)
_GROUP_PRICE = re.compile(r"^\W*(?:\w+\W+){0,2}?(?:for (?:both|all|the lot|everything)|bundle|combo|together|as a (?:whole|unit))", re.I)


def _prices_in(line: str, default_currency: str) -> list[tuple[float, str]]:
    """Asking prices on a line (read by ``scrapers/money.py``); retail/paid prices and prices for
    several items are left out."""
    found: list[tuple[float, str]] = []
    for money in iter_prices(line, default=default_currency):
        start, end = money.span or (0, 0)
        if _REFERENCE_PRICE.search(line[max(0, start - 30) : start]):
            continue
        if _GROUP_PRICE.search(line[end : end + 30]) or re.search(
            r"(?:whole|both|bundle|combo)\W*$", line[max(0, start - 25) : start], re.I
        ):
            continue
        if money.amount > 0 and line[end:end + 1] != "%":
            found.append((money.amount, money.currency or default_currency))
    return found


def _body_lines(selftext: str) -> list[str]:
    text = _MARKDOWN_LINK.sub(r"\1", _STRIKE.sub(" ", html_lib.unescape(selftext)))
    return [line.strip() for line in text.splitlines() if line.strip()]


def price_items(items: list[str], selftext: str, currency: str) -> list[tuple[float, str] | None]:
    """For each item, the first price on the body line that shares the most of its words.

    Words with digits (model numbers like 3080 or a380) must match for a line to count;
    with a single item, a lone price anywhere in the body is taken as its price.
    """
    lines = [(line, _prices_in(line, currency)) for line in _body_lines(selftext)]
    priced = [(line, prices) for line, prices in lines if prices]
    result: list[tuple[float, str] | None] = []
    for item in items:
        item_tokens = set(_tokens(item))
        key_tokens = {t for t in item_tokens if any(c.isdigit() for c in t) and not t.isdigit() or (t.isdigit() and len(t) >= 3)}
        best: tuple[int, tuple[float, str]] | None = None
        for line, prices in priced:
            line_tokens = set(_tokens(line))
            if not key_tokens & line_tokens and len(item_tokens & line_tokens) < 2:
                continue
            score = len(item_tokens & line_tokens) + 2 * len(key_tokens & line_tokens)
            if score >= 2 and (best is None or score > best[0]):
                best = (score, prices[0])
        if best is None and len(items) == 1:
            all_prices = [p for _, prices in priced for p in prices]
            if len({p for p in all_prices}) == 1:
                best = (0, all_prices[0])
            elif all_prices and len(priced) == 1:
                best = (0, all_prices[0])
        result.append(best[1] if best else None)
    return result


def _post_listings(
    *,
    post_id: str,
    title: str,
    selftext: str,
    flair: str | None,
    created: datetime,
    permalink_url: str,
    subreddit: str,
    seen_at: datetime,
) -> list[Listing]:
    have = have_part(title)
    if have is None or _is_payment_only(have):
        return []
    items = split_items(have)
    if not items:
        return []
    currency = CURRENCY_BY_SUBREDDIT.get(subreddit.lower(), "USD")
    sold = (flair or "").strip().lower() in SOLD_FLAIRS
    prices = price_items(items, selftext, currency)
    listings = []
    for number, (item, price) in enumerate(zip(items, prices, strict=True), start=1):
        listings.append(
            Listing(
                source=NAME,
                listing_id=f"{post_id}#{number}",
                title=item,
                price=price[0] if price else None,
                currency=price[1] if price else currency,
                condition="used",
                sold=sold,
                ended=sold,
                sold_at=created if sold else None,
                seen_at=seen_at,
                url=permalink_url,
                marketplace=f"r/{subreddit}",
            )
        )
    return listings


def _load_json(body: bytes, url: str) -> Any:
    try:
        text = bytes(body).decode("utf-8") if not isinstance(body, str) else body
        return json.loads(text)
    except (UnicodeDecodeError, ValueError, RecursionError, TypeError) as exc:
        raise ParseError(NAME, url, f"not a JSON document: {str(exc)[:100]}") from None


def parse_reddit_listing(body: bytes, url: str, fetched_at: datetime) -> RedditPage:
    """Selling posts of one ``/new`` JSON page; buying posts and stickied threads are skipped."""
    data = _load_json(body, url)
    if not isinstance(data, dict) or data.get("kind") != "Listing" or not isinstance(data.get("data"), dict):
        raise ParseError(NAME, url, "not a Reddit Listing object")
    children = data["data"].get("children")
    if not isinstance(children, list):
        raise ParseError(NAME, url, "Listing without a children list")
    after = data["data"].get("after")
    if after is not None and not isinstance(after, str):
        raise ParseError(NAME, url, "after is not a string")
    listings: list[Listing] = []
    for child in children:
        if not isinstance(child, dict) or not isinstance(child.get("data"), dict):
            raise ParseError(NAME, url, "child is not a {kind, data} object")
        if child.get("kind") != "t3":
            continue
        post = child["data"]
        post_id, title = post.get("id"), post.get("title")
        created, permalink = post.get("created_utc"), post.get("permalink")
        if not isinstance(post_id, str) or not isinstance(title, str):
            raise ParseError(NAME, url, "post without id or title")
        if isinstance(created, bool) or not isinstance(created, int | float):
            raise ParseError(NAME, url, f"post {post_id} without a numeric created_utc")
        if not isinstance(permalink, str) or not permalink.startswith("/"):
            raise ParseError(NAME, url, f"post {post_id} without a permalink")
        flair = post.get("link_flair_text")
        flair = flair if isinstance(flair, str) else None
        selftext = post.get("selftext")
        selftext = selftext if isinstance(selftext, str) else ""
        if post.get("stickied") is True or (flair or "").strip().lower() in SKIPPED_FLAIRS:
            continue
        try:
            created_at = datetime.fromtimestamp(created, tz=UTC)
        except (OverflowError, OSError, ValueError):
            raise ParseError(NAME, url, f"post {post_id} has an impossible created_utc") from None
        subreddit = post.get("subreddit") if isinstance(post.get("subreddit"), str) else _subreddit_of(url)
        listings.extend(
            _post_listings(
                post_id=post_id,
                title=title,
                selftext=selftext,
                flair=flair,
                created=created_at,
                permalink_url=REDDIT + permalink,
                subreddit=subreddit,
                seen_at=fetched_at,
            )
        )
    return RedditPage(listings=listings, after=after, posts_seen=len(children))


_ATOM = "{http://www.w3.org/2005/Atom}"


def _atom_text(entry: ElementTree.Element, tag: str) -> str | None:
    node = entry.find(_ATOM + tag)
    return node.text if node is not None else None


def _html_to_text(fragment: str) -> str:
    """Selftext from the feed's escaped HTML, one line per paragraph, list item or row."""
    if not fragment.strip():
        return ""
    try:
        root = lxml_html.fragment_fromstring(fragment, create_parent="div")
    except Exception:  # lxml raises several unrelated types on junk; junk has no prices
        return ""
    for node in root.iter("p", "li", "tr", "br", "h1", "h2", "h3", "h4", "td", "th"):
        node.tail = ("\n" if node.tag not in ("td", "th") else " | ") + (node.tail or "")
    text = root.text_content()
    return text.split("submitted by", 1)[0]


def parse_hardwareswap_atom(body: bytes, url: str, fetched_at: datetime) -> list[Listing]:
    """Selling posts of a ``/new`` Atom feed (no flair there, so nothing is known sold)."""
    if isinstance(body, str):
        body = body.encode("utf-8")
    if declares_dtd(body):
        raise ParseError(NAME, url, "feed declares a DOCTYPE or entities: refused")
    try:
        root = xml_root(bytes(body))
    except DtdRefused:
        raise ParseError(NAME, url, "feed declares a DOCTYPE or entities: refused") from None
    except (ElementTree.ParseError, ValueError, TypeError) as exc:
        raise ParseError(NAME, url, f"not well-formed XML: {exc}") from None
    if root.tag != _ATOM + "feed":
        raise ParseError(NAME, url, f"root element is {root.tag!r}, not an Atom feed")
    subreddit = _subreddit_of(url)
    category = root.find(_ATOM + "category")
    if category is not None and category.get("term"):
        subreddit = category.get("term", "").lower()
    listings: list[Listing] = []
    for entry in root.findall(_ATOM + "entry"):
        entry_id, title = _atom_text(entry, "id"), _atom_text(entry, "title")
        updated = _atom_text(entry, "updated")
        link = entry.find(_ATOM + "link")
        href = link.get("href") if link is not None else None
        if not entry_id or title is None or not updated or not href:
            raise ParseError(NAME, url, "entry lacks id, title, updated or link")
        try:
            created = datetime.fromisoformat(updated)
        except ValueError:
            raise ParseError(NAME, url, f"entry {entry_id} has a bad date {updated!r:.40}") from None
        try:
            parts = urlsplit(href)
        except ValueError:  # an unclosed IPv6 host, say: no permalink can be made of it
            raise ParseError(NAME, url, f"entry {entry_id} has a bad link {href!r:.60}") from None
        listings.extend(
            _post_listings(
                post_id=entry_id.removeprefix("t3_"),
                title=title,
                selftext=_html_to_text(_atom_text(entry, "content") or ""),
                flair=None,
                created=created,
                permalink_url=f"{REDDIT}{parts.path}",
                subreddit=subreddit,
                seen_at=fetched_at,
            )
        )
    return listings


# ---- the source ------------------------------------------------------------------------------

REDDIT_TOKEN_URL = "https://www.reddit.com/api/v1/access_token"


class HardwareswapSettings(BaseModel):
    reddit_client_id: SecretStr | None = _Field(default=None, validation_alias="REDDIT_CLIENT_ID")
    reddit_client_secret: SecretStr | None = _Field(default=None, validation_alias="REDDIT_CLIENT_SECRET")
    # NoDecode: GPUVALUE_HARDWARESWAP_SUBREDDITS=hardwareswap,hardwareswapuk is a plain comma list.
    hardwareswap_subreddits: Annotated[tuple[str, ...], NoDecode] = _Field(
        default=DEFAULT_SUBREDDITS,
        description="subreddits hardwareswap reads (r/ optional); a bare $ is CAD in r/CanadianHardwareSwap, GBP in "
                    "r/hardwareswapuk, AUD in r/HardwareSwapAustralia, else USD")

    @field_validator("hardwareswap_subreddits", mode="before")
    @classmethod
    def _subreddits(cls, value: object) -> object:
        if isinstance(value, str):
            text = value.strip()
            value = json.loads(text) if text.startswith("[") else [p for p in text.split(",") if p.strip()]
        names = []
        for raw in value:  # type: ignore[attr-defined]
            name = str(raw).strip().removeprefix("/").removeprefix("r/")
            if not re.fullmatch(r"[A-Za-z0-9_]{2,21}", name):
                raise ValueError(f"not a subreddit name: {raw!r}")
            names.append(name)
        return tuple(dict.fromkeys(names))


def _fetch(ctx: FetchContext) -> SourceFetch:
    """Reddit's API with app credentials when given (its terms require them; a replay answers the token
    itself); else each subreddit's Atom feed. A subreddit that fails leaves the others."""
    import base64

    s = ctx.settings
    out = SourceFetch(NAME)
    headers: dict[str, str] = {}
    authenticated = ctx.replay or (s.reddit_client_id is not None and s.reddit_client_secret is not None)
    if authenticated:
        pair = "replay:replay" if ctx.replay else \
            f"{s.reddit_client_id.get_secret_value()}:{s.reddit_client_secret.get_secret_value()}"
        basic = base64.b64encode(pair.encode()).decode("ascii")
        try:
            token_page = ctx.client.post_form(REDDIT_TOKEN_URL, source=NAME, data={"grant_type": "client_credentials"},
                                              headers={"Authorization": f"Basic {basic}"})
        except AccessRefused as exc:  # wrong or revoked keys: the feeds need none
            authenticated = False
            out.warnings.append(f"{NAME}: Reddit refused the app credentials ({exc.what.removesuffix(' (not retried)')}); "
                                "reading the Atom feeds instead (no flair: asking prices only)")
            ctx.report(out.warnings[-1])
        else:
            try:
                token = json_document(token_page.body)["access_token"]
            except (ValueError, KeyError, TypeError):
                raise ParseError(NAME, REDDIT_TOKEN_URL, "token response without access_token") from None
            headers = {"Authorization": f"Bearer {token}"}
    failed: list[tuple[str, FetchError]] = []
    disallowed: list[str] = []
    unrecorded = 0
    subreddits = s.hardwareswap_subreddits
    for i, subreddit in enumerate(subreddits, start=1):
        url = hardwareswap_new_url(subreddit) if authenticated else hardwareswap_feed_url(subreddit)
        ctx.step(f"{NAME}: r/{subreddit} ({i}/{len(subreddits)})", i, len(subreddits))
        try:
            page = ctx.client.get(url, source=NAME, headers=headers)
        except NotRecordedError:  # only a replay answers so: the archive holds no recording of this subreddit
            unrecorded += 1
            continue
        except RobotsDisallowed:  # Reddit's robots.txt disallows the feeds to crawlers: obeyed, never fetched
            disallowed.append(subreddit)
            continue
        except FetchError as exc:
            failed.append((subreddit, exc))
            if isinstance(exc, (RobotsUnavailable, HostUnreachable)):
                # The site, not the subreddit: the others would get the same answer.
                failed += [(other, exc) for other in subreddits[i:]]
                out.warnings.append(f"{NAME}: {', '.join(f'r/{n}' for n in subreddits[i - 1:])} failed: {exc.what}")
                break
            out.warnings.append(f"{NAME}: r/{subreddit} failed: {exc.what}")
            ctx.report(out.warnings[-1])
            continue
        if page is not None:
            out.pages.append(page)
    if unrecorded:
        out.warnings.append(f"{NAME}: {unrecorded} of {len(subreddits)} subreddits have no recording in the replay "
                            "archive; skipped")
    if disallowed:  # one line for all: the site's rule, not the subreddit's
        line = (f"robots.txt of www.reddit.com disallows {', '.join(f'r/{n}' for n in disallowed)} "
                f"({'the Atom feeds' if not authenticated else 'these pages'}): not fetched, so no Reddit posts "
                "are read; REDDIT_CLIENT_ID and REDDIT_CLIENT_SECRET (a free Reddit script app) read them through "
                "Reddit's API")
        if not out.pages and not failed:
            raise RobotsDisallowed(hardwareswap_feed_url(disallowed[0]), line)
        out.warnings.append(f"{NAME}: {line}")
        ctx.report(out.warnings[-1])
    if failed and not out.pages:
        first = failed[0][1]
        by_what: dict[str, list[str]] = {}  # one wall or outage usually answers every subreddit alike
        for name, error in failed:
            by_what.setdefault(error.what, []).append(f"r/{name}")
        raise type(first)(first.url, "; ".join(f"{', '.join(names)}: {what}" for what, names in by_what.items()),
                          retryable=all(e.retryable for _, e in failed))
    return out


# The recorded listing of r/CanadianHardwareSwap (tests/fixtures/listings/PROVENANCE.md): stored under the
# URL the authenticated fetch requests, captured no earlier than its newest post (2026-02-23 23:48 UTC).
_RECORDED_SUB = ("CanadianHardwareSwap", "listings/reddit_canadianhardwareswap_new_2026-02-23.json",
                 datetime(2026, 2, 23, 23, 48, tzinfo=UTC),
                 "pauljones0/betterHardwareSwap@45fc297fb2f0c68df035fb46fe24d941c6b3f0c9:internal/reddit/sample.json "
                 "(posts 2026-02-01 to 2026-02-23), MIT, copied unchanged")


def _replay(fixtures: Path) -> Iterator[Recording]:
    subreddit, rel, captured, provenance = _RECORDED_SUB
    body = (fixtures / rel).read_bytes()
    yield Recording(page_from_file(NAME, body, hardwareswap_new_url(subreddit), captured, "application/json"), provenance)


def parse_hardwareswap_page(body: bytes, url: str, fetched_at: datetime) -> list[Listing]:
    """The JSON listing or the Atom feed, whichever the page is."""
    if body.lstrip()[:1] == b"<":
        return list(parse_hardwareswap_atom(body, url, fetched_at))
    return list(parse_reddit_listing(body, url, fetched_at).listings)


def _parse(page: FetchedPage) -> ParsedSource:
    return ParsedSource(NAME, "listing", listings=parse_hardwareswap_page(page.body, page.url, page.fetched_at))


SOURCE = Source(
    name=NAME,
    kind="listing",
    export_kind="listings",
    attribution="Used-market prices: r/hardwareswap posts (Reddit and its users)",
    licence="Reddit content; prices cited as facts",
    fetch=_fetch,
    parse=_parse,
    replay=_replay,
    settings=HardwareswapSettings,
    sample_url="https://www.reddit.com/r/hardwareswap/new.json",
    fixtures=("listings/reddit_canadianhardwareswap_new_2026-02-23.json", "listings/reddit_hardwareswap_new_2017-10-18.atom.xml"),
    hosts=("reddit.com",),
)
