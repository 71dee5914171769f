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

CELL_EMPTY: int
CELL_BLACK: int
CELL_WHITE: int
SCORED_FILE_DTYPE: np.dtype

def position_dtype(size: int = 9) -> np.dtype: ...
def position_file_dtype(size: int = 9, extra: bool = False) -> np.dtype: ...
def map_positions(path: Union[str, "os.PathLike[str]"], size: int = 9, *,
                  allow_torn: bool = False, check: bool = True) -> np.ndarray: ...
def map_scored(path: Union[str, "os.PathLike[str]"], *, allow_torn: bool = False,
               check: bool = True) -> np.ndarray: ...
def read_positions(source: Source, size: int = 9, *, allow_torn: bool = False) -> np.ndarray: ...
def read_scored(source: Source, *, allow_torn: bool = False) -> np.ndarray: ...
def write_positions(path: Optional[Union[str, "os.PathLike[str]"]],
                    records: np.ndarray) -> Union[int, bytes]: ...
def write_scored(path: Optional[Union[str, "os.PathLike[str]"]],
                 records: np.ndarray) -> Union[int, bytes]: ...
