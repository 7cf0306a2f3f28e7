"""Parsing real result pages: the project's parsers vs a naive BeautifulSoup(html.parser) parse
of the same fields, and the floor of building the lxml tree alone.

    uv run python bench/bench_parse.py [--quick]
"""

from __future__ import annotations

import argparse
import gzip
import sys
import time
from datetime import date, datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.measure import REPO  # noqa: E402

LISTINGS = REPO / "tests" / "fixtures" / "listings"
SPECS = REPO / "tests" / "fixtures" / "specs"


def pages() -> dict[str, list[tuple[str, bytes]]]:
    ebay = [(p.name, gzip.decompress(p.read_bytes())) for p in sorted(LISTINGS.glob("ebay_srp_*.html.gz"))]
    tpu = [(p.name, p.read_bytes()) for p in sorted(SPECS.glob("techpowerup_*.html"))]
    return {"ebay-html": ebay, "techpowerup": tpu}


def project_parse(source: str, body: bytes, name: str) -> int:
    if source == "ebay-html":
        from gpuvalue.scrapers.sources.ebay_html import parse_ebay_results

        site = "www.ebay.de" if "ebayde" in name else "www.ebay.co.uk" if "_uk_" in name else "www.ebay.com"
        return len(parse_ebay_results(body, f"https://{site}/sch/i.html?_nkw=x", datetime.now(timezone.utc)).listings)
    from gpuvalue.scrapers.sources.techpowerup import parse_techpowerup_listing

    return len(parse_techpowerup_listing(body, "https://www.techpowerup.com/gpu-specs/", captured_on=date(2023, 1, 9)).rows)


def naive_parse(source: str, body: bytes, name: str) -> int:
    """The obvious way: BeautifulSoup with the pure-Python parser over the whole page."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(body.decode("utf-8", errors="replace"), "html.parser")
    n = 0
    if source == "ebay-html":
        for card in soup.select("li.s-card, li.s-item"):
            title = card.select_one(".s-card__title, .s-item__title")
            price = card.select_one(".s-card__price, .s-item__price")
            link = card.select_one("a[href]")
            attrs = [a.get_text(" ", strip=True) for a in card.select(".s-card__attribute-row, .s-item__detail")]
            if title and price:
                _ = (title.get_text(" ", strip=True), price.get_text(" ", strip=True), link and link["href"], attrs)
                n += 1
        return n
    table = soup.select_one("table.processors")
    for tr in table.select("tr")[1:] if table else []:
        cells = [td.get_text(" ", strip=True) for td in tr.find_all("td")]
        link = tr.find("a")
        if cells:
            _ = (cells, link and link.get("href"))
            n += 1
    return n


def lxml_floor(source: str, body: bytes, name: str) -> int:
    from lxml import html as lxml_html

    root = lxml_html.document_fromstring(body.decode("utf-8", errors="replace"))
    return 1 if root is not None else 0


def _rate(fn, source: str, items, repeat: int) -> tuple[float, int]:
    t0 = time.perf_counter()
    n = 0
    for _ in range(repeat):
        for name, body in items:
            n += fn(source, body, name)
    seconds = time.perf_counter() - t0
    return repeat * len(items) / seconds, n // repeat


def main(argv: list[str] | None = None) -> list[str]:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    repeat = 1 if args.quick else 3
    out = []
    for source, items in pages().items():
        if not items:
            out.append(f"[parse] {source}: no fixture pages found")
            continue
        size = sum(len(b) for _, b in items) / len(items) / 1024
        project_parse(source, items[0][1], items[0][0])  # warm imports
        naive_parse(source, items[0][1], items[0][0])
        p_rate, p_n = _rate(project_parse, source, items, repeat)
        n_rate, n_n = _rate(naive_parse, source, items, repeat)
        f_rate, _ = _rate(lxml_floor, source, items, repeat)
        out.append(f"[parse] {source}: {len(items)} pages, {size:.0f} KiB each on average")
        out.append(f"[parse]   project parser   {p_rate:8.1f} pages/s  ({p_n} records)")
        out.append(f"[parse]   naive bs4 html.parser {n_rate:8.1f} pages/s  ({n_n} records)")
        out.append(f"[parse]   lxml tree only (floor) {f_rate:8.1f} pages/s")
        out.append(f"[parse]   project / naive: {p_rate / n_rate:.1f}x (target >= 2x); project / floor: {p_rate / f_rate:.2f}")
    return out


if __name__ == "__main__":
    for line in main():
        print(line)
