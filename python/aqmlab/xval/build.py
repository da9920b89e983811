"""Finding the ns-3 SDK of the `ns3` wheel, compiling a generated program, caching the build.

The PyPI wheel `ns3` (3.44.post0) ships ns-3's headers (``ns3/include``) and shared libraries
(``ns3/lib64``) inside the package; a program compiled against them runs with an rpath to that
directory. Builds are cached by the hash of the source and the compiler command, so the seeds of
a scenario, and later runs of the same scenario, reuse one binary; the fixed part of every
program (``program.cc``) is compiled once, the generated part (``scenario.cc``) per scenario.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

NS3_VERSION = "3.44"
INSTALL_HINT = "pip install 'aqmlab[ns3]' (or: pip install ns3==3.44.post0)"
# The modules a program links, in dependency order.
MODULES = ("core", "network", "internet", "point-to-point", "traffic-control", "applications", "stats",
           "bridge", "mobility")


class Ns3Unavailable(RuntimeError):
    """The ns-3 wheel or a C++ compiler is missing."""


class BuildError(RuntimeError):
    """The compiler refused a generated program; ``source`` is kept for inspection."""

    def __init__(self, source: Path, log: str):
        self.source = source
        self.log = log
        super().__init__(f"the generated ns-3 program does not compile; the source is kept at {source}\n"
                         f"compiler output:\n{log}")


@dataclass(frozen=True)
class Sdk:
    include: Path
    lib: Path
    compiler: str


def sdk() -> Sdk:
    """The installed ns-3 SDK, or Ns3Unavailable with the command that installs it."""
    spec = importlib.util.find_spec("ns3")
    roots = [Path(p) for p in (spec.submodule_search_locations or [])] if spec else []
    root = next((r for r in roots if (r / "include" / "ns3" / "core-module.h").is_file()), None)
    if root is None:
        raise Ns3Unavailable(f"the ns-3 {NS3_VERSION} SDK is not installed (the `ns3` wheel ships it): {INSTALL_HINT}")
    lib = root / "lib64"
    missing = [m for m in MODULES if not (lib / f"libns{NS3_VERSION}-{m}.so").is_file()]
    if missing:
        raise Ns3Unavailable(f"the installed `ns3` wheel at {root} is not ns-3 {NS3_VERSION} (no "
                             f"libns{NS3_VERSION}-{missing[0]}.so): {INSTALL_HINT}")
    compiler = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++") or shutil.which("clang++")
    if compiler is None:
        raise Ns3Unavailable("no C++ compiler found (g++, c++ or clang++; or set CXX): the ns-3 program is "
                             "compiled on this machine")
    return Sdk(include=root / "include", lib=lib, compiler=compiler)


HERE = Path(__file__).parent
FIXED = ("program.cc", "xval.h")


def _compile(s: Sdk, source: Path, obj: Path) -> list[str]:
    # -O1: the programs run seconds to minutes; the ns-3 libraries themselves are the wheel's
    # optimized build.
    return [s.compiler, "-std=c++20", "-O1", "-w", "-c", f"-I{s.include}", f"-I{HERE}", str(source), "-o", str(obj)]


def _link(s: Sdk, objs: list[Path], binary: Path) -> list[str]:
    # --no-as-needed keeps every module linked, so that all TypeIds are registered.
    return [s.compiler, *map(str, objs), "-o", str(binary), f"-L{s.lib}", "-Wl,--no-as-needed",
            *(f"-lns{NS3_VERSION}-{m}" for m in MODULES), f"-Wl,-rpath,{s.lib}"]


def cache_dir() -> Path:
    base = os.environ.get("AQMLAB_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or
                                                          os.path.expanduser("~/.cache"), "aqmlab")
    return Path(base) / "xval"


def _key(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def _run(command: Callable[[Path], list[str]], source: Path, out: Path) -> None:
    """Runs a compiler command writing `out` through a temporary name (a concurrent build of the
    same key finds either nothing or a whole file)."""
    tmp = out.with_name(f"{out.name}.{os.getpid()}.tmp")
    r = subprocess.run(command(tmp), capture_output=True, text=True)
    if r.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise BuildError(source, (r.stderr or r.stdout).strip())
    tmp.replace(out)


def build(scenario_cc: str, *, name: str = "scenario") -> Path:
    """Compiles the fixed part once (cached by its source and compiler) and a scenario's generated
    part (cached by its source), links them; returns the binary."""
    s = sdk()
    fixed_text = "".join((HERE / f).read_text() for f in FIXED)
    fixed = cache_dir() / f"program-{_key(fixed_text, *_compile(s, Path('p.cc'), Path('p.o')))}.o"
    if not fixed.is_file():
        fixed.parent.mkdir(parents=True, exist_ok=True)
        _run(lambda o: _compile(s, HERE / "program.cc", o), HERE / "program.cc", fixed)
    d = cache_dir() / _key(fixed.name, scenario_cc, *_link(s, [], Path("x")))
    binary = d / "program"
    if binary.is_file():
        return binary
    d.mkdir(parents=True, exist_ok=True)
    source = d / f"{name}.cc"
    source.write_text(scenario_cc)
    obj = d / "scenario.o"
    _run(lambda o: _compile(s, source, o), source, obj)
    _run(lambda o: _link(s, [fixed, obj], o), source, binary)
    return binary
