"""A published used-market price index: one card's average sold price over one calendar month.

An index is somebody else's average (an editor's, after removing junk listings), so it is kept
apart from the pipeline's own observations: it checks them (``price_index_vs_own``) and prices a
card that has none, but it never enters the own sold or asking medians.

Two dates, because an article published in one month may report another month's sales (the
November 2023 article of Tom's Hardware's index reports October): ``month`` is what the prices
are for, ``published`` the article they were read from.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import ClassVar

from pydantic import Field, model_validator

from gpuvalue.models.record_columns import WriteDisposition
from gpuvalue.models.records import Record


class PriceIndexPoint(Record):
    """One row of a price index, as published; the enrich stage adds the catalog model it names (or
    why none: ``models/index_matching.py``)."""

    # A re-import is the new truth for its source: rows a source no longer publishes go.
    stored_as: ClassVar[WriteDisposition] = WriteDisposition("price_index_monthly", "replace_source")

    source: str
    gpu_name: str  # as published, e.g. "GeForce RTX 3060 12GB"
    # The catalog model, None when the name is not exactly one (a wrong model is worse than none), and
    # why: both None as parsed, set by the enrich stage.
    model: str | None = None
    match_reason: str | None = None
    month: date  # first day of the month the prices are for
    avg_sold_usd: float = Field(gt=0)
    quantity_sold: int | None = Field(default=None, ge=0)  # None when not given (or not a count)
    # How many asking prices the figure is the mean of, for an index of listings rather than sales (a
    # monthly report's best deal: the 3 cheapest); None for an index of sales. ``avg_sold_usd`` then
    # holds that mean, named by the source's declared statistic wherever it is shown.
    prices_averaged: int | None = Field(default=None, ge=1)
    published: date  # first day of the month of the article or file the row comes from
    table: str  # which published file, e.g. "gpu_time_series.csv" or "data/2023-11/table_0.csv"
    # What the enrich stage reads, as the page gives it (never stored): the title naming the card where
    # the index writes it otherwise than ``gpu_name`` (a link's card with the memory its text states),
    # and every name of the same published table, priced or not (where one names a variant apart, a
    # bare name is the other; left out of a record's JSON, which would repeat the table on every row).
    match_title: str | None = None
    listed_beside: tuple[str, ...] = Field(default=(), exclude=True, repr=False)

    @model_validator(mode="after")
    def _months(self) -> PriceIndexPoint:
        for name in ("month", "published"):
            if getattr(self, name).day != 1:
                raise ValueError(f"{name} must be the first day of its month: {getattr(self, name)}")
        if self.month > self.published:
            raise ValueError(f"prices for {self.month} cannot be published in {self.published}")
        return self


@dataclass(frozen=True)
class IndexNaming:
    """How a price index names its cards, as its source declares it (``Source.index_naming``).

    ``names_checked`` (an index of editors' tables, which list variants apart): the model must not
    lack what the name states (a memory, a revision word), two names of one table never share a
    model, and a name stating no memory is the card's launch variant unless its variants launched
    together. Otherwise a name stating no memory where the catalog holds the card in several memories
    is none of them. ``note_title``: the reason says which title was read ("(as ...)")."""

    names_checked: bool = False
    note_title: bool = False
