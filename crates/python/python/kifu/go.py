"""Replay Go games into NumPy arrays, for analysis and machine learning.

``positions(sources, ...)`` replays every game of bytes, files and folders (in parallel, without
the GIL) and returns a dict of NumPy arrays with one row per position; see its docstring for
the keys. Board values: 0 empty, 1 black, 2 white; row 0 is the top row (as
``kifu show --format rows`` prints boards). ``moves`` hold the move played *from* each position
(the training target), with :data:`PASS`, :data:`RESIGN` and :data:`NO_MOVE` marking the
other cases.
"""
from ._kifu import GO_NO_MOVE, GO_PASS, GO_RESIGN, ReplayError
from ._kifu import go_positions as positions

#: ``moves`` value (both columns) of a pass.
PASS = GO_PASS
#: ``moves`` value of a resignation: the last position of a main line whose ``RE`` says ``+R``.
RESIGN = GO_RESIGN
#: ``moves`` value where no move follows (the end of a line).
NO_MOVE = GO_NO_MOVE
#: Board and ``to_play`` values.
EMPTY, BLACK, WHITE = 0, 1, 2

#: The 8 symmetries in kifu's order (``symmetry=`` and the ``symmetry``/``transform`` keys).
SYMMETRIES = (
    "identity",
    "rotate90",
    "rotate180",
    "rotate270",
    "flip_horizontal",
    "flip_vertical",
    "transpose",
    "anti_transpose",
)

__all__ = ["positions", "PASS", "RESIGN", "NO_MOVE", "EMPTY", "BLACK", "WHITE", "SYMMETRIES",
           "ReplayError"]
