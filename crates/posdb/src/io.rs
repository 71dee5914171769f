//! Streaming readers and writers for position files (and queue files) and scored files.
//!
//! Readers take any [`Read`] (wrap files in a [`std::io::BufReader`]) and yield one record at a
//! time, so files of any length are read in constant memory. A file that ends inside a record
//! (a torn last record, e.g. after a crash) is reported as [`ReadErrorKind::Torn`] with the record
//! number and byte offset, which is where a repair truncates the file to.

use crate::id::{IdError, PositionId, ID_BYTES};
use crate::record::{
    position_bytes, ExtraInfo, PositionRecord, ScoredPosition, EXTRA_BYTES, SCORED_BYTES,
    SCORE_MAX, SCORE_MIN,
};
use kifu_go::{Board, BoardSize};
use std::io::{self, Read, Write};

/// What was wrong with a record.
#[derive(Debug, thiserror::Error)]
pub enum ReadErrorKind {
    /// Reading failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The input ends inside the record.
    #[error("torn record: the input ends after {have} of its {need} bytes")]
    Torn {
        /// Bytes of the record present.
        have: u64,
        /// Bytes the record needs (for a position record, as far as known when the input ended).
        need: u64,
    },
    /// The PositionID is not valid.
    #[error("{0}")]
    BadId(#[from] IdError),
    /// A board byte is not `#`, `O` or `.`.
    #[error("board byte {byte:#04x} at point {point} is not '#', 'O' or '.'")]
    BadPoint {
        /// The 0-based point index (row by row from the top-left).
        point: usize,
        /// The byte found.
        byte: u8,
    },
    /// The flag byte after the board is not 0 or 1.
    #[error("flag byte {0:#04x} is not 0 (no extra info) or 1 (extra info follows)")]
    BadFlag(u8),
    /// A score byte outside 3..=8.
    #[error("score byte {0} is outside 3..=8")]
    BadScore(u8),
    /// A confidence byte above 100.
    #[error("confidence byte {0} is above 100")]
    BadConfidence(u8),
}

/// A record that could not be read, and where.
#[derive(Debug, thiserror::Error)]
#[error("record {record} (byte offset {offset}): {kind}")]
pub struct ReadError {
    /// The record number, counted from 0 at the start of the input.
    pub record: u64,
    /// The byte offset where the record starts.
    pub offset: u64,
    /// What was wrong.
    pub kind: ReadErrorKind,
}

impl ReadError {
    /// Whether the input simply ends inside this record (so the whole records before it are
    /// sound and truncating to [`ReadError::offset`] repairs the file).
    pub fn is_torn(&self) -> bool {
        matches!(self.kind, ReadErrorKind::Torn { .. })
    }
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// A streaming reader of position records (position files and queue files) of one board size.
/// Records with and without extra info may be mixed. After an error it yields nothing more.
#[derive(Debug)]
pub struct PositionReader<R> {
    inner: R,
    size: BoardSize,
    record: u64,
    offset: u64,
    done: bool,
    buf: Vec<u8>,
}

impl<R: Read> PositionReader<R> {
    /// A reader of `size` x `size` records (9x9 records are 92 or 100 bytes).
    pub fn new(inner: R, size: BoardSize) -> PositionReader<R> {
        PositionReader {
            inner,
            size,
            record: 0,
            offset: 0,
            done: false,
            buf: vec![0; position_bytes(size)],
        }
    }

    /// Records read so far.
    pub fn records(&self) -> u64 {
        self.record
    }

    /// Bytes of whole records read so far: the offset of the next record.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    fn fail(&mut self, kind: ReadErrorKind) -> ReadError {
        self.done = true;
        ReadError {
            record: self.record,
            offset: self.offset,
            kind,
        }
    }

    /// The next record, `Ok(None)` at the end of the input.
    pub fn read_record(&mut self) -> Result<Option<PositionRecord>, ReadError> {
        if self.done {
            return Ok(None);
        }
        let need = self.buf.len();
        let got = match read_full(&mut self.inner, &mut self.buf) {
            Ok(n) => n,
            Err(e) => return Err(self.fail(e.into())),
        };
        if got == 0 {
            self.done = true;
            return Ok(None);
        }
        if got < need {
            return Err(self.fail(ReadErrorKind::Torn {
                have: got as u64,
                need: need as u64,
            }));
        }
        let mut idb = [0u8; ID_BYTES];
        idb.copy_from_slice(&self.buf[..ID_BYTES]);
        let id = match PositionId::from_bytes(&idb) {
            Ok(id) => id,
            Err(e) => return Err(self.fail(e.into())),
        };
        let points = &self.buf[ID_BYTES..need - 1];
        if let Some(point) = points.iter().position(|b| !matches!(b, b'#' | b'O' | b'.')) {
            let byte = points[point];
            return Err(self.fail(ReadErrorKind::BadPoint { point, byte }));
        }
        let board = Board::from_rows(points, Some(self.size))
            .expect("validated bytes of the right count make a board");
        let extra = match self.buf[need - 1] {
            0 => None,
            1 => {
                let mut e = [0u8; EXTRA_BYTES];
                let got = match read_full(&mut self.inner, &mut e) {
                    Ok(n) => n,
                    Err(err) => return Err(self.fail(err.into())),
                };
                if got < EXTRA_BYTES {
                    return Err(self.fail(ReadErrorKind::Torn {
                        have: (need + got) as u64,
                        need: (need + EXTRA_BYTES) as u64,
                    }));
                }
                Some(ExtraInfo::from_bytes(&e))
            }
            f => return Err(self.fail(ReadErrorKind::BadFlag(f))),
        };
        let rec = PositionRecord { id, board, extra };
        self.record += 1;
        self.offset += rec.encoded_len() as u64;
        Ok(Some(rec))
    }
}

impl<R: Read> Iterator for PositionReader<R> {
    type Item = Result<PositionRecord, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.read_record().transpose()
    }
}

/// A streaming reader of 12-byte scored records. After an error it yields nothing more.
#[derive(Debug)]
pub struct ScoredReader<R> {
    inner: R,
    record: u64,
    done: bool,
}

impl<R: Read> ScoredReader<R> {
    /// A reader over `inner`.
    pub fn new(inner: R) -> ScoredReader<R> {
        ScoredReader {
            inner,
            record: 0,
            done: false,
        }
    }

    /// Records read so far.
    pub fn records(&self) -> u64 {
        self.record
    }

    /// Bytes of whole records read so far.
    pub fn offset(&self) -> u64 {
        self.record * SCORED_BYTES as u64
    }

    fn fail(&mut self, kind: ReadErrorKind) -> ReadError {
        self.done = true;
        ReadError {
            record: self.record,
            offset: self.offset(),
            kind,
        }
    }

    /// The next record, `Ok(None)` at the end of the input.
    pub fn read_record(&mut self) -> Result<Option<ScoredPosition>, ReadError> {
        if self.done {
            return Ok(None);
        }
        let mut b = [0u8; SCORED_BYTES];
        let got = match read_full(&mut self.inner, &mut b) {
            Ok(n) => n,
            Err(e) => return Err(self.fail(e.into())),
        };
        if got == 0 {
            self.done = true;
            return Ok(None);
        }
        if got < SCORED_BYTES {
            return Err(self.fail(ReadErrorKind::Torn {
                have: got as u64,
                need: SCORED_BYTES as u64,
            }));
        }
        let mut idb = [0u8; ID_BYTES];
        idb.copy_from_slice(&b[..ID_BYTES]);
        let id = match PositionId::from_bytes(&idb) {
            Ok(id) => id,
            Err(e) => return Err(self.fail(e.into())),
        };
        let (score, confidence) = (b[10], b[11]);
        if !(SCORE_MIN..=SCORE_MAX).contains(&score) {
            return Err(self.fail(ReadErrorKind::BadScore(score)));
        }
        if confidence > 100 {
            return Err(self.fail(ReadErrorKind::BadConfidence(confidence)));
        }
        self.record += 1;
        Ok(Some(ScoredPosition {
            id,
            score,
            confidence,
        }))
    }
}

impl<R: Read> Iterator for ScoredReader<R> {
    type Item = Result<ScoredPosition, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.read_record().transpose()
    }
}

/// All position records of an in-memory file.
pub fn read_positions(bytes: &[u8], size: BoardSize) -> Result<Vec<PositionRecord>, ReadError> {
    PositionReader::new(bytes, size).collect()
}

/// All scored records of an in-memory file.
pub fn read_scored(bytes: &[u8]) -> Result<Vec<ScoredPosition>, ReadError> {
    ScoredReader::new(bytes).collect()
}

/// Writes position records. Wrap files in a [`std::io::BufWriter`]; each record is written with
/// one `write_all`, so with an unbuffered append-mode file a crash never leaves half a record
/// from a short write that was reported as done.
#[derive(Debug)]
pub struct PositionWriter<W> {
    inner: W,
    buf: Vec<u8>,
}

impl<W: Write> PositionWriter<W> {
    /// A writer into `inner`.
    pub fn new(inner: W) -> PositionWriter<W> {
        PositionWriter {
            inner,
            buf: Vec::new(),
        }
    }

    /// Writes one record.
    pub fn write(&mut self, rec: &PositionRecord) -> io::Result<()> {
        self.buf.clear();
        rec.encode_into(&mut self.buf);
        self.inner.write_all(&self.buf)
    }

    /// Flushes the underlying writer.
    pub fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }

    /// The underlying writer (not flushed).
    pub fn into_inner(self) -> W {
        self.inner
    }
}

/// Writes scored records (12 bytes each, one `write_all` per record).
#[derive(Debug)]
pub struct ScoredWriter<W> {
    inner: W,
}

impl<W: Write> ScoredWriter<W> {
    /// A writer into `inner`.
    pub fn new(inner: W) -> ScoredWriter<W> {
        ScoredWriter { inner }
    }

    /// Writes one record.
    pub fn write(&mut self, s: &ScoredPosition) -> io::Result<()> {
        self.inner.write_all(&s.to_bytes())
    }

    /// Flushes the underlying writer.
    pub fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }

    /// The underlying writer (not flushed).
    pub fn into_inner(self) -> W {
        self.inner
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kifu_go::Color;

    fn rec(hash: u64, extra: bool) -> PositionRecord {
        let mut rows = vec![b'.'; 81];
        rows[(hash % 81) as usize] = b'#';
        rows[((hash / 81) % 81) as usize] = b'O';
        PositionRecord {
            id: PositionId {
                hash,
                tiebreak: 0,
                to_play: if hash.is_multiple_of(2) {
                    Color::Black
                } else {
                    Color::White
                },
            },
            board: Board::from_rows(&rows, Some(BoardSize::NINE)).unwrap(),
            extra: extra.then_some(ExtraInfo {
                file_id: hash as u32 + 1,
                variation: 3,
                move_number: 40,
            }),
        }
    }

    #[test]
    fn mixed_position_file_round_trip_and_sizes() {
        let recs = vec![rec(5, false), rec(100, true), rec(7, false), rec(300, true)];
        let mut w = PositionWriter::new(Vec::new());
        for r in &recs {
            w.write(r).unwrap();
        }
        let bytes = w.into_inner();
        assert_eq!(bytes.len(), 92 + 100 + 92 + 100);
        // Spec layout: hash, tiebreaker, side, 81 points, flag, extra.
        assert_eq!(&bytes[..8], &5u64.to_be_bytes());
        assert_eq!(bytes[8], 0);
        assert_eq!(bytes[9], b'W');
        assert_eq!(bytes[91], 0);
        assert_eq!(bytes[92 + 91], 1);
        assert_eq!(&bytes[92 + 92..92 + 96], &101u32.to_be_bytes());
        assert_eq!(read_positions(&bytes, BoardSize::NINE).unwrap(), recs);
    }

    #[test]
    fn torn_records_are_reported_where_they_start() {
        let recs = vec![rec(5, false), rec(100, true)];
        let mut bytes = Vec::new();
        for r in &recs {
            r.encode_into(&mut bytes);
        }
        for cut in [1usize, 50, 91, 92 + 1, 92 + 91, 92 + 92, 92 + 99] {
            let mut rd = PositionReader::new(&bytes[..cut], BoardSize::NINE);
            let err = loop {
                match rd.next() {
                    Some(Ok(_)) => {}
                    Some(Err(e)) => break e,
                    None => panic!("cut {cut}: no error"),
                }
            };
            assert!(err.is_torn(), "cut {cut}: {err}");
            let (record, offset) = if cut < 92 { (0, 0) } else { (1, 92) };
            assert_eq!((err.record, err.offset), (record, offset), "cut {cut}");
            assert!(rd.next().is_none());
        }
        let err = read_positions(&bytes[..92 + 50], BoardSize::NINE).unwrap_err();
        assert_eq!(
            err.to_string(),
            "record 1 (byte offset 92): torn record: the input ends after 50 of its 92 bytes"
        );
    }

    #[test]
    fn bad_bytes_are_reported() {
        let mut bytes = rec(4, false).to_bytes();
        bytes[9] = b'X';
        let e = read_positions(&bytes, BoardSize::NINE).unwrap_err();
        assert!(matches!(
            e.kind,
            ReadErrorKind::BadId(IdError::BadToPlay(b'X'))
        ));
        let mut bytes = rec(4, false).to_bytes();
        bytes[10 + 17] = b'x';
        let e = read_positions(&bytes, BoardSize::NINE).unwrap_err();
        assert!(matches!(
            e.kind,
            ReadErrorKind::BadPoint {
                point: 17,
                byte: b'x'
            }
        ));
        let mut bytes = rec(4, false).to_bytes();
        bytes[91] = 2;
        let e = read_positions(&bytes, BoardSize::NINE).unwrap_err();
        assert!(matches!(e.kind, ReadErrorKind::BadFlag(2)));
    }

    #[test]
    fn other_sizes() {
        let size = BoardSize::new(5).unwrap();
        let r = PositionRecord {
            id: PositionId {
                hash: u64::MAX,
                tiebreak: 255,
                to_play: Color::Black,
            },
            board: Board::from_rows(b"#O.......................", Some(size)).unwrap(),
            extra: None,
        };
        let bytes = r.to_bytes();
        assert_eq!(bytes.len(), 25 + 11);
        assert_eq!(read_positions(&bytes, size).unwrap(), vec![r]);
        // Read as 9x9 the same bytes are a torn record.
        assert!(read_positions(&bytes, BoardSize::NINE)
            .unwrap_err()
            .is_torn());
    }

    #[test]
    fn scored_round_trip_and_errors() {
        let s = ScoredPosition {
            id: PositionId {
                hash: 0xfedc_ba98_7654_3210,
                tiebreak: 1,
                to_play: Color::Black,
            },
            score: 6,
            confidence: 80,
        };
        let mut w = ScoredWriter::new(Vec::new());
        w.write(&s).unwrap();
        w.write(&s).unwrap();
        let bytes = w.into_inner();
        assert_eq!(bytes.len(), 24);
        assert_eq!(
            &bytes[..12],
            &[0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10, 1, b'B', 6, 80]
        );
        assert_eq!(read_scored(&bytes).unwrap(), vec![s, s]);
        let e = read_scored(&bytes[..20]).unwrap_err();
        assert!(e.is_torn());
        assert_eq!((e.record, e.offset), (1, 12));
        let mut bad = bytes.clone();
        bad[10] = 9;
        assert!(matches!(
            read_scored(&bad).unwrap_err().kind,
            ReadErrorKind::BadScore(9)
        ));
        let mut bad = bytes;
        bad[23] = 101;
        let e = read_scored(&bad).unwrap_err();
        assert!(matches!(e.kind, ReadErrorKind::BadConfidence(101)));
        assert_eq!((e.record, e.offset), (1, 12));
    }
}
