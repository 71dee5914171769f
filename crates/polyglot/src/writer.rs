//! Writing books: header records, then entries, through any `Write`.

use crate::error::Result;
use crate::header::Header;
use crate::record::Entry;
use std::io::Write;

/// Writes an optional header and the entries (which must already be in book order).
/// Returns the number of entries written.
pub fn write_book<W: Write>(
    mut w: W,
    header: Option<&Header>,
    entries: impl IntoIterator<Item = Entry>,
) -> Result<u64> {
    if let Some(h) = header {
        w.write_all(&h.to_records()?)?;
    }
    let mut n = 0;
    for e in entries {
        w.write_all(&e.to_bytes())?;
        n += 1;
    }
    w.flush()?;
    Ok(n)
}
