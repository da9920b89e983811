"""The machinery of the scenario schema: typed fields, their parsing, and what is generated from them.

A table of a scenario file is a frozen dataclass whose fields are declared with :func:`spec`:
the value kind (a duration in a range, a choice, a nested table...), the documentation, the
default as a user would write it, and the field's name in the simulator's configuration::

    @dataclass(frozen=True, kw_only=True)
    class RateStep:
        \"\"\"A capacity change of the bottleneck.\"\"\"
        at: int = spec(Duration(), "time of the change")
        rate: int = spec(Rate(lo=1), "the new capacity", sim="rate_bps")

That one declaration is the single source of the field's name, unit, default, range and docs:
:func:`parse_table` checks a user's table against it (unknown keys, required fields, ranges,
with errors naming the field path), :func:`fmt_table` writes the resolved form back in user
units, :func:`sim_table` writes the simulator's form, and :func:`json_schema` and
:func:`reference` generate the JSON Schema shipped with the package and the reference page.

Why dataclasses with a validator rather than pydantic: the scenario language is mostly unit
strings ("20ms", "200p") whose parsing, range messages and canonical formatting we own anyway;
the queue-table schema is built at run time from the Rust library's description; and importing
this module costs a few milliseconds where pydantic costs ~150 ms, which every ``aqmlab``
command (and ``--help``) would pay. The dataclasses give typed objects for mypy.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from . import units
from .errors import ScenarioError

T = TypeVar("T")

Json = Any  # a value as JSON or TOML holds it


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


@dataclass(frozen=True)
class FieldSpec:
    """What :func:`spec` attaches to a dataclass field."""

    kind: Kind[Any]
    doc: str
    default: Json            # as a user writes it; REQUIRED, or None for "unset"
    sim: str | None          # the simulator's name for the field; None: not passed as is


def spec(kind: Kind[Any], doc: str, *, default: Json = REQUIRED, sim: str | None = None) -> Any:
    """Declares a field of a scenario table (see the module docstring)."""
    return dataclasses.field(metadata={"spec": FieldSpec(kind, doc, default, sim)})


def fields_of(cls: type) -> list[tuple[str, FieldSpec]]:
    return [(f.name, f.metadata["spec"]) for f in dataclasses.fields(cls)]


def sub(path: str, key: str) -> str:
    """The path of ``key`` inside the table at ``path``; a key that a dotted path cannot spell
    (empty, with a dot, a bracket or a space) is quoted."""
    if not _PLAIN_KEY.fullmatch(key):
        key = repr(key)
    return f"{path}.{key}" if path else key


_PLAIN_KEY = re.compile(r"[^.\[\]\s'\"]+")


# ---------------------------------------------------------------------------------------------
# Kinds of values


class Kind(ABC, Generic[T]):
    """A type of value: how it is read, written back, passed to the simulator and documented."""

    @abstractmethod
    def parse(self, value: Json, path: str) -> T:
        """The checked value; raises :class:`ScenarioError` naming ``path``."""

    def fmt(self, v: T) -> Json:
        """The value as a resolved scenario writes it (loadable again)."""
        return v

    def sim(self, v: T) -> Json:
        """The value in the simulator's configuration."""
        return v

    @abstractmethod
    def json_schema(self) -> dict[str, Json]:
        """A JSON Schema (draft 2020-12) accepting the user's forms."""

    @abstractmethod
    def describe(self) -> str:
        """The type and range for the reference page, e.g. ``duration in [0s, 1000000s]``."""

    def tables(self) -> list[tuple[str, type]]:
        """Nested tables, as (path suffix, dataclass), for the reference page."""
        return []


class Quantity(Kind[int]):
    """A duration, rate or size: a string with a unit, held as an integer in canonical units."""

    def __init__(self, q: units.Quantity, lo: int = 0, hi: int | None = None, lo_open: bool = False,
                 hi_open: bool = False):
        self.q, self.lo, self.lo_open, self.hi_open = q, lo, lo_open, hi_open
        self.hi = min(hi, q.hi) if hi is not None else q.hi

    def parse(self, value: Json, path: str) -> int:
        return self.q.parse(value, path, self.lo, self.hi, self.lo_open, self.hi_open)

    def fmt(self, v: int) -> str:
        return self.q.fmt(v)

    def json_schema(self) -> dict[str, Json]:
        s: dict[str, Json] = {"type": "string", "pattern": unit_pattern(self.q.units)}
        if self.q.bare_is_canonical:
            return {"anyOf": [s, {"type": "integer", "minimum": self.lo + int(self.lo_open), "maximum": self.hi}]}
        return s

    def describe(self) -> str:
        return f"{self.q.kind} in {self.q.range_text(self.lo, self.hi, self.lo_open, self.hi_open)}"


def Duration(lo: int = 0, hi: int | None = None, lo_open: bool = False) -> Quantity:  # noqa: N802
    return Quantity(units.DURATION, lo, hi, lo_open)


def Rate(lo: int = 1, hi: int | None = None) -> Quantity:  # noqa: N802
    return Quantity(units.RATE, lo, hi)


def Size(lo: int = 1, hi: int | None = None) -> Quantity:  # noqa: N802
    return Quantity(units.SIZE, lo, hi)


def unit_pattern(names: Mapping[str, int]) -> str:
    alternatives = "|".join(sorted((n.replace("/", "\\/") for n in names), key=len, reverse=True))
    return rf"^\s*[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?\s*({alternatives})\s*$"


class Limit(Kind[dict[str, int]]):
    """A queue's hard limit: '200p' or a size; canonical {"packets": n} or {"bytes": n}, with the
    count (of packets or bytes) in [lo, hi]."""

    def __init__(self, lo: int = 1, hi: int | None = None):
        self.lo, self.hi = lo, hi

    def parse(self, value: Json, path: str) -> dict[str, int]:
        limit = units.queue_limit(value, path)
        ((kind, n),) = limit.items()
        if n < self.lo or (self.hi is not None and n > self.hi):
            shown = value if isinstance(value, str) else units.fmt_limit(limit)
            top = "" if self.hi is None else f", at most {units.fmt_limit({kind: self.hi})}"
            raise ScenarioError(path, f"{shown} is outside the accepted range: at least "
                                      f"{units.fmt_limit({kind: self.lo})}{top}")
        return limit

    def fmt(self, v: dict[str, int]) -> str:
        return units.fmt_limit(v)

    def json_schema(self) -> dict[str, Json]:
        return {"anyOf": [
            {"type": "string", "pattern": r"^\s*[0-9]+\s*(p|pkts|packets)\s*$"},
            {"type": "string", "pattern": unit_pattern(units.SIZE.units)},
            {"type": "object", "properties": {"packets": {"type": "integer", "minimum": 1}},
             "required": ["packets"], "additionalProperties": False},
            {"type": "object", "properties": {"bytes": {"type": "integer", "minimum": 1}},
             "required": ["bytes"], "additionalProperties": False},
        ]}

    def describe(self) -> str:
        top = f", at most {self.hi}" if self.hi is not None else ""
        return f"queue limit: packets (`\"200p\"`) or a size (`\"200KB\"`), at least {self.lo}{top}"


class Int(Kind[int]):
    """An integer in [lo, hi], or one of ``one_of``."""

    def __init__(self, lo: int, hi: int, *, one_of: Sequence[int] = (), unit: str = ""):
        self.lo, self.hi, self.one_of, self.unit = lo, hi, tuple(one_of), unit

    def parse(self, value: Json, path: str) -> int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        if not ok or (value not in self.one_of if self.one_of else not self.lo <= value <= self.hi):
            raise ScenarioError(path, f"expected an integer {self.accepted()}, got {value!r}")
        return int(value)

    def accepted(self) -> str:
        u = f" ({self.unit})" if self.unit else ""
        if self.one_of:
            return f"among {', '.join(map(str, self.one_of))}{u}"
        return f"in [{self.lo}, {self.hi}]{u}"

    def json_schema(self) -> dict[str, Json]:
        if self.one_of:
            return {"enum": list(self.one_of)}
        return {"type": "integer", "minimum": self.lo, "maximum": self.hi}

    def describe(self) -> str:
        return f"integer {self.accepted()}"


class Float(Kind[float]):
    def __init__(self, lo: float, hi: float, *, lo_open: bool = False, hi_open: bool = False, unit: str = ""):
        self.lo, self.hi, self.lo_open, self.hi_open, self.unit = lo, hi, lo_open, hi_open, unit

    def parse(self, value: Json, path: str) -> float:
        if not units.is_number(value):
            raise ScenarioError(path, f"expected a number in {self.range_text()}, got {value!r}")
        x = float(value)
        if not math.isfinite(x):
            raise ScenarioError(path, f"{value!r} is not a finite number: expected a number in {self.range_text()}")
        ok_lo = x > self.lo if self.lo_open else x >= self.lo
        ok_hi = x < self.hi if self.hi_open else x <= self.hi
        if not (ok_lo and ok_hi):
            raise ScenarioError(path, f"expected a number in {self.range_text()}, got {value!r}")
        return x

    def range_text(self) -> str:
        u = f" {self.unit}" if self.unit else ""
        return f"{'(' if self.lo_open else '['}{self.lo:g}, {self.hi:g}{')' if self.hi_open else ']'}{u}"

    def json_schema(self) -> dict[str, Json]:
        s: dict[str, Json] = {"type": "number"}
        if math.isfinite(self.lo):
            s["exclusiveMinimum" if self.lo_open else "minimum"] = self.lo
        if math.isfinite(self.hi):
            s["exclusiveMaximum" if self.hi_open else "maximum"] = self.hi
        return s

    def describe(self) -> str:
        return f"number in {self.range_text()}"


class Bool(Kind[bool]):
    def parse(self, value: Json, path: str) -> bool:
        if not isinstance(value, bool):
            raise ScenarioError(path, f"expected true or false, got {value!r}")
        return value

    def json_schema(self) -> dict[str, Json]:
        return {"type": "boolean"}

    def describe(self) -> str:
        return "true or false"


class Str(Kind[str]):
    def __init__(self, nonempty: bool = True):
        self.nonempty = nonempty

    def parse(self, value: Json, path: str) -> str:
        if not isinstance(value, str) or (self.nonempty and not value):
            raise ScenarioError(path, f"expected a {'non-empty ' if self.nonempty else ''}string, got {value!r}")
        return value

    def json_schema(self) -> dict[str, Json]:
        return {"type": "string", "minLength": 1} if self.nonempty else {"type": "string"}

    def describe(self) -> str:
        return "string"


class Choice(Kind[str]):
    """One of a few strings; ``aliases`` maps other accepted spellings (or booleans) to one.
    ``options`` may be a function, for lists the compiled core provides (read when first used)."""

    def __init__(self, options: Sequence[str] | Callable[[], Sequence[str]], aliases: Mapping[Any, str] | None = None):
        self._options, self.aliases = options, dict(aliases or {})

    @property
    def options(self) -> tuple[str, ...]:
        return tuple(self._options() if callable(self._options) else self._options)

    def parse(self, value: Json, path: str) -> str:
        if isinstance(value, str) and value in self.options:
            return value
        for alias, meaning in self.aliases.items():
            if type(value) is type(alias) and value == alias:
                return str(meaning)
        accepted = [repr(o) for o in self.options] + [_toml(a) for a in self.aliases]
        raise ScenarioError(path, f"expected one of {', '.join(accepted)}, got {value!r}{did_you_mean(value, self.options)}")

    def json_schema(self) -> dict[str, Json]:
        return {"enum": [*self.options, *self.aliases]}

    def describe(self) -> str:
        return "one of " + ", ".join([f"`{_toml(o)}`" for o in self.options] + [f"`{_toml(a)}`" for a in self.aliases])


def _toml(v: Json) -> str:
    return ("true" if v else "false") if isinstance(v, bool) else f'"{v}"' if isinstance(v, str) else repr(v)


def did_you_mean(value: Json, options: Sequence[str]) -> str:
    if not isinstance(value, str):
        return ""
    close = difflib.get_close_matches(value, list(options), n=1, cutoff=0.7)
    return f" (did you mean '{close[0]}'?)" if close else ""


class ListOf(Kind[list[T]]):
    def __init__(self, item: Kind[T], what: str = "values", min_len: int = 0):
        self.item, self.what, self.min_len = item, what, min_len

    def parse(self, value: Json, path: str) -> list[T]:
        if not isinstance(value, list) or len(value) < self.min_len:
            some = "a non-empty list" if self.min_len else "a list"
            raise ScenarioError(path, f"expected {some} of {self.what}, got {value!r}")
        return [self.item.parse(v, f"{path}[{i}]") for i, v in enumerate(value)]

    def fmt(self, v: list[T]) -> Json:
        return [self.item.fmt(x) for x in v]

    def sim(self, v: list[T]) -> Json:
        return [self.item.sim(x) for x in v]

    def json_schema(self) -> dict[str, Json]:
        return {"type": "array", "items": self.item.json_schema(), "minItems": self.min_len}

    def describe(self) -> str:
        return f"list of {self.item.describe()}"

    def tables(self) -> list[tuple[str, type]]:
        return [("[]" + p, c) for p, c in self.item.tables()]


@dataclass(frozen=True)
class Dist:
    """A per-flow quantity: ``fixed``, ``uniform`` (lo, hi) or ``each`` (one value per flow)."""

    fixed: int | None = None
    uniform: tuple[int, int] | None = None
    each: tuple[int, ...] | None = None

    def values(self) -> list[int]:
        """The values it can take (the bounds of a uniform range)."""
        return [self.fixed] if self.fixed is not None else list(self.uniform or self.each or ())

    def map(self, f: Callable[[int], int]) -> Dist:
        if self.fixed is not None:
            return Dist(fixed=f(self.fixed))
        if self.uniform is not None:
            return Dist(uniform=(f(self.uniform[0]), f(self.uniform[1])))
        return Dist(each=tuple(f(x) for x in self.each or ()))


class DistOf(Kind[Dist]):
    """One value, ``{uniform = [lo, hi]}`` or a list with one value per flow of the group."""

    def __init__(self, item: Quantity):
        self.item = item

    def parse(self, value: Json, path: str) -> Dist:
        if isinstance(value, dict):
            if set(value) != {"uniform"} or not isinstance(value["uniform"], list) or len(value["uniform"]) != 2:
                raise ScenarioError(path, f"expected a value, {{uniform = [lo, hi]}} or a list, got {value!r}")
            lo, hi = (self.item.parse(x, f"{path}.uniform[{i}]") for i, x in enumerate(value["uniform"]))
            if lo > hi:
                raise ScenarioError(path, f"uniform bounds must satisfy lo <= hi, got {value['uniform']!r}")
            return Dist(uniform=(lo, hi))
        if isinstance(value, list):
            if not value:
                raise ScenarioError(path, "expected one value per flow, got an empty list")
            return Dist(each=tuple(self.item.parse(x, f"{path}[{i}]") for i, x in enumerate(value)))
        return Dist(fixed=self.item.parse(value, path))

    def fmt(self, v: Dist) -> Json:
        if v.fixed is not None:
            return self.item.fmt(v.fixed)
        if v.uniform is not None:
            return {"uniform": [self.item.fmt(x) for x in v.uniform]}
        return [self.item.fmt(x) for x in v.each or ()]

    def sim(self, v: Dist) -> Json:
        if v.fixed is not None:
            return {"fixed": v.fixed}
        if v.uniform is not None:
            return {"uniform": {"lo": v.uniform[0], "hi": v.uniform[1]}}
        return {"each": list(v.each or ())}

    def json_schema(self) -> dict[str, Json]:
        one = self.item.json_schema()
        return {"anyOf": [
            one,
            {"type": "object", "properties": {"uniform": {"type": "array", "items": one, "minItems": 2, "maxItems": 2}},
             "required": ["uniform"], "additionalProperties": False},
            {"type": "array", "items": one, "minItems": 1},
        ]}

    def describe(self) -> str:
        return f"{self.item.describe()}; or {{uniform = [lo, hi]}}; or a list, one per flow"


class Table(Kind[Any]):
    """A nested table: a dataclass declared with :func:`spec` fields."""

    def __init__(self, cls: type):
        self.cls = cls

    def parse(self, value: Json, path: str) -> Any:
        return parse_table(self.cls, value, path)

    def fmt(self, v: Any) -> Json:
        return fmt_table(v)

    def sim(self, v: Any) -> Json:
        return sim_table(v)

    def json_schema(self) -> dict[str, Json]:
        return {"$ref": f"#/$defs/{self.cls.__name__}"}

    def describe(self) -> str:
        return "table (see below)"

    def tables(self) -> list[tuple[str, type]]:
        return [("", self.cls)]


class Tagged(Kind[Any]):
    """A table whose ``tag`` key (e.g. ``type``) selects its dataclass; ``default`` is the variant
    used when the key is absent (None: the key is required). Each variant declares
    ``TAG: ClassVar[tuple[str, str]] = ("type", "tcp")``, written back into its resolved form."""

    def __init__(self, tag: str, variants: Mapping[str, type], default: str | None = None):
        self.tag, self.variants, self.default = tag, dict(variants), default

    def parse(self, value: Json, path: str) -> Any:
        if not isinstance(value, dict):
            raise ScenarioError(path, f"expected a table with a '{self.tag}' "
                                      f"({', '.join(map(repr, self.variants))}), got {value!r}")
        if self.tag not in value and self.default is None:
            raise ScenarioError(sub(path, self.tag), f"is required (one of {', '.join(map(repr, self.variants))})")
        name = Choice(list(self.variants)).parse(value.get(self.tag, self.default), sub(path, self.tag))
        return parse_table(self.variants[name], value, path)

    def fmt(self, v: Any) -> Json:
        return fmt_table(v)

    def sim(self, v: Any) -> Json:
        return sim_table(v)

    def json_schema(self) -> dict[str, Json]:
        return {"oneOf": [{"$ref": f"#/$defs/{c.__name__}", **({} if name == self.default else {"required": [self.tag]})}
                          for name, c in self.variants.items()]}

    def describe(self) -> str:
        return f"table, by `{self.tag}` (see below)"

    def tables(self) -> list[tuple[str, type]]:
        return [(f" ({self.tag} = \"{name}\")", c) for name, c in self.variants.items()]


class Custom(Kind[T]):
    """A kind whose parsing is a function, for the few irregular values (a loss model, a TVF)."""

    def __init__(self, parse: Callable[[Json, str], T], fmt: Callable[[T], Json], schema: dict[str, Json],
                 describe: str, sim: Callable[[T], Json] | None = None):
        self._parse, self._fmt, self._schema, self._describe, self._sim = parse, fmt, schema, describe, sim

    def parse(self, value: Json, path: str) -> T:
        return self._parse(value, path)

    def fmt(self, v: T) -> Json:
        return self._fmt(v)

    def sim(self, v: T) -> Json:
        return self._sim(v) if self._sim is not None else v

    def json_schema(self) -> dict[str, Json]:
        return self._schema

    def describe(self) -> str:
        return self._describe


# ---------------------------------------------------------------------------------------------
# Tables


def parse_table(cls: type[T], data: Json, path: str) -> T:
    """Checks a table against the dataclass ``cls``; unknown keys and missing required fields are
    errors naming the field path."""
    if not isinstance(data, dict):
        raise ScenarioError(path, f"expected a table, got {data!r}")
    declared = fields_of(cls)
    names = [n for n, _ in declared]
    tag = getattr(cls, "TAG", None)
    for key in data:
        if key not in names and (tag is None or key != tag[0]):
            if not isinstance(key, str):
                raise ScenarioError(path, f"keys must be strings, got {key!r}")
            raise ScenarioError(sub(path, key), f"unknown key{did_you_mean(key, names)} "
                                                f"(accepted here: {', '.join(sorted(names))})")
    values: dict[str, Any] = {}
    for name, f in declared:
        where = sub(path, name)
        if name in data:
            values[name] = f.kind.parse(data[name], where)
        elif f.default is REQUIRED:
            raise ScenarioError(where, "is required")
        else:
            values[name] = None if f.default is None else f.kind.parse(f.default, where)
    return cls(**values)


def fmt_table(obj: Any) -> dict[str, Json]:
    """The user form of a parsed table, unset fields left out (TOML has no null)."""
    out: dict[str, Json] = {}
    tag = getattr(obj, "TAG", None)
    if tag is not None:
        out[tag[0]] = tag[1]
    for name, f in fields_of(type(obj)):
        v = getattr(obj, name)
        if v is not None:
            out[name] = f.kind.fmt(v)
    return out


def sim_table(obj: Any, cls: type | None = None) -> dict[str, Json]:
    """The simulator's form of the fields (those of ``cls``, a base class, if given) that pass
    through under their ``sim`` names."""
    out: dict[str, Json] = {}
    for name, f in fields_of(cls or type(obj)):
        if f.sim is not None:
            v = getattr(obj, name)
            out[f.sim] = None if v is None else f.kind.sim(v)
    return out


# ---------------------------------------------------------------------------------------------
# What is generated: the JSON Schema and the reference page


def json_schema(root: type, title: str, extra_defs: Mapping[str, dict[str, Json]] | None = None) -> dict[str, Json]:
    """A JSON Schema (draft 2020-12) of ``root`` and every table below it."""
    defs: dict[str, Json] = dict(extra_defs or {})

    def visit(cls: type) -> None:
        if cls.__name__ in defs:
            return
        props: dict[str, Json] = {}
        required = []
        tag = getattr(cls, "TAG", None)
        if tag is not None:
            props[tag[0]] = {"const": tag[1]}
        for name, f in fields_of(cls):
            s = dict(f.kind.json_schema())
            s["description"] = f.doc
            if f.default is not REQUIRED and f.default is not None:
                s["default"] = f.default
            props[name] = s
            if f.default is REQUIRED:
                required.append(name)
        defs[cls.__name__] = {"type": "object", "description": _doc(cls), "properties": props,
                              "required": required, "additionalProperties": False}
        for _, f in fields_of(cls):
            for _, c in f.kind.tables():
                visit(c)

    visit(root)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": title,
            "$ref": f"#/$defs/{root.__name__}", "$defs": dict(sorted(defs.items()))}


def _doc(cls: type) -> str:
    return " ".join((cls.__doc__ or "").split())


def reference_tables(root: type, root_path: str = "") -> list[str]:
    """Markdown sections, one per table below ``root``: every field with its type and range,
    default and documentation."""
    out: list[str] = []
    seen: set[tuple[str, type]] = set()

    def visit(path: str, cls: type) -> None:
        if (path, cls) in seen:
            return
        seen.add((path, cls))
        out.append(f"### `{path or '(top level)'}`\n\n{_doc(cls)}\n")
        out.append("| field | type and range | default | description |\n|---|---|---|---|")
        for name, f in fields_of(cls):
            default = "required" if f.default is REQUIRED else "unset" if f.default is None else f"`{toml_inline(f.default)}`"
            out.append(f"| `{name}` | {f.kind.describe()} | {default} | {f.doc} |")
        out.append("")
        for name, f in fields_of(cls):
            for suffix, c in f.kind.tables():
                visit(f"{sub(path, name)}{suffix}", c)

    visit(root_path, root)
    return out


def toml_inline(v: Json) -> str:
    """A value as TOML writes it inline (for the reference page)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {toml_inline(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(toml_inline(x) for x in v) + "]"
    return str(v)
