"""Property tests of the scenario parser (issue 16 item 8, Python side): arbitrary values at every
field, unit strings, nested queue tables and dotted paths give a scenario the simulator accepts
or a ScenarioError naming a field; never another exception."""

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from aqmlab import Scenario, ScenarioError, _core, units
from aqmlab.cli import _parse_set
from aqmlab.qdisc import disciplines
from aqmlab.scenario import ScenarioSpec, set_dotted
from aqmlab.schema import Table, Tagged, fields_of, sub
from support import small_scenario

# Hypothesis runs each property many times; the machine is shared, so no per-example deadline.
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

TOP_KEYS = {n for n, _ in fields_of(ScenarioSpec)}


def _paths(cls, prefix: str) -> list[str]:
    """Every field path below a table, from the schema itself (lists at index 0)."""
    out = []
    for name, f in fields_of(cls):
        path = f"{prefix}{name}"
        out.append(path)
        kind = getattr(f.kind, "item", f.kind)
        index = "[0]" if kind is not f.kind else ""
        if isinstance(kind, Table):
            out += _paths(kind.cls, f"{path}{index}.")
        elif isinstance(kind, Tagged):
            for variant in kind.variants.values():
                out += _paths(variant, f"{path}{index}.")
    return out


FIELD_PATHS = sorted(set(_paths(ScenarioSpec, "")))
QUEUE_PATHS = sorted({f"bottleneck.queue.{p}" for d in disciplines().values() for p in d.params} | {
    "bottleneck.queue.type", "bottleneck.queue.profile", "bottleneck.queue.pie.target", "bottleneck.queue.codel.interval",
    "bottleneck.queue.low.type", "bottleneck.queue.low.target"})

UNITS = [*units.DURATION.units, *units.RATE.units, *units.SIZE.units, "p", "pkts", "", "Hz", "parsecs", "mS", "sec"]
numbers = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.decimals(allow_nan=False, allow_infinity=False).map(str),
)
unit_parts = st.tuples(st.sampled_from(["", "-", "+"]),
                       st.one_of(st.integers(0, 10**30).map(str), st.floats(0, 1e30, allow_nan=False).map(repr),
                                 st.sampled_from(["1e400", "1e-400", ".5", "5.", "1e99999999999", "0", "1.5e3"])),
                       st.sampled_from(["", " ", "  "]), st.sampled_from(UNITS))
unit_strings = unit_parts.map("".join)
leaf = st.one_of(st.none(), st.booleans(), numbers, st.text(max_size=12), unit_strings)
values = st.recursive(leaf, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                    st.dictionaries(st.one_of(st.text(max_size=8), st.sampled_from(
                                                        ["type", "uniform", "packets", "bytes", "at", "rate", "pie",
                                                         "target", "bernoulli", "tvf"])), inner, max_size=4)),
                      max_leaves=12)


def check(data) -> None:
    """The parser's contract: a scenario the simulator builds, or an error naming a field (one
    of the schema's, or the user's unknown key)."""
    try:
        s = Scenario.from_dict(data)
    except ScenarioError as e:
        assert e.path, f"an error without a field: {e}"
        named = TOP_KEYS | {sub("", k) for k in data if isinstance(k, str)}
        assert any(e.path == k or e.path.startswith((f"{k}.", f"{k}[")) for k in named), f"names no field: {e}"
        return
    _core.Simulation(s.sim_json())
    # The resolved form is a scenario again, and the same one.
    assert Scenario.from_dict(s.resolved).sim_config == s.sim_config


def with_value(path: str, value) -> dict:
    d = small_scenario(traces={})
    try:
        set_dotted(d, path, value)
    except ScenarioError:
        assume(False)
    return d


@FUZZ
@pytest.mark.filterwarnings("ignore::aqmlab.AqmlabWarning")
@given(st.sampled_from(FIELD_PATHS), values)
def test_any_value_at_any_field(path, value):
    check(with_value(path, value))


@FUZZ
@pytest.mark.filterwarnings("ignore::aqmlab.AqmlabWarning")
@given(st.sampled_from(["pie", "fq_pie", "codel", "fq_codel", "red", "pi", "pi2", "strict_priority", "pvpie"]),
       st.sampled_from(QUEUE_PATHS), values)
def test_any_value_in_any_queue_table(kind, path, value):
    d = small_scenario(traces={})
    d["bottleneck"]["queue"] = {"type": kind}
    if kind == "strict_priority":
        d["bottleneck"]["queue"]["low"] = {"type": "pie"}
    if kind == "pvpie":   # a Packet Value queue needs a marked flow
        d["flows"][0]["marker"] = {"tvf": "gold"}
    try:
        set_dotted(d, path, value)
    except ScenarioError:
        assume(False)
    check(d)


@FUZZ
@given(st.dictionaries(st.text(max_size=10), values, max_size=6))
def test_any_table_as_a_scenario(data):
    # Mostly nonsense: the first unknown or missing key is the error.
    check({**data, **{k: v for k, v in small_scenario().items() if k not in data and len(data) % 2}})


@FUZZ
@given(values)
def test_any_value_as_a_whole_scenario(data):
    try:
        Scenario.from_dict(data)
    except ScenarioError as e:
        assert e.path or str(e).startswith("a scenario is a table")


@FUZZ
@given(unit_parts)
def test_unit_strings_parse_exactly_or_name_the_field(parts):
    # The oracle: exact rational arithmetic (fractions), independent of the parser's decimals.
    sign, number, space, unit = parts
    text = "".join(parts)
    for q in (units.DURATION, units.RATE, units.SIZE):
        try:
            got = q.parse(text, "f", lo=-q.hi)
        except ScenarioError as e:
            assert e.path == "f"
            continue
        assert unit in q.units or (unit == "" and q.bare_is_canonical)
        mantissa, _, exponent = number.partition("e")
        assert abs(int(exponent or 0)) < 1000, text  # anything bigger is out of every range
        exact = Fraction(sign + number) * q.units[unit or q.unit]
        assert abs(exact) <= q.hi and got == round(exact), (text, got)


@FUZZ
@given(st.text(max_size=40))
def test_set_options_and_dotted_paths_never_crash(item):
    try:
        values = _parse_set([item])
    except ScenarioError as e:
        assert e.path == "--set"
        return
    ((key, value),) = values.items()
    d = small_scenario()
    try:
        set_dotted(d, key, value)
    except ScenarioError as e:
        assert e.path
        return
    check(d)


def test_the_fuzzed_fields_cover_the_schema():
    # Not a property: the strategies above reach every table's fields, queue parameters included.
    assert {"duration", "bottleneck.rate", "bottleneck.rate_schedule[0].at", "bottleneck.impairment.loss",
            "flows[0].marker.tvf", "flows[0].arrival_rate", "traces.sojourn_every", "access.rate"} <= set(FIELD_PATHS)
    assert "bottleneck.queue.alpha" in QUEUE_PATHS and len(FIELD_PATHS) > 60
