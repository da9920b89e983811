"""Scenario validation: every error names its field and what is accepted."""

import copy
import re
import warnings

import pytest

import aqmlab
from aqmlab import Scenario, ScenarioError, units
from support import small_scenario


@pytest.mark.parametrize("text, ns", [("20ms", 20_000_000), ("1.5s", 1_500_000_000), ("250us", 250_000), ("7ns", 7), ("2min", 120_000_000_000)])
def test_durations(text, ns):
    assert units.duration_ns(text, "x") == ns


@pytest.mark.parametrize("text, bps", [("10Mbps", 10_000_000), ("1Gbps", 10**9), ("2.5Mb/s", 2_500_000), ("64kbps", 64_000)])
def test_rates(text, bps):
    assert units.rate_bps(text, "x") == bps


@pytest.mark.parametrize("text, limit", [("200p", {"packets": 200}), ("200KB", {"bytes": 200_000}), ("2MB", {"bytes": 2_000_000}), ("1KiB", {"bytes": 1024})])
def test_limits(text, limit):
    assert units.queue_limit(text, "x") == limit


def test_bad_rate_names_field_and_accepted_form():
    d = small_scenario()
    d["bottleneck"]["rate"] = "10 parsecs"
    with pytest.raises(ScenarioError) as e:
        Scenario.from_dict(d)
    msg = str(e.value)
    assert msg.startswith("bottleneck.rate: expected a rate like '10Mbps'")
    assert "got '10 parsecs'" in msg


@pytest.mark.parametrize("mutate, path", [
    (lambda d: d.update(colour="blue"), "colour: unknown key"),
    (lambda d: d["bottleneck"].update(rat="1Mbps"), "bottleneck.rat: unknown key"),
    (lambda d: d["flows"][0].update(windoww=3), "flows[0].windoww: unknown key"),
    (lambda d: d["traces"].update(everything=True), "traces.everything: unknown key"),
    (lambda d: d["flows"][1].update(cc="newreno"), "flows[1].cc: unknown key"),
    (lambda d: d.pop("duration"), "duration: is required"),
    (lambda d: d["flows"][0].update(count=0), "flows[0].count: expected an integer in [1,"),
    (lambda d: d["flows"][0].update(type="sctp"), "flows[0].type: expected one of 'tcp', 'udp'"),
    (lambda d: d["flows"][0].update(rtt="10ms"), "flows[0].rtt: 10ms is below twice the bottleneck"),
    (lambda d: d["flows"][0].update(access_delay="5ms"), "flows[0].rtt: give exactly one of"),
    (lambda d: d["flows"][0].update(rtt=["50ms"]), "flows[0].rtt: 1 values given for count = 3"),
    (lambda d: d["flows"][0].update(start={"uniform": ["2s", "1s"]}), "flows[0].start: uniform bounds"),
    (lambda d: d["bottleneck"].update(rate_schedule=[{"at": "2s", "rate": "5Mbps"}, {"at": "1s", "rate": "1Mbps"}]), "bottleneck.rate_schedule[1].at: steps must be in time order"),
    (lambda d: d["bottleneck"].update(rate_schedule=[{"at": "2s", "rate": "0Mbps"}]), "bottleneck.rate_schedule[0].rate: 0Mbps is outside the accepted range [1bps, 1Tbps]"),
    (lambda d: d.update(warmup="5s"), "warmup: must be shorter than duration"),
    (lambda d: d["bottleneck"].update(queue={"type": "drop_tail", "limit": "lots"}), "bottleneck.queue.limit: expected a queue limit"),
    (lambda d: d["bottleneck"].update(queue={"type": "teleport"}), "bottleneck.queue.type: expected one of 'codel', 'drop_tail'"),
    (lambda d: d["bottleneck"].update(queue={"limit": "5p"}), "bottleneck.queue.type: is required"),
    (lambda d: d["flows"][0].update(packet_size="9000B"), "flows[0].packet_size: 9000 B exceeds bottleneck.mtu"),
    (lambda d: d["traces"].update(queue="yes"), "traces.queue: expected true or false"),
])
def test_errors_name_the_field(mutate, path):
    d = small_scenario()
    mutate(d)
    with pytest.raises(ScenarioError) as e:
        Scenario.from_dict(d)
    assert str(e.value).startswith(path), str(e.value)


def test_rtt_becomes_access_delay():
    s = Scenario.from_dict(small_scenario())
    g = s.sim_config["flows"][0]
    # Base RTT in [40, 80] ms = 2 (access + 10 ms bottleneck): access in [10, 30] ms.
    assert g["access_delay_ns"] == {"uniform": {"lo": 10_000_000, "hi": 30_000_000}}
    assert s.resolved["flows"][0]["access_delay"] == {"uniform": ["10ms", "30ms"]}
    assert s.sim_config["flows"][1]["transport"] == {"type": "udp", "rate_bps": 2_000_000, "ecn": False,
                                                    "ect": "ect0"}


def test_defaults_are_written_out_and_reload_identically():
    s = Scenario.from_dict(small_scenario())
    r = s.resolved
    assert r["flows"][0]["min_rto"] == "200ms" and r["flows"][0]["initial_cwnd"] == 2
    assert r["bottleneck"]["reverse_queue"] == {"type": "drop_tail", "limit": "100000p"}
    again = Scenario.from_dict(r)
    assert again.sim_config == s.sim_config
    import tomllib

    assert Scenario.from_dict(tomllib.loads(s.to_toml())).sim_config == s.sim_config


def test_with_values_by_dotted_path():
    s = Scenario.from_dict(small_scenario())
    t = s.with_values({"bottleneck.rate": "20Mbps", "flows[0].count": 7, "seed": 9})
    assert t.sim_config["bottleneck"]["rate_bps"] == 20_000_000
    assert t.sim_config["flows"][0]["count"] == 7
    assert t.sim_config["seed"] == 9
    with pytest.raises(ScenarioError, match=r"flows\[5\]\.count: index 5 is out of range"):
        s.with_values({"flows[5].count": 1})


def _written(name: str, values: dict) -> dict:
    """The built-in scenario's file with ``values`` written into it, as a user would edit it."""
    import tomllib

    from aqmlab.scenario import BUILTIN_DIR, set_dotted

    d = tomllib.loads((BUILTIN_DIR / f"{name}.toml").read_text())
    for path, value in values.items():
        set_dotted(d, path, value)
    return d


@pytest.mark.parametrize("values, differs", [
    # The TCP profile: Linux's CUBIC rather than ns-2's NewReno.
    ({"flows[0].profile": "linux"}, ("flows", 0, "cc")),
    # The option given with it still overrides the new profile; the others are Linux's.
    ({"flows[0].profile": "linux", "flows[0].cc": "newreno"}, ("flows", 0, "initial_cwnd")),
    # The AQM profile: Linux's PIE (15 ms target) rather than the paper's (20 ms).
    ({"bottleneck.queue.profile": "linux"}, ("bottleneck", "queue", "target")),
    # A new bottleneck delay keeps the flows' rtt as written.
    ({"bottleneck.delay": "40ms"}, ("flows", 0, "access_delay")),
])
def test_with_values_resolves_as_the_file_saying_them_would(values, differs):
    # Once the values edited the resolved scenario, where the old profile had filled in every
    # option: a new profile changed nothing else (`--set flows[0].profile=linux` kept NewReno).
    base = Scenario.load("pie-base")
    changed = base.with_values(values)
    assert changed.resolved == Scenario.from_dict(_written("pie-base", values)).resolved

    def field(s):
        v = s.resolved
        for k in differs:
            v = v[k]
        return v

    assert field(changed) != field(base)
    if "flows[0].cc" in values:
        assert changed.resolved["flows"][0]["cc"] == "newreno"


def test_an_option_the_file_gives_outlasts_a_new_profile():
    written = _written("pie-base", {"flows[0].cc": "newreno", "bottleneck.queue.target": "20ms"})
    with pytest.warns(aqmlab.AqmlabWarning) as caught:
        s = Scenario.from_dict(written).with_values({"flows[0].profile": "linux", "bottleneck.queue.profile": "linux"})
    assert s.resolved == Scenario.from_dict(_written("pie-base", {
        "flows[0].cc": "newreno", "flows[0].profile": "linux", "bottleneck.queue.target": "20ms",
        "bottleneck.queue.profile": "linux"})).resolved
    flow, queue = s.resolved["flows"][0], s.resolved["bottleneck"]["queue"]
    assert (flow["cc"], flow["initial_cwnd"], queue["target"], queue["tupdate"]) == ("newreno", 10, "20ms", "15ms")
    # Each option kept against a default of the new profile is named (Linux's CUBIC, 15 ms).
    assert [str(w.message).partition(";")[0] for w in caught] == [
        "flows[0].profile: 'linux' keeps the values the scenario gives: cc = \"newreno\" (its default: \"cubic\")",
        "bottleneck.queue.profile: 'linux' keeps the values the scenario gives: target = \"20ms\" (its default: \"15ms\")"]


# The drop-tail defaults of the schema, written by hand (docs/scenario-reference.md): the reverse
# queue {type = "drop_tail", limit = "100000p"}, the access links' queue limit 1000p.
@pytest.mark.parametrize("values, table, want", [
    ({"bottleneck.reverse_queue.limit": "500p"}, ("bottleneck", "reverse_queue"),
     {"type": "drop_tail", "limit": "500p"}),
    ({"access.rate": "100Mbps", "access.queue.limit": "50p"}, ("access",),
     {"rate": "100Mbps", "overhead": "0B", "device_queue": 0, "queue": {"type": "drop_tail", "limit": "50p"}}),
])
def test_a_value_inside_a_table_the_file_leaves_out_keeps_its_default(values, table, want):
    # Once `type: is required`: pie-base gives no reverse_queue and no access table, and a value
    # set inside one started it empty, where the resolved scenario had held its default.
    base = Scenario.load("pie-base")
    got = base.with_values(values).resolved
    *outer, last = table
    expected = copy.deepcopy(base.resolved)
    node, where = expected, got
    for key in outer:
        node, where = node[key], where[key]
    node[last] = want
    assert where[last] == want and got == expected


def test_a_value_inside_a_listed_table_the_file_leaves_out_keeps_its_default():
    from aqmlab.topology import parking_lot

    d = {"name": "hops", "duration": "2s", **parking_lot(2, rate="10Mbps", delay="5ms", queue={"type": "pie"}),
         "flows": [{"type": "tcp", "rtt": "60ms", "route": ["R0", "R2"]}]}
    link = Scenario.from_dict(d).with_values({"network.links[0].reverse_queue.limit": "500p"}).resolved["network"]["links"][0]
    assert link["reverse_queue"] == {"type": "drop_tail", "limit": "500p"}


@pytest.mark.parametrize("flow, values, want", [
    # The file gives rtt; a new access delay replaces it (25 ms of the bottleneck's stay).
    ({"rtt": "100ms"}, {"flows[0].access_delay": "10ms"}, "10ms"),
    # The file gives access_delay; a new round trip replaces it: 100 ms = 2 (25 + 25) ms.
    ({"access_delay": "10ms"}, {"flows[0].rtt": "100ms"}, "25ms"),
    # A UDP group likewise.
    ({"type": "udp", "rate": "1Mbps", "rtt": "100ms"}, {"flows[0].access_delay": "5ms"}, "5ms"),
])
def test_rtt_and_access_delay_set_replace_each_other(flow, values, want):
    # Once `flows[0].rtt: give exactly one of 'rtt' or 'access_delay'`, naming a field not set.
    d = _written("pie-base", {})
    d["flows"][0] = {"type": "tcp", **flow}
    s = Scenario.from_dict(d).with_values(values)
    assert s.resolved["flows"][0]["access_delay"] == want
    assert s.given["flows"][0].keys() - {"type", "rate"} == {next(iter(values)).removeprefix("flows[0].")}


def test_rtt_and_access_delay_both_set_are_refused():
    with pytest.raises(ScenarioError, match=r"flows\[0\]\.rtt: give exactly one of 'rtt'"):
        Scenario.load("pie-base").with_values({"flows[0].rtt": "80ms", "flows[0].access_delay": "10ms"})


def _saved(values: dict) -> Scenario:
    """pie-base with ``values``, saved as `run -o` saves it (every option written) and read back."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # pie-base's 200 KB buffer against ns-3's default: not tested here
        return Scenario.from_dict(Scenario.load("pie-base").with_values(values).resolved)


@pytest.mark.parametrize("old, path, profile", [
    # The TCP profile: every ns-2 option written out; Linux's are CUBIC, IW10, ...
    ({}, "flows[0].profile", "linux"),
    # The paper's PIE written out (20 ms / 30 ms); Linux's has 15 ms / 15 ms and no rate estimator.
    ({}, "bottleneck.queue.profile", "linux"),
    # The RFC's PIE written out holds mark_ecnth and rate_ewma, which the paper's and Linux's
    # profiles (without ECN, with timestamps) refuse as given: once `mark_ecnth: applies only
    # with ecn = true` and `rate_ewma: applies only with delay = "rate_estimator"`.
    ({"bottleneck.queue.profile": "rfc"}, "bottleneck.queue.profile", "paper"),
    ({"bottleneck.queue.profile": "rfc"}, "bottleneck.queue.profile", "linux"),
    # Linux's PIE written out holds its jiffy rate (hz), which only the linux profile reads.
    ({"bottleneck.queue.profile": "linux"}, "bottleneck.queue.profile", "rfc"),
])
def test_a_new_profile_on_a_saved_scenario_brings_its_defaults(old, path, profile):
    # Once the saved file's every option, the old profile's defaults included, overrode the new
    # profile: nothing changed (or the new profile refused them). The oracle is the scenario as
    # written with the new profile from the start, which a saved one must resolve to.
    saved = _saved(old)
    with pytest.warns(aqmlab.AqmlabWarning) as caught:
        changed = saved.with_values({path: profile})
    assert changed.resolved == Scenario.load("pie-base").with_values({**old, path: profile}).resolved
    # Every option the saved table gives is a default here: none is kept, and the ones that give
    # way are named.
    assert [str(w.message).partition(" takes its defaults for ")[0] for w in caught] == [f"{path}: '{profile}'"]


def test_a_new_profile_on_a_saved_scenario_keeps_and_names_the_options_set():
    # The saved file's own choices (the paper's PIE with a 10 ms target, ECN and a 300 KB buffer)
    # stay under the new profile; of them target and limit override a default that changes
    # (ns-3: 15 ms, 25 packets; the paper: 20 ms, 1000 packets), ecn one that does not (off in
    # both), and the warning names those two (docs/scenario-reference.md's PIE table).
    own = {"bottleneck.queue.target": "10ms", "bottleneck.queue.ecn": True, "bottleneck.queue.limit": "300KB"}
    with pytest.warns(aqmlab.AqmlabWarning) as caught:
        changed = _saved(own).with_values({"bottleneck.queue.profile": "ns3"})
    assert [str(w.message).partition("; it takes its defaults for ")[0] for w in caught] == [
        "bottleneck.queue.profile: 'ns3' keeps the values the scenario gives: limit = \"300000B\" (its default: "
        "\"25p\"), target = \"10ms\" (its default: \"15ms\"); leave those options out of the file, or set them, "
        "to take the defaults of 'ns3'"]
    # The paper's other defaults, written out, give way to ns-3's, named (tupdate: 30 ms -> 15 ms).
    assert 'tupdate ("30ms" -> "15ms")' in str(caught[0].message)
    assert changed.resolved == Scenario.load("pie-base").with_values(
        {**own, "bottleneck.queue.profile": "ns3"}).resolved


def test_an_option_set_by_an_earlier_edit_outlasts_a_new_profile_on_a_saved_scenario():
    # Once the second call took the target the first had set (20 ms, the paper's default) for the
    # old profile's default and gave it Linux's 15 ms: chained edits resolve as one edit does.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # named below
        one = _saved({}).with_values({"bottleneck.queue.target": "20ms", "bottleneck.queue.profile": "linux"})
    with pytest.warns(aqmlab.AqmlabWarning, match=r"'linux' keeps the values the scenario gives: target = \"20ms\""):
        two = _saved({}).with_values({"bottleneck.queue.target": "20ms"}).with_values({"bottleneck.queue.profile": "linux"})
    assert two.resolved == one.resolved
    assert (two.resolved["bottleneck"]["queue"]["target"], two.resolved["bottleneck"]["queue"]["tupdate"]) == ("20ms", "15ms")
    assert two.edits == {"bottleneck.queue.target", "bottleneck.queue.profile"}


@pytest.mark.parametrize("codel, old, new, warned", [
    ({"target": "10ms"}, "linux", "ns3", []),
    ({"target": "10ms"}, "ns3", "linux", []),
    # ns-3's CoDel reads an MTU that Linux's leaves unset: kept, and named as the leaf it is.
    ({"target": "10ms", "mtu": "9000B"}, "ns3", "linux", ['codel.mtu = "9000B" (its default: unset)']),
])
def test_a_new_profile_on_a_saved_scenario_reaches_into_nested_queue_tables(codel, old, new, warned):
    # Once a nested table (FQ-CoDel's codel) was kept whole when any option in it was not a
    # default, its own profile included: the saved copy resolved to an ns-3 FQ-CoDel whose CoDel
    # kept Linux's arithmetic (codel.profile = "linux"), where the file it was saved from gives
    # codel.profile = "ns3"; and the warning named the whole inline table. The oracle is the
    # original file with the same edit.
    written = copy.deepcopy(Scenario.load("pie-base").given)
    written["bottleneck"]["queue"] = {"type": "fq_codel", "profile": old, "codel": codel}
    edit = {"bottleneck.queue.profile": new}
    caught = {}
    for form, data in (("file", written), ("saved", Scenario.from_dict(written).resolved)):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            caught[form] = (Scenario.from_dict(data).with_values(edit).resolved, [str(x.message) for x in w])
    assert caught["saved"][0] == caught["file"][0]
    assert caught["saved"][0]["bottleneck"]["queue"]["codel"]["profile"] == new
    for form in caught:
        assert [m.partition(" keeps the values the scenario gives: ")[2].partition(";")[0]
                for m in caught[form][1] if " keeps the values " in m] == warned, form
    # The saved form's inner profile gave way, and the warning says so.
    assert f'codel.profile ("{old}" -> "{new}")' in " ".join(caught["saved"][1])


def _fq_codel(profile: str, codel: dict) -> dict:
    written = copy.deepcopy(Scenario.load("pie-base").given)
    written["bottleneck"]["queue"] = {"type": "fq_codel", "profile": profile, "codel": codel}
    return written


def _second_group(**options) -> dict:
    """pie-base with a second flow group: the first's options but for the access delay, and ``options``."""
    written = copy.deepcopy(Scenario.load("pie-base").given)
    first = {k: v for k, v in written["flows"][0].items() if k != "access_delay"}
    written["flows"].append({**first, **options})
    return written


@pytest.mark.parametrize("written, edit", [
    (Scenario.load("pie-base").given, {"flows[0].profile": "linux"}),
    (Scenario.load("pie-base").given, {"flows[0].profile": "linux", "bottleneck.queue.profile": "rfc"}),
    (Scenario.load("pie-base", {"bottleneck.queue.profile": "rfc"}).given, {"bottleneck.queue.profile": "linux"}),
    (Scenario.load("pie-base", {"flows[0].cc": "newreno", "bottleneck.queue.target": "10ms",
                                "bottleneck.queue.ecn": True}).given,
     {"flows[0].profile": "linux", "bottleneck.queue.profile": "ns3"}),
    # A round trip given instead of an access delay (the pair's other way), and a second group
    # with options of its own, both groups' profiles changed at once.
    (_second_group(name="b", rtt="80ms", cc="newreno"),
     {"flows[0].profile": "linux", "flows[1].profile": "linux"}),
    (_fq_codel("ns3", {"target": "10ms", "mtu": "9000B"}), {"bottleneck.queue.profile": "linux"}),
    (_fq_codel("linux", {"target": "10ms"}), {"bottleneck.queue.profile": "ns3"}),
])
def test_a_new_profile_on_a_saved_scenario_drops_the_same_options_as_one_at_a_time(monkeypatch, written, edit):
    # The options of a saved table that give way to a new profile are found by leaving all the
    # candidates out at once (a few resolutions of the scenario); the rule they implement is the
    # one-option-at-a-time search (one resolution an option), which stays as the fallback. The
    # oracle is that search, forced by disabling the shortcut: both must leave the same options out.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        saved = Scenario.from_dict(Scenario.from_dict(written).resolved)
    import aqmlab.scenario as scenario
    found = []
    at_defaults = scenario._at_defaults
    monkeypatch.setattr(scenario, "_at_defaults", lambda *a: found.append(at_defaults(*a)) or found[-1])
    fast = scenario._edit(saved.given, edit, frozenset())
    monkeypatch.setattr(scenario, "_at_defaults", lambda *a: {})
    assert fast == scenario._edit(saved.given, edit, frozenset())
    # The shortcut did the work rather than handing it all to the fallback.
    assert found and any(found[0].values())


def test_options_a_saved_scenario_gives_way_are_named_with_their_old_and_new_values():
    # Once silent: a file giving target = "20ms" and cc = "newreno" on purpose (the old profiles'
    # defaults) keeps them under Linux's profiles and warns; its saved scenario.toml cannot say
    # they were chosen and took Linux's 15 ms and CUBIC, unannounced. Now the warning names them,
    # so that the user can pin them with --set.
    file = Scenario.load("pie-base", {"flows[0].cc": "newreno", "bottleneck.queue.target": "20ms"})
    edit = {"flows[0].profile": "linux", "bottleneck.queue.profile": "linux"}
    with pytest.warns(aqmlab.AqmlabWarning) as caught:
        Scenario.from_dict(file.resolved).with_values(edit)
    took = [str(w.message).partition(" takes its defaults for ") for w in caught]
    assert [head for head, _, _ in took] == ["flows[0].profile: 'linux'", "bottleneck.queue.profile: 'linux'"]
    assert took[0][2].startswith('cc ("newreno" -> "cubic"), ')
    assert took[1][2].startswith('target ("20ms" -> "15ms"), tupdate ("30ms" -> "15ms"), ')
    assert took[0][2].endswith("which the saved scenario gives at those of 'ns2-sack': set them to keep their values")
    assert took[1][2].endswith("which the saved scenario gives at those of 'paper': set them to keep their values")


def test_a_profile_that_sets_its_defaults_or_stays_is_not_warned():
    # pytest turns warnings into errors (pyproject.toml): these must emit none.
    Scenario.load("pie-base").with_values({"flows[0].profile": "linux", "bottleneck.queue.profile": "rfc"})
    Scenario.from_dict(Scenario.load("pie-base").resolved).with_values({"flows[0].profile": "ns2-sack"})
    # The option given beside the profile is the user's own choice of the moment: not warned (the
    # saved options that give way are, as such).
    with pytest.warns(aqmlab.AqmlabWarning) as caught:
        _saved({}).with_values({"bottleneck.queue.profile": "linux", "bottleneck.queue.target": "20ms"})
    assert [str(w.message) for w in caught if "target" in str(w.message) or " keeps " in str(w.message)] == []


@pytest.mark.parametrize("value, suggested", [(5, "5Mbps"), (10.5, "10.5Mbps"), (10_000_000, "10000000bps")])
def test_a_bare_rate_gets_a_plausible_unit_suggested(value, suggested):
    # Once '5Tbps' and '10000000Tbps': the largest unit, five orders above the range's top.
    with pytest.raises(ScenarioError) as e:
        units.rate_bps(value, "bottleneck.rate")
    assert str(e.value).endswith(f"a number needs a unit, e.g. '{suggested}'")


def test_what_changes_nothing_is_refused_but_defaults_and_the_end_pass():
    # A saved scenario.toml writes every trace option at its default, captures on or off, and
    # loads again; so do flows stopping exactly at the end of the run.
    d = small_scenario(traces={"pcap_snaplen": 128, "pcap_every": 1, "sojourn_every": 1})
    d["flows"][1]["stop"] = d["duration"]
    s = Scenario.from_dict(d)
    assert Scenario.from_dict(s.resolved).sim_config == s.sim_config
    # The same options away from their defaults act only with their trace.
    s = Scenario.from_dict(small_scenario(traces={"pcap": ["bottleneck"], "pcap_snaplen": 256, "pcap_every": 2,
                                                  "pcap_window": ["1s", "2s"], "sojourn": True, "sojourn_every": 3}))
    assert Scenario.from_dict(s.resolved).sim_config == s.sim_config
    with pytest.raises(ScenarioError, match=r"^traces\.pcap_window: applies only with traces\.pcap: with no capture "
                                            r"point nothing is captured$"):
        Scenario.from_dict(small_scenario(traces={"pcap": [], "pcap_window": ["1s", "2s"]}))


def test_builtin_scenarios_load():
    from aqmlab import builtin_scenarios

    names = builtin_scenarios()
    assert "dumbbell-droptail" in names
    for n in names:
        assert Scenario.load(n).name == n
    with pytest.raises(ScenarioError, match="no scenario file 'nope'"):
        Scenario.load("nope")


def test_nested_queue_tables_take_units_and_round_trip():
    # A strict-priority class in front of FQ-PIE: limits and times are translated at every
    # depth, and the resolved form (no top-level limit) loads back to the same run.
    d = small_scenario()
    d["bottleneck"]["queue"] = {
        "type": "strict_priority", "high_flows": [0], "high_limit": "50p",
        "low": {"type": "fq_pie", "limit": "200p", "pie": {"profile": "rfc", "target": "10ms"}},
    }
    s = Scenario.from_dict(d)
    q = s.sim_config["bottleneck"]["queue"]
    assert q["high_limit"] == {"packets": 50}
    assert q["low"]["limit"] == {"packets": 200}
    assert q["low"]["pie"]["target"] == 10_000_000
    r = s.resolved["bottleneck"]["queue"]
    assert r["high_limit"] == "50p" and r["low"]["limit"] == "200p"
    assert Scenario.from_dict(s.resolved).sim_config == s.sim_config


def test_strict_priority_selects_by_group_or_dscp():
    d = small_scenario()
    d["flows"].insert(0, {"name": "voip", "type": "udp", "count": 2, "rate": "64kbps", "rtt": "40ms", "dscp": 46})
    d["bottleneck"]["queue"] = {"type": "strict_priority", "high_groups": ["voip"], "low": {"type": "pie", "limit": "100p"}}
    s = Scenario.from_dict(d)
    assert s.sim_config["bottleneck"]["queue"]["high_flows"] == [0, 1]
    assert s.sim_config["flows"][0]["dscp"] == 46 and s.sim_config["flows"][1]["dscp"] == 0
    d["bottleneck"]["queue"] = {"type": "strict_priority", "high_dscp": [46], "low": {"type": "pie", "limit": "100p"}}
    r = aqmlab.run(d, progress=False)
    # The priority class sees almost no queue while the others share PIE's.
    soj = r.sojourn()
    voip = soj[soj["flow"] < 2]["sojourn_s"].quantile(0.99)
    assert voip < 0.002 < soj[soj["flow"] >= 2]["sojourn_s"].median(), voip
    d["bottleneck"]["queue"] = {"type": "strict_priority", "high_groups": ["video"], "low": {"type": "pie"}}
    with pytest.raises(ScenarioError, match=r"bottleneck.queue.high_groups: no flow group named 'video'"):
        Scenario.from_dict(d)
    d["bottleneck"]["queue"] = {"type": "pie"}
    d["flows"][0]["dscp"] = 64
    with pytest.raises(ScenarioError, match=r"flows\[0\].dscp: expected an integer in \[0, 63\]"):
        Scenario.from_dict(d)
