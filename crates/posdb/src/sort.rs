//! An external sort of fixed-size byte records, for bounded memory on collections of millions of
//! games: records are buffered up to a byte limit, each full buffer is sorted and spilled to an
//! unnamed temporary file (a run), and the runs are merged with a heap.
//!
//! Records are ordered by their bytes (`memcmp`), so callers put the sort key first, big-endian.
//! Because the order is total on the bytes, the merged output is the same whatever the limit, the
//! order of pushes or the number of runs (equal records are interchangeable).

use rayon::iter::{IntoParallelRefMutIterator, ParallelIterator};
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
    /// Bytes allocated for the records held (`short`'s capacity, or `buf`'s and what its sort
    /// will allocate): what the limit bounds, not only the records' own bytes.
    held: usize,
}

/// Bytes a record takes packed in `short`.
const KEY_BYTES: usize = std::mem::size_of::<Key>();

/// Bytes the sort of `buf` allocates per record beside the records: its index of them.
const INDEX_BYTES: usize = std::mem::size_of::<&[u8]>();

/// Records a buffer grows by at least (then by a quarter of what it holds), fewer when the
/// limit is small: the first growth of all 256 buckets takes at most a quarter of it.
const MIN_GROWTH: usize = 16;

impl ExternalSorter {
    /// A sorter of `record_len`-byte records that spills to temporary files in `dir` (the
    /// system's temporary folder when `None`) before the memory it allocates for the records
    /// it holds would pass `limit_bytes`. What is counted is what is allocated (records of up
    /// to 32 bytes are held as 32-byte integers, buffers grow by a quarter), so the limit is
    /// a bound on the sorter's memory, not on the records' bytes; at least one record is held.
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
            held: 0,
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
        let n = record.len();
        if self.short.is_empty() {
            // Sorting a buffer allocates an index of its records and a sorted copy.
            let per = INDEX_BYTES + n;
            let grow = |buf: &Vec<u8>| {
                if buf.len() + n > buf.capacity() {
                    (buf.len() / 4).max(MIN_GROWTH * n)
                } else {
                    0
                }
            };
            let after = self.buf.capacity() + grow(&self.buf) + (self.buf.len() / n + 1) * per;
            if after > self.limit && !self.buf.is_empty() {
                self.spill()?;
            }
            let more = grow(&self.buf);
            self.buf.reserve_exact(more);
            self.buf.extend_from_slice(record);
            self.held = self.buf.capacity() + self.buf.len() / n * per;
            return Ok(());
        }
        let mut b = [0u8; 32];
        b[..n].copy_from_slice(record);
        self.push_short(&b, n)
    }

    /// [`ExternalSorter::push`] of a record whose size is known when compiling: its bytes are
    /// copied without a call (a call per record for records of any size).
    #[inline]
    pub fn push_array<const N: usize>(&mut self, record: &[u8; N]) -> io::Result<()> {
        if N > 32 || self.short.is_empty() {
            return self.push(record);
        }
        debug_assert_eq!(N, self.record_len);
        let mut b = [0u8; 32];
        b[..N].copy_from_slice(record);
        self.push_short(&b, N)
    }

    /// Adds a record of `n` bytes, zero-padded in `b`, to its bucket.
    #[inline]
    fn push_short(&mut self, b: &[u8; 32], n: usize) -> io::Result<()> {
        let k = usize::from(b[0]);
        if self.short[k].len() == self.short[k].capacity() {
            // A full bucket grows by a quarter (doubling would leave up to half of what is
            // counted unused); one that would pass the limit spills everything first.
            let least = (self.limit / (KEY_BYTES * 256 * 4)).clamp(1, MIN_GROWTH);
            let grow = |len: usize| (len / 4).max(least);
            if self.short_bytes > 0
                && self.held + grow(self.short[k].len()) * KEY_BYTES > self.limit
            {
                self.spill()?;
            }
            let bucket = &mut self.short[k];
            let before = bucket.capacity();
            bucket.reserve_exact(grow(bucket.len()));
            self.held += (bucket.capacity() - before) * KEY_BYTES;
        }
        self.short[k].push(pack(b));
        self.short_bytes += n;
        Ok(())
    }

    /// Bytes the sorter has allocated for the records it holds (at most the limit, or one
    /// record's growth when it holds a single record).
    pub fn held_bytes(&self) -> usize {
        self.held
    }

    /// Runs spilled to disk so far.
    pub fn spilled_runs(&self) -> usize {
        self.runs.len()
    }

    fn sorted_buffer(&mut self) -> Vec<u8> {
        let n = self.record_len;
        if !self.short.is_empty() {
            let mut out = Vec::with_capacity(self.short_bytes);
            // Appending to memory cannot fail.
            let _ = self.drain_short_records(&mut |b| {
                out.extend_from_slice(b);
                Ok(())
            });
            return out;
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
        self.buf = Vec::new();
        self.held = 0;
        out
    }

    /// Records of at most 32 bytes (index entries) sorted as pairs of big-endian integers,
    /// zero-padded (the same order as their bytes, with integer comparisons instead of `memcmp`
    /// calls, which took a third of an index build), handed to `sink` as bytes in order. They
    /// were distributed by their first byte when pushed; a few of those 256 buckets at a time
    /// are, in parallel, distributed by the second byte into a scratch buffer that stays in
    /// cache (index entries start with a hash, so the buckets are small), their small buckets
    /// sorted, and freed as soon as their bytes are handed over: a run is written to its file
    /// without a second copy of it in memory.
    fn drain_short_records(
        &mut self,
        sink: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    ) -> io::Result<()> {
        /// Buckets sorted at once: enough for both cores, few enough that their copies stay
        /// small beside the buckets still held.
        const GROUP: usize = 4;
        let n = self.record_len;
        let mut buckets = std::mem::replace(&mut self.short, vec![Vec::new(); 256]);
        self.short_bytes = 0;
        self.held = 0;
        for group in buckets.chunks_mut(GROUP) {
            let sorted: Vec<Vec<u8>> = group
                .par_iter_mut()
                .map(|keys| sort_bucket(std::mem::take(keys), n))
                .collect();
            for bytes in &sorted {
                sink(bytes)?;
            }
        }
        Ok(())
    }

    fn spill(&mut self) -> io::Result<()> {
        if self.buf.is_empty() && self.short_bytes == 0 {
            return Ok(());
        }
        let file = match &self.dir {
            Some(d) => tempfile::tempfile_in(d)?,
            None => tempfile::tempfile()?,
        };
        let mut w = BufWriter::with_capacity(1 << 20, file);
        if self.short.is_empty() {
            w.write_all(&self.sorted_buffer())?;
        } else {
            self.drain_short_records(&mut |b| w.write_all(b))?;
        }
        let file = w.into_inner().map_err(|e| e.into_error())?;
        self.runs.push(file);
        Ok(())
    }

    /// Ends the input. When nothing was spilled and their sorted copy fits in the limit beside
    /// them, the records stay in memory; else they are spilled too.
    pub fn finish(mut self) -> io::Result<SortedRuns> {
        // The buffer's count already holds its sort's copy; the buckets' does not.
        let copy = if self.short.is_empty() {
            0
        } else {
            self.short_bytes
        };
        let mem = if self.runs.is_empty() && self.held + copy <= self.limit {
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

/// One bucket of packed records (all with the same first byte) sorted, as bytes of `n` each.
fn sort_bucket(keys: Vec<Key>, n: usize) -> Vec<u8> {
    let mut starts = [0usize; 257];
    for k in &keys {
        starts[second_byte(k) + 1] += 1;
    }
    for i in 0..256 {
        starts[i + 1] += starts[i];
    }
    let mut at = starts;
    let mut scratch = vec![(0u128, 0u128); keys.len()];
    for k in &keys {
        let b = second_byte(k);
        scratch[at[b]] = *k;
        at[b] += 1;
    }
    drop(keys);
    for w in starts.windows(2) {
        scratch[w[0]..w[1]].sort_unstable();
    }
    let mut out = vec![0u8; scratch.len() * n];
    for ((hi, lo), o) in scratch.into_iter().zip(out.chunks_exact_mut(n)) {
        let mut b = [0u8; 32];
        b[..16].copy_from_slice(&hi.to_be_bytes());
        b[16..].copy_from_slice(&lo.to_be_bytes());
        o.copy_from_slice(&b[..n]);
    }
    out
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
        // 2 KB holds 64 records (32 bytes each as integers, 16 more each bucket's first
        // growth): many runs, each of records pushed one after the other.
        let (disk, spilled) = sorted_with_limit(&records, 2048);
        assert!(spilled > 10, "{spilled} runs");
        assert_eq!(disk, expected);
        // Below one bucket's first growth, a run holds one bucket's records: still sorted.
        let (tiny, spilled) = sorted_with_limit(&records, 1);
        assert!(spilled > 900, "{spilled} runs");
        assert_eq!(tiny, expected);
        assert_eq!(sorted_with_limit(&[], 1).0, Vec::<Vec<u8>>::new());
    }

    /// What the sorter holds is counted as allocated, and stays under the limit: records of up
    /// to 32 bytes at 32 bytes each, longer ones (or with a unique prefix) with the index and
    /// copy their sort makes.
    #[test]
    fn held_bytes_are_what_is_allocated_and_stay_under_the_limit() {
        let mut x = 7u64;
        let mut next = || {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            x.to_be_bytes()
        };
        for (len, limit, unique) in [
            (26, 1 << 16, false),
            (17, 40_000, false),
            (40, 1 << 16, false),
            (26, 1 << 16, true),
        ] {
            let mut s = ExternalSorter::new(len, limit, None);
            if unique {
                s = s.unique_prefix(len);
            }
            let mut count = 0usize;
            let mut records = Vec::new();
            for _ in 0..20_000 {
                let mut r = vec![0u8; len];
                for chunk in r.chunks_mut(8) {
                    chunk.copy_from_slice(&next()[..chunk.len()]);
                }
                let runs = s.spilled_runs();
                s.push(&r).unwrap();
                count = if s.spilled_runs() > runs {
                    1
                } else {
                    count + 1
                };
                records.push(r);
                assert!(s.held_bytes() <= limit, "{len}: {} held", s.held_bytes());
                let per = if len <= 32 && !unique {
                    KEY_BYTES
                } else {
                    2 * len + INDEX_BYTES
                };
                assert!(
                    s.held_bytes() >= count * per,
                    "{len}: {} for {count}",
                    s.held_bytes()
                );
            }
            // Runs were as full as the limit lets them be: over half of it (buffers grow by a
            // quarter).
            let per = if len <= 32 && !unique {
                KEY_BYTES
            } else {
                2 * len + INDEX_BYTES
            };
            assert!(
                s.spilled_runs() <= 20_000 * per / (limit / 2),
                "{len}: {} runs",
                s.spilled_runs()
            );
            records.sort();
            let mut runs = s.finish().unwrap();
            let mut m = runs.merge().unwrap();
            let (mut rec, mut got) = (Vec::new(), Vec::new());
            while m.next_into(&mut rec).unwrap() {
                got.push(rec.clone());
            }
            assert_eq!(got, records, "{len}");
        }
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
