"""`--set` edits the scenario file before it is checked: the warnings (and errors) are those of
the scenario as edited, given once, not the file's before the edit (SET_HELP: "as the file
saying it would"). For every command that takes --set; xval and live only up to their heavy
parts, which are replaced by stubs."""

import warnings
from pathlib import Path

import pytest
import tomli_w

from aqmlab import Scenario
from aqmlab.cli import main

# A -> B is the bottleneck; the one flow group runs C -> B -> A, over it backwards only.
BACKWARDS = {
    "name": "chain", "duration": "2s",
    "bottleneck": {"rate": "10Mbps", "delay": "5ms", "queue": {"type": "pie"}},
    "network": {"nodes": ["A", "B", "C"], "bottleneck": ["A", "B"],
                "links": [{"ends": ["B", "C"], "rate": "10Mbps", "delay": "5ms",
                           "queue": {"type": "drop_tail", "limit": "100p"}}]},
    "flows": [{"type": "tcp", "name": "g0", "rtt": "100ms", "route": ["C", "A"]}],
}
NOT_FORWARD = "network.bottleneck: no flow group's data crosses the bottleneck forward"
FORWARD = 'flows[0].route=["A", "C"]'

# The fluid model takes no network: a second group that stops when it starts (it never sends).
NEVER_SENDS = {
    "name": "late", "duration": "10s",
    "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": {"type": "pie"}},
    "flows": [{"type": "tcp", "count": 2, "rtt": "100ms"},
              {"type": "tcp", "name": "late", "rtt": "100ms", "start": "5s", "stop": "5s"}],
}
STOPS_AT_START = "flows[1].stop: 5s is not after every flow's start"
STOPS_LATER = 'flows[1].stop="8s"'


class Reached(Exception):
    """The command got past the scenario to its heavy part (ns-3, root)."""


@pytest.fixture
def stubs(monkeypatch):
    import aqmlab.live.system
    import aqmlab.xval

    def reached(*args, **kwargs):
        raise Reached

    monkeypatch.setattr(aqmlab.xval, "run", reached)
    monkeypatch.setattr(aqmlab.live.system, "require_privileges", reached)


def cli(capsys, argv: list[str]) -> str:
    """What the command printed to stderr (its warnings), every warning shown as often as given."""
    capsys.readouterr()
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        try:
            main([str(a) for a in argv])
        except Reached:
            pass
    return capsys.readouterr().err


def scenario_file(tmp_path: Path, d: dict) -> Path:
    path = tmp_path / f"{d['name']}.toml"
    path.write_text(tomli_w.dumps(d))
    return path


COMMANDS = {
    "run": (BACKWARDS, ["run", "{file}", "-q"], NOT_FORWARD, FORWARD),
    "validate": (BACKWARDS, ["validate", "{file}"], NOT_FORWARD, FORWARD),
    "xval": (BACKWARDS, ["xval", "{file}", "--seeds", "2"], NOT_FORWARD, FORWARD),
    "live": (BACKWARDS, ["live", "{file}", "-q"], NOT_FORWARD, FORWARD),
    "fluid": (NEVER_SENDS, ["fluid", "{file}"], STOPS_AT_START, STOPS_LATER),
}


@pytest.mark.parametrize("command", COMMANDS)
def test_warnings_are_the_edited_scenarios_given_once(command, tmp_path, capsys, stubs):
    scenario, argv, warning, fix = COMMANDS[command]
    args = [str(scenario_file(tmp_path, scenario)) if a == "{file}" else a for a in argv]
    # The file as written: warned once.
    assert cli(capsys, args).count(f"aqmlab: warning: {warning}") == 1
    # An edit that leaves the cause: still once, not once for the file and once for the edit.
    assert cli(capsys, [*args, "--set", 'name="edited"']).count(f"aqmlab: warning: {warning}") == 1
    # An edit that removes the cause: not at all.
    err = cli(capsys, [*args, "--set", fix])
    assert "aqmlab: warning:" not in err and "aqmlab: error:" not in err, err


def test_a_value_the_edit_replaces_is_not_checked(tmp_path, capsys):
    # "As the file saying it would": a file whose bad delay --set replaces is the file with the
    # good one; once refused for the value that does not run.
    bad = dict(BACKWARDS, name="bad", bottleneck={**BACKWARDS["bottleneck"], "delay": "soon"})
    path = scenario_file(tmp_path, bad)
    assert main(["validate", str(path), "--set", FORWARD]) == 2
    assert "aqmlab: error: bottleneck.delay: expected a duration like" in capsys.readouterr().err
    assert main(["validate", str(path), "--set", FORWARD, "--set", "bottleneck.delay=5ms"]) == 0
    resolved = capsys.readouterr().out
    assert 'delay = "5ms"' in resolved
    # From Python alike.
    scn = Scenario.load(path, {"bottleneck.delay": "5ms", "flows[0].route": ["A", "C"]})
    assert scn.resolved["bottleneck"]["delay"] == "5ms"


def test_a_new_profile_on_a_file_valid_only_as_edited_is_accepted(tmp_path, capsys):
    # The warning of the options a new profile keeps compares with the file's profile; a file
    # that does not resolve until edited has none to compare with, and is still accepted.
    d = {"name": "p", "duration": "2s", "bottleneck": {"rate": "10Mbps", "delay": "soon", "queue": {"type": "pie"}},
         "flows": [{"type": "tcp", "rtt": "40ms", "initial_cwnd": 4}]}
    path = scenario_file(tmp_path, d)
    assert main(["validate", str(path), "--set", "bottleneck.delay=5ms", "--set", 'flows[0].profile="linux"']) == 0
    assert "profile = \"linux\"" in capsys.readouterr().out
