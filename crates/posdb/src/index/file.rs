//! An index file opened for reading: its header and trailer read and checked, and every read
//! at an offset checked against the file's checksums (format 4; files of formats 2 and 3
//! have none and are read as they are). The reader and the merge of parts both open files
//! here, so both refuse a damaged file alike.

use super::format::{BlockSums, Header, Trailer, HEADER_BYTES, TRAILER_BYTES};
use super::IndexError;
use std::fs::File;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// Reads exactly `buf.len()` bytes of `file` at `offset`, without touching the file's offset.
#[cfg(unix)]
fn positional_read(file: &File, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

/// Reads exactly `buf.len()` bytes of `file` at `offset` (Windows: `seek_read` per piece).
#[cfg(windows)]
fn positional_read(file: &File, mut offset: u64, mut buf: &mut [u8]) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, offset)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
        }
    }
    Ok(())
}

/// An opened index file.
#[derive(Debug)]
pub(super) struct IndexFile {
    /// The path it was opened by (named by errors of later reads).
    path: PathBuf,
    file: File,
    /// The file's length when opened.
    len: u64,
    /// The header, checked against the file's length.
    pub header: Header,
    /// The trailer, checked against the header and the file's length.
    pub trailer: Trailer,
    /// Format 4's checksums (their own checksum checked).
    sums: Option<BlockSums>,
}

impl IndexFile {
    /// Opens an index file: its header, its trailer and (format 4) its checksums, which the
    /// header's block is checked against at once.
    pub fn open(path: &Path) -> Result<IndexFile, IndexError> {
        // Looked at before opening: opening a FIFO for reading waits for a writer for ever.
        let meta = std::fs::metadata(path)?;
        if meta.is_dir() {
            return Err(IndexError::Format("it is a folder"));
        }
        if !meta.is_file() {
            return Err(IndexError::Io(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "not a regular file ({})",
                    kifu_fs::kind_name(&meta.file_type())
                ),
            )));
        }
        let file = File::open(path)?;
        let meta = file.metadata()?;
        let len = meta.len();
        let mut h = [0u8; HEADER_BYTES];
        positional_read(&file, 0, &mut h)
            .map_err(|_| IndexError::Format("shorter than the header"))?;
        let header = match Header::decode(&h, len) {
            Ok(h) => h,
            // A header that does not read may be a damaged one of format 4: its checksum,
            // found from the end of the file, names the block rather than a guess.
            Err(e) => return Err(IndexFile::damaged_header(path, &file, len).unwrap_or(e)),
        };
        // The header's check keeps the trailer inside the file, after the summaries.
        let mut tail = vec![0u8; header.trailer_bytes()];
        positional_read(&file, len - tail.len() as u64, &mut tail)?;
        let trailer = Trailer::decode(&tail)
            .filter(|t| t.dir_off >= header.summaries_off() && t.file_len() == Some(len));
        let Some(trailer) = trailer else {
            let torn = IndexError::Format("bad trailer (a torn file?)");
            return Err(IndexFile::damaged_header(path, &file, len).unwrap_or(torn));
        };
        let mut opened = IndexFile {
            path: path.to_path_buf(),
            file,
            len,
            header,
            trailer,
            sums: None,
        };
        if let Some((at, bytes)) = BlockSums::table_place(&trailer) {
            // The trailer's file length counts the table: it is inside the file.
            let table = opened.read_vec(at, bytes)?;
            let sums = BlockSums::new(&trailer, &table, &tail);
            opened.sums = Some(sums.map_err(|r| opened.damaged(r))?);
            let mut again = [0u8; HEADER_BYTES];
            opened.read_at(0, &mut again)?;
        } else if header.format == 4 {
            return Err(IndexError::Format("bad trailer (a torn file?)"));
        }
        Ok(opened)
    }

    /// The error of a file of format 4 whose first block (the header's) does not match its
    /// checksum, found from the trailer and the table of checksums alone; `None` when the
    /// file has no such trailer, or its first block matches.
    fn damaged_header(path: &Path, file: &File, len: u64) -> Option<IndexError> {
        let mut tail = vec![0u8; TRAILER_BYTES];
        positional_read(file, len.checked_sub(TRAILER_BYTES as u64)?, &mut tail).ok()?;
        let trailer = Trailer::decode(&tail).filter(|t| t.file_len() == Some(len))?;
        let (at, bytes) = BlockSums::table_place(&trailer)?;
        let mut table = vec![0u8; usize::try_from(bytes).ok()?];
        positional_read(file, at, &mut table).ok()?;
        let damaged = |r: Range<u64>| IndexError::Damaged {
            path: path.to_path_buf(),
            from: r.start,
            to: r.end,
        };
        let sums = match BlockSums::new(&trailer, &table, &tail) {
            Ok(s) => s,
            Err(r) => return Some(damaged(r)),
        };
        let (start, stop) = sums.span(0, 1)?;
        let mut first = vec![0u8; (stop - start) as usize];
        positional_read(file, start, &mut first).ok()?;
        sums.check(start, &first).err().map(damaged)
    }

    /// Reads `buf.len()` bytes at offset `at`, checking the blocks under them. Positional:
    /// the file is shared by threads (a server's requests), and a seek then a read on the
    /// one file offset would race.
    pub fn read_at(&self, at: u64, buf: &mut [u8]) -> Result<(), IndexError> {
        let past = || IndexError::Format("a section runs past the end of the file");
        if at
            .checked_add(buf.len() as u64)
            .is_none_or(|e| e > self.len)
        {
            return Err(past());
        }
        if buf.is_empty() {
            return Ok(());
        }
        let Some(sums) = &self.sums else {
            return positional_read(&self.file, at, buf).map_err(|_| past());
        };
        let (start, stop) = sums
            .span(at, buf.len() as u64)
            .ok_or(IndexError::Format("a section runs into the checksums"))?;
        let mut whole = vec![0u8; (stop - start) as usize];
        positional_read(&self.file, start, &mut whole).map_err(|_| past())?;
        sums.check(start, &whole).map_err(|r| self.damaged(r))?;
        let from = (at - start) as usize;
        buf.copy_from_slice(&whole[from..from + buf.len()]);
        Ok(())
    }

    /// The error of bytes that do not match their checksum.
    fn damaged(&self, bytes: Range<u64>) -> IndexError {
        IndexError::Damaged {
            path: self.path.clone(),
            from: bytes.start,
            to: bytes.end,
        }
    }

    /// Whether the file has checksums (format 4).
    pub fn has_checksums(&self) -> bool {
        self.sums.is_some()
    }

    /// Checks every block of the file against its checksum (nothing to check before format
    /// 4), a megabyte at a time: the first block that does not match is named.
    pub fn verify(&self) -> Result<(), IndexError> {
        const STEP: u64 = 1 << 20;
        let Some((covered, _)) = BlockSums::table_place(&self.trailer) else {
            return Ok(());
        };
        let mut buf = vec![0u8; STEP as usize];
        let mut at = 0;
        while at < covered {
            let n = (covered - at).min(STEP);
            self.read_at(at, &mut buf[..n as usize])?;
            at += n;
        }
        Ok(())
    }

    /// Reads `len` bytes at `at` into a new buffer (never more than the file holds).
    pub fn read_vec(&self, at: u64, len: u64) -> Result<Vec<u8>, IndexError> {
        if at.checked_add(len).is_none_or(|e| e > self.len) {
            return Err(IndexError::Format(
                "a section runs past the end of the file",
            ));
        }
        let mut buf = vec![0u8; len as usize];
        self.read_at(at, &mut buf)?;
        Ok(buf)
    }
}
