"""One mapping between the payload dataclasses and their Avro records (dicts keyed by Avro field name).

Every field of a payload dataclass names its Avro field in its metadata, with :func:`avro`
(``file_id: str | None = field(default=None, metadata=avro("fileId"))``), or collects the
record's fields that have no attribute, with :func:`unknown_fields`. The value conversion follows
the field's type:

* ``str``, ``int``, ``float``, ``bool``, ``bytes``, ``Any``: kept as they are;
* a payload class (an :class:`AvroRecord`): its record, converted the same way;
* ``tuple[T, ...]``: an Avro array (a list in records), each item converted as ``T``;
* ``Mapping[str, T]``: an Avro map (a new dict), each value converted as ``T``;
* ``T | None``: ``None`` stays ``None``, other values convert as ``T``; a non-optional array, map
  or payload that is ``None`` is an error.

Any other type is refused (:class:`TypeError`) when the class is first mapped. A field's own
``encode`` / ``decode`` converter replaces the typed conversion of its value where Hudi's records
need more than it (e.g. doubles, a fixed set of map keys); like the typed one, it is not called
for the ``None`` of an optional field.

Decoding a record that lacks a field (one written with an older schema version) gives the field's
``missing`` value (``None`` unless declared), or raises :class:`KeyError` for a ``required`` one.
The conversions are planned once per class (:func:`plan_of`): decoding commit metadata with 100,000
write stats is on the planning hot path.
"""

from __future__ import annotations

import dataclasses
import operator
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Self, Union, get_args, get_origin, get_type_hints

Record = dict[str, Any]
Convert = Callable[[Any], Any]

METADATA_KEY = "maintainer.avro"
SCALARS: frozenset[Any] = frozenset({str, int, float, bool, bytes, Any})


@dataclass(frozen=True, slots=True)
class AvroField:
    """How one dataclass field maps to its Avro field (see the module docstring)."""

    name: str
    required: bool = False
    missing: Any = None
    encode: Convert | None = None
    decode: Convert | None = None


_UNKNOWN_FIELDS = object()


def avro(
    name: str,
    *,
    required: bool = False,
    missing: Any = None,
    encode: Convert | None = None,
    decode: Convert | None = None,
) -> dict[str, Any]:
    """The ``dataclasses.field`` metadata mapping a field to the Avro field ``name``."""
    if required and missing is not None:
        raise ValueError(f"Avro field {name}: a required field has no missing value")
    return {METADATA_KEY: AvroField(name, required, missing, encode, decode)}


def unknown_fields() -> dict[str, Any]:
    """The metadata of the field that keeps a source's fields that no attribute maps (never encoded)."""
    return {METADATA_KEY: _UNKNOWN_FIELDS}


class AvroRecord:
    """Base of the payload dataclasses: :meth:`from_record` and :meth:`to_record` by field metadata."""

    __slots__ = ()

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Self:
        """The model of the Avro record (or Jackson JSON object) ``record``."""
        model: Self = plan_of(cls).decode(record)
        return model

    def to_record(self) -> Record:
        """The Avro record of this model (what fastavro encodes with the model's schema)."""
        return plan_of(type(self)).encode(self)


@dataclass(frozen=True, slots=True)
class _Field:
    name: str
    attribute: str
    required: bool
    missing: Any
    optional: bool
    """Whether the value may be None (then kept as None, not converted)."""
    encode: Convert | None
    decode: Convert | None


class Plan:
    """The planned conversions of one payload class, both ways."""

    __slots__ = (
        "attributes", "by_name", "cls", "complete", "decoders", "defaults", "encoders", "items", "keys",
        "required", "unknown", "values",
    )  # fmt: skip

    def __init__(self, cls: type[AvroRecord]) -> None:
        self.cls = cls
        hints = get_type_hints(cls)
        fields: list[_Field] = []
        self.unknown: str | None = None
        for declared in dataclasses.fields(cls):  # type: ignore[arg-type]
            spec = declared.metadata.get(METADATA_KEY)
            if spec is _UNKNOWN_FIELDS:
                self.unknown = declared.name
            elif isinstance(spec, AvroField):
                fields.append(_planned_field(cls, declared.name, spec, hints[declared.name]))
            else:
                raise TypeError(f"{cls.__name__}.{declared.name} has no Avro field (metadata=avro(...))")
        self.keys = tuple(f.name for f in fields)
        self.attributes = tuple(f.attribute for f in fields)
        self.by_name = {f.name: (f.attribute, f.decode, f.optional) for f in fields}
        self.complete = frozenset(self.keys)
        self.required = tuple(f.name for f in fields if f.required)
        self.defaults = {f.attribute: f.missing for f in fields if not f.required}
        self.items = _getter(operator.itemgetter, self.keys)
        self.values = _getter(operator.attrgetter, self.attributes)
        self.decoders = tuple((f.attribute, f.decode, f.optional) for f in fields if f.decode is not None)
        self.encoders = tuple(
            (index, f.name, f.encode, f.optional) for index, f in enumerate(fields) if f.encode is not None
        )

    def decode(self, record: Mapping[str, Any]) -> Any:
        """The model of ``record``: its fields converted, absent ones given their missing value."""
        if record.keys() != self.complete:
            return self._decode_partial(record)
        values = dict(zip(self.attributes, self.items(record), strict=False))
        for attribute, decode, optional in self.decoders:
            value = values[attribute]
            if value is not None or not optional:
                values[attribute] = decode(value)
        if self.unknown is not None:
            values[self.unknown] = {}
        return self.cls(**values)

    def _decode_partial(self, record: Mapping[str, Any]) -> Any:
        """As :meth:`decode`, for a record that lacks fields or has fields no attribute maps."""
        for name in self.required:
            if name not in record:
                raise KeyError(name)
        values = self.defaults.copy()
        unknown: dict[str, Any] = {}
        by_name = self.by_name
        for name, value in record.items():
            planned = by_name.get(name)
            if planned is None:
                unknown[name] = value
                continue
            attribute, decode, optional = planned
            if decode is None or (value is None and optional):
                values[attribute] = value
            else:
                values[attribute] = decode(value)
        if self.unknown is not None:
            values[self.unknown] = unknown
        return self.cls(**values)

    def unconverted(self, model: Any) -> Record:
        """Every Avro field of ``model`` with its attribute's value as it is (no conversion)."""
        return dict(zip(self.keys, self.values(model), strict=False))

    def encode(self, model: Any) -> Record:
        """The record of ``model``: every Avro field, converted (unknown fields left out)."""
        values = self.values(model)
        record = dict(zip(self.keys, values, strict=False))
        for index, name, encode, optional in self.encoders:
            value = values[index]
            if value is not None or not optional:
                record[name] = encode(value)
        return record


def _getter(
    make: Callable[..., Callable[[Any], Any]], keys: tuple[str, ...]
) -> Callable[[Any], tuple[Any, ...]]:
    """``make(*keys)`` (an item or attribute getter), always giving a tuple (also for one key)."""
    if len(keys) == 1:
        single = make(keys[0])
        return lambda source: (single(source),)
    return make(*keys)


_PLANS: dict[type[Any], Plan] = {}


def plan_of(cls: type[AvroRecord]) -> Plan:
    """The conversions of payload class ``cls``, planned on first use."""
    plan = _PLANS.get(cls)
    if plan is None:
        plan = _PLANS[cls] = Plan(cls)
    return plan


def _planned_field(cls: type[Any], attribute: str, spec: AvroField, hint: Any) -> _Field:
    where = f"{cls.__name__}.{attribute}"
    present = _optional_type(hint, where)
    decode, encode = _converters(hint if present is None else present, where)
    return _Field(
        name=spec.name,
        attribute=attribute,
        required=spec.required,
        missing=spec.missing,
        optional=present is not None,
        encode=spec.encode or encode,
        decode=spec.decode or decode,
    )


def _optional_type(hint: Any, where: str) -> Any:
    """``T`` of the optional type ``T | None``; None if ``hint`` is not a union."""
    if get_origin(hint) not in (Union, types.UnionType):
        return None
    present = [arg for arg in get_args(hint) if arg is not types.NoneType]
    if len(present) != 1:
        raise TypeError(f"{where}: cannot map the union {hint} to Avro")
    return present[0]


def _converters(hint: Any, where: str) -> tuple[Convert | None, Convert | None]:
    """(decode, encode) of a value of type ``hint``; None where the value is kept as it is."""
    present = _optional_type(hint, where)
    if present is not None:
        decode, encode = _converters(present, where)
        return _or_none(decode), _or_none(encode)
    origin, args = get_origin(hint), get_args(hint)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        decode, encode = _converters(args[0], where)
        return _tuple_of(decode), _list_of(encode)
    if origin is Mapping and args[:1] == (str,):
        decode, encode = _converters(args[1], where)
        return _map_of(decode), _map_of(encode)
    if hint in SCALARS:
        return None, None
    if isinstance(hint, type) and issubclass(hint, AvroRecord):
        nested = plan_of(hint)
        return nested.decode, nested.encode
    raise TypeError(f"{where}: cannot map {hint} to Avro (not a scalar, payload, tuple or str-keyed Mapping)")


def _or_none(convert: Convert | None) -> Convert | None:
    if convert is None:
        return None
    return lambda value: None if value is None else convert(value)


def _tuple_of(convert: Convert | None) -> Convert:
    if convert is None:
        return tuple
    return lambda values: tuple(map(convert, values))


def _list_of(convert: Convert | None) -> Convert:
    if convert is None:
        return list
    return lambda values: list(map(convert, values))


def _map_of(convert: Convert | None) -> Convert:
    if convert is None:
        return lambda values: dict(values.items())
    return lambda values: {key: convert(value) for key, value in values.items()}
