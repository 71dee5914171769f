"""Polyglot chess opening books, interoperable with python-chess.

``Book(path_or_bytes).find_all(board)`` takes a FEN, a ``chess.Board`` or a key and gives
:class:`Entry` objects whose ``move`` is standard UCI (castling ``e1g1``, not Polyglot's
``e1h1``), so ``chess.Move.from_uci(entry.move)`` works. ``make_book`` builds a book from PGN
like Polyglot's ``make-book``; ``merge`` combines books.
"""
from ._kifu import Book, BookError, Entry  # noqa: F401
from ._kifu import polyglot_key as key
from ._kifu import polyglot_make_book as make_book
from ._kifu import polyglot_merge as merge

#: Alias of :class:`Book`, after python-chess's ``chess.polyglot.open_reader``.
open_reader = Book

__all__ = ["Book", "Entry", "BookError", "key", "make_book", "merge", "open_reader"]
