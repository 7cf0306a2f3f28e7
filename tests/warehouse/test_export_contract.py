"""One contract per output: each download's row (models/export_rows.py) against everything that states
it again: the published JSON Schema, the Parquet file's columns, the CSV and JSON writers' field lists
and the warehouse table or view it is read from (types, and a table's nullability)."""

from __future__ import annotations

import json
import types
import typing
from datetime import date

import pytest
from pydantic import Field, create_model

from gpuvalue.models.export_rows import ExportRow, RankingRow, RentalRow, RentVsBuyRow
from gpuvalue.warehouse import sql_files
from gpuvalue.warehouse.outputs import export, rental_export
from gpuvalue.warehouse.db import open_database

BOUNDS = ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "minLength")
JSON_TYPE = {str: "string", type(None): "null", bool: "boolean", int: "integer", float: "number"}
DUCKDB_TYPE = {str: "VARCHAR", int: "INTEGER", float: "DOUBLE", bool: "BOOLEAN", date: "DATE"}


def _shape(prop: dict, defs: dict) -> dict:
    """A property of either schema as comparable facts: JSON types, enum values, format, bounds."""
    if "$ref" in prop:
        return _shape(defs[prop["$ref"].rsplit("/", 1)[1]], defs)
    if "anyOf" in prop:
        parts = [_shape(p, defs) for p in prop["anyOf"]]
        merged = {"types": frozenset().union(*(p["types"] for p in parts))}
        for key in ("enum", "format", *BOUNDS):
            values = [p[key] for p in parts if p.get(key) is not None]
            merged[key] = values[0] if values else None
        return merged
    kinds = prop.get("type")
    enum = prop.get("enum")
    if kinds is None and enum is not None:
        kinds = sorted({JSON_TYPE[type(v)] for v in enum})
    kinds = frozenset([kinds] if isinstance(kinds, str) else kinds or ())
    if enum is not None:
        kinds |= {"null"} if None in enum else set()
        enum = frozenset(v for v in enum if v is not None)
    return {"types": kinds, "enum": enum, "format": prop.get("format"), **{b: prop.get(b) for b in BOUNDS}}


def schema_differences(contract: type[ExportRow], published: dict, row_def: str = "row") -> list[str]:
    row, defs = published["$defs"][row_def], published["$defs"]
    generated = contract.model_json_schema()
    problems = []
    if set(row["properties"]) != set(generated["properties"]):
        problems.append(f"fields: only published {sorted(set(row['properties']) - set(generated['properties']))}, "
                        f"only in the contract {sorted(set(generated['properties']) - set(row['properties']))}")
    if set(row.get("required", ())) != set(generated.get("required", ())):
        problems.append(f"required: published {sorted(row.get('required', ()))}, contract {sorted(generated['required'])}")
    if row.get("additionalProperties") is not False:
        problems.append("the published row allows other fields; the contract forbids them")
    for name in sorted(set(row["properties"]) & set(generated["properties"])):
        theirs, ours = _shape(row["properties"][name], defs), _shape(generated["properties"][name], generated.get("$defs", {}))
        if theirs != ours:
            problems.append(f"{name}: published {theirs}, contract {ours}")
    return problems


def _python_type(annotation) -> tuple[type, bool]:
    """(the value's type, whether None is allowed) of a field's annotation."""
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        return _python_type(inner[0])[0], type(None) in args
    if typing.get_origin(annotation) is typing.Literal:
        return type(args[0]), False
    return annotation, False


def ddl_differences(contract: type[ExportRow], columns: dict[str, tuple[str, bool]], *,
                    nullability: bool = True) -> list[str]:
    """Each field against its column; ``nullability`` off for a view (DuckDB calls every view column
    nullable)."""
    problems = []
    for name, field in contract.model_fields.items():
        if name not in columns:
            problems.append(f"{name}: not a column of the table")
            continue
        kind, nullable = _python_type(field.annotation)
        data_type, column_nullable = columns[name]
        if DUCKDB_TYPE[kind] != data_type:
            problems.append(f"{name}: {data_type} in the table, {kind.__name__} in the contract")
        if nullability and nullable != column_nullable:
            problems.append(f"{name}: {'nullable' if column_nullable else 'NOT NULL'} in the table, "
                            f"{'optional' if nullable else 'required'} in the contract")
    return problems


@pytest.fixture(scope="module")
def con():
    connection = open_database(":memory:")
    yield connection
    connection.close()


def _columns(con, table: str) -> dict[str, tuple[str, bool]]:
    return {name: (data_type, nullable) for table_name, _i, name, data_type, nullable, _default
            in sql_files.rows(con, "model_table_columns") if table_name == table}


def _view_columns(con, view: str) -> dict[str, tuple[str, bool]]:
    described = con.execute(f"DESCRIBE {view}").fetchall()  # SQL built from identifiers: a view named by the test
    return {name: (data_type, True) for name, data_type, *_ in described}


def test_the_writers_read_their_fields_from_the_contract():
    assert export.RANKING_CSV_COLUMNS == RankingRow.csv_columns()
    assert export.RANKING_JSON_FIELDS == RankingRow.json_fields()
    assert RankingRow.csv_columns()[:2] == ("rank", "model") and "perf_method" not in RankingRow.csv_columns()


def test_the_published_json_schema_states_the_contract():
    published = json.loads(export.SCHEMA_PATH.read_text(encoding="utf-8"))
    assert schema_differences(RankingRow, published) == []


def test_the_parquet_columns_are_the_contracts(con):
    table = sql_files.arrow_table(con, "ranking_day_parquet", [date(2026, 1, 1)])
    assert tuple(table.column_names) == RankingRow.json_fields()


def test_the_ranking_table_holds_every_field_with_its_type_and_nullability(con):
    assert ddl_differences(RankingRow, _columns(con, "ranking_daily")) == []


def test_a_field_stated_differently_anywhere_fails():
    published = json.loads(export.SCHEMA_PATH.read_text(encoding="utf-8"))
    wider = create_model("Wider", __base__=RankingRow, perf_median=(float | None, None))
    assert any("only in the contract ['perf_median']" in p for p in schema_differences(wider, published))
    narrower = create_model("Narrower", __base__=RankingRow, price_kind=(typing.Literal["sold", "asking"], ...),
                            rank=(int, Field(ge=0)))
    assert [p.split(":")[0] for p in schema_differences(narrower, published)] == ["price_kind", "rank"]
    assert ddl_differences(wider, {**{n: ("VARCHAR", True) for n in RankingRow.model_fields}}) != []
    columns = {name: (DUCKDB_TYPE[_python_type(f.annotation)[0]], _python_type(f.annotation)[1])
               for name, f in RankingRow.model_fields.items()}
    assert ddl_differences(RankingRow, columns) == []
    assert ddl_differences(RankingRow, {**columns, "rank": ("INTEGER", True)}) == [
        "rank: nullable in the table, required in the contract"]
    assert ddl_differences(wider, columns) == ["perf_median: not a column of the table"]


def test_the_rental_files_and_the_comparison_state_their_contracts(con):
    assert rental_export.RENTAL_COLUMNS == RentalRow.json_fields()
    assert rental_export.RENT_VS_BUY_COLUMNS == RentVsBuyRow.json_fields()
    published = json.loads(rental_export.RENTAL_SCHEMA_PATH.read_text(encoding="utf-8"))
    assert schema_differences(RentalRow, published) == []
    assert schema_differences(RentVsBuyRow, published, "comparison") == []
    assert tuple(sql_files.arrow_table(con, "rental_ranking_export").column_names) == RentalRow.json_fields()
    view = _view_columns(con, "rent_ranking_latest")
    view["framework_support"] = _columns(con, "gpus")["framework_support"]  # the export's one join
    assert ddl_differences(RentalRow, view, nullability=False) == []
