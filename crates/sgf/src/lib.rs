//! kifu-sgf: placeholder, replaced below.
