//! Where the games' cold parts are while an index is open, so that searching does not hold the
//! whole index in memory.
//!
//! A game's record is a hot part (information, signature, bitmaps: what filters, columns and
//! duplicates read for every game) and a cold part (final board, first and last nodes, nodes:
//! what only the walk of that game reads), at the end of the record. Opening a sidecar reads it
//! once, in windows of a few megabytes (the checksum and every node checked on a second
//! thread: [`super::window`]), and keeps the hot parts and each cold part's place in the
//! file. A search reads the cold parts of the
//! games it walks with positioned reads, [`GROUP`] consecutive games at a time, through a cache
//! of at most [`DEFAULT_CACHE_BYTES`] (or what [`super::PatternIndex::set_cache_limit`] says),
//! least recently used first out; when the cache cannot hold the whole file, a group of which
//! a search walks few games is not read whole, only those games' cold parts ([`WHOLE_FROM`]).
//! So memory is the hot parts (about 540 bytes a 19x19 game) and the stones' columns made of
//! them (90) plus a [`Budget`] shared by the cache and the levels' columns, whatever the
//! index's size; an index that fits in the cache is read from disk once.
//!
//! The file is read, never mapped: a map of a file another process truncates is a signal, not
//! an error. The sidecar is replaced by rename, never written in place, so the open file keeps
//! its bytes; a file changed in place anyway (its length or time differ from the opening's) is
//! reported as a failure of the search, and its games are not searched.

use super::entry::ColdView;
use super::format::{put_varint, Bytes, Checksum, FormatError};
use super::games::{ColdAt, Game, Games};
use super::window::{read_body, Window};
use super::{PatternIndex, PatternIndexError, MAGIC, VERSION};
use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use std::time::SystemTime;

/// Consecutive games whose cold parts are read and cached together (about 50 KB at 19x19).
pub(crate) const GROUP: usize = 32;

/// How many bytes of cold parts and levels an opened index keeps by default (the budget its
/// caches share): 512 MiB (100,000 19x19 games' cold parts are about 140 MB, their levels 54
/// MB; a million games' levels 541 MB, of which this lets 384 be made).
pub const DEFAULT_CACHE_BYTES: usize = 512 << 20;

/// Games of a group from which a search reads the group whole (and keeps it in the cache)
/// when the cache cannot hold every group and the group is not in it; a game of a group it
/// walks fewer of is read alone (and not kept). A group is 32 games' cold parts with the hot
/// parts between them (about 45 KB at 19x19): read whole for the one or two games a corner's
/// columns leave in most groups, a search of a million games (the file five times the default
/// cache) read most of the file each time. There the cut corners' and sides' medians went
/// from 142 and 57 ms to 38 and 35 (from 4, 8 or 33 games, never whole: 36-39 and 35-36 ms;
/// 16 took the least summed).
pub(crate) const WHOLE_FROM: usize = 16;
// A reader that reads every game of a group says so with `GROUP` wanted: the group whole.
const _: () = assert!(WHOLE_FROM <= GROUP);

/// The bytes a window of the sidecar holds at least while it is opened.
const WINDOW: usize = 8 << 20;

/// The length of the header: magic, format, fingerprint, body length.
const HEADER: usize = 28;

/// The memory an open index keeps for searching beyond its hot parts and stones' columns:
/// the cold parts' cache and the levels' columns ([`super::levels`]) share one limit
/// ([`DEFAULT_CACHE_BYTES`] unless [`super::PatternIndex::set_cache_limit`] says otherwise).
/// Levels may take up to three quarters of it, whole blocks of games at a time, and are kept
/// while the index is open (the blocks past them are searched without: slower, the same
/// answers); the cache holds what they leave.
#[derive(Debug)]
pub(crate) struct Budget {
    limit: AtomicUsize,
    /// Bytes of levels' columns made.
    levels: AtomicUsize,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            limit: AtomicUsize::new(DEFAULT_CACHE_BYTES),
            levels: AtomicUsize::new(0),
        }
    }
}

/// A clone has the same limit and nothing made yet (derived data is not cloned).
impl Clone for Budget {
    fn clone(&self) -> Self {
        Budget {
            limit: AtomicUsize::new(self.limit()),
            levels: AtomicUsize::new(0),
        }
    }
}

impl Budget {
    /// The limit, in bytes.
    pub(crate) fn limit(&self) -> usize {
        self.limit.load(Ordering::Relaxed)
    }

    /// Sets the limit (levels already made stay).
    pub(crate) fn set_limit(&self, bytes: usize) {
        self.limit.store(bytes, Ordering::Relaxed);
    }

    /// Takes room for levels: up to `want` bytes, in whole `unit`s, within three quarters of
    /// the limit less the levels made before (at a million games, levels of 384 MB and a
    /// cache of 128 MB searched the cut corners and sides faster than half of each). Returns
    /// the bytes granted, counted as made.
    pub(crate) fn take_levels(&self, want: usize, unit: usize) -> usize {
        let unit = unit.max(1);
        let mut granted = 0;
        let _ = self
            .levels
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |held| {
                let room = (self.limit() / 4 * 3).saturating_sub(held);
                granted = want.min(room / unit * unit);
                Some(held + granted)
            });
        granted
    }

    /// The bytes of levels made.
    pub(crate) fn levels(&self) -> usize {
        self.levels.load(Ordering::Relaxed)
    }

    /// What the cold parts' cache may hold: the limit less the levels made.
    pub(crate) fn cache_room(&self) -> usize {
        self.limit().saturating_sub(self.levels())
    }
}

/// A sidecar opened for searching.
pub(crate) struct Sidecar {
    file: File,
    path: PathBuf,
    stamp: Stamp,
    cache: Cache,
    /// Why its cold parts can no longer be read (set once, reported with every search).
    broken: OnceLock<String>,
    /// Games read alone, not with their group (for the tests).
    #[cfg(test)]
    alone: AtomicUsize,
}

impl std::fmt::Debug for Sidecar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sidecar").field("path", &self.path).finish()
    }
}

/// What tells a file changed in place.
#[derive(Debug, Clone, PartialEq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
}

impl Stamp {
    fn of(file: &File) -> std::io::Result<Stamp> {
        let m = file.metadata()?;
        Ok(Stamp {
            len: m.len(),
            modified: m.modified().ok(),
        })
    }
}

/// Cold parts of groups of games: a slot per group, so a hit takes no lock but its slot's;
/// when more than `limit` bytes are kept, the groups the fewest recent searches used go first.
struct Cache {
    limit: AtomicUsize,
    used: AtomicUsize,
    /// The number of the current search (each slot remembers the last that used it).
    epoch: AtomicU64,
    slots: Vec<Slot>,
    /// Held while groups are dropped.
    evicting: Mutex<()>,
}

#[derive(Default)]
struct Slot {
    group: RwLock<Option<Arc<Group>>>,
    used: AtomicU64,
}

/// The bytes of a group's cold parts, read at `base` of the file.
struct Group {
    base: u64,
    bytes: Vec<u8>,
}

impl Cache {
    fn new(groups: usize, limit: usize) -> Cache {
        Cache {
            limit: AtomicUsize::new(limit),
            used: AtomicUsize::new(0),
            epoch: AtomicU64::new(0),
            slots: (0..groups).map(|_| Slot::default()).collect(),
            evicting: Mutex::new(()),
        }
    }

    fn get(&self, key: usize) -> Option<Arc<Group>> {
        let slot = self.slots.get(key)?;
        let group = slot
            .group
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()?;
        slot.used
            .store(self.epoch.load(Ordering::Relaxed), Ordering::Relaxed);
        Some(group)
    }

    fn put(&self, key: usize, group: &Arc<Group>) {
        let len = group.bytes.len();
        let Some(slot) = self.slots.get(key) else {
            return;
        };
        if len > self.limit.load(Ordering::Relaxed) {
            return;
        }
        {
            let mut g = slot.group.write().unwrap_or_else(|e| e.into_inner());
            if g.is_some() {
                return;
            }
            *g = Some(group.clone());
            self.used.fetch_add(len, Ordering::Relaxed);
        }
        slot.used
            .store(self.epoch.load(Ordering::Relaxed), Ordering::Relaxed);
        let limit = self.limit.load(Ordering::Relaxed);
        if self.used.load(Ordering::Relaxed) > limit {
            // Down to seven eighths, so that the scan of the slots is not paid per group.
            self.shrink(limit - limit / 8);
        }
    }

    /// Drops the least recently used groups until at most `to` bytes are kept.
    fn shrink(&self, to: usize) {
        let _guard = self.evicting.lock().unwrap_or_else(|e| e.into_inner());
        let mut kept: Vec<(u64, usize)> = self
            .slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.group.read().is_ok_and(|g| g.is_some()))
            .map(|(i, s)| (s.used.load(Ordering::Relaxed), i))
            .collect();
        kept.sort_unstable();
        for (_, i) in kept {
            if self.used.load(Ordering::Relaxed) <= to {
                break;
            }
            let taken = self.slots[i]
                .group
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .take();
            if let Some(g) = taken {
                self.used.fetch_sub(g.bytes.len(), Ordering::Relaxed);
            }
        }
    }
}

impl Sidecar {
    /// Why the cold parts could not be read during a search, if they could not.
    pub(crate) fn broken(&self) -> Option<(&Path, &str)> {
        self.broken
            .get()
            .map(|why| (self.path.as_path(), why.as_str()))
    }

    /// Keeps at most `bytes` of cold parts from now on.
    pub(crate) fn set_limit(&self, bytes: usize) {
        self.cache.limit.store(bytes, Ordering::Relaxed);
        self.cache.shrink(bytes);
    }

    /// A search begins: the groups it reads are its epoch's.
    pub(crate) fn next_search(&self) {
        self.cache.epoch.fetch_add(1, Ordering::Relaxed);
    }

    /// Whether every group fits in the cache at once (the whole file does), so that a group
    /// read is kept for the searches after.
    fn fits(&self) -> bool {
        self.stamp.len <= self.cache.limit.load(Ordering::Relaxed) as u64
    }

    /// The cold parts of `games` (a group), from the cache or the file (kept in the cache
    /// when `keep`); `None` when the group is not in the cache, the cache cannot hold every
    /// group, and fewer than [`WHOLE_FROM`] of its games are `wanted`: the caller reads its
    /// game alone ([`Sidecar::read`]).
    fn group<'g>(
        &self,
        key: usize,
        games: impl DoubleEndedIterator<Item = Game<'g>>,
        keep: bool,
        wanted: usize,
    ) -> Result<Option<Arc<Group>>, String> {
        if keep {
            if let Some(g) = self.cache.get(key) {
                return Ok(Some(g));
            }
            if wanted < WHOLE_FROM && !self.fits() {
                return Ok(None);
            }
        }
        let mut spans = games.filter_map(|g| match g.cold() {
            ColdAt::File { offset, len } => Some((offset, u64::from(len))),
            ColdAt::Here(_) => None,
        });
        let Some((base, first)) = spans.next() else {
            return Err("no game of the group is in the file".into());
        };
        let end = spans.next_back().map_or(base + first, |(o, l)| o + l);
        let mut bytes = Vec::new();
        self.read(&mut bytes, base, end - base)?;
        let group = Arc::new(Group { base, bytes });
        if keep {
            self.cache.put(key, &group);
        }
        Ok(Some(group))
    }

    /// Reads the `len` bytes at `base` into `buf` (which holds only them then), once the
    /// file is known unchanged since the opening; a failure leaves the sidecar unreadable
    /// from then on.
    fn read(&self, buf: &mut Vec<u8>, base: u64, len: u64) -> Result<(), String> {
        if self.broken.get().is_some() {
            return Err("unreadable".into());
        }
        let fail = |why: String| {
            let why = format!("{why}; games were left out of the search: open it again");
            self.broken.get_or_init(|| why).clone()
        };
        match Stamp::of(&self.file) {
            Ok(now) if now == self.stamp => {}
            Ok(_) => return Err(fail("changed since it was opened".into())),
            Err(e) => return Err(fail(e.to_string())),
        }
        let len = usize::try_from(len).map_err(|e| fail(e.to_string()))?;
        buf.clear();
        buf.resize(len, 0);
        self.file
            .read_exact_at(buf, base)
            .map_err(|e| fail(e.to_string()))
    }
}

/// Reads games' cold parts, keeping the last group read (games are read in ascending order).
pub(crate) struct ColdReader<'a> {
    games: &'a Games,
    sidecar: Option<&'a Sidecar>,
    keep: bool,
    group: Option<(usize, Arc<Group>)>,
    /// The last game read alone (not its group).
    single: Vec<u8>,
}

impl<'a> ColdReader<'a> {
    /// A reader of `index`'s cold parts; `keep`: groups read from the file go to the cache.
    pub(crate) fn new(index: &'a PatternIndex, keep: bool) -> ColdReader<'a> {
        ColdReader {
            games: &index.games,
            sidecar: index.sidecar.as_deref(),
            keep,
            group: None,
            single: Vec::new(),
        }
    }

    /// The cold bytes of game `gi`.
    pub(crate) fn bytes(&mut self, gi: usize) -> Result<&[u8], String> {
        self.bytes_of(gi, GROUP)
    }

    /// [`ColdReader::bytes`] of game `gi`, `wanted` of whose group's games (it and those
    /// after it) the reader is to read: see [`WHOLE_FROM`].
    fn bytes_of(&mut self, gi: usize, wanted: usize) -> Result<&[u8], String> {
        let g = self.games.get(gi).ok_or("no such game")?;
        let (offset, len) = match g.cold() {
            ColdAt::Here(b) => return Ok(b),
            ColdAt::File { offset, len } => (offset, len as usize),
        };
        let key = gi / GROUP;
        if self.group.as_ref().is_none_or(|(k, _)| *k != key) {
            let sidecar = self.sidecar.ok_or("the index has no file")?;
            let lo = gi - gi % GROUP;
            let hi = (lo + GROUP).min(self.games.len());
            match sidecar.group(key, self.games.range(lo..hi), self.keep, wanted)? {
                Some(group) => self.group = Some((key, group)),
                None => {
                    #[cfg(test)]
                    sidecar.alone.fetch_add(1, Ordering::Relaxed);
                    sidecar.read(&mut self.single, offset, len as u64)?;
                    return Ok(&self.single);
                }
            }
        }
        let Some((_, group)) = &self.group else {
            return Err("no group read".into());
        };
        usize::try_from(offset - group.base)
            .ok()
            .and_then(|at| group.bytes.get(at..at + len))
            .ok_or_else(|| "a record outside its group".into())
    }

    /// Asks the processor to start loading game `gi`'s final board and first and last nodes
    /// (what the prune reads first, and mostly waits for) if its group is the one read last;
    /// a hint only: nothing is read or checked.
    pub(crate) fn prefetch(&self, gi: usize) {
        let (Some(g), Some((key, group))) = (self.games.get(gi), &self.group) else {
            return;
        };
        let (ColdAt::File { offset, len }, true) = (g.cold(), *key == gi / GROUP) else {
            return;
        };
        let start = usize::try_from(offset - group.base).unwrap_or(usize::MAX);
        let Some(bytes) = group.bytes.get(start..start.saturating_add(len as usize)) else {
            return;
        };
        // The final board, the first stones and the directory of the last changes.
        let n = usize::from(g.side);
        let wanted = (8 * n + n * n + 10 * (n * n).div_ceil(64)).min(bytes.len());
        for line in bytes[..wanted].chunks(64) {
            prefetch(line);
        }
    }

    /// Game `gi`'s cold part, read.
    pub(crate) fn view(&mut self, gi: usize) -> Result<ColdView<'_>, String> {
        self.view_of(gi, GROUP)
    }

    /// [`ColdReader::view`] of game `gi`, `wanted` of whose group's games (it and those after
    /// it) the reader is to read: see [`WHOLE_FROM`].
    pub(crate) fn view_of(&mut self, gi: usize, wanted: usize) -> Result<ColdView<'_>, String> {
        let (side, times, shift) = match self.games.get(gi) {
            Some(g) => (g.side, g.times, g.shift),
            None => return Err("no such game".into()),
        };
        let bytes = self.bytes_of(gi, wanted)?;
        ColdView::split(bytes, side, times, shift).map_err(|e| e.to_string())
    }
}

/// Opens the sidecar at `path` for searching: `Ok(None)` if there is none, or it is for another
/// database or an older format.
pub(crate) fn open(
    path: &Path,
    fingerprint: u64,
) -> Result<Option<PatternIndex>, PatternIndexError> {
    open_windowed(path, fingerprint, WINDOW)
}

/// [`open`], reading `window` bytes at a time.
fn open_windowed(
    path: &Path,
    fingerprint: u64,
    window: usize,
) -> Result<Option<PatternIndex>, PatternIndexError> {
    let io = |source| PatternIndexError::Io {
        path: path.to_path_buf(),
        source,
    };
    let damaged = |why: String| PatternIndexError::Damaged {
        path: path.to_path_buf(),
        why,
    };
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(e)),
    };
    let stamp = Stamp::of(&file).map_err(io)?;
    let mut head = vec![0u8; HEADER.min(usize::try_from(stamp.len).unwrap_or(HEADER))];
    file.read_exact_at(&mut head, 0).map_err(io)?;
    let body_len = match header(&head, fingerprint).map_err(damaged)? {
        Some(len) => len,
        None => return Ok(None),
    };
    let end = (HEADER as u64).saturating_add(body_len);
    match stamp.len.checked_sub(end) {
        Some(8) => {}
        Some(0..8) | None => return Err(damaged("truncated".into())),
        Some(_) => return Err(damaged("bytes after the checksum".into())),
    }
    let body = |w: &mut Window<'_>| -> Result<_, String> {
        let nfiles = w.parse(|b, _| b.varint_u32())?;
        let mut files = super::names::Names::default();
        for _ in 0..nfiles {
            files.push(&w.parse(|b, _| b.string())?);
        }
        let ngames = w.parse(|b, _| b.varint())?;
        // (A damaged count is not trusted with the room it asks for: a record is at least
        // a dozen bytes.)
        let room = usize::try_from(ngames.min(body_len / 12)).unwrap_or(0);
        let mut games = Games::with_capacity(room);
        for _ in 0..ngames {
            w.parse(|b, base| games.decode(b, nfiles, Some(base)))?;
            w.parsed(games.at(games.len() - 1));
        }
        games.seal();
        Ok((files, games))
    };
    let ((files, games), checked) =
        read_body(&file, HEADER as u64, end, window, body).map_err(damaged)?;
    let mut sum = [0u8; 8];
    file.read_exact_at(&mut sum, end).map_err(io)?;
    if u64::from_le_bytes(sum) != checked.hash {
        return Err(damaged("checksum mismatch".into()));
    }
    if let Some(why) = checked.problem {
        return Err(damaged(why));
    }
    let sidecar = Sidecar {
        file,
        path: path.to_path_buf(),
        stamp,
        cache: Cache::new(games.len().div_ceil(GROUP), DEFAULT_CACHE_BYTES),
        broken: OnceLock::new(),
        #[cfg(test)]
        alone: AtomicUsize::new(0),
    };
    Ok(Some(PatternIndex {
        files,
        games,
        sidecar: Some(Arc::new(sidecar)),
        ..PatternIndex::default()
    }))
}

/// Reads a sidecar's header: the body's length, `None` for another database or an older
/// format.
pub(crate) fn header(head: &[u8], fingerprint: u64) -> Result<Option<u64>, String> {
    let mut b = Bytes::new(head);
    let err = |e: FormatError| e.to_string();
    if b.take(8).map_err(err)? != MAGIC {
        return Err("not a pattern index".into());
    }
    match b.u32_le().map_err(err)? {
        VERSION => {}
        // An older kifu's sidecar is rebuilt; a newer one's is not this kifu's to replace.
        v if v < VERSION => return Ok(None),
        v => return Err(format!("format {v}, newer than this kifu's {VERSION}")),
    }
    if b.u64_le().map_err(err)? != fingerprint {
        return Ok(None);
    }
    Ok(Some(b.u64_le().map_err(err)?))
}

/// Writes `index` as a sidecar for a database of `fingerprint` (its cold parts read from its
/// file as they are written, not through the cache).
pub(crate) fn write(
    index: &PatternIndex,
    fingerprint: u64,
    out: &mut dyn Write,
) -> Result<(), String> {
    let mut record = Vec::new();
    let mut len = 0u64;
    for g in index.games.iter() {
        record.clear();
        g.encode_hot(&mut record);
        len += record.len() as u64
            + match g.cold() {
                ColdAt::Here(b) => b.len() as u64,
                ColdAt::File { len, .. } => u64::from(len),
            };
    }
    let e = |e: std::io::Error| e.to_string();
    let head = (index.files.iter().map(Ok), index.games.len() as u64);
    let mut hash = write_head(out, fingerprint, head, len).map_err(e)?;
    let mut cold = ColdReader::new(index, false);
    for (gi, g) in index.games.iter().enumerate() {
        record.clear();
        g.encode_record(cold.bytes(gi)?, &mut record);
        hash.add(&record);
        out.write_all(&record).map_err(e)?;
    }
    out.write_all(&hash.value().to_le_bytes()).map_err(e)?;
    Ok(())
}

/// The bytes of `v` as [`put_varint`] writes it.
fn varint_len(v: u64) -> u64 {
    u64::from((64 - v.leading_zeros()).max(1).div_ceil(7))
}

/// Writes the header of a body whose first bytes (its head) are the file names `files` and
/// the game count `games`, followed by `records` bytes of game records; then the head;
/// returns the body's checksum so far. The head is streamed: its length is counted from
/// the names first, so they are not gathered (about 100 MB at a million files, at the end
/// of `kifu pos index`); a name that cannot be read (from a [`super::names::NameSpool`])
/// fails it.
pub(crate) fn write_head<S: AsRef<str>>(
    out: &mut dyn Write,
    fingerprint: u64,
    (files, games): (
        impl ExactSizeIterator<Item = std::io::Result<S>> + Clone,
        u64,
    ),
    records: u64,
) -> std::io::Result<Checksum> {
    let names: u64 = files
        .clone()
        .map(|f| {
            let len = f?.as_ref().len() as u64;
            Ok(varint_len(len) + len)
        })
        .sum::<std::io::Result<u64>>()?;
    let head = varint_len(files.len() as u64) + names + varint_len(games);
    out.write_all(MAGIC)?;
    out.write_all(&VERSION.to_le_bytes())?;
    out.write_all(&fingerprint.to_le_bytes())?;
    out.write_all(&(head + records).to_le_bytes())?;
    let mut sum = Checksum::default();
    let mut buf = Vec::with_capacity(1 << 16);
    let mut written = 0u64;
    let mut emit = |buf: &mut Vec<u8>, out: &mut dyn Write| {
        sum.add(buf);
        written += buf.len() as u64;
        let r = out.write_all(buf);
        buf.clear();
        r
    };
    put_varint(&mut buf, files.len() as u64);
    for f in files {
        let f = f?;
        let f = f.as_ref();
        put_varint(&mut buf, f.len() as u64);
        buf.extend_from_slice(f.as_bytes());
        if buf.len() >= 1 << 16 {
            emit(&mut buf, out)?;
        }
    }
    put_varint(&mut buf, games);
    emit(&mut buf, out)?;
    // The names are read twice: an iterator that gave other names the second time would
    // make a body whose length is wrong, which no reader must be handed.
    if written != head {
        return Err(std::io::Error::other(
            "the files' names changed while the head was written",
        ));
    }
    Ok(sum)
}

/// A hint to load the cache line of `bytes` into the processor's caches.
#[inline]
#[allow(unsafe_code)]
fn prefetch(bytes: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` needs the `sse` target feature, which every x86_64 processor
    // has (it is in the x86_64 baseline, so `target_feature = "sse"` always holds there);
    // PREFETCHh is a hint with no architectural effect that never faults, whatever the
    // address, and here the address is in a live slice anyway.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            bytes.as_ptr().cast::<i8>(),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = bytes;
}

#[cfg(test)]
mod tests;
