"""The output directory (-o) of every command that writes one: new, empty or holding the
command's own earlier output (replaced), else refused before any work unless --force, which
writes beside the other files. run, characterize and reproduce are tested in
test_robustness.py; here the others, by one parametrised test."""

import json
import shutil
from pathlib import Path

import pytest
import tomli_w

from aqmlab.cli import main
from support import small_scenario

# What each command's refusal says it does not hold (the wording of docs/outputs.md).
WHAT = {"fluid": "an aqmlab fluid model", "compare": "an aqmlab comparison", "margins": "aqmlab margins figures",
        "run": "an aqmlab run", "xval": "an aqmlab cross-validation", "xval --suite": "an aqmlab cross-validation suite",
        "live": "an aqmlab run", "live --compare": "an aqmlab live comparison"}


def argv(command: str, out: Path, run_dir: Path) -> list[str]:
    """The command writing into ``out``: the cheapest call of each that writes files."""
    return {"fluid": ["fluid", "pie-base", "-o", str(out)],
            "compare": ["compare", str(run_dir), "-o", str(out)],
            "margins": ["margins", "pi2", "--rtt", "0.1", "--p0", "0.01", "-o", str(out)]}[command]


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> dict[str, Path]:
    """A directory of each command's output, as the command wrote it, and one of a stranger's file."""
    base = tmp_path_factory.mktemp("outputs")
    scenario = base / "small.toml"
    scenario.write_text(tomli_w.dumps(small_scenario(duration="2s", warmup="0s", traces={"queue": True})
                                      | {"flows": [{"type": "tcp", "count": 2, "rtt": "40ms"}]}))
    dirs = {"run": base / "run"}
    assert main(["run", str(scenario), "-o", str(dirs["run"]), "-q", "--no-plots"]) == 0
    for command in ("fluid", "compare", "margins"):
        dirs[command] = base / command
        assert main(argv(command, dirs[command], dirs["run"])) == 0
    dirs["unrelated"] = base / "unrelated"
    dirs["unrelated"].mkdir()
    (dirs["unrelated"] / "notes.txt").write_text("mine")
    return dirs


def contents(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def refused(capsys, args: list[str], out: Path, what: str) -> None:
    """Exit 2, one error naming --output and what the directory does not hold, nothing else printed."""
    capsys.readouterr()  # what earlier calls printed
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"aqmlab: error: --output: {out} is not empty and does not hold {what} ("), \
        captured.err
    assert "--force" in captured.err and captured.out == ""


WRITERS = ["fluid", "compare", "margins"]


@pytest.mark.parametrize(("command", "holding"), [(c, h) for c in WRITERS for h in ["run", *WRITERS, "unrelated"]
                                                  if h != c])
def test_a_directory_of_other_files_is_refused(command, holding, outputs, tmp_path, capsys):
    out = shutil.copytree(outputs[holding], tmp_path / "out")
    before = contents(out)
    refused(capsys, argv(command, out, outputs["run"]), out, WHAT[command])
    assert contents(out) == before


@pytest.mark.parametrize("command", WRITERS)
def test_own_output_is_replaced_and_force_writes_beside_others(command, outputs, tmp_path, capsys):
    out = shutil.copytree(outputs[command], tmp_path / "out")
    for p in out.iterdir():
        p.write_bytes(b"stale")
    assert main(argv(command, out, outputs["run"])) == 0
    assert sorted(contents(out)) == sorted(contents(outputs[command]))
    assert all(data != b"stale" for data in contents(out).values())
    (out / "notes.txt").write_text("mine")
    refused(capsys, argv(command, out, outputs["run"]), out, WHAT[command])
    assert main([*argv(command, out, outputs["run"]), "--force"]) == 0
    assert (out / "notes.txt").read_text() == "mine"
    assert sorted(contents(out)) == sorted([*contents(outputs[command]), "notes.txt"])


def test_margins_replaces_the_figures_of_other_values(tmp_path):
    # Its figures are named by R0: an earlier run's for another R0 would stay beside the new ones.
    out = tmp_path / "m"
    assert main(["margins", "pi2", "--rtt", "0.2", "--p0", "0.01", "-o", str(out)]) == 0
    assert (out / "bode_pi2_rtt0.2.png").is_file()
    assert main(["margins", "pi2", "--rtt", "0.1", "--p0", "0.01", "-o", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["bode_pi2_rtt0.1.png", "pm_vs_sqrt_p_pi2_mgt.png",
                                                     "wgc_vs_sqrt_p_pi2_mgt.png"]


@pytest.mark.parametrize("args", [["fluid", "pie-base"], ["margins", "pi"], ["xval", "pie-base"],
                                  ["live", "pie-base"]], ids=lambda a: a[0])
def test_force_without_output_is_refused(args, capsys):
    assert main([*args, "--force"]) == 2
    assert capsys.readouterr().err.startswith("aqmlab: error: --force: applies only with -o OUTDIR")


# ---- xval and live: only the guard, before anything else (ns-3 and root are never reached) ----

class Reached(Exception):
    """The heavy part of a command was reached: the guard let the directory through."""


def _reached(*args, **kwargs):
    raise Reached


def _xval_own(out: Path) -> None:
    # The files docs/xval.md names: xval.json, xval.html and the PNG plots.
    out.mkdir()
    (out / "xval.json").write_text("{}")
    (out / "xval.html").write_text("<html></html>")
    for name in ("sojourn_cdf", "goodput", "delay_time"):
        (out / f"{name}.png").write_bytes(b"png")


def _xval_suite_own(out: Path) -> None:
    from aqmlab.xval.suite import suite_names

    out.mkdir()
    (out / "suite.md").write_text("| scenario |")
    (out / "suite.json").write_text("[]")
    _xval_own(out / suite_names()[0])


def _live_compare_own(out: Path, run_dir: Path) -> None:
    out.mkdir()
    shutil.copytree(run_dir, out / "live")
    shutil.copytree(run_dir, out / "sim")
    (out / "compare.json").write_text(json.dumps({}))


GUARDED = {
    "xval": (["xval", "pie-base"], lambda out, run: _xval_own(out)),
    "xval --suite": (["xval", "--suite"], lambda out, run: _xval_suite_own(out)),
    # A live run writes what `aqmlab run -o` writes (docs/live.md).
    "live": (["live", "pie-base"], lambda out, run: shutil.copytree(run, out)),
    "live --compare": (["live", "pie-base", "--compare"], _live_compare_own),
}


@pytest.fixture
def heavy_parts_fail(monkeypatch):
    import aqmlab.live.system
    import aqmlab.xval
    import aqmlab.xval.suite

    monkeypatch.setattr(aqmlab.xval, "run", _reached)
    monkeypatch.setattr(aqmlab.xval.suite, "run_suite", _reached)
    monkeypatch.setattr(aqmlab.live.system, "require_privileges", _reached)


@pytest.mark.parametrize("mode", GUARDED)
@pytest.mark.parametrize("holding", ["fluid", "margins", "unrelated"])
def test_xval_and_live_refuse_before_anything_else(mode, holding, outputs, tmp_path, capsys, heavy_parts_fail):
    args, _ = GUARDED[mode]
    out = shutil.copytree(outputs[holding], tmp_path / "out")
    refused(capsys, [*args, "-o", str(out)], out, WHAT[mode])


@pytest.mark.parametrize("mode", GUARDED)
def test_xval_and_live_accept_their_own_output_and_force(mode, outputs, tmp_path, capsys, heavy_parts_fail):
    args, own = GUARDED[mode]
    out = tmp_path / "out"
    own(out, outputs["run"])
    with pytest.raises(Reached):
        main([*args, "-o", str(out)])
    (out / "notes.txt").write_text("mine")
    refused(capsys, [*args, "-o", str(out)], out, WHAT[mode])
    with pytest.raises(Reached):
        main([*args, "-o", str(out), "--force"])


# ---- outputs a later call does not write again: removed, not left as if current ----

def test_a_suite_run_of_some_scenarios_removes_the_earlier_folders_of_the_others(tmp_path, monkeypatch):
    # Once `xval --suite --only B` over a full suite's folder left A's folder beside B's, outside
    # the new suite.md. The ns-3 side is not needed to show it: each scenario's run writes its
    # folder as the real one names its files.
    import aqmlab.xval.crosscheck
    from aqmlab.xval.suite import run_suite, suite_names

    def fake_run(scn, *, seeds, outdir):
        outdir.parent.mkdir(exist_ok=True)
        _xval_own(outdir)
        return {"rows": [], "agree": True}

    monkeypatch.setattr(aqmlab.xval.crosscheck, "run", fake_run)
    first, second = suite_names()[:2]
    out = tmp_path / "suite"
    run_suite(out, seeds=1, only=[first, second])
    (out / "notes.txt").write_text("mine")   # written beside with --force: not the suite's
    shutil.rmtree(out / second)
    run_suite(out, seeds=1, only=[second])
    assert sorted(p.name for p in out.iterdir()) == sorted(["notes.txt", "suite.json", "suite.md", second])
    assert f"| {first} |" not in (out / "suite.md").read_text()


def test_a_live_comparison_without_plots_removes_the_earlier_plot(tmp_path, monkeypatch):
    # Once `live --compare --no-plots` left an earlier comparison's compare.png beside the new
    # compare.json. The live side is the simulated twin's result here (no root, no namespaces):
    # only what the comparison writes is under test.
    import aqmlab.live.driver
    import aqmlab.live.result
    from aqmlab import api
    from aqmlab.live.compare import run_compare
    from aqmlab.live.driver import Options
    from aqmlab.live.plan import plan

    raw = small_scenario(duration="1s", warmup="0s") | {"flows": [{"type": "tcp", "count": 1, "rtt": "40ms"}]}
    monkeypatch.setattr(aqmlab.live.driver, "execute", lambda *a, **k: None)
    monkeypatch.setattr(aqmlab.live.result, "build", lambda *a: api.run(api.as_scenario(raw), progress=False))
    out = tmp_path / "cmp"
    assert run_compare(plan(raw), Options(), str(out), progress=False) == 0
    assert (out / "compare.png").is_file()
    assert run_compare(plan(raw), Options(), str(out), plots=False, progress=False) == 0
    assert sorted(p.name for p in out.iterdir()) == ["compare.json", "live", "sim"]
    assert not (out / "live" / "plots").exists()
