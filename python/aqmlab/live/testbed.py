"""The testbed: three network namespaces joined by two veth pairs.

    sender ns              router ns                      receiver ns
    snd0 192.0.2.1 ==veth== rtr-s   [aqmlab router]  rtr-r ==veth== rcv0 192.0.2.2

Sender and receiver share one IPv4 subnet (RFC 5737's TEST-NET-1) and no other route, so
nothing can leave the namespaces; the router namespace has no address at all: its kernel
never touches the frames the router bridges. IPv6 is off everywhere (no neighbour discovery
noise), and so are the offloads (TSO, GSO, GRO, checksum) on every port: with them on, the
sender hands the router 64 KB segments and unfinished checksums, and nothing works.

Every run has its own name prefix ``aqml-<pid>x<random>-`` and holds an exclusive lock
(``/run/aqmlab-live/<run>.lock``) while its namespaces exist. A run killed with SIGKILL
leaves its namespaces behind with a lock nobody holds; the next run finds them
(:func:`clean_stale`) and removes them, killing whatever still runs inside. Only namespaces
with our prefix and a free lock are ever touched.
"""

from __future__ import annotations

import fcntl
import os
import re
import secrets
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from . import system
from .plan import LivePlan

PREFIX = "aqml-"
ROLES = ("snd", "rtr", "rcv")
LOCK_DIR = Path("/run/aqmlab-live")
NETNS_DIR = Path("/run/netns")
_NAME = re.compile(rf"^{PREFIX}(\d+x[0-9a-f]+)-({'|'.join(ROLES)})$")
SENDER_IP, RECEIVER_IP, PREFIX_LEN = "192.0.2.1", "192.0.2.2", 24
# Interfaces, named inside their own namespaces (so the names never clash across runs).
SENDER_IF, ROUTER_SENDER_IF, ROUTER_RECEIVER_IF, RECEIVER_IF = "snd0", "rtr-s", "rtr-r", "rcv0"
OFFLOADS = ("tx", "rx", "tso", "gso", "gro")
# `ethtool -k` lines that must read "off" afterwards.
OFFLOAD_LINES = ("tcp-segmentation-offload", "generic-segmentation-offload", "generic-receive-offload", "tx-checksumming")


def namespaces() -> list[str]:
    """Every named network namespace on the host."""
    return sorted(p.name for p in NETNS_DIR.iterdir()) if NETNS_DIR.exists() else []


def ours() -> list[str]:
    """The named namespaces that carry our prefix, whoever made them."""
    return [n for n in namespaces() if _NAME.match(n)]


def _lock_path(run_id: str) -> Path:
    return LOCK_DIR / f"{run_id}.lock"


def _kill_inside(ns: str) -> None:
    """SIGKILLs every process in namespace `ns` and waits (bounded) for them to go."""
    out = system.run(["ip", "netns", "pids", ns], check=False)
    pids = [int(p) for p in out.split()]
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + 5.0
    while pids and time.monotonic() < deadline:
        pids = [p for p in pids if Path(f"/proc/{p}").exists()]
        time.sleep(0.02)


def _remove(names: list[str]) -> None:
    for ns in names:
        _kill_inside(ns)
        system.run(["ip", "netns", "del", ns], check=False)
    left = [n for n in names if (NETNS_DIR / n).exists()]
    if left:
        raise system.LiveError(f"could not remove network namespaces {', '.join(left)}")


def clean_stale() -> list[str]:
    """Removes the namespaces of runs that died without cleaning up (their lock is free);
    returns their names. Namespaces of a run still alive are left alone."""
    runs: dict[str, list[str]] = {}
    for n in ours():
        runs.setdefault(_NAME.match(n).group(1), []).append(n)
    removed = []
    for run_id, names in runs.items():
        path = _lock_path(run_id)
        LOCK_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
        with open(path, "a") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # a live run holds it
            _remove(names)
            path.unlink(missing_ok=True)
        removed += names
    return removed


@dataclass
class Testbed:
    """The namespaces of one run; use as a context manager (removed on exit, error or Ctrl-C)."""

    plan: LivePlan
    run_id: str = ""

    def __post_init__(self):
        self.run_id = self.run_id or f"{os.getpid()}x{secrets.token_hex(3)}"
        self._lock = None

    def ns(self, role: str) -> str:
        return f"{PREFIX}{self.run_id}-{role}"

    @property
    def names(self) -> list[str]:
        return [self.ns(r) for r in ROLES]

    def __enter__(self) -> "Testbed":
        LOCK_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._lock = open(_lock_path(self.run_id), "w")
        fcntl.flock(self._lock, fcntl.LOCK_EX)
        try:
            self._build()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Kills what runs inside, removes the namespaces (and so the veths), drops the lock."""
        try:
            _remove([n for n in self.names if (NETNS_DIR / n).exists()])
        finally:
            if self._lock is not None:
                _lock_path(self.run_id).unlink(missing_ok=True)
                self._lock.close()
                self._lock = None

    def _build(self) -> None:
        snd, rtr, rcv = self.names
        for ns in self.names:
            system.run(["ip", "netns", "add", ns])
        system.run(["ip", "link", "add", SENDER_IF, "netns", snd, "type", "veth", "peer", "name", ROUTER_SENDER_IF, "netns", rtr])
        system.run(["ip", "link", "add", RECEIVER_IF, "netns", rcv, "type", "veth", "peer", "name", ROUTER_RECEIVER_IF, "netns", rtr])
        ports = {snd: [SENDER_IF], rtr: [ROUTER_SENDER_IF, ROUTER_RECEIVER_IF], rcv: [RECEIVER_IF]}
        for ns, ifs in ports.items():
            system.in_netns(ns, ["sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1",
                                 "net.ipv6.conf.lo.disable_ipv6=1"])
            for i in ifs:
                system.in_netns(ns, ["ethtool", "-K", i, *(x for o in OFFLOADS for x in (o, "off"))])
                system.run(["ip", "-n", ns, "link", "set", i, "mtu", str(self.plan.mtu), "up"])
                self._check_offloads(ns, i)
            system.run(["ip", "-n", ns, "link", "set", "lo", "up"])
        system.run(["ip", "-n", snd, "addr", "add", f"{SENDER_IP}/{PREFIX_LEN}", "dev", SENDER_IF])
        system.run(["ip", "-n", rcv, "addr", "add", f"{RECEIVER_IP}/{PREFIX_LEN}", "dev", RECEIVER_IF])
        if self.plan.sender_sysctls:
            system.in_netns(snd, ["sysctl", "-qw", *(f"net.ipv4.{k}={v}" for k, v in self.plan.sender_sysctls.items())])
        for ns in (snd, rcv):
            routes = system.run(["ip", "-n", ns, "route", "show", "default"]).strip()
            if routes:
                raise system.LiveError(f"namespace {ns} has a default route ({routes}); refusing to run")

    @staticmethod
    def _check_offloads(ns: str, dev: str) -> None:
        text = system.in_netns(ns, ["ethtool", "-k", dev])
        on = [name for line in text.splitlines() for name in OFFLOAD_LINES
              if line.startswith(f"{name}:") and not line.split(":", 1)[1].strip().startswith("off")]
        if on:
            raise system.LiveError(f"{ns}/{dev}: could not switch off {', '.join(on)}")

    def netstat(self, role: str) -> dict[str, int]:
        """The kernel's /proc/net/netstat counters (TcpExt, IpExt, ...) inside namespace `role`."""
        return parse_netstat(system.in_netns(self.ns(role), ["cat", "/proc/net/netstat"]))


def parse_netstat(text: str) -> dict[str, int]:
    """/proc/net/netstat as {"IpExtInCEPkts": n, ...}: header and value lines come in pairs."""
    lines = text.splitlines()
    out = {}
    for head, vals in zip(lines[::2], lines[1::2]):
        prefix, names = head.split(":", 1)
        _, values = vals.split(":", 1)
        out.update({f"{prefix}{k}": int(v) for k, v in zip(names.split(), values.split())})
    return out
