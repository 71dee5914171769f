//! Counting (key, move) pairs in memory and on disk: a hash map that is spilled as sorted
//! runs, and a k-way merge that hands each key's moves to the caller in key order.

use crate::error::{Error, Result};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Counts of one (key, move).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Agg {
    /// Games.
    pub n: u64,
    /// Sum of `result + 1`.
    pub sum: u64,
    /// Order of first appearance (game sequence << 20 | ply).
    pub first: u64,
    /// The mover was White.
    pub white: bool,
}

impl Agg {
    fn absorb(&mut self, o: &Agg) {
        self.n += o.n;
        self.sum += o.sum;
        if o.first < self.first {
            self.first = o.first;
            self.white = o.white;
        }
    }
}

/// Polyglot keys are already uniformly random: hashing them again is wasted time.
#[derive(Default)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 ^= v;
    }
    fn write_u16(&mut self, v: u16) {
        self.0 ^= u64::from(v).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// The in-memory counts.
pub type AggMap = HashMap<(u64, u16), Agg, BuildHasherDefault<KeyHasher>>;

/// Bytes of one counted pair on disk (runs and counts files).
pub const RUN_RECORD: usize = 8 + 2 + 8 + 8 + 8 + 1;

/// One counted pair on disk.
pub fn encode(key: u64, mv: u16, a: &Agg) -> [u8; RUN_RECORD] {
    let mut b = [0u8; RUN_RECORD];
    b[0..8].copy_from_slice(&key.to_be_bytes());
    b[8..10].copy_from_slice(&mv.to_be_bytes());
    b[10..18].copy_from_slice(&a.n.to_le_bytes());
    b[18..26].copy_from_slice(&a.sum.to_le_bytes());
    b[26..34].copy_from_slice(&a.first.to_le_bytes());
    b[34] = u8::from(a.white);
    b
}

fn decode(b: &[u8; RUN_RECORD]) -> (u64, u16, Agg) {
    let u = |r: std::ops::Range<usize>| {
        let mut x = [0u8; 8];
        x.copy_from_slice(&b[r]);
        x
    };
    (
        u64::from_be_bytes(u(0..8)),
        u16::from_be_bytes([b[8], b[9]]),
        Agg {
            n: u64::from_le_bytes(u(10..18)),
            sum: u64::from_le_bytes(u(18..26)),
            first: u64::from_le_bytes(u(26..34)),
            white: b[34] != 0,
        },
    )
}

/// A sorted stream of counted pairs: a run file or the in-memory map.
type Source<'a> = Box<dyn Iterator<Item = Result<(u64, u16, Agg)>> + 'a>;

/// Sorted runs: spilled to temporary files (deleted when dropped), or the records of counts
/// files (a start offset and a number of records each).
pub struct RunSet {
    dir: Option<PathBuf>,
    files: Vec<(std::fs::File, u64, u64)>,
}

impl RunSet {
    /// No runs yet; spills go to `dir` or the system's temporary folder.
    pub fn new(dir: Option<&Path>) -> RunSet {
        RunSet {
            dir: dir.map(Path::to_path_buf),
            files: Vec::new(),
        }
    }

    /// Number of runs.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Writes the map as a sorted run and empties it.
    pub fn spill(&mut self, map: &mut AggMap) -> Result<()> {
        let sorted = sorted(map);
        let file = match &self.dir {
            Some(d) => tempfile::tempfile_in(d).map_err(|e| Error::io(d, e))?,
            None => tempfile::tempfile()?,
        };
        let mut w = BufWriter::with_capacity(1 << 20, file);
        for ((k, m), a) in &sorted {
            w.write_all(&encode(*k, *m, a))?;
        }
        let file = w.into_inner().map_err(|e| e.into_error())?;
        self.files.push((file, 0, sorted.len() as u64));
        map.clear();
        map.shrink_to_fit();
        Ok(())
    }

    /// Adds a sorted run that is part of a file: `records` records from byte `start`.
    pub fn add_file(&mut self, file: std::fs::File, start: u64, records: u64) {
        self.files.push((file, start, records));
    }

    /// Calls `f(key, moves)` for every key in increasing order, with the counts of the
    /// runs and of `map` combined; moves are in increasing move order.
    pub fn for_each_merged(
        &mut self,
        map: &AggMap,
        mut f: impl FnMut(u64, &[(u16, Agg)]) -> Result<()>,
    ) -> Result<()> {
        let mem = sorted(map);
        let mut sources: Vec<Source<'_>> = Vec::new();
        for (file, start, records) in &mut self.files {
            file.seek(SeekFrom::Start(*start))?;
            let mut r = BufReader::with_capacity(1 << 20, &*file);
            let mut left = *records;
            sources.push(Box::new(std::iter::from_fn(move || {
                if left == 0 {
                    return None;
                }
                left -= 1;
                let mut b = [0u8; RUN_RECORD];
                Some(
                    r.read_exact(&mut b)
                        .map(|()| decode(&b))
                        .map_err(Into::into),
                )
            })));
        }
        sources.push(Box::new(mem.into_iter().map(|((k, m), a)| Ok((k, m, a)))));
        let mut heads: Vec<Option<(u64, u16, Agg)>> = Vec::with_capacity(sources.len());
        let mut heap = BinaryHeap::new();
        for (i, s) in sources.iter_mut().enumerate() {
            let h = s.next().transpose()?;
            if let Some((k, m, _)) = h {
                heap.push(Reverse((k, m, i)));
            }
            heads.push(h);
        }
        let mut key = None;
        let mut moves: Vec<(u16, Agg)> = Vec::new();
        while let Some(Reverse((k, m, i))) = heap.pop() {
            let (_, _, a) = heads[i].take().expect("a head for every heap item");
            if key != Some(k) {
                if let Some(prev) = key {
                    f(prev, &moves)?;
                }
                moves.clear();
                key = Some(k);
            }
            match moves.last_mut() {
                Some((lm, la)) if *lm == m => la.absorb(&a),
                _ => moves.push((m, a)),
            }
            heads[i] = sources[i].next().transpose()?;
            if let Some((k2, m2, _)) = heads[i] {
                // A damaged counts file must not be merged into a wrong book.
                if (k2, m2) <= (k, m) {
                    return Err(Error::Stream(std::io::Error::other(format!(
                        "counted pairs out of order in run {i}: key {k2:016x} move {m2} after key {k:016x} move {m}"
                    ))));
                }
                heap.push(Reverse((k2, m2, i)));
            }
        }
        if let Some(prev) = key {
            f(prev, &moves)?;
        }
        Ok(())
    }
}

/// The map's contents sorted by (key, move).
pub fn sorted(map: &AggMap) -> Vec<((u64, u16), Agg)> {
    let mut v: Vec<_> = map.iter().map(|(k, a)| (*k, *a)).collect();
    v.sort_unstable_by_key(|(k, _)| *k);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spills_and_merges() {
        let mut runs = RunSet::new(None);
        let mut map = AggMap::default();
        let a = |n, first| Agg {
            n,
            sum: n,
            first,
            white: true,
        };
        map.insert((5, 1), a(1, 10));
        map.insert((2, 1), a(2, 11));
        runs.spill(&mut map).unwrap();
        map.insert((5, 1), a(3, 5));
        map.insert((5, 0), a(1, 7));
        runs.spill(&mut map).unwrap();
        map.insert((9, 9), a(1, 1));
        let mut got = Vec::new();
        runs.for_each_merged(&map, |k, moves| {
            got.push((k, moves.to_vec()));
            Ok(())
        })
        .unwrap();
        assert_eq!(
            got,
            vec![
                (2, vec![(1, a(2, 11))]),
                (
                    5,
                    vec![
                        (0, a(1, 7)),
                        (
                            1,
                            Agg {
                                n: 4,
                                sum: 4,
                                first: 5,
                                white: true
                            }
                        )
                    ]
                ),
                (9, vec![(9, a(1, 1))]),
            ]
        );
    }
}
