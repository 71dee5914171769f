"""Position databases: the 9x9-experiments files and ``kifu pos index`` databases.

``read_positions`` / ``read_scored`` give NumPy structured arrays (one record per row, with
the fields listed in :data:`POSITION_FIELDS` and :data:`SCORED_FIELDS`); ``write_positions`` /
``write_scored`` write them back byte for byte. :class:`Index` answers full-board lookups and
pattern searches with the data ``kifu pos lookup --json`` and ``kifu pos search --json`` print.
"""
import numpy as np

from ._kifu import Index, PosdbError  # noqa: F401
from ._kifu import posdb_read_positions as _read_positions
from ._kifu import posdb_read_scored as _read_scored
from ._kifu import posdb_write_positions as _write_positions
from ._kifu import posdb_write_scored as _write_scored

#: Fields of a scored record.
SCORED_FIELDS = [("hash", "u8"), ("tiebreak", "u1"), ("to_play", "u1"), ("score", "u1"),
                 ("confidence", "u1")]


def position_dtype(size=9):
    """The structured dtype of position records of ``size`` x ``size`` boards."""
    return np.dtype([("hash", "u8"), ("tiebreak", "u1"), ("to_play", "u1"),
                     ("board", "u1", (size, size)), ("has_extra", "?"), ("file_id", "u4"),
                     ("variation", "u2"), ("move", "u2")])


#: Fields of a 9x9 position record (see :func:`position_dtype` for other sizes).
POSITION_FIELDS = position_dtype(9).descr


def read_positions(source, size=9, *, allow_torn=False):
    """Reads a position (or queue) file, from a path or bytes, as a structured array.

    Fields: ``hash`` (the canonical Zobrist hash), ``tiebreak``, ``to_play`` (1 black,
    2 white), ``board`` (size x size, 0 empty, 1 black, 2 white, row 0 at the top, as played),
    ``has_extra``, ``file_id``, ``variation``, ``move`` (0 without extra info). A bad record
    raises :class:`kifu.PosdbError` with ``record`` and ``offset``; a torn last record too
    unless ``allow_torn``, which keeps the records before it.
    """
    cols = _read_positions(source, size, allow_torn=allow_torn)
    out = np.empty(len(cols["hash"]), dtype=position_dtype(size))
    for name in ("hash", "tiebreak", "to_play", "has_extra", "file_id", "variation", "move"):
        out[name] = cols[name]
    out["board"] = cols["boards"]
    return out


def read_scored(source, *, allow_torn=False):
    """Reads a scored file, from a path or bytes, as a structured array with the fields
    ``hash``, ``tiebreak``, ``to_play`` (1 black, 2 white), ``score`` (3..8), ``confidence``
    (0..100)."""
    cols = _read_scored(source, allow_torn=allow_torn)
    out = np.empty(len(cols["hash"]), dtype=SCORED_FIELDS)
    for name, _ in SCORED_FIELDS:
        out[name] = cols[name]
    return out


def write_positions(path, records):
    """Writes a structured array of position records (as :func:`read_positions` gives) to
    ``path``; ``path=None`` returns the bytes instead. Records with ``has_extra`` get their
    extra info block."""
    r = np.asarray(records)
    return _write_positions(
        path, np.ascontiguousarray(r["hash"], "u8"), np.ascontiguousarray(r["tiebreak"], "u1"),
        np.ascontiguousarray(r["to_play"], "u1"), np.ascontiguousarray(r["board"], "u1"),
        np.ascontiguousarray(r["has_extra"], "?"), np.ascontiguousarray(r["file_id"], "u4"),
        np.ascontiguousarray(r["variation"], "u2"), np.ascontiguousarray(r["move"], "u2"))


def write_scored(path, records):
    """Writes a structured array of scored records to ``path``; ``path=None`` returns the
    bytes instead."""
    r = np.asarray(records)
    return _write_scored(path, *(np.ascontiguousarray(r[name], t) for name, t in SCORED_FIELDS))


__all__ = ["Index", "PosdbError", "read_positions", "read_scored", "write_positions",
           "write_scored", "position_dtype", "POSITION_FIELDS", "SCORED_FIELDS"]

from ._kifu import posdb_build_index as build_index  # noqa: E402
from ._kifu import posdb_extract as extract  # noqa: E402

__all__ += ["build_index", "extract"]
