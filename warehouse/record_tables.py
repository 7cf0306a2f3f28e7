"""Tables a record kind declares and how its batches are written: the DDL, the columns a load adds,
and one function per write disposition (``merge`` on a key, ``replace`` a source's rows or its rows
of some partitions), for every kind that declares it (``stored_as``, ``models/record_columns.py``).

A raw table whose rows are records (``listings``: ``models/listing_row.py``; ``rental_offers``:
``models/rental.py``) has no model file of its own: its ``CREATE TABLE`` is derived here from the record's columns (``models/record_columns.py``),
and ``warehouse/layers.py`` treats it as a model like the others (built, compared by ``drift``,
shown in the lineage). A load writes whatever columns its batch has: a nullable column the table
lacks is added first, so a field new on the record reaches the table, the load and ``gpuvalue sql``
with no edit here; a column the table has and the batch lacks is loaded as NULL.

Nothing here names a column: names come from the record or from the catalog, and every statement
built from them is built from identifiers. The rules of a merge that name columns are SQL
(``warehouse/sql/merge_listings.sql``); the columns they leave take the newest observation.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import duckdb

from gpuvalue.models import listing_row, rental
from gpuvalue.models.record_columns import JSON_METADATA, Column, WriteDisposition
from gpuvalue.warehouse import sql_files

if TYPE_CHECKING:  # pyarrow is a load's: the reading commands build and compare the DDL without it
    import pyarrow as pa


@dataclass(frozen=True)
class RecordTable:
    name: str
    layer: str
    columns: tuple[Column, ...]
    declared_in: str  # the module declaring the record, relative to the checkout
    doc: str
    primary_key: tuple[str, ...] = ()  # a key DuckDB enforces (listings keeps its own: no index)


# Every table a record kind declares.
RECORD_TABLES: tuple[RecordTable, ...] = (
    RecordTable(listing_row.TABLE, "raw", listing_row.ROW_COLUMNS, "models/listing_row.py",
                (listing_row.__doc__ or "").strip()),
    RecordTable(rental.OFFERS_TABLE, "raw", rental.offer_row_columns(), "models/rental.py",
                "Every offer a rental source published, by the date of its data (RentalOffer and OfferLoad,\n"
                "models/rental.py): a re-load of a date replaces that date's rows of its source.",
                rental.OFFERS_KEY),
)

# By the Arrow type's name (models/record_columns.py).
_SQL_TYPES: dict[str, str] = {
    "string": "VARCHAR", "large_string": "VARCHAR", "double": "DOUBLE", "int32": "INTEGER", "int64": "BIGINT",
    "bool": "BOOLEAN", "timestamp[us]": "TIMESTAMP", "date32[day]": "DATE",
    "null": "VARCHAR",  # a column no record of the batch filled
}


def ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def sql_type(arrow: str, is_json: bool = False) -> str:
    """The warehouse type of an Arrow type (by its name)."""
    if is_json:
        return "JSON"
    try:
        return _SQL_TYPES[arrow]
    except KeyError:
        raise TypeError(f"no warehouse type for the Arrow type {arrow}") from None


def literal(value: bool | int | float | str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return "'" + value.replace("'", "''") + "'"


def _definition(column: Column) -> str:
    default = "" if column.default is None else f" DEFAULT {literal(column.default)}"
    return f"{ident(column.name)} {sql_type(column.arrow, column.json)}{'' if column.nullable else ' NOT NULL'}{default}"


def create_statement(table: RecordTable) -> str:
    """The table's ``CREATE TABLE IF NOT EXISTS``, its record's docstring as its comment."""
    comment = "\n".join(f"-- {line}".rstrip() for line in table.doc.splitlines())
    body = ",\n".join([f"    {_definition(c)}" for c in table.columns]
                      + ([f"    PRIMARY KEY ({', '.join(table.primary_key)})"] if table.primary_key else []))
    return f"{comment}\nCREATE TABLE IF NOT EXISTS {table.name} (\n{body}\n);\n"


def stored_columns(con: duckdb.DuckDBPyConnection, table: str) -> list[str]:
    return [name for name, _type, _nullable in sql_files.rows(con, "table_columns", {"table": table})]


def add_columns(con: duckdb.DuckDBPyConnection, table: str, wanted: Sequence[Column]) -> list[str]:
    """Add the nullable ``wanted`` columns ``table`` lacks; the names added. A NOT NULL column it
    lacks is a migration's to add (its rows need a value), and refused here."""
    have = set(stored_columns(con, table))
    added = []
    for column in wanted:
        if column.name in have:
            continue
        if not column.nullable:
            raise RuntimeError(f"{table} has no column {column.name}, which is not nullable: a migration adds it")
        # SQL built from identifiers: a column the record declares and the stored table lacks.
        con.execute(f"ALTER TABLE {ident(table)} ADD COLUMN IF NOT EXISTS {ident(column.name)} "
                    f"{sql_type(column.arrow, column.json)}")
        added.append(column.name)
    return added


def add_declared_columns(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every nullable column a record declares and its stored table lacks, added (``table.column``)."""
    return [f"{t.name}.{name}" for t in RECORD_TABLES for name in add_columns(con, t.name, t.columns)]


def batch_columns(batch: pa.Table) -> list[Column]:
    """A batch's columns as the warehouse stores them (JSON where the field is marked so)."""
    return [Column(f.name, str(f.type), nullable=True, json=(f.metadata or {}).get(b"json") == JSON_METADATA[b"json"])
            for f in batch.schema]


def fit_batch(con: duckdb.DuckDBPyConnection, table: str, batch: pa.Table) -> pa.Table:
    """The batch, ready for ``table``: the table first gains the batch's columns it lacks, and the
    batch gains the table's columns it lacks, as NULL."""
    add_columns(con, table, batch_columns(batch))
    missing = [name for name in stored_columns(con, table) if name not in batch.schema.names]
    if missing:
        import pyarrow as pa

        for name in missing:
            batch = batch.append_column(name, pa.nulls(batch.num_rows))
    return batch


_SET = re.compile(r"^\s*(\w+)\s*=", re.MULTILINE)
_UPDATE_SET = re.compile(r"\bUPDATE\s+SET\b", re.IGNORECASE)


def merge(con: duckdb.DuckDBPyConnection, table: str, name: str) -> None:
    """Run the one-statement file ``name``: a ``MERGE ... WHEN MATCHED THEN UPDATE SET`` that sets the
    columns its rules name, last in the file; every other column of ``table`` is set to the incoming
    row's (aliased ``i``), the newest observation, whatever columns its record has today."""
    (statement,) = sql_files.statements(name)
    ruled = set(_SET.findall(_UPDATE_SET.split(statement, maxsplit=1)[1]))
    rest = ", ".join(f"{ident(n)} = i.{ident(n)}" for n in stored_columns(con, table) if n not in ruled)
    con.execute(statement + (f", {rest}" if rest else ""))  # SQL built from identifiers: the columns no rule names


def replace(con: duckdb.DuckDBPyConnection, disposition: WriteDisposition, batch: pa.Table | None, *,
            source: str, partitions: Sequence[object] = ()) -> int:
    """Write a batch of a kind that replaces (``replace_source``: ``source``'s rows; ``replace_partition``:
    its rows of ``partitions``, the batch's partitions and any whose records were all dropped), then
    inserts the batch by name, whatever columns its record has; the rows written. An empty or missing
    batch still replaces: a source that publishes nothing more has no rows left."""
    if disposition.how not in ("replace_source", "replace_partition"):
        raise ValueError(f"{disposition.table} is written by {disposition.how}, not by replacing")
    table, where = ident(disposition.table), f"{ident(disposition.source)} = ?"
    params: list[object] = [source]
    if disposition.partition is not None:
        where += f" AND list_contains(?, {ident(disposition.partition)})"
        params.append(list(partitions))
    delete = f"DELETE FROM {table} WHERE {where}"  # SQL built from identifiers: the table and columns its record declares
    con.execute(delete, params)
    if batch is None or batch.num_rows == 0:
        return 0
    batch = fit_batch(con, disposition.table, batch)
    with sql_files.registered(con, "incoming_records", batch):
        insert = f"INSERT INTO {table} BY NAME SELECT * FROM incoming_records"  # SQL built from identifiers: its table
        con.execute(insert)
    return batch.num_rows
