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


def run_analysis_cli(argv: list[str]) -> int:
    """Runs an ``aqmlab`` analysis subcommand (design, margins, response) in-process."""
    from aqmlab.analysis.cli import register

    parser = argparse.ArgumentParser(prog="aqmlab")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)
