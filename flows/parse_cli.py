"""`gpuvalue parse`: a saved page through the same parser the pipeline uses, as plain dicts."""

from __future__ import annotations

from datetime import datetime, timezone


def parse_saved_page(source: str, body: bytes, url: str) -> tuple[list[dict], list[str]]:
    now = datetime.now(timezone.utc)
    warnings: list[str] = []
    if source == "techpowerup":
        from gpuvalue.scrapers.techpowerup import parse_techpowerup_listing

        page = parse_techpowerup_listing(body, url)
        if page.capped:
            warnings.append(f"{url}: the site showed only the first 100 results; this listing is incomplete")
        return [r.model_dump(mode="json") for r in page.rows], warnings
    if source == "wikipedia-gpus":
        from gpuvalue.scrapers.wikipedia import parse_wikipedia_gpu_list

        return [r.model_dump(mode="json") for r in parse_wikipedia_gpu_list(body, url)], warnings
    if source == "ebay-browse":
        from gpuvalue.scrapers.ebay_browse import parse_browse_search

        return [li.model_dump(mode="json") for li in parse_browse_search(body, url, now).listings], warnings
    if source == "ebay-html":
        from gpuvalue.scrapers.ebay_html import parse_ebay_results

        return [li.model_dump(mode="json") for li in parse_ebay_results(body, url, now).listings], warnings
    if source == "hardwareswap":
        from gpuvalue.scrapers import hardwareswap as hs

        if body.lstrip()[:1] == b"<":
            listings = hs.parse_hardwareswap_atom(body, url, now)
        else:
            listings = hs.parse_reddit_listing(body, url, now).listings
        return [li.model_dump(mode="json") for li in listings], warnings
    if source == "lambda":
        from gpuvalue.scrapers.lambda_bench import parse_lambda_csv

        rows = parse_lambda_csv(body, url)
        return [r.model_dump(mode="json") if hasattr(r, "model_dump") else dict(r.__dict__) for r in rows], warnings
    if source == "llamacpp":
        from gpuvalue.scrapers.llamacpp_bench import parse_llamacpp_readme

        return [c.model_dump(mode="json") for c in parse_llamacpp_readme(body, url)], warnings
    raise ValueError(source)
