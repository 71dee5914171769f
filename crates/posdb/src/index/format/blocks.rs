//! Format 4's checksums. The bytes before them (header through summary directory) are cut
//! into blocks of [`BLOCK_BYTES`] (the last one shorter), and each block's XXH3-64 goes in a
//! table of big-endian u64 after the summary directory; the trailer holds the table's own
//! checksum. A reader checks the blocks under every read it makes, so a flipped bit is refused
//! where it is read, and opening a file of gigabytes reads no more than before: a lookup
//! reads a few blocks, not the file.
//!
//! Why per block and not one checksum of the file: one checksum is checked only by reading
//! everything, which would turn a lookup of a few hundred microseconds into a read of the whole
//! index. Why 4 KiB: a lookup's binary search reads about 25 places of the entries, each now a
//! block (a page, what the kernel reads anyway), and the table is 1/512 of the file.

use super::{IndexError, Trailer, TrailerSums, TRAILER_BYTES};
use std::io::{self, Write};
use std::ops::Range;

/// Bytes a checksum covers in the files written.
pub(in crate::index) const BLOCK_BYTES: u64 = 4096;
/// The smallest block size a reader accepts.
const MIN_BLOCK: u64 = 512;
/// The largest block size a reader accepts (a read checks whole blocks).
const MAX_BLOCK: u64 = 1 << 20;
/// Bytes of one checksum in the table.
const SUM_BYTES: u64 = 8;

/// The checksum of one block.
fn sum(bytes: &[u8]) -> u64 {
    twox_hash::XxHash3_64::oneshot(bytes)
}

/// Bytes of the table of checksums of `covered` bytes in blocks of `block` (`None`: a block
/// size no reader accepts, from a damaged trailer).
pub(super) fn table_bytes(covered: u64, block: u64) -> Option<u64> {
    (block.is_power_of_two() && (MIN_BLOCK..=MAX_BLOCK).contains(&block))
        .then(|| covered.div_ceil(block) * SUM_BYTES)
}

/// The check of the table and the trailer: XXH3-64 of the table then the trailer's first 32
/// bytes (everything but the check itself).
fn table_check(table: &[u8], trailer_head: &[u8]) -> u64 {
    let mut h = twox_hash::XxHash3_64::default();
    std::hash::Hasher::write(&mut h, table);
    std::hash::Hasher::write(&mut h, trailer_head);
    std::hash::Hasher::finish(&h)
}

/// Writes an index of format 4 through to `out`, summing every block as it passes; the
/// file is still written in one stream (standard output works).
pub(in crate::index) struct SumWriter<'a> {
    out: &'a mut dyn Write,
    /// The block being filled.
    block: Vec<u8>,
    /// The table so far.
    table: Vec<u8>,
    /// Bytes written.
    written: u64,
}

impl<'a> SumWriter<'a> {
    /// A writer of a new file into `out`.
    pub(in crate::index) fn new(out: &'a mut dyn Write) -> SumWriter<'a> {
        SumWriter {
            out,
            block: Vec::with_capacity(BLOCK_BYTES as usize),
            table: Vec::new(),
            written: 0,
        }
    }

    /// Writes the table of checksums and `trailer` (its checksums filled in): the file's end.
    /// The summary directory must end where the bytes written end.
    pub(in crate::index) fn finish(mut self, trailer: Trailer) -> Result<(), IndexError> {
        if trailer.dir_end() != Some(self.written) {
            return Err(IndexError::Format(
                "the summary directory is not where it was said",
            ));
        }
        if !self.block.is_empty() {
            self.table
                .extend_from_slice(&sum(&self.block).to_be_bytes());
        }
        let mut trailer = Trailer {
            sums: Some(TrailerSums {
                block: BLOCK_BYTES,
                check: 0,
            }),
            ..trailer
        };
        let head = trailer.encode();
        let sums = trailer.sums.as_mut().expect("just set");
        sums.check = table_check(&self.table, &head[..TRAILER_BYTES - 8]);
        self.out.write_all(&self.table)?;
        self.out.write_all(&trailer.encode())?;
        Ok(())
    }
}

impl Write for SumWriter<'_> {
    fn write(&mut self, mut buf: &[u8]) -> io::Result<usize> {
        let n = buf.len();
        self.out.write_all(buf)?;
        self.written += n as u64;
        while !buf.is_empty() {
            let take = buf.len().min(BLOCK_BYTES as usize - self.block.len());
            self.block.extend_from_slice(&buf[..take]);
            buf = &buf[take..];
            if self.block.len() == BLOCK_BYTES as usize {
                self.table
                    .extend_from_slice(&sum(&self.block).to_be_bytes());
                self.block.clear();
            }
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The checksums of a file of format 4, as a reader holds them.
#[derive(Debug)]
pub(in crate::index) struct BlockSums {
    /// Bytes a checksum covers.
    block: u64,
    /// Bytes covered: the file up to the table.
    covered: u64,
    sums: Vec<u64>,
}

impl BlockSums {
    /// Where the table of a file with this trailer starts and how long it is (`None` before
    /// format 4).
    pub(in crate::index) fn table_place(trailer: &Trailer) -> Option<(u64, u64)> {
        let s = trailer.sums?;
        let covered = trailer.dir_end()?;
        Some((covered, table_bytes(covered, s.block)?))
    }

    /// Checks `table` (read at [`BlockSums::table_place`]) against the trailer's check;
    /// `trailer_bytes` are the file's last bytes. `Err`: the bytes of the table and trailer,
    /// which do not match.
    pub(in crate::index) fn new(
        trailer: &Trailer,
        table: &[u8],
        trailer_bytes: &[u8],
    ) -> Result<BlockSums, Range<u64>> {
        let covered = trailer.dir_end().unwrap_or(0);
        let damaged = covered..covered + table.len() as u64 + trailer_bytes.len() as u64;
        let Some(s) = trailer.sums else {
            return Err(damaged);
        };
        if trailer_bytes.len() != TRAILER_BYTES
            || table_check(table, &trailer_bytes[..TRAILER_BYTES - 8]) != s.check
        {
            return Err(damaged);
        }
        Ok(BlockSums {
            block: s.block,
            covered,
            sums: table
                .as_chunks::<8>()
                .0
                .iter()
                .map(|c| u64::from_be_bytes(*c))
                .collect(),
        })
    }

    /// The bytes to read for `len` bytes at `at`: the whole blocks under them (`None`: they
    /// are not all before the table).
    pub(in crate::index) fn span(&self, at: u64, len: u64) -> Option<(u64, u64)> {
        let end = at.checked_add(len).filter(|&e| e <= self.covered)?;
        let start = at / self.block * self.block;
        let stop = if len == 0 {
            start
        } else {
            end.div_ceil(self.block)
                .saturating_mul(self.block)
                .min(self.covered)
        };
        Some((start, stop))
    }

    /// Checks `bytes`, read at `start` (a block's start, as [`BlockSums::span`] gives it),
    /// block by block. `Err`: the bytes of the first block that does not match its checksum.
    pub(in crate::index) fn check(&self, start: u64, bytes: &[u8]) -> Result<(), Range<u64>> {
        for (i, b) in bytes.chunks(self.block as usize).enumerate() {
            let from = start + i as u64 * self.block;
            let k = (from / self.block) as usize;
            if self.sums.get(k) != Some(&sum(b)) {
                return Err(from..from + b.len() as u64);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of `covered` bytes written through a [`SumWriter`] in pieces of `piece`: its
    /// table and trailer.
    fn written(covered: usize, piece: usize) -> (Vec<u8>, Trailer) {
        let body: Vec<u8> = (0..covered).map(|i| (i * 31 + i / 7) as u8).collect();
        let mut out = Vec::new();
        let mut w = SumWriter::new(&mut out);
        for c in body.chunks(piece.max(1)) {
            w.write_all(c).unwrap();
        }
        let trailer = Trailer {
            summaries: 0,
            dir_off: covered as u64,
            sums: None,
        };
        w.finish(trailer).unwrap();
        let t = Trailer::decode(&out[out.len() - TRAILER_BYTES..]).unwrap();
        assert_eq!(&out[..covered], &body[..]);
        assert_eq!(t.file_len(), Some(out.len() as u64));
        (out, t)
    }

    /// Every block's checksum is that of its bytes, however the writes were cut; a read's
    /// span is the whole blocks under it and never runs into the table; one flipped byte is
    /// refused with its block named, and so is a flipped byte of the table or trailer.
    #[test]
    fn blocks_are_summed_and_checked() {
        for covered in [0, 1, 4095, 4096, 4097, 10_000] {
            let mut tables = Vec::new();
            for piece in [1, 26, 4096, 5000, 1 << 20] {
                let (out, t) = written(covered, piece);
                let (at, len) = BlockSums::table_place(&t).unwrap();
                assert_eq!(at, covered as u64);
                assert_eq!(len, (covered as u64).div_ceil(4096) * 8);
                let table = &out[at as usize..(at + len) as usize];
                let tail = &out[out.len() - TRAILER_BYTES..];
                let sums = BlockSums::new(&t, table, tail).unwrap();
                tables.push(table.to_vec());
                let (s, e) = sums.span(0, covered as u64).unwrap();
                assert_eq!((s, e), (0, covered as u64));
                sums.check(0, &out[..covered]).unwrap();
                for i in 0..table.len() {
                    let mut bad = table.to_vec();
                    bad[i] ^= 0x10;
                    assert_eq!(
                        BlockSums::new(&t, &bad, tail).unwrap_err(),
                        at..at + len + 40
                    );
                }
                let mut bad_tail = tail.to_vec();
                bad_tail[9] ^= 1;
                assert!(BlockSums::new(&t, table, &bad_tail).is_err());
            }
            assert!(tables.windows(2).all(|w| w[0] == w[1]), "{covered}");
        }
        let (out, t) = written(10_000, 700);
        let (at, len) = BlockSums::table_place(&t).unwrap();
        let sums = BlockSums::new(
            &t,
            &out[at as usize..(at + len) as usize],
            &out[out.len() - TRAILER_BYTES..],
        )
        .unwrap();
        assert_eq!(sums.span(5000, 17), Some((4096, 8192)));
        assert_eq!(sums.span(8190, 10), Some((4096, 10_000)));
        assert_eq!(sums.span(9990, 10), Some((8192, 10_000)));
        assert_eq!(sums.span(9990, 11), None);
        assert_eq!(sums.span(u64::MAX, 2), None);
        let mut bad = out.clone();
        bad[9000] ^= 4;
        let (s, e) = sums.span(4096, 5000).unwrap();
        assert_eq!(
            sums.check(s, &bad[s as usize..e as usize]),
            Err(8192..10_000)
        );
        sums.check(0, &bad[..8192]).unwrap();
    }

    /// Block sizes a reader refuses: not a power of two, or outside 512 B to 1 MiB.
    #[test]
    fn odd_block_sizes_are_refused() {
        for block in [0, 1, 256, 4095, 3 << 12, 2 << 20] {
            assert_eq!(table_bytes(100, block), None, "{block}");
        }
        assert_eq!(table_bytes(100, 512), Some(8));
        assert_eq!(table_bytes(1 << 20, 1 << 20), Some(8));
    }
}
