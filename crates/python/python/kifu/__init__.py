"""kifu: Go game records (SGF), replay into NumPy arrays, position databases, pattern search
and Polyglot chess books, from Python, at Rust speed.

Submodules:

- :mod:`kifu.sgf` -- parse, navigate, check, convert and write SGF (sgfmill-like values).
- :mod:`kifu.go` -- replay games into NumPy arrays (boards, moves, hashes, feature planes).
- :mod:`kifu.posdb` -- position, queue and scored files as NumPy structured arrays; full-board
  lookups and pattern search over a ``kifu pos index`` database.
- :mod:`kifu.polyglot` -- Polyglot opening books: lookups (python-chess compatible), making
  books from PGN, merging.

Every function that takes a path also takes ``bytes``. Long calls release the GIL and take
``threads=`` (``None``: one thread per core).
"""
from ._kifu import (  # noqa: F401
    __version__,
    KifuError,
    SgfError,
    ReplayError,
    BookError,
    PosdbError,
)
from . import sgf, go, posdb, polyglot  # noqa: F401

__all__ = [
    "__version__",
    "KifuError",
    "SgfError",
    "ReplayError",
    "BookError",
    "PosdbError",
    "sgf",
    "go",
    "posdb",
    "polyglot",
]
