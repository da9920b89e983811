"""Output directories (-o) of the commands that write a result: each may write into a new or
empty directory, or into one holding its own earlier output, which it replaces; a directory
holding anything else (another command's output, unrelated files) is refused, before any work,
unless --force, and then the command writes beside those files.

Each command describes what it writes as an :class:`OutputKind`. Several write a file of the
same name (report.html, results.json); where the name alone cannot tell whose it is, the kind
recognises its own by the content. A command whose file names follow its arguments (``aqmlab
margins``: one Bode plot per RTT) names them by patterns; one that writes whole folders of another
kind's output (``live --compare``: a run in ``live/`` and one in ``sim/``) names that kind.
"""

from __future__ import annotations

import json
from fnmatch import fnmatchcase
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import ScenarioError


@dataclass(frozen=True)
class OutputKind:
    what: str                                   # in the refusal: "does not hold {what}"
    files: tuple[str, ...]                      # its files at the top of the directory
    # Its folders -> the suffix of their files, or the kind of output each folder holds whole.
    folders: Mapping[str, str | OutputKind] = field(default_factory=dict)
    # A file whose name other commands write too -> whether it is this command's.
    recognise: Mapping[str, Callable[[Path], bool]] = field(default_factory=dict)
    patterns: tuple[str, ...] = ()              # its files whose names vary, as shell patterns ("bode_*.png")

    def owns(self, entry: Path) -> bool:
        """Whether ``entry`` (a file or folder at the top of a directory) is this kind's output."""
        if entry.name in self.files:
            check = self.recognise.get(entry.name)
            return entry.is_file() and (check is None or check(entry))
        if any(fnmatchcase(entry.name, p) for p in self.patterns):
            return entry.is_file()
        inside = self.folders.get(entry.name)
        if inside is None or not entry.is_dir():
            return False
        if isinstance(inside, OutputKind):
            return all(inside.owns(p) for p in entry.iterdir())
        return all(p.is_file() and p.suffix == inside for p in entry.iterdir())


def json_holding(test: Callable[[Any], bool]) -> Callable[[Path], bool]:
    """A recogniser of a JSON file whose document passes ``test`` (unreadable JSON never does)."""
    def check(path: Path) -> bool:
        try:
            return test(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError, ValueError):
            return False
    return check


def check_output(outdir: str | Path, kind: OutputKind, *, force: bool = False, option: str = "--output") -> Path:
    """Refuses ``outdir`` if it is a file, or if it is a directory holding anything but
    ``kind``'s output, unless ``force``; changes nothing on disk."""
    out = Path(outdir)
    if out.exists() and not out.is_dir():
        raise ScenarioError(option, f"{out} is a file: give a directory for the results")
    if out.is_dir() and not force:
        foreign = sorted(e.name for e in out.iterdir() if not kind.owns(e))
        if foreign:
            shown = ", ".join(foreign[:5]) + (", ..." if len(foreign) > 5 else "")
            raise ScenarioError(option, f"{out} is not empty and does not hold {kind.what} ({shown}): give a new or "
                                        "empty directory, or --force to write beside those files")
    return out


def clear_own(outdir: str | Path, kind: OutputKind, keep: frozenset[str] = frozenset()) -> None:
    """Removes ``kind``'s earlier output in ``outdir`` but the entries named in ``keep``: its
    files, and in its folders the files of their kind (a folder left empty goes too). What the
    new output does not write again (figures named by other arguments, a plot not asked for this
    time, the folder of a scenario not run this time) would otherwise stay beside it as if
    current. Anything else, written beside with --force, stays."""
    out = Path(outdir)
    if not out.is_dir():
        return
    for entry in out.iterdir():
        if entry.name in keep:
            continue
        inside = kind.folders.get(entry.name)
        if inside is not None and entry.is_dir():
            if isinstance(inside, OutputKind):
                clear_own(entry, inside)
            else:
                for p in entry.glob(f"*{inside}"):
                    if p.is_file():
                        p.unlink()
            if not any(entry.iterdir()):
                entry.rmdir()
        elif entry.is_file() and kind.owns(entry):
            entry.unlink()
