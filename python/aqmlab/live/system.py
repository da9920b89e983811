"""What `aqmlab live` needs from the host: privileges, tools, and bounded commands.

Every command runs with a timeout, so nothing the live driver does can hang: a step that
takes too long is an error naming the command.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

# Linux capability numbers (include/uapi/linux/capability.h).
CAPABILITIES = {"CAP_NET_ADMIN": 12, "CAP_NET_RAW": 13, "CAP_SYS_ADMIN": 21}
# Tool -> the Debian package that provides it (installed by scripts/live-setup.sh).
TOOLS = {"ip": "iproute2", "ethtool": "ethtool"}
COMMAND_TIMEOUT_S = 15.0


class LiveError(RuntimeError):
    """The live run could not be set up or did not complete."""


class PrivilegeError(LiveError):
    """The process lacks a capability `aqmlab live` needs (exit code 2)."""


def effective_capabilities(status_text: str) -> int:
    """The CapEff bit mask of a /proc/PID/status text."""
    for line in status_text.splitlines():
        if line.startswith("CapEff:"):
            return int(line.split()[1], 16)
    raise LiveError("no CapEff line in /proc/self/status")


def missing_capabilities(status_text: str | None = None) -> list[str]:
    """Names of the capabilities in :data:`CAPABILITIES` this process does not hold."""
    text = status_text if status_text is not None else Path("/proc/self/status").read_text()
    eff = effective_capabilities(text)
    return [name for name, bit in CAPABILITIES.items() if not eff >> bit & 1]


def require_privileges() -> None:
    missing = missing_capabilities()
    if missing:
        raise PrivilegeError(
            f"aqmlab live builds network namespaces and moves raw frames between them, which needs "
            f"{', '.join(CAPABILITIES)}; this process lacks {', '.join(missing)}. Run it as root "
            "(e.g. sudo .venv/bin/aqmlab live ...).")


def require_tools() -> None:
    missing = [f"{tool} (Debian package {pkg})" for tool, pkg in TOOLS.items() if shutil.which(tool) is None]
    if missing:
        raise LiveError(f"aqmlab live needs {', '.join(missing)}: run `bash scripts/live-setup.sh` "
                        "(apt-get install iproute2 ethtool iputils-ping)")


def run(args: list[str], *, timeout: float = COMMAND_TIMEOUT_S, check: bool = True) -> str:
    """Runs a command to completion within `timeout`; returns its stdout."""
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise LiveError(f"`{' '.join(args)}` did not finish within {timeout:g} s") from None
    if check and p.returncode != 0:
        raise LiveError(f"`{' '.join(args)}` failed ({p.returncode}): {p.stderr.strip() or p.stdout.strip()}")
    return p.stdout


def in_netns(ns: str, args: list[str], **kw) -> str:
    return run(["ip", "netns", "exec", ns, *args], **kw)


def kernel_congestion_controls() -> list[str]:
    """The TCP congestion control modules this kernel has loaded (network namespaces share them)."""
    p = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")
    return p.read_text().split() if p.exists() else []
