"""Command-line options that apply only with other choices (a controller, -o, --simulate).

Such an option is registered with default None, so that one given where it would change nothing
can be told from one left out: :func:`refuse_given` refuses it by name, before any work, and
:func:`fill_defaults` then supplies the real defaults of those left out. Giving the default value
explicitly is refused too: it is still an option that would change nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .errors import ScenarioError

# Why an option that shapes what -o writes is refused without it.
NEEDS_OUTPUT = "applies only with -o OUTDIR (without it nothing is written)"


def refuse_given(args: Any, options: Iterable[str], reason: str) -> None:
    """Refuses the first of ``options`` (spelt as on the command line, ``--red-k``) that the
    parsed ``args`` hold a value for; ``reason`` says where it applies (``"applies only with
    --simulate"``). A value is given when it is neither None nor False (flags default to False).
    A ``--no-X`` that stores False into X's dest (``--traces``/``--no-traces``, X defaulting to
    None) is given when X is False."""
    for option in options:
        dest = option.lstrip("-").replace("-", "_")
        if dest.startswith("no_") and not hasattr(args, dest):
            given = getattr(args, dest.removeprefix("no_")) is False
        else:
            value = getattr(args, dest)
            given = value is not None and value is not False
        if given:
            raise ScenarioError(option, reason)


def fill_defaults(args: Any, defaults: Mapping[str, Any]) -> None:
    """Sets each option of ``defaults`` (by its argparse dest) that was left out to its default."""
    for dest, value in defaults.items():
        if getattr(args, dest) is None:
            setattr(args, dest, value)
