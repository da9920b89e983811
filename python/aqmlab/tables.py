"""A run's traces as tables of numpy columns, and Parquet files written from them by pyarrow
alone: `aqmlab run -o` does not import pandas, which costs more than a 100-s run (issue 22).

:class:`Result`'s DataFrame views are built from the same tables (:meth:`Table.frame`), and the
files carry pandas' schema metadata (which column is the index), so ``pd.read_parquet`` gives
back the DataFrame the view returns.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd


@dataclass
class Coded:
    """A categorical column: integer codes into `categories` (pandas' ``Categorical``)."""

    codes: np.ndarray
    categories: list[str]

    def __len__(self) -> int:
        return len(self.codes)


@dataclass
class Table:
    """Named columns of equal length, in order; `index` names the one that is the DataFrame's
    index (the time of ``flow_rates``), if any. No columns: an absent trace."""

    columns: dict[str, Any] = field(default_factory=dict)
    index: str | None = None

    def __len__(self) -> int:
        return len(next(iter(self.columns.values()))) if self.columns else 0

    def frame(self) -> pd.DataFrame:
        import pandas as pd

        cols = {k: pd.Categorical.from_codes(v.codes.astype(int), categories=pd.Index(v.categories))
                if isinstance(v, Coded) else v for k, v in self.columns.items()}
        df = pd.DataFrame(cols)
        return df.set_index(self.index) if self.index else df

    def write_parquet(self, path: Path) -> None:
        import pyarrow as pa  # type: ignore[import-untyped]
        import pyarrow.parquet as pq  # type: ignore[import-untyped]

        table = pa.table({k: _arrow(v) for k, v in self.columns.items()}).replace_schema_metadata({b"pandas": json.dumps(self._pandas_metadata())})
        pq.write_table(table, path)

    def _pandas_metadata(self) -> dict[str, Any]:
        """The subset of pandas' Parquet metadata that pyarrow reads back: which column is the
        index (else a RangeIndex), and each column's pandas type."""
        columns = [{"name": k, "field_name": k, "pandas_type": "categorical" if isinstance(v, Coded) else None,
                    "numpy_type": _code_type(v).__name__ if isinstance(v, Coded) else str(getattr(v, "dtype", "object")),
                    "metadata": {"num_categories": len(v.categories), "ordered": False} if isinstance(v, Coded)
                    else None} for k, v in self.columns.items()]
        index = [self.index] if self.index else [{"kind": "range", "name": None, "start": 0, "stop": len(self),
                                                  "step": 1}]
        return {"index_columns": index, "column_indexes": [], "columns": columns}


def _arrow(values: Any) -> Any:
    """A column as an Arrow array, built from its buffers: ``pa.array`` imports pandas whenever
    pandas is installed, which is the cost this module avoids."""
    if isinstance(values, Coded):
        # A negative code is an absent category (pandas' convention): a null entry in Arrow.
        codes = np.asarray(values.codes)
        valid = codes >= 0
        indices = _buffers(np.where(valid, codes, 0).astype(_code_type(values)), None if valid.all() else valid)
        return _pa().DictionaryArray.from_arrays(indices, _strings(values.categories))
    if isinstance(values, list):
        return _python(values)
    return _buffers(np.ascontiguousarray(values))


def _code_type(values: Coded) -> type:
    """The narrowest integer type of a categorical's codes, as pandas chooses it."""
    return np.int8 if len(values.categories) < 2**7 else np.int16 if len(values.categories) < 2**15 else np.int32


def _pa() -> Any:
    """pyarrow, imported when a file is written (not for the DataFrame views)."""
    import pyarrow as pa

    return pa


def _buffers(arr: np.ndarray, valid: np.ndarray | None = None) -> Any:
    """A numeric or boolean numpy array (`valid`: False where a value is absent)."""
    pa = _pa()
    if arr.dtype == np.bool_:
        kind, data = pa.bool_(), np.packbits(arr, bitorder="little")
    else:
        kind, data = pa.from_numpy_dtype(arr.dtype), arr
    mask = None if valid is None else pa.py_buffer(np.packbits(valid, bitorder="little"))
    return pa.Array.from_buffers(kind, len(arr), [mask, pa.py_buffer(data)])


def _strings(values: list[str]) -> Any:
    pa = _pa()
    encoded = [v.encode() for v in values]
    offsets = np.zeros(len(values) + 1, dtype=np.int32)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    return pa.Array.from_buffers(pa.string(), len(values), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))])


def _python(values: list[Any]) -> Any:
    """A column of a summary's rows, typed as pandas types it: None is an absent figure (a null
    float, or a column of nulls), whole numbers stay integers unless a figure is absent."""
    present = [v for v in values if v is not None]
    if not present:
        return _pa().nulls(len(values))
    if all(isinstance(v, str) for v in values):
        return _strings(values)
    if all(isinstance(v, bool) for v in values):
        return _buffers(np.array(values, dtype=np.bool_))
    if len(present) == len(values) and all(isinstance(v, int) for v in values):
        return _buffers(np.array(values, dtype=np.int64))
    valid = np.array([v is not None for v in values])
    return _buffers(np.array([float("nan") if v is None else v for v in values], dtype=np.float64), valid)


def from_records(records: list[dict[str, Any]]) -> Table:
    """Rows (dicts with the same keys, as in a summary's ``flows``) as a table."""
    if not records:
        return Table()
    return Table({k: [r.get(k) for r in records] for k in records[0]})
