"""Sweep files: a base scenario, axes over its fields, replications with derived seeds.

A sweep file (TOML)::

    name = "droptail-buffer"          # names the default store directory (letters, digits, . _ -)
    description = "..."
    base = "dumbbell-droptail"        # a path relative to this file, a built-in name, or a [base] table
    replications = 3                  # runs per grid point, each with its own derived seed
    seed = 1                          # base seed (default: the base scenario's seed)
    traces = false                    # save each run's traces into the store (runs/<key>/)

    [set]                             # fixed overrides of the base, by dotted path
    duration = "5s"
    warmup = "1s"

    [axes]                            # Cartesian axes: every combination is a grid point
    "bottleneck.queue.limit" = ["20p", "50p", "200p"]
    "flows[0].count" = [1, 4]

    [[zip]]                           # a zipped axis: these fields vary together
    "bottleneck.rate" = ["10Mbps", "100Mbps"]
    "bottleneck.delay" = ["25ms", "5ms"]
    "flows[0].rtt" = ["100ms", "20ms"]

Dotted paths may be quoted keys or TOML's own nesting (``bottleneck.queue.limit = [...]`` unquoted
is the same axis); a path with an index (``flows[0].count``) must be quoted. The grid is the
Cartesian product of the axes and zip groups, in file order; each grid point runs
``replications`` times.

Seeds use common random numbers: replication ``r`` has the same seed at every grid point, so a
comparison across the grid is not blurred by seed noise. The seed is :func:`derive_seed`, a pure
function of (base seed, r) that never depends on Python's ``hash()`` or the process.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import math
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..errors import ScenarioError
from ..scenario import BUILTIN_DIR, Scenario, builtin_scenarios, read_toml, with_values, within

_MASK64 = (1 << 64) - 1
# The largest sweep accepted: its manifest and plan stay in memory and on disk as JSON.
MAX_RUNS = 100_000
_GOLDEN_GAMMA = 0x9E3779B97F4A7C15
# A sweep's name becomes a directory (NAME-results): POSIX's portable file name characters, and
# no leading '.' (hidden, or a way up with '..') or '-' (read as an option by other tools).
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*")


def splitmix64(x: int) -> int:
    """The SplitMix64 finaliser (Steele, Lea and Flood, OOPSLA 2014): a bijection on 64-bit words
    that spreads nearby inputs (seeds 1, 2, 3) over unrelated outputs."""
    x &= _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


def derive_seed(base_seed: int, replication: int) -> int:
    """The seed of replication ``replication`` (0-based): the SplitMix64 output for state
    ``base_seed + (replication + 1) * golden gamma`` (mod 2**64), as SplitMix64's own stream
    does; replication 0 therefore differs from ``base_seed`` too."""
    return splitmix64(base_seed + (replication + 1) * _GOLDEN_GAMMA)


# What a run's summary means, for results that the version number alone does not tell apart:
# 2 since the summary's packet counts and drop and mark rates cover the measured window
# (before, the whole run), 2026-11-29.
SUMMARY_SCHEMA = 2


def run_key(resolved: dict, seed: int, version: str) -> str:
    """sha256 of the canonical JSON of (resolved scenario, seed, aqmlab version, summary schema):
    the identity of a run's result, so a store can tell which runs it already holds, and does not
    take a result whose figures meant something else for one of its own."""
    blob = json.dumps({"scenario": resolved, "seed": seed, "aqmlab_version": version, "summary_schema": SUMMARY_SCHEMA},
                      sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(blob.encode()).hexdigest()


@dataclass(frozen=True)
class RunSpec:
    """One run of a sweep: the fully resolved scenario (seed included) and where it sits."""

    key: str
    point: int                 # index of the grid point in file order
    replication: int
    seed: int
    values: dict               # dotted path -> the value as written in the sweep file
    columns: dict              # dotted path -> the value as stored in the results table
    scenario: dict             # Scenario.resolved, loadable by Scenario.from_dict


def _version() -> str:
    from .. import __version__

    return __version__


def _flatten_axes(table: Any, path: str) -> dict[str, list]:
    """{'bottleneck': {'queue': {'limit': [...]}}} -> {'bottleneck.queue.limit': [...]}."""
    if not isinstance(table, dict):
        raise ScenarioError(path, f"expected a table of field paths to lists of values, got {table!r}")
    out: dict[str, list] = {}
    for key, value in table.items():
        sub = f"{path}.{key}"
        if isinstance(value, dict):
            out.update({f"{key}.{k}": v for k, v in _flatten_axes(value, sub).items()})
        elif isinstance(value, list) and value:
            out[key] = value
        else:
            raise ScenarioError(sub, f"expected a non-empty list of values, got {value!r}")
    return out


def _column_value(values: list) -> list:
    """Values as Parquet can store them: scalars of one type stay, anything else becomes JSON text."""
    kinds = {type(v) for v in values}
    if len(kinds) == 1 and kinds <= {bool, int, float, str}:
        return list(values)
    if kinds <= {int, float}:
        return [float(v) for v in values]
    return [json.dumps(v, sort_keys=True) for v in values]


@dataclass(frozen=True)
class Sweep:
    """A validated sweep: the base scenario with [set] applied, and ``groups`` of axes.

    Axis values are applied to the base as written, not to its resolved form, so a field the
    resolution rewrites (``flows[0].rtt`` becomes ``access_delay``) can still be swept.

    Each group is a list of (path, values) that vary together: a Cartesian axis is a group of one,
    a zip group has several paths with lists of the same length.
    """

    name: str
    description: str
    base: Scenario             # the base with [set] applied, validated
    base_data: dict            # the same as written (before resolution), where axis values go
    groups: tuple[tuple[tuple[str, tuple], ...], ...]
    replications: int = 1
    seed: int | None = None
    traces: bool = False
    # Accept runs the simulator estimates to take hours or too much memory (`aqmlab sweep
    # --force`): a choice of the one running the sweep, on this machine, not of the file.
    force: bool = False

    @classmethod
    def load(cls, path: str | Path, *, force: bool = False) -> "Sweep":
        path = Path(path)
        data = read_toml(path, "")
        sweep = cls.from_dict(data, base_dir=path.parent, force=force)
        # Unnamed, the sweep takes its file's name: one path component already, so it is not
        # held to the characters a written name must use (a file named with a space still runs).
        return sweep if "name" in data else replace(sweep, name=path.stem)

    @classmethod
    def from_dict(cls, data: dict, *, base_dir: str | Path = ".", force: bool = False) -> "Sweep":
        """Checks a sweep in the file's vocabulary; every generated scenario is validated here,
        so a bad value fails before anything runs, naming its axis and value. So is its size: a
        run estimated to take hours or too much memory is refused unless ``force``, as by
        :func:`aqmlab.run`."""
        if not isinstance(data, dict):
            raise ScenarioError("", f"a sweep is a table, got {type(data).__name__}")
        accepted = ("name", "description", "base", "replications", "seed", "traces", "set", "axes", "zip")
        for key in data:
            if key not in accepted:
                raise ScenarioError(key, f"unknown key in the sweep file (accepted: {', '.join(accepted)})")
        if "base" not in data:
            raise ScenarioError("base", "is required: a scenario path, a built-in scenario name or a [base] table")
        base_data = _load_base(data["base"], Path(base_dir))
        fixed = data.get("set", {})
        if not isinstance(fixed, dict):
            raise ScenarioError("set", f"expected a table of field paths to values, got {fixed!r}")
        fixed = _flatten_set(fixed)
        try:
            # Resolved once, as edited (as `aqmlab run --set` does): a base error that [set] fixes
            # is not raised, and a base warning whose cause [set] removes is not given.
            base = Scenario.edited(base_data, fixed)
        except ScenarioError as e:
            raise _under("set" if within(e.path, frozenset(fixed)) else "base", e) from None

        groups = [((p, tuple(v)),) for p, v in _flatten_axes(data.get("axes", {}), "axes").items()]
        origins = ["[axes]"] * len(groups)
        zips = data.get("zip", [])
        if not isinstance(zips, list):
            raise ScenarioError("zip", "expected [[zip]] tables (fields that vary together)")
        for i, z in enumerate(zips):
            fields = _flatten_axes(z, f"zip[{i}]")
            if not fields:
                raise ScenarioError(f"zip[{i}]", "an empty [[zip]] table: give the fields that vary together, "
                                                  "each with a list of values")
            lengths = {len(v) for v in fields.values()}
            if len(lengths) > 1:
                raise ScenarioError(f"zip[{i}]", f"the zipped lists must have the same length, got "
                                                  f"{ {p: len(v) for p, v in fields.items()} }")
            groups.append(tuple((p, tuple(v)) for p, v in fields.items()))
            origins.append(f"[[zip]] {i}")
        seen: set[str] = set()
        for p in (p for g in groups for p, _ in g):
            if p == "seed":
                raise ScenarioError(p, "cannot be swept: use 'replications' (seeds are derived per replication)")
            if p in seen:
                raise ScenarioError(p, "is swept twice (each field may appear in one axis or zip group)")
            seen.add(p)
        _refuse_set_and_swept(fixed, [(p, where) for g, where in zip(groups, origins) for p, _ in g])

        replications = data.get("replications", 1)
        if isinstance(replications, bool) or not isinstance(replications, int) or replications < 1:
            raise ScenarioError("replications", f"expected a positive integer, got {replications!r}")
        seed = data.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= _MASK64):
            raise ScenarioError("seed", f"expected an integer in [0, 2**64 - 1], got {seed!r}")
        if seed is not None and "seed" in fixed:
            # Both would be the base seed of the replications; the top-level one used to win silently.
            raise ScenarioError("seed", f"is given twice, as seed = {seed} at the top of the sweep file and as seed = "
                                        f"{fixed['seed']!r} in [set] (both set the base seed): give one")
        traces = data.get("traces", False)
        if not isinstance(traces, bool):
            raise ScenarioError("traces", f"expected true or false, got {traces!r}")
        for key in ("name", "description"):
            if key in data and not isinstance(data[key], str):
                raise ScenarioError(key, f"expected a string, got {data[key]!r}")
        if "name" in data and not _PLAIN_NAME.fullmatch(data["name"]):
            raise ScenarioError("name", "expected a plain file name of letters, digits, '.', '_' and '-', not "
                                        f"starting with '.' or '-' (it names the store directory NAME-results), "
                                        f"got {data['name']!r}")
        sweep = cls(name=data.get("name", base.name), description=data.get("description", ""), base=base,
                    base_data=base.given, groups=tuple(groups), replications=replications, seed=seed, traces=traces,
                    force=force)
        sweep.check_count()
        sweep._check_values()
        sweep.runs()  # validates every grid point now
        return sweep

    # ---- the grid --------------------------------------------------------------------------

    @property
    def axes(self) -> list[str]:
        """Every swept field path, in file order (zip groups contribute each of their fields)."""
        return [p for g in self.groups for p, _ in g]

    @property
    def base_seed(self) -> int:
        return self.base.resolved["seed"] if self.seed is None else self.seed

    def count(self) -> int:
        """The number of runs, without expanding the grid."""
        return math.prod(len(g[0][1]) for g in self.groups) * self.replications

    def check_count(self) -> None:
        """Refuses a sweep of more than :data:`MAX_RUNS` runs before anything is expanded."""
        n = self.count()
        if n > MAX_RUNS:
            sizes = " x ".join([str(len(g[0][1])) for g in self.groups] + [f"{self.replications} replications"])
            raise ScenarioError("axes", f"the sweep expands to {n:,} runs ({sizes}), more than {MAX_RUNS:,}: "
                                        "sweep fewer values, or split it into several sweeps")

    def _indices(self) -> list[tuple[int, ...]]:
        """The grid as one value index per group, Cartesian over groups in file order."""
        return list(itertools.product(*(range(len(g[0][1])) for g in self.groups)))

    def runs(self) -> list[RunSpec]:
        """Every run, validated (a bad combination of values, or a run too large without
        ``force``, raises :class:`ScenarioError`), so that it fails here, not after others ran."""
        from ..api import check_size

        version = _version()
        stored = [[_column_value(list(vals)) for _, vals in g] for g in self.groups]
        specs, by_key = [], {}
        for point, idx in enumerate(self._indices()):
            values = {p: vals[i] for g, i in zip(self.groups, idx) for p, vals in g}
            columns = {p: col[i] for g, cols, i in zip(self.groups, stored, idx) for (p, _), col in zip(g, cols)}
            try:
                scn = self.scenario(values)
                check_size(scn, force=self.force)
            except ScenarioError as e:
                raise ScenarioError("axes", f"grid point {_fmt(values)}: {e}") from None
            for r in range(self.replications):
                seed = derive_seed(self.base_seed, r)
                resolved = copy.deepcopy(scn.resolved)
                resolved["seed"] = seed
                key = run_key(resolved, seed, version)
                if key in by_key:
                    raise ScenarioError("axes", f"grid points {_fmt(by_key[key].values)} and {_fmt(values)} "
                                                f"resolve to the same scenario")
                spec = RunSpec(key=key, point=point, replication=r, seed=seed, values=values,
                               columns=columns, scenario=resolved)
                by_key[key] = spec
                specs.append(spec)
        return specs

    def scenario(self, values: dict) -> Scenario:
        """The base with ``values`` ({dotted path: value}) set, validated. The options ``[set]``
        gave stay as set under a new profile on a saved base, however they compare with the old
        profile's defaults (:attr:`Scenario.edits`), as they do in ``aqmlab run --set``."""
        return Scenario.from_dict(with_values(self.base_data, values, keep=self.base.edits))

    def _check_values(self) -> None:
        """Each group's values against the base, index by index, so the error names the axis and
        the value rather than a combination. The fields of a zip group go in together: they are
        linked (RED's min_th and max_th, say) and may be valid only as a pair. A new profile that
        keeps options of the base, or replaces those of a saved one, is warned about here, once per
        value, as `aqmlab run --set` does."""
        for g in self.groups:
            paths = [path for path, _ in g]
            for i in range(len(g[0][1])):
                point = {path: values[i] for path, values in g}
                try:
                    self.base.with_values(point)
                except ScenarioError as e:
                    if len(paths) == 1:
                        where, what = f"axes.{paths[0]}[{i}]", repr(point[paths[0]])
                    else:
                        where, what = f"axes.({', '.join(paths)})[{i}]", _fmt(point)
                    raise ScenarioError(where, f"value {what}: {e}") from None

    def describe(self) -> dict:
        """What a store records about the sweep (JSON-ready)."""
        return {
            "name": self.name, "description": self.description, "replications": self.replications,
            "base_seed": self.base_seed, "traces": self.traces,
            "groups": [[[p, list(v)] for p, v in g] for g in self.groups],
            "base": self.base.resolved,
        }


def _fmt(values: dict) -> str:
    return ", ".join(f"{p} = {v!r}" for p, v in values.items()) or "(base)"


def _flatten_set(table: dict, prefix: str = "") -> dict:
    """[set] merges into the base: nested tables set their leaves, so `bottleneck.queue.limit` and
    `[set.bottleneck.queue] limit = ...` are the same override."""
    out = {}
    for key, value in table.items():
        if isinstance(value, dict):
            out.update(_flatten_set(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def _refuse_set_and_swept(fixed: dict, swept: list[tuple[str, str]]) -> None:
    """Refuses a field both set in [set] and swept (``swept``: each path with its group, `[axes]`
    or `[[zip]] i`): every axis value would replace the [set] value, which would be silently lost.
    So is a [set] field inside a swept table (`bottleneck.queue.limit` under an axis of whole
    `bottleneck.queue` tables). An axis inside a [set] value (`flows[0].count` when [set] gives
    `flows`) only edits it, as it edits the base."""
    for path, where in swept:
        for given in fixed:
            if given == path or given.startswith((f"{path}.", f"{path}[")):
                inside = "" if given == path else f" (as {given}, inside it)"
                raise ScenarioError(path, f"is set in [set]{inside} and swept in {where}: each value of the axis "
                                          "would replace the [set] value; give it in one place")


def _under(prefix: str, e: ScenarioError) -> ScenarioError:
    """The same error with its field path placed under ``prefix`` (``set.bottleneck.rate``)."""
    message = str(e).removeprefix(f"{e.path}: ") if e.path else str(e)
    return ScenarioError(f"{prefix}.{e.path}" if e.path else prefix, message)


def _load_base(base: Any, base_dir: Path) -> dict:
    """The base scenario as written: an inline table, a file relative to the sweep file, or a
    built-in scenario's file."""
    if isinstance(base, dict):
        return base
    if isinstance(base, str) and base:
        for candidate in (base_dir / base, BUILTIN_DIR / f"{base}.toml"):
            if candidate.is_file():
                return read_toml(candidate, "base")
        raise ScenarioError("base", f"no scenario file '{base}' (relative to {base_dir}) and no built-in "
                                    f"scenario of that name (built-in: {', '.join(builtin_scenarios())})")
    raise ScenarioError("base", f"expected a scenario path, a built-in name or a table, got {base!r}")
