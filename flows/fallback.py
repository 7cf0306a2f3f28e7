"""What a live run does when a source fails: nothing it stored is lost, and the run says how old it is.

A source that fails keeps its last stored data (nothing deletes it; the ranking goes on using it as
long as the price rules allow, with its date), and its one failure line says how old that data is.
A source whose data also ships with gpuvalue (specs, benchmarks, the price index, the rental
catalogs: the recordings of the replay archive) and that has nothing stored reads the shipped data
instead, dated as recorded, so a first run without network still ranks from it. Listing sources
never do: a recorded listing is a price of its own day, which a shipped page cannot bring up to date.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path

import duckdb

from gpuvalue.models.source_batches import ParsedSource, SourceFetch
from gpuvalue.scrapers import registry

STATUS = "fallback"  # a source that failed and was read from the shipped data instead (runs.status)


@dataclass(frozen=True)
class Fallback:
    parsed: ParsedSource
    note: str  # the run's words for it, after the failure: "read the data shipped with gpuvalue instead (...)"


def stored_data_dates(con: duckdb.DuckDBPyConnection) -> dict[str, date]:
    """Each source's newest data date in the warehouse (the date its data is of, not when it was fetched)."""
    from gpuvalue.warehouse.source_dates import sources_from_db

    found: dict[str, date] = {}
    for row in sources_from_db(con):
        if row.get("as_of"):
            found[row["name"]] = date.fromisoformat(str(row["as_of"])[:10])
    return found


def kept_note(name: str, stored: dict[str, date], today: date) -> str:
    """What a failed source leaves the ranking, in words: its stored data's date and age, or none."""
    day = stored.get(name)
    if day is None:
        return "nothing of it is stored yet"
    age = (today - day).days
    return f"keeps its data of {day.isoformat()} ({'today' if age == 0 else f'{age} days old'})"


@lru_cache(maxsize=1)
def _shipped_archive_dir() -> Path:
    from gpuvalue.scrapers.replay import packaged_replay_dir

    return packaged_replay_dir()


def shipped_sources() -> frozenset[str]:
    """Sources whose data ships with gpuvalue in the replay archive, listing sources left out."""
    from gpuvalue.scrapers.archive import Archive

    recorded = Archive(_shipped_archive_dir()).sources()
    return frozenset(n for n in recorded if n in registry.all_sources() and registry.get(n).kind != "listing")


def read_shipped(name: str, settings) -> Fallback:
    """The source's shipped recordings through its own fetch and parse, as a replay reads them (each
    page dated as recorded). Never the network: the client's only transport is the archive."""
    from gpuvalue.scrapers.archive import Archive
    from gpuvalue.scrapers.http import PoliteClient
    from gpuvalue.scrapers.replay import ReplayTransport
    from gpuvalue.scrapers.source import FetchContext

    src = registry.get(name)
    assert src.fetch is not None
    client = PoliteClient(transport=ReplayTransport(Archive(_shipped_archive_dir())), min_interval_s=0.0,
                          sleep=lambda _s: None, max_retries=0)
    try:
        fetched: SourceFetch = src.fetch(FetchContext(client=client, settings=settings, replay=True))
    finally:
        client.close()
    parsed = src.parse_pages(fetched.pages)
    dates = sorted({page.fetched_at.date() for page in fetched.pages})
    when = (dates[0].isoformat() if len(dates) == 1 else f"{dates[0].isoformat()} to {dates[-1].isoformat()}") \
        if dates else "undated"
    note = f"read the data shipped with gpuvalue instead (recorded {when}, not today's)"
    parsed.warnings[:0] = [f"{name}: {note}", *fetched.warnings]
    return Fallback(parsed, note)
