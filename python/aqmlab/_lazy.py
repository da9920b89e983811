"""Lazy package exports: a package's public names are imported from their submodules on first
use, so that importing the package (or only its command-line registration) stays cheap: the
`aqmlab` command must not pay for numpy, pandas or matplotlib to print its help (issue 22).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from importlib import import_module
from typing import Any


def exports(package: str, table: dict[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for `package`, whose public name N lives in submodule
    `table[N]`; "module:attr" names an attribute under another name (``"report:write"``).
    Each name is imported once, then cached in the package's namespace."""

    def __getattr__(name: str) -> Any:
        where = table.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attr = where.partition(":")
        value = getattr(import_module(f".{module}", package), attr or name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(table))

    return __getattr__, __dir__
