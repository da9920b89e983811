"""The JSON Schema and the reference page are generated from the scenario schema and current."""

import json
import tomllib
from pathlib import Path

import jsonschema
import pytest

from aqmlab import reference
from aqmlab.scenario import BUILTIN_DIR
from support import small_scenario

REPO = Path(__file__).resolve().parents[1]


def test_the_shipped_json_schema_and_the_reference_page_are_current():
    # Regenerate with `python -m aqmlab.reference` (installed aqmlab, from the checkout root) after changing a field.
    assert (REPO / "python" / "aqmlab" / "scenario.schema.json").read_text() == reference.schema_text()
    assert (REPO / "docs" / "scenario-reference.md").read_text() == reference.reference_text()


@pytest.fixture(scope="module")
def validator():
    schema = reference.scenario_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_the_json_schema_accepts_every_shipped_scenario_and_their_resolved_forms(validator):
    from aqmlab import Scenario

    for path in sorted(BUILTIN_DIR.glob("*.toml")):
        data = tomllib.loads(path.read_text())
        assert not list(validator.iter_errors(data)), path
        assert not list(validator.iter_errors(Scenario.from_dict(data).resolved)), path
    assert not list(validator.iter_errors(small_scenario()))


@pytest.mark.parametrize("mutate, where", [
    (lambda d: d.update(colour="blue"), []),
    (lambda d: d.pop("duration"), []),
    (lambda d: d["bottleneck"].update(rate="10 parsecs"), ["bottleneck", "rate"]),
    (lambda d: d["bottleneck"].update(delay=0.02), ["bottleneck", "delay"]),
    (lambda d: d["flows"][0].update(type="sctp"), ["flows", 0]),
    (lambda d: d["flows"][0].update(count=0), ["flows", 0]),
    (lambda d: d["traces"].update(queue="yes"), ["traces", "queue"]),
])
def test_the_json_schema_flags_what_validation_refuses(validator, mutate, where):
    d = small_scenario()
    mutate(d)
    errors = list(validator.iter_errors(d))
    assert errors and any(list(e.absolute_path)[:len(where)] == where for e in errors), [e.message for e in errors]


def test_the_reference_lists_every_field_with_its_default_and_every_tcp_profile():
    text = reference.reference_text()
    assert "| `mtu` | size in [41B, 65535B] | `\"1500B\"` |" in text
    assert "| `interval` | duration in (0s, 1000000s] | `\"10ms\"` |" in text
    from aqmlab import _core

    assert "| option | " + " | ".join(f"`{p}`" for p in _core.TCP_PROFILES) + " |" in text
    # The profile table comes from the simulator's own expansion of each profile.
    linux = json.loads(_core.resolve_tcp("linux", "{}"))
    assert f"| `initial_cwnd` | `2` | `10` | `1` | `{linux['initial_cwnd']}` |" in text
