"""Draw the labelled title samples from the listing fixtures, reproducibly.

Run once, before the matcher existed, as
``python tests/labels/sample_titles.py FIXTURES_LISTINGS_DIR OUT_DIR``.
It writes ``titles_tuning.csv`` and ``titles_holdout.csv`` with an empty
``expected_model`` column; the labels were then typed in by hand.
"""

from __future__ import annotations

import csv
import html
import json
import random
import re
import sys
from pathlib import Path

from bs4 import BeautifulSoup

SEED = 20240917
BROWSE_N = 760
CSV_N = 150
HTML_PER_PAGE = 25
FIELDS = ["source_file", "title", "subtitle", "condition", "expected_model", "note"]


def _key(title: str) -> str:
    return re.sub(r"\s+", " ", title).strip().casefold()


def _browse(root: Path) -> list[dict]:
    rows = []
    for path in sorted((root / "ebay_browse_api_gpuagent").glob("search-listings-*.json")):
        for item in json.loads(path.read_text(encoding="utf-8")):
            rows.append(
                {"source_file": f"ebay_browse_api_gpuagent/{path.name}", "title": item.get("title", ""),
                 "subtitle": "", "condition": item.get("condition") or ""}
            )
    return rows


def _sold_csv(root: Path, name: str) -> list[dict]:
    with open(root / name, encoding="utf-8", newline="") as handle:
        return [
            {"source_file": name, "title": r["title"], "subtitle": r["subtitle"] or "", "condition": ""}
            for r in csv.DictReader(handle)
        ]


def _have_part(title: str) -> str:
    title = html.unescape(title)
    match = re.search(r"\[H\](.*?)(\[W\]|$)", title, flags=re.IGNORECASE)
    return (match.group(1) if match else title).strip(" -")


def _reddit(root: Path) -> list[dict]:
    name = "reddit_canadianhardwareswap_new_2026-02-23.json"
    listing = json.loads((root / name).read_text(encoding="utf-8"))
    rows = [
        {"source_file": name, "title": _have_part(c["data"]["title"]), "subtitle": "", "condition": ""}
        for c in listing["data"]["children"]
        if not c["data"].get("stickied")
    ]
    name = "reddit_hardwareswap_new_2017-10-18.atom.xml"
    feed = BeautifulSoup((root / name).read_text(encoding="utf-8"), "xml")
    rows += [
        {"source_file": name, "title": _have_part(e.title.get_text()), "subtitle": "", "condition": ""}
        for e in feed.find_all("entry")
    ]
    return rows


def _srp_titles(path: Path) -> list[str]:
    soup = BeautifulSoup(path.read_text(encoding="utf-8", errors="replace"), "lxml")
    titles = [t.get_text(" ", strip=True) for t in soup.select(".s-card__title > span.su-styled-text")]
    if not titles:
        for node in soup.select(".s-item__title"):
            for hidden in node.select(".clipped, .s-item__title--tagblock, .LIGHT_HIGHLIGHT"):
                hidden.decompose()
            titles.append(node.get_text(" ", strip=True))
    return [t for t in titles if t and "shop on ebay" not in t.casefold()]


def _srp(root: Path, rng: random.Random) -> list[dict]:
    rows = []
    for path in sorted(root.glob("ebay_srp_*.html")):
        titles = sorted(set(_srp_titles(path)))
        for title in rng.sample(titles, min(HTML_PER_PAGE, len(titles))):
            rows.append({"source_file": path.name, "title": title, "subtitle": "", "condition": ""})
    return rows


def _unique(rows: list[dict]) -> list[dict]:
    seen: set[str] = set()
    out = []
    for row in rows:
        key = _key(row["title"])
        if key and key not in seen:
            seen.add(key)
            out.append(row)
    return out


def main(root: Path, out: Path) -> None:
    rng = random.Random(SEED)
    sample = rng.sample(_unique(_browse(root)), BROWSE_N)
    for name in ("ebay_sold_2020_rtx3070_driscoll42.csv", "ebay_sold_2020_rtx3090_driscoll42.csv"):
        sample += rng.sample(_unique(_sold_csv(root, name)), CSV_N)
    sample += _unique(_reddit(root))
    sample += _srp(root, rng)
    sample = _unique(sample)
    rng.shuffle(sample)
    half = len(sample) // 2
    for name, rows in (("titles_tuning.csv", sample[:half]), ("titles_holdout.csv", sample[half:])):
        rows = sorted(rows, key=lambda r: (r["source_file"], _key(r["title"])))
        with open(out / name, "w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=FIELDS)
            writer.writeheader()
            for row in rows:
                writer.writerow({**row, "expected_model": "", "note": ""})


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
