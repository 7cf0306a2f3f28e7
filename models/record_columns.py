"""A record's fields read as typed columns, and how its batches are written: what its Arrow batch, its
warehouse table and its load are made from.

A record kind (a pydantic model of ``models/``) is the one declaration of its fields. The batch a
load writes (its Arrow schema) and the table it writes to (the warehouse derives the ``CREATE TABLE``
and, for a nullable field a stored table lacks, the ``ALTER TABLE ... ADD COLUMN``) are both read
from it here, so a new field is one line on its record.

The reading, field by field: the annotation without ``None`` gives the type (``str`` text,
``float`` double, ``int`` a 32-bit integer, ``bool``, ``datetime`` a timestamp in UTC without a
zone, ``date``, a ``Literal`` the type of its values, a ``dict`` a JSON object); ``None`` in the
annotation makes it nullable. A JSON bag is nullable whatever its annotation says: an empty bag is
stored as NULL. A default value (not None, not a factory) is the column's default too.

A record kind declares how its batches are written (``WriteDisposition``): merged into the stored
rows on a key (a listing seen again), replacing its source's rows (a benchmark's figures, a price
index: a re-import is the new truth), or replacing its source's rows of the partitions the batch holds
(a rental source's offers of the dates it holds, earlier dates kept as history). The warehouse writes
each disposition once (``warehouse/record_tables.py``), for every kind that declares it.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

if TYPE_CHECKING:
    import pyarrow as pa

# Marks an Arrow field whose text is a JSON object (the warehouse stores it as JSON).
JSON_METADATA = {b"json": b"true"}

# Each type as Arrow names it (``pyarrow.type_for_alias`` reads the name back): the warehouse's
# reading commands compare tables with their records without loading pyarrow.
_SCALARS: dict[type, str] = {
    str: "string", float: "double", int: "int32", bool: "bool", datetime: "timestamp[us]", date: "date32[day]",
}


Disposition = Literal["merge", "replace_source", "replace_partition"]


@dataclass(frozen=True)
class WriteDisposition:
    """How a record kind's batches are written to its table."""

    table: str
    how: Disposition
    key: tuple[str, ...] = ()  # merge: the columns naming one row
    source: str = "source"  # replace_*: the column naming whose rows a batch replaces
    partition: str | None = None  # replace_partition: the column whose values in the batch it replaces

    def __post_init__(self) -> None:
        if (self.how == "merge") != bool(self.key) or (self.how == "replace_partition") != bool(self.partition):
            raise ValueError(f"{self.table}: a merge names its key, a partition replace its partition, and only they")


@dataclass(frozen=True)
class Column:
    """One field of a record as a stored column."""

    name: str
    arrow: str  # the Arrow type's name
    nullable: bool
    json: bool = False  # a JSON object, stored as its text in Arrow and as JSON in the warehouse
    doc: str | None = None
    default: bool | int | float | str | None = None  # the record's own default, where it has a value

    def field(self) -> pa.Field:
        """As an Arrow field: always nullable in Arrow (a batch is checked by the table's own
        constraints), marked where it holds JSON."""
        import pyarrow as pa

        return pa.field(self.name, pa.type_for_alias(self.arrow), nullable=True,
                        metadata=JSON_METADATA if self.json else None)


def _without_none(annotation: Any) -> tuple[Any, bool]:
    """The annotation with ``None`` taken out of it, and whether ``None`` was in it."""
    if get_origin(annotation) in (Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        inner = args[0] if len(args) == 1 else Union[tuple(args)]  # noqa: UP007 (built from a list)
        return inner, len(args) != len(get_args(annotation))
    return annotation, False


def _arrow_type(annotation: Any, where: str) -> tuple[str, bool]:
    """The Arrow type of a field's annotation (``None`` already taken out) and whether it is JSON."""
    if get_origin(annotation) is typing.Annotated:
        return _arrow_type(get_args(annotation)[0], where)
    if get_origin(annotation) is Literal:
        kinds = {type(v) for v in get_args(annotation)}
        if len(kinds) == 1 and next(iter(kinds)) in _SCALARS:
            return _SCALARS[next(iter(kinds))], False
    if annotation in (dict, Mapping) or get_origin(annotation) in (dict, Mapping):
        return "string", True
    if annotation in _SCALARS:
        return _SCALARS[annotation], False
    raise TypeError(f"{where}: no column type for {annotation!r}")


def column(name: str, info: FieldInfo, record: str = "record") -> Column:
    """The column a record's field is stored as."""
    annotation, optional = _without_none(info.annotation)
    arrow, is_json = _arrow_type(annotation, f"{record}.{name}")
    default = info.default if isinstance(info.default, (bool, int, float, str)) else None
    return Column(name, arrow, nullable=optional or is_json, json=is_json, doc=info.description, default=default)


def columns(record: type[BaseModel], exclude: tuple[str, ...] = ()) -> tuple[Column, ...]:
    """A record's fields as columns, in the record's order, without those in ``exclude``."""
    return tuple(column(name, info, record.__name__) for name, info in record.model_fields.items()
                 if name not in exclude)


def arrow_schema(cols: tuple[Column, ...]) -> pa.Schema:
    import pyarrow as pa

    return pa.schema([c.field() for c in cols])
