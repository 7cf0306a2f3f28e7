"""How each record kind is written is declared on the kind (``stored_as``) and written once by the
warehouse (warehouse/record_tables.py): merged on a key, replacing its source's rows, or replacing its
source's rows of the partitions a batch holds."""

from __future__ import annotations

from contextlib import closing
from datetime import date

import pyarrow as pa
import pytest

from gpuvalue.models.harness import HarnessFigure
from gpuvalue.models.price_index import PriceIndexPoint
from gpuvalue.models.record_columns import WriteDisposition
from gpuvalue.models.records import InferenceFigure, Listing
from gpuvalue.models.rental import RentalOffer
from gpuvalue.warehouse import layers, record_tables
from gpuvalue.warehouse.db import open_database

KINDS = (Listing, RentalOffer, PriceIndexPoint, InferenceFigure, HarnessFigure)


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_each_kind_declares_a_table_and_columns_the_warehouse_has(kind):
    declared: WriteDisposition = kind.stored_as
    with closing(open_database(":memory:")) as con:
        columns = record_tables.stored_columns(con, declared.table)
    assert declared.table in layers.by_name()
    named = [*declared.key, *(() if declared.how == "merge" else (declared.source,)),
             *(() if declared.partition is None else (declared.partition,))]
    assert named and set(named) <= set(columns), (declared, columns)


def test_a_disposition_names_what_it_needs_and_nothing_else():
    with pytest.raises(ValueError):
        WriteDisposition("t", "merge")
    with pytest.raises(ValueError):
        WriteDisposition("t", "replace_partition")
    with pytest.raises(ValueError):
        WriteDisposition("t", "replace_source", key=("k",))


def _batch(source: str, day: date, value: float) -> pa.Table:
    """One figure of the day (its workload named by the day: perf_inference's key has no date)."""
    return pa.Table.from_pylist([{"model": "Card A", "source": source, "workload": f"w{day:%m}", "phase": "text-generation",
                                  "tokens_per_s": value, "gpu_count": 1, "as_of": day}])


def test_replacing_by_source_and_by_partition_are_written_once():
    """The same code replaces a source's rows, or its rows of some partitions, for any table."""
    by_source = InferenceFigure.stored_as
    by_day = WriteDisposition(by_source.table, "replace_partition", partition="as_of")
    d1, d2 = date(2026, 1, 1), date(2026, 2, 1)
    with closing(open_database(":memory:")) as con:
        def stored() -> list[tuple]:
            return con.execute("SELECT source, as_of, tokens_per_s FROM perf_inference ORDER BY ALL").fetchall()

        con.execute("ALTER TABLE perf_inference ALTER COLUMN loaded_at DROP NOT NULL")  # these batches carry none
        assert record_tables.replace(con, by_source, _batch("a", d1, 1.0), source="a") == 1
        assert record_tables.replace(con, by_source, _batch("b", d1, 5.0), source="b") == 1
        assert record_tables.replace(con, by_source, _batch("a", d2, 2.0), source="a") == 1
        assert stored() == [("a", d2, 2.0), ("b", d1, 5.0)]  # a's earlier rows gone, b's kept
        assert record_tables.replace(con, by_day, _batch("a", d1, 3.0), source="a", partitions=[d1]) == 1
        assert stored() == [("a", d1, 3.0), ("a", d2, 2.0), ("b", d1, 5.0)]  # a's other day kept
        assert record_tables.replace(con, by_source, None, source="a") == 0  # nothing published: nothing left
        assert stored() == [("b", d1, 5.0)]
        with pytest.raises(ValueError, match="merge"):
            record_tables.replace(con, Listing.stored_as, None, source="a")
