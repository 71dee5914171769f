//! Reading a sidecar's body once, at opening: in windows of a few megabytes, the hot parts
//! parsed on the caller's thread while a second thread hashes every byte for the checksum and
//! checks every game's cold part (its layout and each node, as a search reads them). The
//! hashing and the check go over the whole body, and one after the other with the parse they
//! were most of an opening's time (18 s for a million 19x19 games, 10 s of them the sidecar).
//! At most two windows wait for the checker, so memory stays a few windows.

use super::entry::{check_cold, CheckScratch};
use super::format::{Bytes, Checksum, FormatError};
use super::games::{ColdAt, Game};
use rayon::prelude::*;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

/// A game parsed from a window, as its check needs it.
struct Pending {
    id: u64,
    side: u8,
    /// Whether it has time tables, and their shift.
    times: (bool, u8),
    /// Where its cold part is in the file (`None`: not in the file, which a parsed game's
    /// always is).
    cold: Option<(u64, u32)>,
}

/// A window handed to the checker once parsed.
struct Chunk {
    /// The file's offset of `bytes[0]`.
    base: u64,
    bytes: Vec<u8>,
    /// The games parsed from it.
    games: Vec<Pending>,
}

/// What the checker found: the hash of the whole body, and the first damaged game (in the
/// order of the file) with what is wrong with it.
pub(super) struct Checked {
    pub hash: u64,
    pub problem: Option<String>,
}

/// The body of a sidecar, from the header's end to `end`, read in windows.
pub(super) struct Window<'f> {
    file: &'f File,
    /// How many bytes to read at least.
    size: usize,
    /// The file's offset of `buf[0]`.
    base: u64,
    /// Bytes of `buf` already parsed.
    start: usize,
    buf: Vec<u8>,
    /// The file's offset of the body's end.
    end: u64,
    /// Games parsed from `buf`, to be checked with it.
    pending: Vec<Pending>,
    tx: SyncSender<Chunk>,
    /// Windows the checker is done with, to be read into again (a new one each time left
    /// tens of megabytes with the allocator).
    back: Receiver<Vec<u8>>,
}

/// Reads the body of `file` from `start` to `end`, `size` bytes at a time at least, through
/// `parse` (which reads values with [`Window::parse`] and names the games it parsed with
/// [`Window::parsed`]); gives what `parse` gives and what the checker found. A parse error is
/// returned as it is, after the checker has stopped.
pub(super) fn read_body<T>(
    file: &File,
    start: u64,
    end: u64,
    size: usize,
    parse: impl FnOnce(&mut Window<'_>) -> Result<T, String>,
) -> Result<(T, Checked), String> {
    let (tx, rx) = sync_channel(1);
    let (give_back, back) = sync_channel(2);
    std::thread::scope(|s| {
        let checker = s.spawn(move || check_chunks(rx, give_back, start));
        let mut w = Window {
            file,
            size: size.max(1),
            base: start,
            start: 0,
            buf: Vec::new(),
            end,
            pending: Vec::new(),
            tx,
            back,
        };
        let parsed = parse(&mut w).and_then(|t| {
            if w.start < w.buf.len() || w.more() {
                Err("bytes after the last game".to_string())
            } else {
                Ok(t)
            }
        });
        let Window {
            base,
            buf,
            pending,
            tx,
            ..
        } = w;
        // A checker that has stopped cannot: it reads until every sender is gone.
        let _ = tx.send(Chunk {
            base,
            bytes: buf,
            games: pending,
        });
        drop(tx);
        let checked = match checker.join() {
            Ok(c) => c,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        parsed.map(|t| (t, checked))
    })
}

impl Window<'_> {
    fn more(&self) -> bool {
        self.base + (self.buf.len() as u64) < self.end
    }

    /// Hands the window to the checker and reads the next one: what was not parsed yet, then
    /// at least as many bytes more (so a record larger than the window fits after a few
    /// reads).
    fn fill(&mut self) -> Result<(), String> {
        let next = self.base + self.buf.len() as u64;
        let tail = self.buf.len() - self.start;
        let n =
            usize::try_from((self.size.max(tail) as u64).min(self.end - next)).unwrap_or(self.size);
        // A window given back keeps its bytes: the copy and the read overwrite them, so only
        // what it lacks is zeroed (zeroing every window was 8 MB of memset each).
        let mut buf = self.back.try_recv().unwrap_or_default();
        buf.resize(tail + n, 0);
        buf[..tail].copy_from_slice(&self.buf[self.start..]);
        self.file
            .read_exact_at(&mut buf[tail..], next)
            .map_err(|e| e.to_string())?;
        let chunk = Chunk {
            base: self.base,
            bytes: std::mem::replace(&mut self.buf, buf),
            games: std::mem::take(&mut self.pending),
        };
        // The checker reads until every sender is gone, so this only fails if it panicked,
        // which `read_body` passes on.
        let _ = self.tx.send(chunk);
        self.base += self.start as u64;
        self.start = 0;
        Ok(())
    }

    /// Parses one value with `f` (given the bytes and the file's offset of their start),
    /// reading more of the file while it is cut by the window.
    pub(super) fn parse<T>(
        &mut self,
        mut f: impl FnMut(&mut Bytes<'_>, u64) -> Result<T, FormatError>,
    ) -> Result<T, String> {
        loop {
            let mut b = Bytes::new(&self.buf[self.start..]);
            match f(&mut b, self.base + self.start as u64) {
                Ok(v) => {
                    self.start += b.position();
                    return Ok(v);
                }
                Err(FormatError::Truncated) if self.more() => self.fill()?,
                Err(e) => return Err(e.to_string()),
            }
        }
    }

    /// Says that `g` was just parsed, so that its cold part (in the window) is checked.
    pub(super) fn parsed(&mut self, g: Game<'_>) {
        self.pending.push(Pending {
            id: g.id,
            side: g.side,
            times: (g.times, g.shift),
            cold: match g.cold() {
                ColdAt::File { offset, len } => Some((offset, len)),
                ColdAt::Here(_) => None,
            },
        });
    }
}

/// The checker: hashes each window's bytes not hashed yet (windows overlap by what was not
/// parsed) and checks its games until one is damaged.
fn check_chunks(rx: Receiver<Chunk>, give_back: SyncSender<Vec<u8>>, start: u64) -> Checked {
    let mut problem = None;
    let mut sum = Checksum::default();
    let mut hashed = start;
    for c in rx {
        let end = c.base + c.bytes.len() as u64;
        if let Some(new) = hashed
            .checked_sub(c.base)
            .and_then(|from| c.bytes.get(usize::try_from(from).ok()?..))
        {
            sum.add(new);
            hashed = hashed.max(end);
        }
        if problem.is_none() {
            problem = first_damaged(&c);
        }
        // Dropped when two wait already, or when the reading is over.
        let _ = give_back.try_send(c.bytes);
    }
    Checked {
        hash: sum.value(),
        problem,
    }
}

/// The first damaged game of a window, with what is wrong.
fn first_damaged(c: &Chunk) -> Option<String> {
    c.games
        .par_iter()
        .map_init(CheckScratch::default, |scratch, g| {
            let bytes = g.cold.and_then(|(offset, len)| {
                let at = usize::try_from(offset.checked_sub(c.base)?).ok()?;
                c.bytes.get(at..at.checked_add(len as usize)?)
            });
            let checked = match bytes {
                Some(bytes) => check_cold(bytes, g.side, g.times, scratch),
                None => Err(FormatError::Truncated),
            };
            checked.err().map(|e| format!("game {}: {e}", g.id))
        })
        .find_map_first(|found| found)
}
