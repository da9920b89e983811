"""Scenarios and helpers shared by the Python tests."""

import argparse


def small_scenario(**over) -> dict:
    """A few seconds of 3 TCP flows and a CBR source: quick, with drops and traces."""
    d = {
        "name": "small",
        "seed": 3,
        "duration": "4s",
        "warmup": "1s",
        "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": {"type": "drop_tail", "limit": "50p"}},
        "flows": [
            {"type": "tcp", "count": 3, "rtt": {"uniform": ["40ms", "80ms"]}, "start": {"uniform": ["0s", "0.2s"]}},
            {"name": "cbr", "type": "udp", "rate": "2Mbps", "rtt": "20ms", "start": "1s", "stop": "3s"},
        ],
        "traces": {"queue": True, "sojourn": True, "flow_bytes": True, "drops": True, "probe": True, "tcp": True},
    }
    d.update(over)
    return d


def short_scenario() -> dict:
    """small_scenario cut to 2 s without warm-up: its CBR source stops at the end (its 3 s stop
    would be past it, which is refused)."""
    d = small_scenario(duration="2s", warmup="0s")
    d["flows"][1]["stop"] = "2s"
    return d


def run_analysis_cli(argv: list[str]) -> int:
    """Runs an ``aqmlab`` analysis subcommand (design, margins, response) in-process."""
    from aqmlab.analysis.cli import register

    parser = argparse.ArgumentParser(prog="aqmlab")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)


def pcap_scenario(**traces) -> dict:
    """Two groups of 2 TCP flows (ECN and plain) captured at the bottleneck's input and output
    and on the reverse path. The access links have no delay, so every packet a sender emits
    reaches the bottleneck at once, and the flows stop a second before the end, so the network
    drains: a capture then holds exactly what the simulator's per-flow counters count."""
    tcp = {"type": "tcp", "count": 2, "access_delay": "0ms", "stop": "4s", "start": {"uniform": ["0s", "0.1s"]}}
    return {
        "name": "pcap-check", "seed": 2, "duration": "5s",
        # PIE marks ECN flows while p is small; the 60-packet limit also overflows, so the ECN
        # flows see drops too and the plain ones only drops.
        "bottleneck": {"rate": "10Mbps", "delay": "10ms",
                       "queue": {"type": "pie", "profile": "rfc", "limit": "60p", "target": "5ms", "ecn": True}},
        "flows": [{**tcp, "name": "ecn", "ecn": True}, {**tcp, "name": "plain"}],
        "traces": {"pcap": ["bottleneck", "bottleneck_in", "reverse"], **traces},
    }


def pcap_flow_of(ip: str) -> int:
    """The flow index of a host address in a capture, by the numbering crates/sim/src/pcap.rs
    documents (its second byte has 128 added on the receiver's side)."""
    a = [int(x) for x in ip.split(".")]
    return ((a[1] & 127) - 1) * 65536 + a[2] * 256 + a[3]
