//! An external sort of fixed-size byte records, for bounded memory on collections of millions of
//! games: records are buffered up to a byte limit, each full buffer is sorted and spilled to an
//! unnamed temporary file (a run), and the runs are merged with a heap.
//!
//! Records are ordered by their bytes (`memcmp`), so callers put the sort key first, big-endian.
//! Because the order is total on the bytes, the merged output is the same whatever the limit, the
//! order of pushes or the number of runs (equal records are interchangeable).

use rayon::iter::{IntoParallelIterator, ParallelIterator};
use rayon::slice::ParallelSliceMut;
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

/// A record of at most 32 bytes as two big-endian integers.
type Key = (u128, u128);

/// A zero-padded record as its key.
fn pack(b: &[u8; 32]) -> Key {
    let (hi, lo) = b.split_at(16);
    (
        u128::from_be_bytes(hi.try_into().expect("16 bytes")),
        u128::from_be_bytes(lo.try_into().expect("16 bytes")),
    )
}

/// The record's second byte.
fn second_byte(k: &Key) -> usize {
    (k.0 >> 112) as usize & 0xFF
}

/// Buffers, sorts and spills fixed-size records.
#[derive(Debug)]
pub struct ExternalSorter {
    record_len: usize,
    limit: usize,
    buf: Vec<u8>,
    runs: Vec<File>,
    dir: Option<PathBuf>,
    unique_prefix: Option<usize>,
    /// Records of at most 32 bytes, packed as integers and distributed by their first byte as
    /// they are pushed (so the serial step at the end is not a pass over all records): used
    /// instead of `buf` when there is no unique prefix.
    short: Vec<Vec<Key>>,
    /// Bytes of records held in `short`.
    short_bytes: usize,
}

impl ExternalSorter {
    /// A sorter of `record_len`-byte records that spills when more than `limit_bytes` are
    /// buffered, into temporary files in `dir` (the system's temporary folder when `None`).
    pub fn new(record_len: usize, limit_bytes: usize, dir: Option<PathBuf>) -> ExternalSorter {
        assert!(record_len > 0, "records have at least one byte");
        ExternalSorter {
            record_len,
            // At least one record per run, so a tiny limit still makes progress.
            limit: limit_bytes.max(record_len),
            buf: Vec::new(),
            runs: Vec::new(),
            dir,
            unique_prefix: None,
            short: if record_len <= 32 {
                vec![Vec::new(); 256]
            } else {
                Vec::new()
            },
            short_bytes: 0,
        }
    }

    /// Within each run, keeps only the lowest record of each group of records whose first
    /// `prefix` bytes are equal (a merge pass must still skip repeats across runs). This makes
    /// runs smaller when callers keep only the first record of each key.
    pub fn unique_prefix(mut self, prefix: usize) -> ExternalSorter {
        self.unique_prefix = Some(prefix.min(self.record_len));
        self.short = Vec::new();
        self
    }

    /// Adds one record (`record_len` bytes; the caller's encoders guarantee it).
    pub fn push(&mut self, record: &[u8]) -> io::Result<()> {
        debug_assert_eq!(record.len(), self.record_len);
        if self.short.is_empty() {
            self.buf.extend_from_slice(record);
            if self.buf.len() >= self.limit {
                self.spill()?;
            }
            return Ok(());
        }
        let mut b = [0u8; 32];
        b[..record.len()].copy_from_slice(record);
        self.short[usize::from(b[0])].push(pack(&b));
        self.short_bytes += record.len();
        if self.short_bytes >= self.limit {
            self.spill()?;
        }
        Ok(())
    }

    /// Runs spilled to disk so far.
    pub fn spilled_runs(&self) -> usize {
        self.runs.len()
    }

    fn sorted_buffer(&mut self) -> Vec<u8> {
        let n = self.record_len;
        if !self.short.is_empty() {
            return self.sorted_short_records();
        }
        let mut idx: Vec<&[u8]> = self.buf.chunks_exact(n).collect();
        // Runs are sorted on all cores (rayon); the order is total, so the result is the same.
        // The first 8 bytes (a hash in every caller) compared as one big-endian integer decide
        // almost every comparison without a `memcmp` call.
        let head = |r: &[u8]| -> u64 {
            let mut b = [0u8; 8];
            let k = r.len().min(8);
            b[..k].copy_from_slice(&r[..k]);
            u64::from_be_bytes(b)
        };
        idx.par_sort_unstable_by(|a, b| head(a).cmp(&head(b)).then_with(|| a.cmp(b)));
        let mut out = Vec::with_capacity(self.buf.len());
        let mut last: Option<&[u8]> = None;
        for r in idx {
            if let Some(k) = self.unique_prefix {
                if last.is_some_and(|l| l[..k] == r[..k]) {
                    continue;
                }
                last = Some(r);
            }
            out.extend_from_slice(r);
        }
        self.buf.clear();
        out
    }

    /// Records of at most 32 bytes (index entries) sorted as pairs of big-endian integers,
    /// zero-padded (the same order as their bytes, with integer comparisons instead of `memcmp`
    /// calls, which took a third of an index build). They were distributed by their first byte
    /// when pushed; each of those 256 buckets is then, in parallel, distributed by the second
    /// byte into a scratch buffer that stays in cache (index entries start with a hash, so the
    /// buckets are small), its small buckets sorted, and written out as bytes in place.
    fn sorted_short_records(&mut self) -> Vec<u8> {
        let n = self.record_len;
        let mut out = vec![0u8; self.short_bytes];
        let mut parts: Vec<(&mut Vec<Key>, &mut [u8])> = Vec::with_capacity(256);
        let mut rest: &mut [u8] = &mut out;
        for b in self.short.iter_mut() {
            let (head, tail) = rest.split_at_mut(b.len() * n);
            parts.push((b, head));
            rest = tail;
        }
        parts.into_par_iter().for_each(|(keys, out)| {
            let mut starts = [0usize; 257];
            for k in keys.iter() {
                starts[second_byte(k) + 1] += 1;
            }
            for i in 0..256 {
                starts[i + 1] += starts[i];
            }
            let mut at = starts;
            let mut scratch = vec![(0u128, 0u128); keys.len()];
            for k in keys.iter() {
                let b = second_byte(k);
                scratch[at[b]] = *k;
                at[b] += 1;
            }
            for w in starts.windows(2) {
                scratch[w[0]..w[1]].sort_unstable();
            }
            for ((hi, lo), o) in scratch.into_iter().zip(out.chunks_exact_mut(n)) {
                let mut b = [0u8; 32];
                b[..16].copy_from_slice(&hi.to_be_bytes());
                b[16..].copy_from_slice(&lo.to_be_bytes());
                o.copy_from_slice(&b[..n]);
            }
            // The bucket's memory is given back as soon as it is written out.
            *keys = Vec::new();
        });
        self.short_bytes = 0;
        out
    }

    fn spill(&mut self) -> io::Result<()> {
        if self.buf.is_empty() && self.short_bytes == 0 {
            return Ok(());
        }
        let sorted = self.sorted_buffer();
        let file = match &self.dir {
            Some(d) => tempfile::tempfile_in(d)?,
            None => tempfile::tempfile()?,
        };
        let mut w = BufWriter::with_capacity(1 << 20, file);
        w.write_all(&sorted)?;
        let file = w.into_inner().map_err(|e| e.into_error())?;
        self.runs.push(file);
        Ok(())
    }

    /// Ends the input. When nothing was spilled the records stay in memory.
    pub fn finish(mut self) -> io::Result<SortedRuns> {
        let mem = if self.runs.is_empty() {
            self.sorted_buffer()
        } else {
            self.spill()?;
            Vec::new()
        };
        Ok(SortedRuns {
            record_len: self.record_len,
            mem,
            runs: self.runs,
        })
    }
}

/// Sorted runs that can be merged (read in order) any number of times, one pass at a time.
#[derive(Debug)]
pub struct SortedRuns {
    record_len: usize,
    mem: Vec<u8>,
    runs: Vec<File>,
}

impl SortedRuns {
    /// Runs on disk.
    pub fn spilled_runs(&self) -> usize {
        self.runs.len()
    }

    /// All records in order, when nothing was spilled (one slice instead of a merge pass).
    pub fn in_memory(&self) -> Option<&[u8]> {
        self.runs.is_empty().then_some(&self.mem[..])
    }

    /// A pass over all records in order. Starting a pass rewinds the run files, so passes must
    /// not overlap.
    pub fn merge(&mut self) -> io::Result<Merge<'_>> {
        let n = self.record_len;
        let mut sources: Vec<Source<'_>> = Vec::new();
        if !self.mem.is_empty() {
            sources.push(Source::Mem(&self.mem, 0));
        }
        for f in &mut self.runs {
            f.seek(SeekFrom::Start(0))?;
            sources.push(Source::File(BufReader::with_capacity(1 << 18, f)));
        }
        let mut heap = BinaryHeap::with_capacity(sources.len());
        for (i, s) in sources.iter_mut().enumerate() {
            let mut rec = vec![0u8; n];
            if s.next_into(&mut rec)? {
                heap.push(Head { rec, src: i });
            }
        }
        Ok(Merge { sources, heap })
    }
}

enum Source<'a> {
    Mem(&'a [u8], usize),
    File(BufReader<&'a mut File>),
}

impl Source<'_> {
    fn next_into(&mut self, rec: &mut [u8]) -> io::Result<bool> {
        match self {
            Source::Mem(bytes, at) => {
                if *at >= bytes.len() {
                    return Ok(false);
                }
                rec.copy_from_slice(&bytes[*at..*at + rec.len()]);
                *at += rec.len();
                Ok(true)
            }
            Source::File(r) => match r.read_exact(rec) {
                Ok(()) => Ok(true),
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(false),
                Err(e) => Err(e),
            },
        }
    }
}

struct Head {
    rec: Vec<u8>,
    src: usize,
}

impl PartialEq for Head {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Head {}
impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Head {
    // Reversed: BinaryHeap is a max-heap and the merge wants the lowest record first.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .rec
            .cmp(&self.rec)
            .then_with(|| other.src.cmp(&self.src))
    }
}

/// One pass over sorted runs.
pub struct Merge<'a> {
    sources: Vec<Source<'a>>,
    heap: BinaryHeap<Head>,
}

impl Merge<'_> {
    /// Copies the next record into `out` (resized to the record length); `false` at the end.
    pub fn next_into(&mut self, out: &mut Vec<u8>) -> io::Result<bool> {
        let Some(mut head) = self.heap.pop() else {
            return Ok(false);
        };
        out.clear();
        out.extend_from_slice(&head.rec);
        if self.sources[head.src].next_into(&mut head.rec)? {
            self.heap.push(head);
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted_with_limit(records: &[[u8; 3]], limit: usize) -> (Vec<Vec<u8>>, usize) {
        let mut s = ExternalSorter::new(3, limit, None);
        for r in records {
            s.push(r).unwrap();
        }
        let mut runs = s.finish().unwrap();
        let spilled = runs.spilled_runs();
        let mut out = Vec::new();
        // Two passes give the same records.
        for pass in 0..2 {
            let mut m = runs.merge().unwrap();
            let mut rec = Vec::new();
            let mut got = Vec::new();
            while m.next_into(&mut rec).unwrap() {
                got.push(rec.clone());
            }
            if pass == 0 {
                out = got;
            } else {
                assert_eq!(got, out);
            }
        }
        (out, spilled)
    }

    #[test]
    fn spilled_and_in_memory_sorts_agree() {
        let mut x = 12345u32;
        let records: Vec<[u8; 3]> = (0..1000)
            .map(|_| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                [(x >> 24) as u8, (x >> 16) as u8, (x >> 8) as u8 & 3]
            })
            .collect();
        let mut expected: Vec<Vec<u8>> = records.iter().map(|r| r.to_vec()).collect();
        expected.sort();
        let (mem, spilled) = sorted_with_limit(&records, 1 << 20);
        assert_eq!(spilled, 0);
        let mut s = ExternalSorter::new(3, 1 << 20, None);
        for r in &records {
            s.push(r).unwrap();
        }
        assert_eq!(
            s.finish().unwrap().in_memory(),
            Some(&expected.concat()[..])
        );
        assert_eq!(mem, expected);
        let (disk, spilled) = sorted_with_limit(&records, 30);
        assert_eq!(spilled, 100);
        assert_eq!(disk, expected);
        let (tiny, spilled) = sorted_with_limit(&records, 1);
        assert_eq!(spilled, 1000);
        assert_eq!(tiny, expected);
        assert_eq!(sorted_with_limit(&[], 1).0, Vec::<Vec<u8>>::new());
    }

    #[test]
    fn unique_prefix_keeps_the_lowest_of_each_group_per_run() {
        let recs: [[u8; 2]; 5] = [[1, 9], [0, 5], [1, 3], [0, 7], [2, 0]];
        let mut s = ExternalSorter::new(2, 1 << 20, None).unique_prefix(1);
        for r in &recs {
            s.push(r).unwrap();
        }
        let mut runs = s.finish().unwrap();
        let mut m = runs.merge().unwrap();
        let (mut rec, mut got) = (Vec::new(), Vec::new());
        while m.next_into(&mut rec).unwrap() {
            got.push(rec.clone());
        }
        assert_eq!(got, vec![vec![0, 5], vec![1, 3], vec![2, 0]]);
    }
}
