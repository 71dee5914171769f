"""Shared fixtures: the corpus beside the project (``../shared/corpus`` from the repository root)."""
import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
CORPUS = pathlib.Path(os.environ.get("KIFU_CORPUS", ROOT.parent / "shared" / "corpus"))
GAMES = CORPUS / "sgf" / "games"
BOOKS = CORPUS / "polyglot" / "books"
PGN = CORPUS / "polyglot" / "pgn"


def need(path):
    if not path.exists():
        pytest.skip(f"{path} is missing (the shared corpus)")
    return path


@pytest.fixture(scope="session")
def sgf_files():
    # Both .sgf and .SGF (most of computer-go-dataset), as kifu's folder walks take them.
    return sorted(p for p in need(GAMES).rglob("*") if p.suffix.lower() == ".sgf")
