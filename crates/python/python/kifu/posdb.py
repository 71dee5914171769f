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


#: Bytes of a board cell in a position file (``board`` of :func:`map_positions`).
CELL_EMPTY, CELL_BLACK, CELL_WHITE = ord("."), ord("#"), ord("O")

#: The on-disk layout of a scored record (12 bytes): what :func:`map_scored` views. ``hash``
#: is big-endian (NumPy reads it as a number), ``to_play`` the byte ``b"B"`` or ``b"W"``.
SCORED_FILE_DTYPE = np.dtype([("hash", ">u8"), ("tiebreak", "u1"), ("to_play", "S1"),
                              ("score", "u1"), ("confidence", "u1")])


def position_file_dtype(size=9, extra=False):
    """The on-disk layout of a position record (``size * size + 11`` bytes, 8 more with extra
    info): what :func:`map_positions` views. ``hash`` is big-endian, ``to_play`` ``b"B"`` or
    ``b"W"``, ``board`` the cell bytes (:data:`CELL_EMPTY`, :data:`CELL_BLACK`,
    :data:`CELL_WHITE`), ``flag`` 1 when the extra info (``file_id``, ``variation``, ``move``,
    big-endian) follows."""
    fields = [("hash", ">u8"), ("tiebreak", "u1"), ("to_play", "S1"),
              ("board", "u1", (size, size)), ("flag", "u1")]
    if extra:
        fields += [("file_id", ">u4"), ("variation", ">u2"), ("move", ">u2")]
    return np.dtype(fields)


def _posdb_error(path, record, offset, message):
    text = f"{path}: {message}"
    e = PosdbError(text)
    e.file, e.line, e.column = str(path), None, None
    e.record, e.offset, e.message = record, offset, message
    return e


def _map(path, dtype, allow_torn):
    import os

    length = os.path.getsize(path)
    whole, rest = divmod(length, dtype.itemsize)
    if rest and not allow_torn:
        raise _posdb_error(path, whole, whole * dtype.itemsize,
                           f"torn last record: {rest} of its {dtype.itemsize} bytes")
    if whole == 0:
        return np.empty(0, dtype=dtype)
    return np.memmap(path, dtype=dtype, mode="r", shape=(whole,))


def _first_bad(path, mm, bad, what, itemsize):
    where = np.flatnonzero(bad)
    if len(where):
        i = int(where[0])
        raise _posdb_error(path, i, i * itemsize, what)


def map_positions(path, size=9, *, allow_torn=False, check=True):
    """A position (or queue) file as a read-only structured array over a memory map: no copy,
    and pages are read when used, so files larger than memory work. The fields are the file's
    own bytes (:func:`position_file_dtype`); :func:`read_positions` gives decoded columns
    instead. Every record must have extra info, or none (decided by the first record; a file
    that mixes them raises ``ValueError``: read it with :func:`read_positions`). With ``check``
    the records are validated first (the side to play, the cells, the flag; one vectorized pass
    over the map), and the first bad one raises :class:`kifu.PosdbError` with ``record`` and
    ``offset``. A torn last record raises too, unless ``allow_torn`` (left out of the view)."""
    import os

    base = position_file_dtype(size)
    extra = False
    if os.path.getsize(path) >= base.itemsize:
        with open(path, "rb") as f:
            f.seek(base.itemsize - 1)
            extra = f.read(1) == b"\x01"
    dtype = position_file_dtype(size, extra)
    if os.path.getsize(path) % dtype.itemsize:
        # Torn, or records of both lengths: the reader tells which (raising for a torn record
        # unless allowed), at the cost of one read, on this path only.
        has_extra = _read_positions(path, size, allow_torn=allow_torn)["has_extra"]
        if len(has_extra) and (has_extra != has_extra[0]).any():
            first = int(np.flatnonzero(has_extra != has_extra[0])[0])
            raise ValueError(f"{path}: records with and without extra info (first different: "
                             f"record {first}); use read_positions")
        allow_torn = True
    mm = _map(path, dtype, allow_torn)
    if check and len(mm):
        flags = mm["flag"]
        if extra and (flags != 1).any() or not extra and (flags != 0).any():
            bad = flags != (1 if extra else 0)
            if ((flags != 0) & (flags != 1)).any():
                _first_bad(path, mm, (flags != 0) & (flags != 1), "flag byte not 0 or 1",
                           dtype.itemsize)
            raise ValueError(f"{path}: records with and without extra info (first different: "
                             f"record {int(np.flatnonzero(bad)[0])}); use read_positions")
        _first_bad(path, mm, (mm["to_play"] != b"B") & (mm["to_play"] != b"W"),
                   "side to play not B or W", dtype.itemsize)
        cells = mm["board"].reshape(len(mm), -1)
        ok = (cells == CELL_EMPTY) | (cells == CELL_BLACK) | (cells == CELL_WHITE)
        _first_bad(path, mm, ~ok.all(axis=1), "a board cell not '#', 'O' or '.'",
                   dtype.itemsize)
    return mm


def map_scored(path, *, allow_torn=False, check=True):
    """A scored file as a read-only structured array over a memory map (no copy; the file's
    own bytes, :data:`SCORED_FILE_DTYPE`). With ``check`` the records are validated first
    (side to play, score 3..8, confidence 0..100) and the first bad one raises
    :class:`kifu.PosdbError`; a torn last record raises unless ``allow_torn``."""
    mm = _map(path, SCORED_FILE_DTYPE, allow_torn)
    if check and len(mm):
        bad = ((mm["to_play"] != b"B") & (mm["to_play"] != b"W")) | (mm["score"] < 3) \
            | (mm["score"] > 8) | (mm["confidence"] > 100)
        _first_bad(path, mm, bad, "side to play, score or confidence out of range",
                   SCORED_FILE_DTYPE.itemsize)
    return mm


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
           "write_scored", "position_dtype", "POSITION_FIELDS", "SCORED_FIELDS",
           "map_positions", "map_scored", "position_file_dtype", "SCORED_FILE_DTYPE",
           "CELL_EMPTY", "CELL_BLACK", "CELL_WHITE"]

from ._kifu import posdb_build_index as build_index  # noqa: E402
from ._kifu import posdb_extract as extract  # noqa: E402

__all__ += ["build_index", "extract"]
