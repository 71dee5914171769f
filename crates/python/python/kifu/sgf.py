"""SGF (FF[1], FF[3], FF[4]) reading, checking, converting and writing.

``parse(source)`` gives a :class:`Collection` of :class:`Game` trees of :class:`Node` objects.
``Node.get`` types values as sgfmill's ``Node.get`` does (moves ``(row, col)`` with row 0 at
the bottom, ``None`` for a pass; ``KM`` a float; texts ``str``), and ``get_raw`` gives the stored
bytes. Problems are :class:`Diagnostic` objects with a code, severity, line, column and message.
"""
from ._kifu import (  # noqa: F401
    Collection,
    Diagnostic,
    Game,
    Node,
    SgfError,
    sgf_check as check,
    sgf_parse as parse,
)


def write(collection):
    """The collection as SGF text (``str``); same as ``collection.write()``."""
    return collection.write()


def convert(collection):
    """The collection repaired and converted to FF[4]; same as ``collection.convert()``."""
    return collection.convert()


__all__ = ["parse", "check", "write", "convert", "Collection", "Game", "Node", "Diagnostic",
           "SgfError"]
