from typing import Any, Dict, Iterable, Optional, Tuple, Union

from ._kifu import ReplayError as ReplayError
from ._kifu import Source

PASS: int
RESIGN: int
NO_MOVE: int
EMPTY: int
BLACK: int
WHITE: int
SYMMETRIES: Tuple[str, ...]

def positions(
    sources: Union[Source, Iterable[Source]],
    *,
    variations: bool = False,
    move_window: Optional[Tuple[int, int]] = None,
    dedup: bool = False,
    threads: Optional[int] = None,
    size: Optional[int] = None,
    features: bool = False,
    last_moves: int = 8,
    symmetry: Union[None, int, str] = None,
    strict: bool = False,
) -> Dict[str, Any]: ...
