"""`gpuvalue parse`: a saved page through the same parser the pipeline uses, as plain dicts."""

from __future__ import annotations

from typing import Any

from gpuvalue.scrapers import registry
from gpuvalue.scrapers.source import page_from_file


def _plain(record: Any) -> dict:
    from gpuvalue.models.rental import RentalOffer, offer_json

    if isinstance(record, RentalOffer):  # the public fields first, in the documented order
        return offer_json(record)
    if hasattr(record, "model_dump"):
        return record.model_dump(mode="json")
    return dict(record.__dict__)


def parse_saved_page(source: str, body: bytes, url: str) -> tuple[list[dict], list[str]]:
    """The records a saved page holds (what the source's ``inspect`` shows, else what its parser
    yields), and warnings. KeyError for a source that parses no pages."""
    src = registry.get(source)
    if src.inspect is not None:
        records, warnings = src.inspect(body, url)
        return [_plain(r) for r in records], list(warnings)
    if src.parse is None:
        raise KeyError(source)
    parsed = src.parse(page_from_file(src.name, body, url))
    records = [*parsed.specs, *parsed.listings, *parsed.inference, *parsed.records]
    return [_plain(r) for r in records], list(parsed.warnings)
