//! The book reader: zero-copy over any byte storage, binary search by key.

use crate::error::{Error, Result};
use crate::header::{self, Header, HeaderError};
use crate::record::{key_at, Entry, RECORD_SIZE};
use std::path::Path;

/// A sorted Polyglot book over bytes `B` (a `Vec<u8>`, a `&[u8]`, or a memory map such as
/// `memmap2::Mmap`: anything that is `AsRef<[u8]>`).
///
/// Leading null-key records are the header and never entries. Opening checks that the
/// size is a multiple of 16 and that keys never decrease, so a lookup can never misread
/// an unsorted book; duplicates are allowed (a lookup returns them all) and reported by
/// [`check`](crate::check::check).
#[derive(Debug, Clone)]
pub struct Book<B = Vec<u8>> {
    data: B,
    /// Number of leading null records.
    header_records: usize,
    /// Total records.
    records: usize,
}

impl Book<Vec<u8>> {
    /// Reads a book file into memory and checks it.
    ///
    /// kifu reads the file rather than mapping it because mapping needs `unsafe` (a file
    /// truncated by another process would crash the reader); to map a huge book, map it
    /// yourself and pass the map to [`Book::from_bytes`].
    pub fn open(path: impl AsRef<Path>) -> Result<Book<Vec<u8>>> {
        let path = path.as_ref();
        let data = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        Book::from_bytes(data)
    }
}

impl<B: AsRef<[u8]>> Book<B> {
    /// Checks `data` (size, order) and wraps it.
    pub fn from_bytes(data: B) -> Result<Book<B>> {
        let bytes = data.as_ref();
        check_size(bytes)?;
        let records = bytes.len() / RECORD_SIZE;
        if let Some(e) = first_unsorted(bytes) {
            return Err(e);
        }
        let header_records = (0..records).take_while(|&i| key_at(bytes, i) == 0).count();
        Ok(Book {
            data,
            header_records,
            records,
        })
    }

    /// The raw bytes.
    pub fn as_bytes(&self) -> &[u8] {
        self.data.as_ref()
    }

    /// Number of entries (records that are not header records).
    pub fn len(&self) -> usize {
        self.records - self.header_records
    }

    /// Whether the book has no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of leading null records (the header).
    pub fn header_records(&self) -> usize {
        self.header_records
    }

    /// The `i`th entry (0-based, header records not counted).
    pub fn entry(&self, i: usize) -> Option<Entry> {
        if i >= self.len() {
            return None;
        }
        let o = (self.header_records + i) * RECORD_SIZE;
        Entry::from_slice(&self.as_bytes()[o..])
    }

    /// All entries in file order.
    pub fn entries(&self) -> impl ExactSizeIterator<Item = Entry> + '_ {
        self.as_bytes()[self.header_records * RECORD_SIZE..]
            .chunks_exact(RECORD_SIZE)
            .map(entry_of)
    }

    /// The index range of the entries with `key` (binary search, O(log n)). An interpolation
    /// search (the keys are even Zobrist hashes) was tried: its probes land on cold cache lines
    /// where a binary search's first probes stay cached, and a 128-bit division a probe costs
    /// more than it saves; it measured slower on a 93,000-entry book.
    pub fn range(&self, key: u64) -> std::ops::Range<usize> {
        let bytes = self.as_bytes();
        let base = self.header_records;
        let (mut lo, mut hi) = (0usize, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if key_at(bytes, base + mid) < key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let start = lo;
        let mut end = start;
        while end < self.len() && key_at(bytes, base + end) == key {
            end += 1;
        }
        start..end
    }

    /// All entries with `key`, in file order (Polyglot books put the highest weight first).
    pub fn lookup(&self, key: u64) -> impl ExactSizeIterator<Item = Entry> + '_ {
        let r = self.range(key);
        self.as_bytes()[(self.header_records + r.start) * RECORD_SIZE
            ..(self.header_records + r.end) * RECORD_SIZE]
            .chunks_exact(RECORD_SIZE)
            .map(entry_of)
    }

    /// Bytes 8-15 of the header records, concatenated.
    pub fn header_data(&self) -> Vec<u8> {
        header_data(self.as_bytes())
    }

    /// The parsed header; `Err(NoHeader)` if the book has none.
    pub fn header(&self) -> Result<Header, HeaderError> {
        let data = self.header_data();
        Header::parse(header::logical_header(&data)?)
    }
}

/// Decodes a 16-byte chunk (from `chunks_exact`, so the length is right).
fn entry_of(chunk: &[u8]) -> Entry {
    let mut rec = [0u8; RECORD_SIZE];
    rec.copy_from_slice(chunk);
    Entry::from_bytes(&rec)
}

/// Bytes 8-15 of the leading null-key records of `bytes`, concatenated.
pub fn header_data(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for rec in bytes.chunks_exact(RECORD_SIZE) {
        if rec[..8] != [0u8; 8] {
            break;
        }
        out.extend_from_slice(&rec[8..]);
    }
    out
}

/// Number of leading null-key records of `bytes`.
pub fn count_header_records(bytes: &[u8]) -> usize {
    bytes
        .chunks_exact(RECORD_SIZE)
        .take_while(|r| r[..8] == [0u8; 8])
        .count()
}

fn check_size(bytes: &[u8]) -> Result<()> {
    let trailing = bytes.len() % RECORD_SIZE;
    if trailing != 0 {
        return Err(Error::BadSize {
            len: bytes.len() as u64,
            trailing: trailing as u64,
            offset: (bytes.len() - trailing) as u64,
        });
    }
    Ok(())
}

fn first_unsorted(bytes: &[u8]) -> Option<Error> {
    let n = bytes.len() / RECORD_SIZE;
    let mut prev = 0u64;
    for i in 0..n {
        let k = key_at(bytes, i);
        if k < prev {
            return Some(Error::Unsorted {
                record: i as u64,
                offset: (i * RECORD_SIZE) as u64,
                key: k,
                previous: prev,
            });
        }
        prev = k;
    }
    None
}

/// Reads all records of a book in any order (for repair and check): the header data
/// and the entries (every record after the leading null records). Only the size is checked.
pub fn read_records(bytes: &[u8]) -> Result<(Vec<u8>, Vec<Entry>)> {
    check_size(bytes)?;
    let h = count_header_records(bytes);
    let entries = bytes[h * RECORD_SIZE..]
        .chunks_exact(RECORD_SIZE)
        .filter_map(Entry::from_slice)
        .collect();
    Ok((header_data(bytes), entries))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RawMove;

    fn rec(key: u64, mv: u16, w: u16) -> [u8; 16] {
        Entry {
            key,
            raw_move: RawMove(mv),
            weight: w,
            learn: 0,
        }
        .to_bytes()
    }

    #[test]
    fn range_finds_every_key_in_even_and_uneven_books() {
        // A xorshift stream: even keys; the same squared toward 0 (uneven); runs of equal keys.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for shape in 0..3 {
            let mut keys: Vec<u64> = (0..3000)
                .map(|_| match shape {
                    0 => next(),
                    1 => (next() >> 32).pow(2) >> (next() % 40),
                    _ => next() % 50 + 1,
                })
                .filter(|&k| k != 0)
                .collect();
            keys.sort_unstable();
            let mut data = Vec::new();
            for &k in &keys {
                data.extend_from_slice(&rec(k, 1, 1));
            }
            let book = Book::from_bytes(data).unwrap();
            let probes: Vec<u64> = keys
                .iter()
                .flat_map(|&k| [k, k - 1, k.saturating_add(1)])
                .chain([0, 1, u64::MAX])
                .collect();
            for q in probes {
                let start = keys.partition_point(|&k| k < q);
                let end = keys.partition_point(|&k| k <= q);
                assert_eq!(book.range(q), start..end, "shape {shape}, key {q}");
            }
        }
    }

    #[test]
    fn lookup_and_header() {
        let mut data = Header::new(vec!["normal".into()], "hi")
            .to_records()
            .unwrap();
        for (k, m, w) in [(1, 1, 5), (3, 1, 9), (3, 2, 4), (3, 3, 1), (7, 1, 1)] {
            data.extend_from_slice(&rec(k, m, w));
        }
        let book = Book::from_bytes(data).unwrap();
        assert_eq!(book.header_records(), 3);
        assert_eq!(book.len(), 5);
        let got: Vec<u16> = book.lookup(3).map(|e| e.weight).collect();
        assert_eq!(got, [9, 4, 1]);
        assert_eq!(book.lookup(2).len(), 0);
        assert_eq!(book.lookup(0).len(), 0);
        assert_eq!(book.lookup(8).len(), 0);
        assert_eq!(book.lookup(7).len(), 1);
        assert_eq!(book.header().unwrap().comment, b"hi");
        assert_eq!(book.entry(4).unwrap().key, 7);
        assert_eq!(book.entry(5), None);
    }

    #[test]
    fn rejects_bad_books() {
        let mut data = rec(5, 1, 1).to_vec();
        data.extend_from_slice(&rec(4, 1, 1));
        match Book::from_bytes(&data[..]) {
            Err(Error::Unsorted {
                record: 1,
                offset: 16,
                key: 4,
                previous: 5,
            }) => {}
            other => panic!("{other:?}"),
        }
        match Book::from_bytes(&data[..20]) {
            Err(Error::BadSize {
                len: 20,
                trailing: 4,
                offset: 16,
            }) => {}
            other => panic!("{other:?}"),
        }
        let empty = Book::from_bytes(Vec::new()).unwrap();
        assert!(empty.is_empty());
        assert_eq!(empty.header(), Err(HeaderError::NoHeader));
    }
}
