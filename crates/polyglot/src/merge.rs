//! Merging books.
//!
//! Entries are combined per key. Within a key the output keeps the order in which moves
//! first appear (the first book's moves in its order, then new moves of later books), which
//! is what Polyglot's `merge-book` writes; weights saturate at 65535 where Polyglot's wrap
//! around. Polyglot's limit of 500 entries per key is not kept. Headers are merged: the
//! union of the variants (in order of first appearance) and the distinct comments joined
//! by newlines; the output has a header when any input has one.

use crate::book::Book;
use crate::header::Header;
use crate::record::Entry;

/// How to combine the entries of a key present in several books.
#[derive(Debug, Clone, PartialEq)]
pub enum MergeStrategy {
    /// Add the weights of the same move (Polyglot's `merge-book`), saturating at 65535;
    /// the learn value of the first book that has the move is kept.
    Sum,
    /// The first book (in argument order) that has the key gives all its moves; later
    /// books are only used for keys the earlier ones lack.
    First,
    /// The highest weight of each move across the books.
    Max,
    /// `round(sum of factor_i * weight_i)`, saturating; one factor per book (missing
    /// factors count as 1).
    Weighted(Vec<f64>),
}

/// Merges sorted books into one sorted list of entries, and merges their headers.
pub fn merge<B: AsRef<[u8]>>(
    books: &[Book<B>],
    strategy: &MergeStrategy,
) -> (Option<Header>, Vec<Entry>) {
    let mut pos = vec![0usize; books.len()];
    let mut out = Vec::new();
    // Per move of the current key: (move, index in `out`, accumulated weight as f64).
    let mut group: Vec<(Entry, f64)> = Vec::new();
    loop {
        let key = books
            .iter()
            .zip(&pos)
            .filter_map(|(b, &p)| b.entry(p).map(|e| e.key))
            .min();
        let Some(key) = key else { break };
        group.clear();
        let mut first_book_done = false;
        for (bi, b) in books.iter().enumerate() {
            let r_start = pos[bi];
            let mut p = r_start;
            while let Some(e) = b.entry(p).filter(|e| e.key == key) {
                p += 1;
                if matches!(strategy, MergeStrategy::First) && first_book_done {
                    continue;
                }
                let factor = match strategy {
                    MergeStrategy::Weighted(f) => f.get(bi).copied().unwrap_or(1.0),
                    _ => 1.0,
                };
                let w = f64::from(e.weight) * factor;
                match group.iter_mut().find(|(g, _)| g.raw_move == e.raw_move) {
                    Some((g, acc)) => match strategy {
                        MergeStrategy::Sum | MergeStrategy::Weighted(_) => *acc += w,
                        MergeStrategy::Max => {
                            if w > *acc {
                                *acc = w;
                                g.learn = e.learn;
                            }
                        }
                        // A repeated move inside the first book: keep both weights summed.
                        MergeStrategy::First => *acc += w,
                    },
                    None => group.push((e, w)),
                }
            }
            if p > r_start {
                first_book_done = true;
            }
            pos[bi] = p;
        }
        for (mut e, acc) in group.drain(..) {
            e.weight = acc.round().clamp(0.0, 65535.0) as u16;
            out.push(e);
        }
    }
    (merge_headers(books), out)
}

fn merge_headers<B: AsRef<[u8]>>(books: &[Book<B>]) -> Option<Header> {
    let headers: Vec<Header> = books.iter().filter_map(|b| b.header().ok()).collect();
    if headers.is_empty() {
        return None;
    }
    let mut variants: Vec<String> = Vec::new();
    let mut comments: Vec<Vec<u8>> = Vec::new();
    for h in headers {
        for v in h.variants {
            if !variants.contains(&v) {
                variants.push(v);
            }
        }
        if !h.comment.is_empty() && !comments.contains(&h.comment) {
            comments.push(h.comment);
        }
    }
    Some(Header::new(variants, comments.join(&b'\n')))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RawMove;

    fn book(es: &[(u64, u16, u16)], header: Option<Header>) -> Book<Vec<u8>> {
        let mut v = header.map(|h| h.to_records().unwrap()).unwrap_or_default();
        for &(key, m, weight) in es {
            v.extend_from_slice(
                &Entry {
                    key,
                    raw_move: RawMove(m),
                    weight,
                    learn: 0,
                }
                .to_bytes(),
            );
        }
        Book::from_bytes(v).unwrap()
    }

    fn weights(es: &[Entry]) -> Vec<(u64, u16, u16)> {
        es.iter().map(|e| (e.key, e.raw_move.0, e.weight)).collect()
    }

    #[test]
    fn strategies() {
        let a = book(
            &[(1, 10, 5), (2, 10, 60000), (2, 11, 1)],
            Some(Header::new(vec!["normal".into()], "A")),
        );
        let b = book(
            &[(2, 12, 3), (2, 10, 60000), (3, 10, 7)],
            Some(Header::new(vec!["normal".into(), "suicide".into()], "B")),
        );
        let books = [a, b];
        let (h, sum) = merge(&books, &MergeStrategy::Sum);
        assert_eq!(
            weights(&sum),
            [
                (1, 10, 5),
                (2, 10, 65535),
                (2, 11, 1),
                (2, 12, 3),
                (3, 10, 7)
            ]
        );
        let h = h.unwrap();
        assert_eq!(h.variants, ["normal", "suicide"]);
        assert_eq!(h.comment, b"A\nB");
        let (_, first) = merge(&books, &MergeStrategy::First);
        assert_eq!(
            weights(&first),
            [(1, 10, 5), (2, 10, 60000), (2, 11, 1), (3, 10, 7)]
        );
        let (_, max) = merge(&books, &MergeStrategy::Max);
        assert_eq!(
            weights(&max),
            [
                (1, 10, 5),
                (2, 10, 60000),
                (2, 11, 1),
                (2, 12, 3),
                (3, 10, 7)
            ]
        );
        let (_, mix) = merge(&books, &MergeStrategy::Weighted(vec![0.5, 2.0]));
        assert_eq!(
            weights(&mix),
            [
                (1, 10, 3),
                (2, 10, 65535),
                (2, 11, 1),
                (2, 12, 6),
                (3, 10, 14)
            ]
        );
    }
}
