from ._kifu import Book as Book
from ._kifu import BookError as BookError
from ._kifu import Entry as Entry
from ._kifu import polyglot_key as key
from ._kifu import polyglot_make_book as make_book
from ._kifu import polyglot_merge as merge

open_reader = Book
