//! `check`: what is wrong with a book; `repair`: sort, merge duplicates, keep the header.

use crate::book::{count_header_records, read_records};
use crate::error::Result;
use crate::header::{self, Header, HeaderError};
use crate::record::{key_at, Entry, RECORD_SIZE};
use crate::RawMove;

/// One problem found in a book. Record numbers count from 0 at the start of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finding {
    /// The size is not a multiple of 16.
    BadSize {
        /// File size.
        len: u64,
    },
    /// A key lower than the one before it.
    Unsorted {
        /// Record number.
        record: u64,
    },
    /// The same key and move as the record before it.
    Duplicate {
        /// Record number of the second copy.
        record: u64,
        /// The key.
        key: u64,
        /// The move.
        raw_move: RawMove,
    },
    /// A null key after the first entry (a header record out of place).
    NullKeyEntry {
        /// Record number.
        record: u64,
    },
    /// An entry with weight 0 (hidden by most readers).
    ZeroWeight {
        /// Record number.
        record: u64,
    },
    /// Move bits that cannot be a move (bit 15, promotion 5-7, from == to).
    MalformedMove {
        /// Record number.
        record: u64,
        /// The bits.
        raw_move: RawMove,
    },
    /// Null records whose data is not a valid header.
    BadHeader {
        /// Why.
        reason: String,
    },
}

impl Finding {
    /// The record the finding is about, if any.
    pub fn record(&self) -> Option<u64> {
        match self {
            Finding::Unsorted { record }
            | Finding::Duplicate { record, .. }
            | Finding::NullKeyEntry { record }
            | Finding::ZeroWeight { record }
            | Finding::MalformedMove { record, .. } => Some(*record),
            _ => None,
        }
    }
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = |r: u64| format!("record {r} (byte offset {})", r * RECORD_SIZE as u64);
        match self {
            Finding::BadSize { len } => write!(
                f,
                "size {len} is not a multiple of 16 ({} trailing bytes)",
                len % 16
            ),
            Finding::Unsorted { record } => write!(
                f,
                "{}: key lower than the previous key (not sorted)",
                at(*record)
            ),
            Finding::Duplicate {
                record,
                key,
                raw_move,
            } => {
                write!(
                    f,
                    "{}: duplicate of the previous entry (key {key:016x}, move {raw_move})",
                    at(*record)
                )
            }
            Finding::NullKeyEntry { record } => {
                write!(f, "{}: null key after the first entry", at(*record))
            }
            Finding::ZeroWeight { record } => write!(f, "{}: weight 0", at(*record)),
            Finding::MalformedMove { record, raw_move } => {
                write!(
                    f,
                    "{}: malformed move bits {:#06x} ({raw_move})",
                    at(*record),
                    raw_move.0
                )
            }
            Finding::BadHeader { reason } => write!(f, "header: {reason}"),
        }
    }
}

/// Counts and findings of [`check`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Number of entries (records after the header records).
    pub entries: u64,
    /// Number of distinct keys among the entries.
    pub keys: u64,
    /// Number of header records.
    pub header_records: u64,
    /// The header, if one parses.
    pub header: Option<Header>,
    /// The problems, in file order (at most `limit` of each kind are listed; counts are exact).
    pub findings: Vec<Finding>,
    /// How many unsorted places, duplicates, zero weights and malformed moves there are.
    pub counts: Counts,
}

/// Exact counts of each kind of finding.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Keys lower than the previous key.
    pub unsorted: u64,
    /// Duplicate (key, move) pairs next to each other.
    pub duplicates: u64,
    /// Entries with weight 0.
    pub zero_weights: u64,
    /// Malformed moves.
    pub malformed_moves: u64,
    /// Null keys after the first entry.
    pub null_keys: u64,
}

impl Report {
    /// Whether the book is sound: sorted, no duplicates, no malformed moves, a valid or
    /// absent header. Zero weights alone are allowed (Polyglot books may use them).
    pub fn is_ok(&self) -> bool {
        self.findings
            .iter()
            .all(|f| matches!(f, Finding::ZeroWeight { .. }))
    }
}

/// Checks a book's bytes: size, order, duplicates, zero weights, move bits and header.
/// At most `limit` findings of each kind are listed.
pub fn check(bytes: &[u8], limit: usize) -> Report {
    let mut r = Report::default();
    if !bytes.len().is_multiple_of(RECORD_SIZE) {
        r.findings.push(Finding::BadSize {
            len: bytes.len() as u64,
        });
    }
    let n = bytes.len() / RECORD_SIZE;
    let h = count_header_records(bytes);
    r.header_records = h as u64;
    if h > 0 {
        let data = crate::book::header_data(bytes);
        match header::logical_header(&data).and_then(Header::parse) {
            Ok(hd) => r.header = Some(hd),
            Err(HeaderError::NoHeader) => r.findings.push(Finding::BadHeader {
                reason: "null records without a NUL-terminated header".into(),
            }),
            Err(e) => r.findings.push(Finding::BadHeader {
                reason: e.to_string(),
            }),
        }
    }
    r.entries = (n - h) as u64;
    let mut prev: Option<Entry> = None;
    for i in h..n {
        let Some(e) = Entry::from_slice(&bytes[i * RECORD_SIZE..]) else {
            break;
        };
        let rec = i as u64;
        let push = |count: &mut u64, f: Finding, findings: &mut Vec<Finding>| {
            *count += 1;
            if *count as usize <= limit {
                findings.push(f);
            }
        };
        if e.key == 0 {
            push(
                &mut r.counts.null_keys,
                Finding::NullKeyEntry { record: rec },
                &mut r.findings,
            );
        }
        match prev {
            Some(p) if e.key < p.key => {
                push(
                    &mut r.counts.unsorted,
                    Finding::Unsorted { record: rec },
                    &mut r.findings,
                );
            }
            Some(p) if e.key == p.key && e.raw_move == p.raw_move => push(
                &mut r.counts.duplicates,
                Finding::Duplicate {
                    record: rec,
                    key: e.key,
                    raw_move: e.raw_move,
                },
                &mut r.findings,
            ),
            _ => {}
        }
        if prev.is_none_or(|p| p.key != e.key) {
            r.keys += 1;
        }
        if e.weight == 0 {
            push(
                &mut r.counts.zero_weights,
                Finding::ZeroWeight { record: rec },
                &mut r.findings,
            );
        }
        if !e.raw_move.is_well_formed() {
            push(
                &mut r.counts.malformed_moves,
                Finding::MalformedMove {
                    record: rec,
                    raw_move: e.raw_move,
                },
                &mut r.findings,
            );
        }
        prev = Some(e);
    }
    // Duplicates separated by other moves of the same key are found by sorting keys'
    // moves: only needed when the book is sorted but a key's moves repeat non-adjacently.
    if r.counts.unsorted == 0 {
        let mut i = h;
        while i < n {
            let k = key_at(bytes, i);
            let mut j = i;
            while j < n && key_at(bytes, j) == k {
                j += 1;
            }
            if j - i > 2 {
                let mut moves: Vec<(u16, usize)> = (i..j)
                    .map(|x| {
                        (
                            u16::from_be_bytes([bytes[x * 16 + 8], bytes[x * 16 + 9]]),
                            x,
                        )
                    })
                    .collect();
                moves.sort_unstable();
                for w in moves.windows(2) {
                    // Adjacent duplicates were already reported above.
                    if w[0].0 == w[1].0 && w[1].1.abs_diff(w[0].1) != 1 {
                        r.counts.duplicates += 1;
                        if r.counts.duplicates as usize <= limit {
                            r.findings.push(Finding::Duplicate {
                                record: w[1].1.max(w[0].1) as u64,
                                key: k,
                                raw_move: RawMove(w[0].0),
                            });
                        }
                    }
                }
            }
            i = j;
        }
    }
    r.findings.sort_by_key(|f| f.record().unwrap_or(0));
    r
}

/// How [`repair`] combines duplicate (key, move) entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DuplicatePolicy {
    /// Add weights, saturating at 65535; keep the largest learn value.
    #[default]
    Sum,
    /// Keep the entry with the highest weight.
    Max,
    /// Keep the first entry in file order.
    First,
}

/// Repairs a book: drops a trailing partial record, sorts by key (highest weight first,
/// then move, for a deterministic order), merges duplicates and keeps the header records
/// unchanged. Returns the new bytes and how many entries were merged away.
pub fn repair(bytes: &[u8], policy: DuplicatePolicy) -> Result<(Vec<u8>, u64)> {
    let whole = &bytes[..bytes.len() - bytes.len() % RECORD_SIZE];
    let (_, mut entries) = read_records(whole)?;
    let h = count_header_records(whole);
    // Stable sort keeps file order among equal (key, move) so `First` is meaningful.
    entries.sort_by_key(|e| (e.key, e.raw_move));
    let before = entries.len();
    let mut merged: Vec<Entry> = Vec::with_capacity(before);
    for e in entries {
        match merged.last_mut() {
            Some(last) if last.key == e.key && last.raw_move == e.raw_move => match policy {
                DuplicatePolicy::Sum => {
                    last.weight = last.weight.saturating_add(e.weight);
                    last.learn = last.learn.max(e.learn);
                }
                DuplicatePolicy::Max => {
                    if e.weight > last.weight {
                        *last = e;
                    }
                }
                DuplicatePolicy::First => {}
            },
            _ => merged.push(e),
        }
    }
    let removed = (before - merged.len()) as u64;
    sort_for_writing(&mut merged);
    let mut out = Vec::with_capacity(h * RECORD_SIZE + merged.len() * RECORD_SIZE);
    out.extend_from_slice(&whole[..h * RECORD_SIZE]);
    for e in &merged {
        out.extend_from_slice(&e.to_bytes());
    }
    Ok((out, removed))
}

/// Sorts entries the way books are written: by key, then weight descending, then move.
pub fn sort_for_writing(entries: &mut [Entry]) {
    entries.sort_by(|a, b| {
        a.key
            .cmp(&b.key)
            .then(b.weight.cmp(&a.weight))
            .then(a.raw_move.cmp(&b.raw_move))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(key: u64, mv: u16, w: u16) -> Entry {
        Entry {
            key,
            raw_move: RawMove(mv | 0x0100),
            weight: w,
            learn: 0,
        }
    }

    fn bytes(es: &[Entry]) -> Vec<u8> {
        es.iter().flat_map(|e| e.to_bytes()).collect()
    }

    #[test]
    fn finds_and_repairs() {
        let data = bytes(&[
            e(5, 1, 3),
            e(5, 2, 0),
            e(5, 1, 4),
            e(2, 1, 1),
            e(9, 1, 1),
            e(9, 1, 2),
        ]);
        let r = check(&data, 100);
        assert_eq!(r.counts.unsorted, 1);
        assert_eq!(r.counts.zero_weights, 1);
        assert_eq!(r.counts.duplicates, 1, "{:?}", r.findings);
        assert!(!r.is_ok());
        let (fixed, removed) = repair(&data, DuplicatePolicy::Sum).unwrap();
        assert_eq!(removed, 2);
        let r2 = check(&fixed, 100);
        assert_eq!(
            r2.counts,
            Counts {
                zero_weights: 1,
                ..Counts::default()
            }
        );
        let book = crate::Book::from_bytes(&fixed[..]).unwrap();
        let w: Vec<u16> = book.lookup(5).map(|e| e.weight).collect();
        assert_eq!(w, [7, 0]);
        assert_eq!(book.lookup(9).next().unwrap().weight, 3);
        let (fixed, _) = repair(&data, DuplicatePolicy::First).unwrap();
        let book = crate::Book::from_bytes(&fixed[..]).unwrap();
        assert_eq!(book.lookup(5).next().unwrap().weight, 3);
        let mut odd = data.clone();
        odd.extend_from_slice(&[1, 2, 3]);
        assert!(matches!(
            check(&odd, 10).findings[0],
            Finding::BadSize { len: 99 }
        ));
    }

    #[test]
    fn saturates() {
        let data = bytes(&[e(1, 1, 60000), e(1, 1, 60000)]);
        let (fixed, _) = repair(&data, DuplicatePolicy::Sum).unwrap();
        assert_eq!(Entry::from_slice(&fixed).unwrap().weight, 65535);
    }
}
