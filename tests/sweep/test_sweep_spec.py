"""Sweep files: the grid, derived seeds, run keys and the errors a bad sweep gets before anything runs."""

import hashlib
import json

import pytest
import tomli_w

from aqmlab import ScenarioError, Scenario
from aqmlab.sweep import Sweep, derive_seed, example_path, run_key
from sweep_cases import SMALL, SMALL_BASE, sweep_dict, write_sweep


def test_derive_seed_is_the_splitmix64_stream():
    # The first outputs of SplitMix64 seeded with 0 (Vigna's reference splitmix64.c).
    assert [derive_seed(0, r) for r in range(3)] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]
    assert derive_seed(2**64 - 1, 5) < 2**64
    assert derive_seed(7, 0) != derive_seed(8, 0)


def test_grid_is_cartesian_over_axes_and_zip_groups_in_file_order():
    s = Sweep.from_dict(SMALL)
    runs = s.runs()
    assert len(runs) == 2 * 2 * 2 * 2
    assert s.axes == ["bottleneck.queue.limit", "flows[0].count", "bottleneck.rate", "flows[0].rtt"]
    first = [r.values for r in runs if r.replication == 0][:3]
    assert first == [
        {"bottleneck.queue.limit": "20p", "flows[0].count": 1, "bottleneck.rate": "10Mbps", "flows[0].rtt": "60ms"},
        {"bottleneck.queue.limit": "20p", "flows[0].count": 1, "bottleneck.rate": "20Mbps", "flows[0].rtt": "30ms"},
        {"bottleneck.queue.limit": "20p", "flows[0].count": 3, "bottleneck.rate": "10Mbps", "flows[0].rtt": "60ms"},
    ]
    # Zipped fields never appear in other combinations.
    assert {(r.values["bottleneck.rate"], r.values["flows[0].rtt"]) for r in runs} == {("10Mbps", "60ms"), ("20Mbps", "30ms")}
    r = next(r for r in runs if r.point == 2)
    assert r.scenario["bottleneck"]["queue"]["limit"] == "20p" and r.scenario["flows"][0]["count"] == 3
    assert r.scenario["seed"] == r.seed


def test_seeds_are_common_across_grid_points_and_differ_across_replications():
    runs = Sweep.from_dict(SMALL).runs()
    seeds = {r.replication: set() for r in runs}
    for r in runs:
        seeds[r.replication].add(r.seed)
    assert seeds == {0: {derive_seed(7, 0)}, 1: {derive_seed(7, 1)}}  # base seed 7 from the base scenario
    assert {r.seed for r in Sweep.from_dict(sweep_dict(seed=99)).runs()} == {derive_seed(99, 0), derive_seed(99, 1)}
    assert len({r.key for r in runs}) == len(runs)


def test_run_key_is_a_hash_of_scenario_seed_and_version():
    resolved = Scenario.from_dict(SMALL_BASE).resolved
    k = run_key(resolved, 1, "0.1.0")
    assert len(k) == 64 and k == run_key(dict(reversed(list(resolved.items()))), 1, "0.1.0")
    assert len({k, run_key(resolved, 2, "0.1.0"), run_key(resolved, 1, "0.2.0")}) == 3
    # A store written before the summary's counts covered the measured window keyed its runs
    # without the schema: none of them is taken for a result of now.
    before = json.dumps({"scenario": resolved, "seed": 1, "aqmlab_version": "0.1.0"},
                        sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    assert k != hashlib.sha256(before.encode()).hexdigest()


def test_base_may_be_a_relative_path_a_builtin_name_or_a_table(tmp_path):
    (tmp_path / "scn").mkdir()
    (tmp_path / "scn" / "base.toml").write_text(tomli_w.dumps(SMALL_BASE))
    by_path = Sweep.load(write_sweep(tmp_path / "a.toml", sweep_dict(base="scn/base.toml")))
    by_table = Sweep.from_dict(SMALL)
    assert by_path.base == by_table.base and by_path.name == "small"
    builtin = Sweep.from_dict({"base": "dumbbell-droptail", "set": {"duration": "2s", "warmup": "1s"},
                               "axes": {"flows[0].count": [1, 2]}})
    assert builtin.base.resolved["duration"] == "2s" and len(builtin.runs()) == 2
    assert Sweep.load(write_sweep(tmp_path / "named.toml", {"base": "dumbbell-droptail"})).name == "named"
    # The file's name is one path component whatever its characters; only a written name is checked.
    assert Sweep.load(write_sweep(tmp_path / "my sweep.toml", {"base": "dumbbell-droptail"})).name == "my sweep"


def test_axes_accept_toml_nesting_and_quoted_dotted_paths(tmp_path):
    text = 'base = "dumbbell-droptail"\n[axes]\nbottleneck.queue.limit = ["20p", "40p"]\n"flows[0].count" = [1, 2]\n'
    (tmp_path / "s.toml").write_text(text)
    s = Sweep.load(tmp_path / "s.toml")
    assert s.axes == ["bottleneck.queue.limit", "flows[0].count"] and len(s.runs()) == 4


def test_nested_aqm_parameters_can_be_swept():
    s = Sweep.from_dict(sweep_dict(axes={}, zip=[{"bottleneck.queue": [{"type": "pie", "target": "15ms"},
                                                                      {"type": "pie", "target": "30ms"}]}]))
    assert [r.scenario["bottleneck"]["queue"]["type"] for r in s.runs()] == ["pie"] * 4
    # [set] merges into the base's queue table; the axis then reaches a PIE parameter.
    tuned = Sweep.from_dict(sweep_dict(set={"bottleneck.queue": {"type": "pie"}}, zip=[],
                                       axes={"bottleneck.queue.target": ["10ms", "20ms"]}))
    assert {r.scenario["bottleneck"]["queue"]["target"] for r in tuned.runs()} == {"10ms", "20ms"}
    assert {r.scenario["bottleneck"]["queue"]["limit"] for r in tuned.runs()} == {"50p"}


def test_a_base_error_that_set_fixes_is_not_raised_and_the_errors_name_their_part():
    # Once the base was resolved alone before [set] applied: a base file whose rate [set]
    # corrects was refused as `base.bottleneck.rate`, as `aqmlab run --set` no longer does.
    broken = {**SMALL_BASE, "bottleneck": {**SMALL_BASE["bottleneck"], "rate": "fast"}}
    fixed = Sweep.from_dict(sweep_dict(base=broken, set={"bottleneck.rate": "5Mbps"}, zip=[]))
    assert fixed.base.resolved["bottleneck"]["rate"] == "5Mbps"
    # An error [set] leaves is the base's, named so; one in a [set] value is [set]'s.
    with pytest.raises(ScenarioError) as e:
        Sweep.from_dict(sweep_dict(base=broken, set={"bottleneck.delay": "5ms"}, zip=[]))
    assert e.value.path == "base.bottleneck.rate"
    with pytest.raises(ScenarioError) as e:
        Sweep.from_dict(sweep_dict(set={"bottleneck.delay": "soon"}, zip=[]))
    assert e.value.path == "set.bottleneck.delay"


@pytest.mark.parametrize("change, path, words", [
    ({"axis": [1]}, "axis", "unknown key in the sweep file"),
    ({"base": None}, "base", "expected a scenario path"),
    ({"base": "no-such-scenario"}, "base", "no scenario file"),
    ({"replications": 0}, "replications", "positive integer"),
    ({"seed": -1}, "seed", "integer in [0, 2**64 - 1]"),
    # The name is the default store's directory, ./NAME-results: these reached outside it.
    ({"name": "../x"}, "name", "a plain file name of letters, digits, '.', '_' and '-'"),
    ({"name": "a/b"}, "name", "got 'a/b'"),
    ({"name": ""}, "name", "a plain file name"),
    ({"traces": "yes"}, "traces", "true or false"),
    ({"set": {"bottleneck.rate": "fast"}}, "set.bottleneck.rate", "expected a rate"),
    ({"axes": {"bottleneck.queue.limit": ["20p", "lots"]}}, "axes.bottleneck.queue.limit[1]", "value 'lots'"),
    ({"axes": {"flows[0].count": [1, 0]}}, "axes.flows[0].count[1]", "expected an integer"),
    ({"axes": {"flows[0].colour": ["red"]}}, "axes.flows[0].colour[0]", "unknown key"),
    ({"axes": {"seed": [1, 2]}}, "seed", "use 'replications'"),
    ({"axes": {"bottleneck.rate": []}}, "axes.bottleneck.rate", "non-empty list"),
    ({"axes": {"bottleneck.rate": ["10Mbps"]}}, "bottleneck.rate", "swept twice"),
    # Each once resolved silently: the axis won over [set], the top-level seed over [set]'s.
    ({"set": {"flows[0].count": 2}}, "flows[0].count", "is set in [set] and swept in [axes]: each value of the axis"),
    ({"set": {"bottleneck": {"rate": "5Mbps"}}}, "bottleneck.rate", "is set in [set] and swept in [[zip]] 0"),
    ({"set": {"bottleneck.queue.limit": "50p"}, "axes": {"bottleneck.queue": [{"type": "pie"}, {"type": "codel"}]}},
     "bottleneck.queue", "is set in [set] (as bottleneck.queue.limit, inside it) and swept in [axes]"),
    ({"seed": 9, "set": {"seed": 5}}, "seed", "is given twice, as seed = 9 at the top of the sweep file and as seed = 5 "
                                              "in [set]"),
    ({"zip": [{"bottleneck.delay": ["5ms", "10ms"], "warmup": ["1s"]}]}, "zip[1]", "same length"),
    ({"axes": {"bottleneck.queue.limit": ["100p", {"packets": 100}]}}, "axes", "resolve to the same scenario"),
    # Each value is valid on its own; 1400-byte packets do not fit a 1200-byte MTU.
    ({"axes": {"flows[0].packet_size": ["1000B", "1400B"], "bottleneck.mtu": ["1500B", "1200B"]}, "zip": []},
     "axes", "grid point flows[0].packet_size = '1400B', bottleneck.mtu = '1200B'"),
])
def test_bad_sweeps_fail_up_front_naming_the_field(change, path, words):
    data = sweep_dict(**change)
    if "zip" in change and change["zip"]:
        data["zip"] = SMALL["zip"] + change["zip"]
    with pytest.raises(ScenarioError) as e:
        Sweep.from_dict(data)
    assert e.value.path == path
    assert words in str(e.value)


def test_the_example_sweep_is_valid():
    s = Sweep.load(example_path("droptail-buffer"))
    assert s.name == "droptail-buffer" and len(s.runs()) == 4 * 3 * 3
    with pytest.raises(FileNotFoundError, match="droptail-buffer"):
        example_path("nope")


def test_zipped_fields_are_checked_together():
    # RED's thresholds are valid only as pairs: (10, 65) and (150, 700), but 65 < 150 alone.
    # The thresholds are swept, so [set] leaves them to the axis (giving them too is refused).
    red = {"bottleneck.queue": {"type": "red", "profile": "ns2", "limit": "800p"}}
    s = Sweep.from_dict(sweep_dict(set=red, axes={}, zip=[{"bottleneck.queue.min_th": [10, 150],
                                                           "bottleneck.queue.max_th": [65, 700]}]))
    pairs = {(r.scenario["bottleneck"]["queue"]["min_th"], r.scenario["bottleneck"]["queue"]["max_th"]) for r in s.runs()}
    assert pairs == {(10.0, 65.0), (150.0, 700.0)}
    with pytest.raises(ScenarioError, match=r"axes\.\(bottleneck\.queue\.min_th, bottleneck\.queue\.max_th\)\[1\]"):
        Sweep.from_dict(sweep_dict(set=red, axes={}, zip=[{"bottleneck.queue.min_th": [10, 700],
                                                            "bottleneck.queue.max_th": [65, 150]}]))


def test_an_empty_zip_table_is_named():
    # Once an IndexError traceback when counting the runs.
    with pytest.raises(ScenarioError, match=r"zip\[0\]: an empty \[\[zip\]\] table"):
        Sweep.from_dict(sweep_dict(axes={}, zip=[{}]))


def test_a_sweep_of_millions_of_runs_is_refused_before_it_is_expanded():
    # issue 16 item 6: 4 axes of 40 values x 10 replications = 25.6 M runs. Counting must not
    # expand (nor validate) the grid: the values here are valid, so only the count can refuse.
    axes = {"bottleneck.rate": [f"{i + 1}Mbps" for i in range(40)], "flows[0].count": list(range(1, 41)),
            "bottleneck.delay": [f"{i + 1}ms" for i in range(40)]}
    d = sweep_dict(axes=axes, zip=[{"bottleneck.queue.limit": [f"{i + 10}p" for i in range(40)]}], replications=10)
    with pytest.raises(ScenarioError) as e:
        Sweep.from_dict(d)
    assert str(e.value) == ("axes: the sweep expands to 25,600,000 runs (40 x 40 x 40 x 40 x 10 replications), more "
                            "than 100,000: sweep fewer values, or split it into several sweeps")


@pytest.mark.parametrize("value", ["1e400s", "1e12s", 1e400])
def test_an_axis_value_out_of_range_names_the_axis(value):
    # issue 16 item 2: duration=1e400s was an OverflowError traceback in sweep axes too.
    with pytest.raises(ScenarioError) as e:
        Sweep.from_dict(sweep_dict(axes={"duration": ["3s", value]}, zip=[]))   # 3 s: the base's flows stop then
    assert str(e.value).startswith(f"axes.duration[1]: value {value!r}: duration: ")


def test_an_axis_inside_a_set_value_edits_it():
    # Not a conflict: the axis edits the flows [set] gives, as it edits the base's.
    flows = [dict(f, count=2) if i == 0 else f for i, f in enumerate(SMALL_BASE["flows"])]
    sweep = Sweep.from_dict(sweep_dict(set={"flows": flows}, axes={"flows[0].count": [1, 3]}, zip=[]))
    assert sorted(r.scenario["flows"][0]["count"] for r in sweep.runs()) == [1, 1, 3, 3]


def test_set_values_stay_at_a_profile_axis_point_of_a_saved_base(tmp_path):
    # Once dropped at the linux point when the base was a saved scenario.toml: [set] went into the
    # base as written, and the axis's new profile took its 20 ms / 30 ms (the paper's defaults) for
    # the old profile's and replaced them with Linux's 15 ms / 15 ms. The oracle is the built-in
    # base, whose file does not write them: [set] holds there.
    import warnings

    saved = tmp_path / "scenario.toml"
    saved.write_text(Scenario.load("pie-base", {"duration": "3s", "warmup": "1s"}).to_toml())
    got = {}
    for base in (str(saved), "pie-base"):
        sweep = {"base": base, "set": {"bottleneck.queue.target": "20ms", "bottleneck.queue.tupdate": "30ms",
                                       "duration": "3s", "warmup": "1s"},
                 "axes": {"bottleneck.queue.profile": ["paper", "linux"]}}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            runs = Sweep.from_dict(sweep).runs()
        got[base] = [tuple(r.scenario["bottleneck"]["queue"][k] for k in ("profile", "target", "tupdate")) for r in runs]
        # The linux point keeps both against Linux's defaults, and says so, from either base.
        assert [str(w.message).partition(";")[0] for w in caught] == [
            "bottleneck.queue.profile: 'linux' keeps the values the scenario gives: target = \"20ms\" (its default: "
            "\"15ms\"), tupdate = \"30ms\" (its default: \"15ms\")"], base
    assert got[str(saved)] == got["pie-base"] == [("paper", "20ms", "30ms"), ("linux", "20ms", "30ms")]
