"""`aqmlab live --bench`: how exactly the router keeps time, and what it costs, per link rate.

Each rate runs four CUBIC flows (10 ms base RTT, a DropTail buffer of one bandwidth-delay
product, 1500-byte packets, no traces) through the router and prints the percentiles of send
lateness (how long after its nominal time each frame left), the router's CPU time per second
of run, the link utilization reached and the machine's load average, which the figures depend
on (the router shares the cores with everything else).
"""

from __future__ import annotations

import os

from .. import units
from .driver import Options


def bench_scenario(rate_bps: int, duration_ns: int) -> dict:
    bdp_packets = max(10, round(rate_bps * 0.010 / 8 / 1500))
    return {
        "name": f"live-bench-{units.fmt_rate(rate_bps)}", "seed": 1,
        "duration": units.fmt_duration(duration_ns), "warmup": units.fmt_duration(duration_ns // 5),
        "bottleneck": {"rate": units.fmt_rate(rate_bps), "delay": "5ms", "mtu": "1500B",
                       "queue": {"type": "drop_tail", "limit": f"{bdp_packets}p"}},
        "flows": [{"type": "tcp", "count": 4, "rtt": "10ms", "profile": "linux", "packet_size": "1500B"}],
    }


def bench_options(rates: str, duration: str) -> tuple[list[int], int]:
    """--rates and --bench-duration read and range-checked as the bench scenarios' bottleneck
    rate and duration are, but named by their option: checked before the privileges and before
    the table's header, which a bad value once followed with `error: duration: ...`."""
    from ..scenario import Bottleneck, ScenarioSpec
    from ..schema import fields_of

    rate, length = dict(fields_of(Bottleneck))["rate"].kind, dict(fields_of(ScenarioSpec))["duration"].kind
    return [rate.parse(text.strip(), "--rates") for text in rates.split(",")], length.parse(duration, "--bench-duration")


def run_bench(rates: list[int], dur: int, opts: Options) -> list[dict]:
    """Runs and prints the bench at each rate (bit/s) for ``dur`` nanoseconds (see
    :func:`bench_options`)."""
    from . import run

    rows = []
    print(f"{'rate':>10} {'util %':>8} {'lateness p50':>13} {'p99':>9} {'p99.9':>9} {'max':>9} {'CPU s/s':>8} "
          f"{'frames':>9} {'kernel drops':>13} {'load avg':>9}")
    for rate in rates:
        load = os.getloadavg()[0]
        r = run(bench_scenario(rate, dur), opts, progress=False)
        st = r.summary["live"]["router"]
        late = st["send_lateness"]
        row = {"rate_bps": rate, "utilization": r.summary["utilization"], "lateness": late,
               "cpu_per_s": st["cpu_s"] / st["wall_s"], "kernel_rx_drops": st["kernel_rx_drops"], "load": load}
        rows.append(row)
        us = lambda s: f"{s * 1e6:.0f} µs"  # noqa: E731
        print(f"{units.fmt_rate(rate):>10} {100 * row['utilization']:8.2f} {us(late['p50_s']):>13} {us(late['p99_s']):>9} "
              f"{us(late['p999_s']):>9} {us(late['max_s']):>9} {row['cpu_per_s']:8.2f} {late['n']:9d} "
              f"{st['kernel_rx_drops']:13d} {load:9.2f}", flush=True)
    print(f"router: SCHED_FIFO {opts.rt_priority}" if opts.rt_priority else "router: normal priority",
          f", busy-poll window {opts.spin_us:g} µs; {os.cpu_count()} cores")
    return rows
