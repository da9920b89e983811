"""Running a scenario live: the testbed, the three agents, and the result.

The driver builds the namespaces, writes one configuration (the simulator's resolved scenario
plus the run's time 0 on the shared monotonic clock) and starts, each in its namespace, the
router, the traffic sink and the traffic source: processes of this package's compiled module
(`aqmlab._core.live_agent`). Each agent dies with the driver, stops on SIGTERM and ends by
itself at the experiment's end. The driver waits (bounded), reads their reports and the
receiver kernel's counters, and removes everything, also on error and Ctrl-C.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..progress import Progress
from . import system
from .plan import LivePlan
from .testbed import RECEIVER_IP, ROUTER_RECEIVER_IF, ROUTER_SENDER_IF, SENDER_IP, Testbed, clean_stale

BASE_PORT, TCP_PORT, UDP_PORT = 20000, 5201, 5202
READY_TIMEOUT_S = 60.0    # the agents' set-up (slow on a loaded machine), bounded
START_MARGIN_S = 0.3      # from the last agent's "ready" to the experiment's time 0
GRACE_S = 5.0             # how long after the end the driver waits for the agents' reports
_LOADER = ("import sys, importlib.util as u; s = u.spec_from_file_location('aqmlab._core', sys.argv[1]); "
           "m = u.module_from_spec(s); s.loader.exec_module(m); sys.exit(m.live_agent(sys.argv[2:]))")
_ROLE_NS = {"router": "rtr", "sink": "rcv", "source": "snd"}


@dataclass
class Options:
    """How the router runs: SCHED_FIFO priority (None: normal) and busy-poll window."""

    rt_priority: int | None = None
    spin_us: float = 0.0


@dataclass
class Reports:
    """What a live run produced: the agents' reports and the receiver's kernel counters."""

    router: dict
    source: dict
    sink: dict
    receiver_netstat: dict[str, int]
    interrupted: bool
    wall_s: float


def live_config(plan: LivePlan, opts: Options) -> dict:
    """The agents' configuration file; the experiment's time 0 is handed over once all three
    are ready (see `crates/live/src/agent.rs`)."""
    return {
        "sim": plan.scenario.sim_config,
        "net": {"sender_ip": SENDER_IP, "receiver_ip": RECEIVER_IP, "base_port": BASE_PORT,
                "tcp_port": TCP_PORT, "udp_port": UDP_PORT},
        "router": {"sender_port": ROUTER_SENDER_IF, "receiver_port": ROUTER_RECEIVER_IF,
                   "rt_priority": opts.rt_priority, "spin_ns": round(opts.spin_us * 1e3)},
        "grace_ns": round(GRACE_S * 1e9),
    }


def _agent_command(tb: Testbed, role: str, cfg: Path, out: Path) -> list[str]:
    from .. import _core

    return ["ip", "netns", "exec", tb.ns(_ROLE_NS[role]), sys.executable, "-S", "-c", _LOADER, _core.__file__,
            role, str(cfg), str(out), "--parent", str(os.getpid())]


class _Agents:
    """The three agent processes of a run."""

    def __init__(self, tb: Testbed, cfg: Path, workdir: Path):
        self.procs: dict[str, subprocess.Popen] = {}
        self.outs = {r: workdir / f"{r}.json" for r in _ROLE_NS}
        self.errs = {r: workdir / f"{r}.err" for r in _ROLE_NS}
        for role in ("router", "sink", "source"):
            with open(self.errs[role], "w") as err:
                self.procs[role] = subprocess.Popen(
                    _agent_command(tb, role, cfg, self.outs[role]), stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE, stderr=err, start_new_session=True)

    def start(self, deadline: float) -> int:
        """Waits (until `deadline`) for every agent's `ready`, then gives all the same time 0,
        a moment ahead; returns it (CLOCK_MONOTONIC ns)."""
        for role in self.procs:
            p = self.procs[role]
            ready, _, _ = select.select([p.stdout], [], [], max(0.0, deadline - time.monotonic()))
            line = p.stdout.readline().decode().strip() if ready else ""
            if line != "ready":
                self.stop()
                raise system.LiveError(f"the {role} did not start in time: {self.stderr(role) or 'no message'}")
        t0_ns = time.monotonic_ns() + round(START_MARGIN_S * 1e9)
        for role, p in self.procs.items():
            try:
                p.stdin.write(f"{t0_ns}\n".encode())
                p.stdin.close()
            except BrokenPipeError:
                self.stop()
                raise system.LiveError(f"the {role} ended before the start: {self.stderr(role) or 'no message'}") from None
        return t0_ns

    def stderr(self, role: str) -> str:
        return self.errs[role].read_text().strip()

    def running(self) -> bool:
        return any(p.poll() is None for p in self.procs.values())

    def signal(self, sig: int) -> None:
        for p in self.procs.values():
            if p.poll() is None:
                p.send_signal(sig)

    def wait(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while self.running() and time.monotonic() < deadline:
            time.sleep(0.02)

    def stop(self) -> None:
        """SIGTERM (the agents write their reports), then SIGKILL whatever is left."""
        self.signal(signal.SIGTERM)
        self.wait(GRACE_S)
        self.signal(signal.SIGKILL)
        self.wait(GRACE_S)
        for p in self.procs.values():
            p.wait(timeout=GRACE_S)
            for pipe in (p.stdin, p.stdout):
                if pipe is not None and not pipe.closed:
                    pipe.close()

    def report(self, role: str) -> dict:
        p = self.procs[role]
        if p.returncode not in (0, None) or not self.outs[role].exists():
            raise system.LiveError(f"the {role} failed (exit {p.returncode}): {self.stderr(role) or 'no message'}")
        return json.loads(self.outs[role].read_text())


@contextmanager
def _sigterm_as_interrupt():
    """SIGTERM to the driver ends the run as Ctrl-C does: agents stopped, testbed removed."""
    def raise_interrupt(signum, frame):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, raise_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def execute(plan: LivePlan, opts: Options | None = None, *, progress: bool | None = None,
            during: Callable[[Testbed, float], None] | None = None) -> Reports:
    """Runs `plan` on a fresh testbed; returns the reports. Needs root (see
    :func:`~aqmlab.live.system.require_privileges`). `during(testbed, t0)`, if given, is
    called once the agents are ready (t0: the experiment's time 0 on `time.monotonic()`), to
    measure something alongside the run; it must return well before the run ends."""
    opts = opts or Options()
    system.require_privileges()
    system.require_tools()
    clean_stale()
    duration_s = plan.scenario.sim_config["duration_ns"] * 1e-9
    t_start = time.perf_counter()
    interrupted = False
    with _sigterm_as_interrupt(), tempfile.TemporaryDirectory(prefix="aqmlab-live-") as tmp, Testbed(plan) as tb:
        work = Path(tmp)
        cfg = work / "live.json"
        cfg.write_text(json.dumps(live_config(plan, opts)))
        agents = _Agents(tb, cfg, work)
        try:
            t0_ns = agents.start(time.monotonic() + READY_TIMEOUT_S)
            if during is not None:
                during(tb, t0_ns * 1e-9)
            bar = Progress(f"{plan.scenario.name} (live)", enabled=progress)
            try:
                end = t0_ns * 1e-9 + duration_s
                while agents.running() and time.monotonic() < end + GRACE_S:
                    now = time.monotonic()
                    bar.update(min(1.0, max(0.0, (now - t0_ns * 1e-9) / duration_s)),
                               f"({max(0.0, now - t0_ns * 1e-9):.1f} of {duration_s:.1f} s)")
                    time.sleep(0.1)
            finally:
                bar.close()
        except KeyboardInterrupt:
            interrupted = True
        finally:
            agents.stop()
        try:
            reports = {role: agents.report(role) for role in _ROLE_NS}
        except system.LiveError:
            if interrupted:  # stopped before the agents had anything to report
                raise KeyboardInterrupt from None
            raise
        netstat = tb.netstat("rcv")
    return Reports(router=reports["router"], source=reports["source"], sink=reports["sink"],
                   receiver_netstat=netstat, interrupted=interrupted, wall_s=time.perf_counter() - t_start)

