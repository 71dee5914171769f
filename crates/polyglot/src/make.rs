//! Making books from PGN (filled in below).
