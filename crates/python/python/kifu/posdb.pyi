import os
from typing import Any, List, Optional, Tuple, Union

import numpy as np

from ._kifu import Index as Index
from ._kifu import PosdbError as PosdbError
from ._kifu import Source
from ._kifu import posdb_build_index as build_index
from ._kifu import posdb_extract as extract

SCORED_FIELDS: List[Tuple[str, str]]
POSITION_FIELDS: List[Any]

def position_dtype(size: int = 9) -> np.dtype: ...
def read_positions(source: Source, size: int = 9, *, allow_torn: bool = False) -> np.ndarray: ...
def read_scored(source: Source, *, allow_torn: bool = False) -> np.ndarray: ...
def write_positions(path: Optional[Union[str, "os.PathLike[str]"]],
                    records: np.ndarray) -> Union[int, bytes]: ...
def write_scored(path: Optional[Union[str, "os.PathLike[str]"]],
                 records: np.ndarray) -> Union[int, bytes]: ...
