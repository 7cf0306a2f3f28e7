"""eBay's sold listings of the RTX 3070 and the RTX 3090 from their launches to December 2020: a
historical archive, opt-in.

driscoll42/ebayMarketAnalyzer saved eBay US's sold search results (``LH_Sold=1&LH_Complete=1``,
category 27386, above a minimum price) for the cards of the 2020 launches; its sheets of the two
cards, last changed in early December 2020, are shipped here as CSV (``scrapers/data/ebay_launch_2020/``,
provenance beside them):

- RTX 3070: 4,411 sales from 2020-10-29 to 2020-12-05, searched from $499;
- RTX 3090: 3,903 sales from 2020-09-18 to 2020-12-05, searched from $700.

These are launch-shortage prices, years old, of two cards, and the searches' minimum price cut the
cheapest sales off: history, never today's price. So the source is opt-in (``GPUVALUE_SOURCES=...,
ebay-launch-2020``), and its sales keep their own dates everywhere: each listing is sold on its sale
day (``sold_at``; the sold price observations are dated by it) and seen on 2020-12-05, the archive's
newest sale (the day the scrape reached; the sheets do not say when it ran, and no sale is seen before
it was sold). A ranking of a later day therefore shows such a price with its 2020 ``price_as_of``,
flagged stale and, beside any newer price, in the older tier; a fresh price of the card, or an index
month more than the comparable days (90) newer, stands for the card instead.

Rows are read by the CSV import's reader (``scrapers/listing_csv.py``: these sheets are the format it
was written for): the glued "New Listing" badge and invisible marks are taken off titles, the
subtitle's first part gives the condition, and rows with an absurd price are left out (counted in a
warning). Listings of a photo of the card or of its box ("jpg", "(IMAGE ONLY)", "Read description"),
which the shortage brought, are the shared title rules' to refuse.

The same sheets can also be imported as CSV (``gpuvalue import``); an import is told apart from other
imports of a sale, not from this source, so import them or name this source, not both, or each sale
counts twice.
"""

from __future__ import annotations

import gzip
from datetime import date
from pathlib import Path

from gpuvalue.models.records import Listing
from gpuvalue.models.source_batches import ParsedSource
from gpuvalue.scrapers.listing_csv import read_listing_csv
from gpuvalue.scrapers.source import Source, at_midnight_utc

NAME = "ebay-launch-2020"

DATA_DIR = Path(__file__).parent.parent / "data" / "ebay_launch_2020"
_REPO = "driscoll42/ebayMarketAnalyzer"
_COMMIT = "17215f359ddaf06479dad7caaffbf8fb78ccfc65"
# (shipped file, the sheet it was converted from)
FILES = (
    ("ebay_sold_2020_rtx3070_driscoll42.csv.gz", "Spreadsheets/RTX 3070.xlsx"),
    ("ebay_sold_2020_rtx3090_driscoll42.csv.gz", "Spreadsheets/RTX 3090.xlsx"),
)
NEWEST_SALE = date(2020, 12, 5)
SEEN_AT = at_midnight_utc(NEWEST_SALE)


def sheet_url(sheet: str) -> str:
    """Where a sheet lives upstream (named in errors and on each listing's batch)."""
    return f"https://github.com/{_REPO}/blob/{_COMMIT}/{sheet.replace(' ', '%20')}"


def read_archive(data_dir: Path = DATA_DIR) -> tuple[list[Listing], list[str]]:
    """Every sale of the shipped sheets, in file order, and a warning per sheet with rows left out."""
    listings: list[Listing] = []
    warnings: list[str] = []
    for file_name, sheet in FILES:
        text = gzip.decompress((data_dir / file_name).read_bytes()).decode("utf-8")
        read = read_listing_csv(text, NAME, SEEN_AT, url=sheet_url(sheet))
        listings.extend(read.listings)
        if read.rejected:
            reasons = "; ".join(f"row {row}: {why}" for row, why in read.rejected[:3])
            more = f"; and {len(read.rejected) - 3} more" if len(read.rejected) > 3 else ""
            warnings.append(f"{NAME}: {sheet}: {len(read.rejected)} rows left out ({reasons}{more})")
    return listings, warnings


def _load() -> ParsedSource:
    listings, warnings = read_archive()
    return ParsedSource(NAME, "listing", listings=listings, warnings=warnings)


SOURCE = Source(
    name=NAME,
    kind="listing",
    export_kind="listings",
    attribution=("Historical used-market prices: eBay US sold listings of the RTX 3070 and RTX 3090, 2020-09-18 to "
                 "2020-12-05, as collected by driscoll42/ebayMarketAnalyzer (eBay and its sellers)"),
    licence="prices cited as facts; eBay's and its sellers' content; the repository states no licence",
    load_embedded=_load,
    default=False,  # 2020's launch prices: history a user asks for, never a default price
    label="eBay sold 2020 archive",
)
