"""The malformed-input campaign of issue 16: scenarios and sweep files a new user might write,
each with the outcome it must have, grouped by kind for the table in docs/robustness.md.

    python tests/malformed_cases.py        # rewrite the table in docs/robustness.md

Each case is a mutation of a small valid scenario (or sweep) and the field path the error must
name, or the path of the warning; ``tests/test_malformed.py`` runs them all.
"""

from __future__ import annotations

import copy
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).parent))
from support import small_scenario  # noqa: E402

ERROR, WARNING = "error", "warning"


@dataclass(frozen=True)
class Case:
    kind: str
    label: str
    mutate: Callable[[dict], Any]
    path: str          # the field the error (or warning) names
    outcome: str = ERROR
    sweep: bool = False  # the mutation applies to a sweep file around the scenario


def setter(path: str, value: Any) -> Callable[[dict], None]:
    """A mutation setting a dotted path (lists by index, tables created as needed)."""
    from aqmlab.scenario import set_dotted

    return lambda d: set_dotted(d, path, copy.deepcopy(value))


def dropper(path: str) -> Callable[[dict], None]:
    """A mutation removing the field at a dotted path."""
    parts = re.findall(r"[^.\[\]]+|\[\d+\]", path)

    def drop(d: dict) -> None:
        node: Any = d
        for p in parts[:-1]:
            node = node[int(p[1:-1])] if p.startswith("[") else node[p]
        node.pop(parts[-1])
    return drop


CASES: list[Case] = []


def add(kind: str, path: str, value: Any, label: str | None = None, outcome: str = ERROR, where: str | None = None) -> None:
    CASES.append(Case(kind, label or f"{path} = {value!r}", setter(path, value), where or path, outcome))


# -- Quantities with units: what a unit string can get wrong, on every kind of field ----------
UNIT_FIELDS = {
    "duration": ["duration", "warmup", "bottleneck.delay", "flows[0].start", "flows[1].stop", "traces.interval",
                 "flows[0].min_rto", "bottleneck.rate_schedule[0].at"],
    "rate": ["bottleneck.rate", "access.rate", "flows[1].rate", "bottleneck.rate_schedule[0].rate"],
    "size": ["bottleneck.mtu", "flows[0].packet_size", "flows[0].size"],
}
BAD_UNITS = {
    "duration": ["20 parsecs", "20", 0.02, "-5ms", "1e400s", "nan", float("nan"), float("inf"), "", "ms", True, "20 m s"],
    "rate": ["10 Mbit", "10", 10.5, "-1Mbps", "1e30Mbps", "inf", True, ""],
    "size": ["1500 bytes", "-1B", 1.5, "1e400B", "B", False],
}
for q, fields in UNIT_FIELDS.items():
    for i, field in enumerate(fields):
        for j, value in enumerate(BAD_UNITS[q]):
            if (i + j) % 2 == 0 or q == "size":   # every value on about half the fields: each field, each value
                add(f"{q} with a bad unit, sign or magnitude", field, value)

# -- Wrong types -------------------------------------------------------------------------------
for path, value in [("seed", "one"), ("seed", 1.5), ("seed", True), ("name", 5), ("name", ""), ("description", []),
                    ("flows[0].count", "3"), ("flows[0].count", 2.0), ("flows[0].sack", "yes"), ("flows[0].sack", 1),
                    ("traces.queue", "true"), ("traces", []), ("bottleneck", "10Mbps"), ("access", 5),
                    ("flows[0].rtt", {"normal": ["1ms", "2ms"]}), ("flows[0].rtt", {"uniform": "1ms"}),
                    ("flows[0].start", {"uniform": ["1s"]}), ("flows[0].start", []), ("flows[0].marker", "gold"),
                    ("bottleneck.rate_schedule", {"at": "1s"}), ("bottleneck.rate_schedule[0]", "1s"),
                    ("bottleneck.impairment", ["loss"]), ("bottleneck.impairment.outages", "1s-2s"),
                    ("flows[0].ecn", "sometimes"),
                    ("flows[0].cc", "bbr"), ("flows[0].profile", "freebsd"), ("flows[0].type", "sctp"),
                    ("flows[0].size", {"lognormal": "1KB"}), ("bottleneck.queue", "pie"), ("bottleneck.queue", None)]:
    add("a value of the wrong type", path, value)

# -- Out of range ------------------------------------------------------------------------------
for path, value in [("flows[0].count", 0), ("flows[0].count", 10**7), ("flows[0].dscp", 64), ("flows[0].dscp", -1),
                    ("seed", -1), ("seed", 2**64), ("bottleneck.mtu", "40B"), ("bottleneck.mtu", "70000B"),
                    ("flows[0].packet_size", "40B"), ("flows[0].initial_cwnd", 0), ("flows[0].ack_every", 65),
                    ("traces.sojourn_every", 0), ("flows[0].arrival_rate", 0.0), ("flows[0].arrival_rate", -3.0),
                    ("duration", "0s"), ("traces.interval", "0s"), ("bottleneck.rate", "0bps"),
                    ("bottleneck.rate", "2Tbps")]:
    add("a number out of its range", path, value)
for path, value, where in [
    ("bottleneck.impairment.loss", {"bernoulli": 1.5}, "bottleneck.impairment.loss.bernoulli"),
    ("bottleneck.impairment.loss", {"periodic": 0}, "bottleneck.impairment.loss.periodic"),
    ("flows[0].size", {"pareto": {"mean": "10KB", "shape": 1.0}}, "flows[0].size.pareto.shape"),
    ("flows[0].marker", {"tvf": "gold", "regions_per_decade": 0}, "flows[0].marker.regions_per_decade"),
]:
    add("a number out of its range", path, value, where=where)

# -- Structure: unknown keys, missing fields ---------------------------------------------------
for path, value, where in [
    ("colour", "blue", "colour"), ("bottleneck.rat", "1Mbps", "bottleneck.rat"), ("flows[0].windoww", 3, "flows[0].windoww"),
    ("traces.everything", True, "traces.everything"), ("access.delay", "1ms", "access.delay"),
    ("flows[1].cc", "newreno", "flows[1].cc"), ("flows[0].marker", {"tvf": "gold", "x": 1}, "flows[0].marker.x"),
    ("bottleneck.rate_schedule", [{"at": "1s", "rate": "1Mbps", "ramp": True}], "bottleneck.rate_schedule[0].ramp"),
    ("bottleneck.impairment", {"loss": {"bernoulli": 0.1}, "jitter": "1ms"}, "bottleneck.impairment.jitter"),
]:
    add("an unknown key", path, value, where=where)
for path, where in [("duration", "duration"), ("bottleneck", "bottleneck"), ("flows", "flows"),
                    ("bottleneck.rate", "bottleneck.rate"), ("bottleneck.queue", "bottleneck.queue"),
                    ("flows[1].rate", "flows[1].rate"), ("flows[0].type", "flows[0].type")]:
    CASES.append(Case("a required field missing", f"no {path}", dropper(path), where))
add("a required field missing", "flows", [], "flows = []")
add("a required field missing", "bottleneck.rate_schedule", [{"at": "1s"}], where="bottleneck.rate_schedule[0].rate")

# -- Fields that contradict each other ---------------------------------------------------------
for label, path, value, where in [
    ("warm-up as long as the run", "warmup", "4s", "warmup"),
    ("RTT below twice the one-way delays", "flows[0].rtt", "10ms", "flows[0].rtt"),
    ("both rtt and access_delay", "flows[0].access_delay", "5ms", "flows[0].rtt"),
    ("a list of RTTs of the wrong length", "flows[0].rtt", ["50ms"], "flows[0].rtt"),
    ("start times of the wrong length", "flows[0].start", ["0s", "1s"], "flows[0].start"),
    ("uniform bounds reversed", "flows[0].start", {"uniform": ["2s", "1s"]}, "flows[0].start"),
    ("packets larger than the MTU", "flows[0].packet_size", "9000B", "flows[0].packet_size"),
    ("rate steps out of order", "bottleneck.rate_schedule", [{"at": "2s", "rate": "5Mbps"}, {"at": "1s", "rate": "1Mbps"}],
     "bottleneck.rate_schedule[1].at"),
    ("two rate steps at one time", "bottleneck.rate_schedule", [{"at": "1s", "rate": "5Mbps"}, {"at": "1s", "rate": "1Mbps"}],
     "bottleneck.rate_schedule[1].at"),
    ("overlapping outages", "bottleneck.impairment", {"outages": [["1s", "2s"], ["1500ms", "3s"]]},
     "bottleneck.impairment.outages[1]"),
    ("an outage that ends before it starts", "bottleneck.impairment", {"outages": [["2s", "1s"]]},
     "bottleneck.impairment.outages[0]"),
    ("an outage with one end", "bottleneck.impairment", {"outages": [["1s"]]}, "bottleneck.impairment.outages[0]"),
    ("Poisson arrivals without a stop", "flows[0].arrival_rate", 10.0, "flows[0].arrival_rate"),
    ("sessions without a size", "flows[0].think", "1s", "flows[0].size"),
    ("one transfer of random size", "flows[0].size", {"exponential": "10KB"}, "flows[0].size"),
    ("a delay reference change after the end", "bottleneck.target_schedule", [{"at": "4s", "target": "5ms"}],
     "bottleneck.target_schedule[0].at"),
    ("a capture window past the end", "traces", {"pcap": ["bottleneck"], "pcap_window": ["3s", "5s"]},
     "traces.pcap_window"),
    ("a capture window and no capture point", "traces.pcap_window", ["1s", "2s"], "traces.pcap_window"),
    ("a capture's sampling and no capture point", "traces.pcap_every", 10, "traces.pcap_every"),
    ("a capture's frame size and no capture point", "traces.pcap_snaplen", 256, "traces.pcap_snaplen"),
    ("a sojourn sampling without sojourn times", "traces.sojourn_every", 10, "traces.sojourn_every"),
    ("a capture point given twice", "traces.pcap", ["bottleneck", "reverse", "bottleneck"], "traces.pcap[2]"),
    ("flows stopping after the end", "flows[1].stop", "10s", "flows[1].stop"),
    ("a rate step after the end", "bottleneck.rate_schedule", [{"at": "9s", "rate": "1Mbps"}],
     "bottleneck.rate_schedule[0].at"),
    ("an outage after the end", "bottleneck.impairment", {"outages": [["5s", "6s"]]}, "bottleneck.impairment.outages[0]"),
    ("flows starting after the end", "flows[0].start", "10s", "flows[0].start"),
    ("RACK without SACK", "flows[0]", {"type": "tcp", "rtt": "40ms", "rack": True, "sack": False}, "flows[0].rack"),
    ("PRR without SACK", "flows[0]", {"type": "tcp", "rtt": "40ms", "prr": True, "sack": False}, "flows[0].prr"),
    ("N_tcp.c not dividing the group", "flows[0].marker", {"tvf": "gold", "connections_per_flow": 2}, "flows[0].marker.connections_per_flow"),
    ("marker rate range empty", "flows[0].marker", {"tvf": "gold", "min_rate": "1Gbps", "max_rate": "1Mbps"}, "flows[0].marker.max_rate"),
    ("TVF values rising", "flows[0].marker", {"tvf": [["1Mbps", 10], ["2Mbps", 20]]}, "flows[0].marker.tvf[1]"),
    ("a PVPIE queue and no marked flow", "bottleneck.queue", {"type": "pvpie"}, "bottleneck.queue.type"),
    ("a PPV queue under strict priority and no marked flow", "bottleneck.queue",
     {"type": "strict_priority", "high_flows": [0], "low": {"type": "ppv"}}, "bottleneck.queue.low.type"),
    ("a priority group that does not exist", "bottleneck.queue", {"type": "strict_priority", "high_groups": ["video"],
                                                                  "low": {"type": "pie"}}, "bottleneck.queue.high_groups"),
]:
    add("fields that contradict each other", path, value, label, where=where)

# -- Queue tables ------------------------------------------------------------------------------
for path, value, where in [
    ("bottleneck.queue", {"type": "teleport"}, "bottleneck.queue.type"),
    ("bottleneck.queue", {"limit": "5p"}, "bottleneck.queue.type"),
    ("bottleneck.queue", {"type": "pie", "tagret": "5ms"}, "bottleneck.queue.tagret"),
    ("bottleneck.queue", {"type": "pie", "target": 0.02}, "bottleneck.queue.target"),
    ("bottleneck.queue", {"type": "pie", "target": "-5ms"}, "bottleneck.queue.target"),
    ("bottleneck.queue", {"type": "pie", "target": "20s"}, "bottleneck.queue.target"),
    ("bottleneck.queue", {"type": "pie", "alpha": float("nan")}, "bottleneck.queue.alpha"),
    ("bottleneck.queue", {"type": "pie", "alpha": "0.2Hz"}, "bottleneck.queue.alpha"),
    ("bottleneck.queue", {"type": "pie", "beta": float("inf")}, "bottleneck.queue.beta"),
    ("bottleneck.queue", {"type": "pie", "profile": "bsd"}, "bottleneck.queue.profile"),
    ("bottleneck.queue", {"type": "pie", "hz": 7}, "bottleneck.queue.hz"),
    ("bottleneck.queue", {"type": "pie", "ecn": "yes"}, "bottleneck.queue.ecn"),
    ("bottleneck.queue", {"type": "pie", "delay": "sojourn"}, "bottleneck.queue.delay"),
    ("bottleneck.queue", {"type": "pie", "limit": "0p"}, "bottleneck.queue.limit"),
    ("bottleneck.queue", {"type": "pie", "limit": "lots"}, "bottleneck.queue.limit"),
    ("bottleneck.queue", {"type": "red", "w_q": 2.0}, "bottleneck.queue.w_q"),
    ("bottleneck.queue", {"type": "red", "w_q": float("nan")}, "bottleneck.queue.w_q"),
    ("bottleneck.queue", {"type": "codel", "target": "200ms"}, "bottleneck.queue.target"),
    ("bottleneck.queue", {"type": "fq_codel", "codel": {"target": "100ms"}}, "bottleneck.queue.codel.target"),
    ("bottleneck.queue", {"type": "fq_codel", "codel": {"type": "codel"}}, "bottleneck.queue.codel.type"),
    ("bottleneck.queue", {"type": "fq_pie", "pie": {"target": "0ms"}}, "bottleneck.queue.pie.target"),
    ("bottleneck.queue", {"type": "fq_pie", "flows": 0}, "bottleneck.queue.flows"),
    ("bottleneck.queue", {"type": "strict_priority", "high_flows": [0]}, "bottleneck.queue.low"),
    ("bottleneck.queue", {"type": "strict_priority", "low": {"type": "pie", "alpha": -1}}, "bottleneck.queue.low.alpha"),
    ("bottleneck.queue", {"type": "strict_priority", "high_dscp": [64], "low": {"type": "pie"}}, "bottleneck.queue.high_dscp[0]"),
    ("bottleneck.queue", {"type": "pi2", "alpha": -1.0}, "bottleneck.queue.alpha"),
    ("bottleneck.reverse_queue", {"type": "drop_tail", "limit": "-1p"}, "bottleneck.reverse_queue.limit"),
    ("access.queue", {"type": "drop_tail", "limit": {"packets": 0}}, "access.queue.limit"),
]:
    add("a bad queue table", path, value, f"{path} = {value!r}", where=where)


def _priority_group_of_no_flows(d: dict) -> None:
    d["flows"][1]["count"] = 0
    d["bottleneck"]["queue"] = {"type": "strict_priority", "high_groups": ["cbr"], "high_limit": "5p", "low": {"type": "pie"}}


# The queue is checked before the flows: the group's count must be refused as itself, not as a
# priority class with no flows.
CASES.append(Case("a bad queue table", "a priority group of zero flows", _priority_group_of_no_flows, "flows[1].count"))

# -- Accepted, but said: warnings --------------------------------------------------------------
add("accepted with a warning", "flows[1].stop", "500ms", "a stop before the start", WARNING)
add("accepted with a warning", "flows[1].stop", "1s", "a stop at the start", WARNING)

# -- Sweep files -------------------------------------------------------------------------------
for label, sweep_over, where in [
    ("an unknown key", {"colour": "red"}, "colour"),
    ("an axis that is not a list", {"axes": {"duration": "2s"}}, "axes.duration"),
    ("an empty axis", {"axes": {"duration": []}}, "axes.duration"),
    ("a bad axis value", {"axes": {"bottleneck.queue.limit": ["20p", "lots"]}}, "axes.bottleneck.queue.limit[1]"),
    ("an axis value out of range", {"axes": {"duration": ["4s", "1e400s"]}}, "axes.duration[1]"),
    ("zipped lists of different lengths", {"zip": [{"duration": ["1s", "2s"], "seed": [1]}]}, "zip[0]"),
    ("the seed swept", {"axes": {"seed": [1, 2]}}, "seed"),
    ("a field swept twice", {"axes": {"duration": ["1s"]}, "zip": [{"duration": ["2s"]}]}, "duration"),
    ("replications zero", {"replications": 0}, "replications"),
    ("millions of runs", {"axes": {"flows[0].count": list(range(1, 201)), "bottleneck.rate": [f"{i}Mbps" for i in
                                                                                            range(1, 201)]},
                          "replications": 100}, "axes"),
    ("a base that is not a scenario", {"base": "nosuch"}, "base"),
    ("a bad [set] value", {"set": {"bottleneck.rate": "fast"}}, "set.bottleneck.rate"),
    ("a field both set and swept", {"set": {"duration": "5s"}, "axes": {"duration": ["4s", "6s"]}}, "duration"),
    ("the seed given at the top and in [set]", {"seed": 9, "set": {"seed": 5}}, "seed"),
    # Refused by every run's worker, after the others had run (aqmlab.api.check_size: hours).
    ("runs of hours", {"set": {"duration": "1000s", "bottleneck.rate": "100Gbps",
                               "bottleneck.rate_schedule[0].rate": "100Gbps"}}, "axes"),
]:
    CASES.append(Case("a bad sweep file", label, (lambda over: lambda s: s.update(copy.deepcopy(over)))(sweep_over),
                      where, sweep=True))


def scenario() -> dict:
    """The valid scenario every case mutates: two TCP flows and a CBR source, with a capacity
    step (so list fields have an element 0)."""
    d = small_scenario(traces={})
    d["bottleneck"]["rate_schedule"] = [{"at": "1s", "rate": "5Mbps"}]
    return d


def table(outcomes: dict[str, dict[str, int]]) -> str:
    """The Markdown table of docs/robustness.md: kind, cases, outcome."""
    lines = ["| kind of bad input | cases | outcome |", "|---|---|---|"]
    for kind, counts in outcomes.items():
        parts = [f"{n} {what}" for what, n in counts.items() if n]
        lines.append(f"| {kind} | {sum(counts.values())} | {', '.join(parts)} |")
    total = sum(sum(c.values()) for c in outcomes.values())
    lines.append(f"| **all** | **{total}** | no traceback, no crash |")
    return "\n".join(lines)


def expected_outcomes() -> dict[str, dict[str, int]]:
    """What the campaign must find, by kind (the test checks each case does)."""
    out: dict[str, dict[str, int]] = {}
    for c in CASES:
        what = "errors naming the field" if c.outcome == ERROR else "warnings naming the field"
        out.setdefault(c.kind, {}).setdefault(what, 0)
        out[c.kind][what] += 1
    return out


DOCS = Path(__file__).resolve().parents[1] / "docs" / "robustness.md"
BEGIN, END = "<!-- campaign table: begin -->", "<!-- campaign table: end -->"


def docs_with_table(text: str) -> str:
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return f"{head}{BEGIN}\n{table(expected_outcomes())}\n{END}{tail}"


if __name__ == "__main__":
    DOCS.write_text(docs_with_table(DOCS.read_text()))
    print(f"wrote the table of {len(CASES)} cases into {DOCS}")
