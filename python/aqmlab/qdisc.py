"""Queue tables (``queue = {type = "pie", target = "20ms"}``), from the AQM library's own description.

The disciplines, their parameters, units, ranges and defaults per profile are declared once in
the Rust AQM library (``crates/aqm``, one parameter table per discipline) and exported as
``_core.qdisc_schema()``. This module turns that description into the scenario schema's kinds:
a queue table is read with the parameters' units (``target = "20ms"`` -> 20000000 ns,
``limit = "200p"`` -> ``{"packets": 200}``), range-checked with messages in the user's units,
resolved by the library (``_core.resolve_qdisc``: profile defaults, cross-field rules) and
written back in user units for the resolved scenario. The simulator reads the resolved
canonical form, under the same names.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from typing import Any

from . import units
from .errors import ScenarioError
from .schema import (
    Bool, Choice, Float, Int, Json, Kind, Limit, ListOf, Quantity, Str, did_you_mean, sub, toml_inline,
)

ALIASES = {"droptail": "drop_tail", "fifo": "drop_tail"}


@dataclass(frozen=True)
class Param:
    name: str
    kind: Kind[Any]
    doc: str
    inner: str | None       # a nested queue table: its discipline (None: any, by its `type`)
    nested: bool            # kind "qdisc"
    defaults: dict[str, Json]


@dataclass(frozen=True)
class Discipline:
    name: str
    doc: str
    source: str
    profiles: tuple[str, ...]
    default_profile: str
    params: dict[str, Param]

    @property
    def sole_profile(self) -> bool:
        return len(self.profiles) == 1


def _kind(p: dict[str, Any]) -> Kind[Any]:
    """The scenario kind of one parameter of the library's description."""
    k, lo, hi = p["kind"], p["min"], p["max"]
    lo_open, hi_open, unit = p["min_open"], p["max_open"], p["unit"] or ""
    quantities = {"duration": units.DURATION, "rate": units.RATE, "bytes": units.SIZE}
    if k in quantities:
        return Quantity(quantities[k], lo if lo is not None else 0, hi, lo_open, hi_open)
    if k == "limit":
        return Limit(lo if lo is not None else 1, hi)
    if k == "float":
        return Float(-math.inf if lo is None else lo, math.inf if hi is None else hi, lo_open=lo_open,
                     hi_open=hi_open, unit=unit)
    if k in ("int", "int_list"):
        one = Int(-(2**63) if lo is None else lo, 2**64 - 1 if hi is None else hi, one_of=p["choices"] or (), unit=unit)
        return ListOf(one, "integers") if k == "int_list" else one
    if k == "bool":
        return Bool()
    if k == "choice":
        return Choice(p["choices"])
    if k == "string_list":
        return ListOf(Str(), "strings")
    if k == "qdisc":
        return QdiscTable(p["inner"])
    raise AssertionError(f"unknown parameter kind {k!r} in the AQM library's description")


@functools.cache
def disciplines() -> dict[str, Discipline]:
    """Every discipline by its ``type``, as the AQM library describes it."""
    from . import _core

    out = {}
    for name, d in json.loads(_core.qdisc_schema()).items():
        params = {p["name"]: Param(p["name"], _kind(p), p["doc"], p["inner"], p["kind"] == "qdisc", p["defaults"])
                  for p in d["params"]}
        out[name] = Discipline(name, d["doc"], d["source"], tuple(d["profiles"]), d["default_profile"], params)
    return out


def _discipline(v: Json, path: str, inner: str | None) -> Discipline:
    if not isinstance(v, dict):
        shown = f"a table of {inner} parameters" if inner else "a table with a 'type' (e.g. {type = \"pie\"})"
        raise ScenarioError(path, f"expected {shown}, got {v!r}")
    every = disciplines()
    if inner is not None:
        return every[inner]
    if "type" not in v:
        raise ScenarioError(sub(path, "type"), f"is required (one of {', '.join(map(repr, every))})")
    t = v["type"]
    name = ALIASES.get(t, t) if isinstance(t, str) else t
    return every[Choice(list(every)).parse(name, sub(path, "type"))]


def given(v: Json, path: str, inner: str | None = None) -> dict[str, Json]:
    """A user's queue table -> the library's form of what it gives (canonical units), checked
    field by field; nested queue tables likewise."""
    d = _discipline(v, path, inner)
    out: dict[str, Json] = {} if inner else {"type": d.name}
    accepted = ["profile", *d.params]
    for key, val in v.items():
        where = sub(path, str(key))
        if key == "type" and inner is None:
            continue
        if key == "profile":
            out["profile"] = Choice(d.profiles).parse(val, where)
        elif key in d.params:
            p = d.params[key]
            out[key] = given(val, where, p.inner) if p.nested else p.kind.parse(val, where)
        else:
            raise ScenarioError(where, f"unknown {d.name} parameter{did_you_mean(key, accepted)} "
                                       f"(accepted: {', '.join(accepted)})")
    return out


def resolve(v: Json, path: str) -> dict[str, Json]:
    """A user's queue table -> the library's resolved configuration (every default filled in)."""
    from . import _core

    table = given(v, path)
    try:
        resolved: dict[str, Json] = json.loads(_core.resolve_qdisc(json.dumps(table)))
    except ValueError as e:
        # The library's cross-field rules: "pie.target: ..." names a field below this table.
        field, sep, message = str(e).partition(": ")
        raise ScenarioError(sub(path, field) if sep and " " not in field else path, message if sep else str(e)) from None
    _check_codel(resolved, path, disciplines()[str(resolved["type"])])
    return resolved


def _check_codel(q: dict[str, Json], path: str, d: Discipline) -> None:
    """CoDel (alone, or inside FQ-CoDel) with its target at or above its interval never sees a
    sojourn stay above target for a whole interval before the interval ends: refused. RFC 8289
    §4.3 puts target at 5-10 % of interval."""
    if d.name == "codel":
        target, interval = q["target"], q["interval"]
        assert isinstance(target, int) and isinstance(interval, int)
        if target >= interval:
            raise ScenarioError(sub(path, "target"), f"{units.fmt_duration(target)} is not below the interval "
                                                     f"({units.fmt_duration(interval)}): CoDel's target is a small "
                                                     "fraction of its interval (RFC 8289 §4.3: 5-10 %)")
    for name, p in d.params.items():
        inner = q.get(name)
        if p.nested and isinstance(inner, dict):
            _check_codel(inner, sub(path, name), disciplines()[p.inner or str(inner["type"])])


def fmt(q: dict[str, Json], inner: str | None = None) -> dict[str, Json]:
    """A resolved queue table in user units; unset parameters (null) left out."""
    d = disciplines()[inner or str(q["type"])]
    out: dict[str, Json] = {}
    for key, val in q.items():
        if val is None:
            continue
        p = d.params.get(key)
        if p is None:                     # type, profile
            out[key] = val
        elif p.nested:
            assert isinstance(val, dict)
            out[key] = fmt(val, p.inner)
        else:
            out[key] = p.kind.fmt(val)
    return out


class QdiscTable(Kind[dict[str, Json]]):
    """A nested queue table: of the discipline ``inner``, or any with its ``type``. Parsed as part
    of the enclosing queue table (:func:`given`), which the library resolves as a whole."""

    def __init__(self, inner: str | None):
        self.inner = inner

    def parse(self, value: Json, path: str) -> dict[str, Json]:
        return given(value, path, self.inner)

    def json_schema(self) -> dict[str, Json]:
        return {"$ref": f"#/$defs/{_def_name(self.inner)}"}

    def describe(self) -> str:
        return f"a `{self.inner}` table (no `type`)" if self.inner else "a queue table, with its `type`"


class Qdisc(Kind[dict[str, Json]]):
    """A queue table of a link: checked, then resolved by the AQM library."""

    def parse(self, value: Json, path: str) -> dict[str, Json]:
        return resolve(value, path)

    def fmt(self, v: dict[str, Json]) -> Json:
        return fmt(v)

    def json_schema(self) -> dict[str, Json]:
        return {"$ref": f"#/$defs/{_def_name(None)}"}

    def describe(self) -> str:
        return "queue table (see [Queue disciplines](#queue-disciplines))"


QDISC = Qdisc()


def _def_name(inner: str | None) -> str:
    return f"Qdisc_{inner}" if inner else "Qdisc"


def json_schema_defs() -> dict[str, Json]:
    """JSON Schema definitions of queue tables: ``Qdisc`` (any discipline, by its ``type``) and
    ``Qdisc_<name>`` (a nested table of one discipline, without ``type``)."""
    defs: dict[str, Json] = {}
    variants = []
    for name, d in disciplines().items():
        props: dict[str, Json] = {"profile": {"enum": list(d.profiles), "default": d.default_profile,
                                              "description": "whose behaviour and defaults apply"}}
        for p in d.params.values():
            props[p.name] = {**p.kind.json_schema(), "description": p.doc}
        common = {"description": f"{d.doc} ({d.source})", "additionalProperties": False}
        defs[_def_name(name)] = {"type": "object", "properties": props, **common}
        names = [name] + [a for a, t in ALIASES.items() if t == name]
        variants.append({"type": "object", "properties": {"type": {"enum": names}, **props}, "required": ["type"],
                         **common})
    defs[_def_name(None)] = {"oneOf": variants}
    return defs


def reference() -> list[str]:
    """Markdown: every discipline, its profiles and every parameter with its range and default
    per profile."""
    out = []
    for name, d in disciplines().items():
        aliases = [a for a, t in ALIASES.items() if t == name]
        also = f" (also `{'`, `'.join(aliases)}`)" if aliases else ""
        out += [f"### `{name}`{also}", "", f"{d.doc} Source: {d.source}.", ""]
        if not d.sole_profile:
            out += [f"Profiles: {', '.join(f'`{p}`' for p in d.profiles)} (default `{d.default_profile}`).", ""]
        out.append("| parameter | type and range | " + " | ".join(
            f"default (`{p}`)" if not d.sole_profile else "default" for p in d.profiles) + " | description |")
        out.append("|---|---|" + "---|" * len(d.profiles) + "---|")
        for p in d.params.values():
            cells = [_default(p, p.defaults.get(prof)) for prof in d.profiles]
            out.append(f"| `{p.name}` | {p.kind.describe()} | " + " | ".join(cells) + f" | {p.doc} |")
        out.append("")
    return out


def _default(p: Param, v: Json) -> str:
    if v is None:
        return "unset"
    if p.nested:
        assert isinstance(v, dict)
        shown = fmt(v, p.inner) if p.inner else fmt(v)
        return "`{" + ", ".join(f"{k} = {toml_inline(x)}" for k, x in shown.items()) + "}`"
    return f"`{toml_inline(p.kind.fmt(v))}`"
