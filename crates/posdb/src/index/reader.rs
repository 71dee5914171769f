//! Reading an index: [`IndexReader`] opens and checks a file, [`IndexReader::lookup`] searches.

use super::answer::{code_to_move, representative, stabilizer, ContinuationSums};
use super::answer::{LookupPage, LookupResult, Occurrence};
use super::file::IndexFile;
use super::format::{
    DirRecord, Entry, FileRecord, GameRecord, GameSet, GameStrings, Key, StrRef, SummaryHead,
    CONT_BYTES, DIR_BYTES, ENTRY_BYTES, FILE_BYTES, GAME_BYTES, NEXT_NONE, NEXT_PASS,
    SUMMARY_HEAD_BYTES,
};
use super::hash::SecondHash;
use super::summary::Summary;
use super::{GameInfo, IndexError, Winner};
use kifu_go::{Board, BoardSize, Color, Point, Symmetry, ZobristKeys, ZobristTable};
use std::path::Path;
use std::sync::Arc;

/// One key searched: the query's key, the symmetry from the query board to the canonical one,
/// whether it is the colour-swapped board.
struct Query {
    key: Key,
    qsym: Symmetry,
    swapped: bool,
}

/// The distinct games of a key: read from its entries, or in a summary (read at the offset) and
/// loaded only when needed.
enum KeyGames {
    Read(GameSet),
    Stored(Summary, u64),
}

/// An opened index.
#[derive(Debug)]
pub struct IndexReader {
    file: IndexFile,
    size: BoardSize,
    keys: Arc<ZobristKeys>,
    second: SecondHash,
}

impl IndexReader {
    /// Opens an index file and checks its header and trailer (and in format 4 its
    /// checksums' own checksum; the blocks are checked as they are read).
    pub fn open(path: &Path) -> Result<IndexReader, IndexError> {
        let file = IndexFile::open(path)?;
        let header = file.header;
        let z = file.read_vec(header.zobrist_off, header.zobrist_len)?;
        let size = header.size;
        let table = ZobristTable::parse(&z).map_err(|_| IndexError::Format("bad Zobrist table"))?;
        if table.size() != size {
            return Err(IndexError::Format("Zobrist table of another size"));
        }
        let keys = if table == *ZobristKeys::default_for(size).table() {
            ZobristKeys::default_for(size)
        } else {
            Arc::new(ZobristKeys::new(table))
        };
        Ok(IndexReader {
            file,
            size,
            keys,
            second: SecondHash::new(size),
        })
    }

    /// The file's format: 4 (what kifu writes), or 2 or 3 (written by an older kifu: no
    /// checksums).
    pub fn format(&self) -> u8 {
        self.file.header.format
    }

    /// Whether the file has checksums (format 4; files written by an older kifu have none).
    /// Every read checks the blocks it reads, so a damaged file is refused where it is read
    /// ([`IndexError::Damaged`]).
    pub fn has_checksums(&self) -> bool {
        self.file.has_checksums()
    }

    /// The check of the whole file (format 4: its trailer's, a checksum of the checksums of
    /// every block, so any other content has another); `None` before format 4. A sharded
    /// build's manifest keeps it, so a merge knows the part's file is the one it describes.
    pub fn content_check(&self) -> Option<u64> {
        self.file.trailer.sums.map(|s| s.check)
    }

    /// Reads the whole file and checks every block against its checksum (for a file of
    /// format 4; an older file passes, having nothing to check).
    pub fn verify(&self) -> Result<(), IndexError> {
        self.file.verify()
    }

    /// Whether variations were indexed (else main lines only).
    pub fn variations(&self) -> bool {
        self.file.header.variations
    }

    /// The board size.
    pub fn size(&self) -> BoardSize {
        self.size
    }

    /// The keys of the index (for PositionIds that match scored files).
    pub fn keys(&self) -> &Arc<ZobristKeys> {
        &self.keys
    }

    /// Number of games.
    pub fn games(&self) -> u64 {
        self.file.header.games
    }

    /// Number of entries (with [`IndexReader::most_stones`], fewer than the positions).
    pub fn entries(&self) -> u64 {
        self.file.header.entries
    }

    /// Number of positions indexed: the entries, and in an index cut by stones
    /// ([`IndexReader::most_stones`]) also the positions whose entries were not kept.
    pub fn positions(&self) -> u64 {
        self.file.header.positions
    }

    /// Entries are kept only for positions of at most this many stones (`None`: every
    /// position has its entries). Lookups of other boards are refused with
    /// [`IndexError::NotHeld`]; the pattern index answers them.
    pub fn most_stones(&self) -> Option<u16> {
        self.file.header.most_stones
    }

    /// Whether the entries answer lookups of `board` (its stones are few enough): a board
    /// and its colours swapped have the same stones, so both or neither.
    pub fn holds(&self, board: &Board) -> bool {
        self.file
            .header
            .most_stones
            .is_none_or(|most| board.stone_count() <= usize::from(most))
    }

    /// Reads `buf.len()` bytes at offset `at`. Positional: the reader is shared by threads (a
    /// server's requests), and a seek then a read on the one file offset would race.
    fn read_at(&self, at: u64, buf: &mut [u8]) -> Result<(), IndexError> {
        self.file.read_at(at, buf)
    }

    fn string(&self, r: StrRef) -> Result<String, IndexError> {
        let at = self
            .file
            .header
            .strings_off()
            .checked_add(r.off)
            .filter(|a| a.saturating_add(u64::from(r.len)) <= self.file.header.summaries_off())
            .ok_or(IndexError::Format("a string runs past the end of the file"))?;
        let mut b = vec![0u8; r.len as usize];
        self.read_at(at, &mut b)?;
        Ok(String::from_utf8_lossy(&b).into_owned())
    }

    /// The record of game `id`.
    fn game_record(&self, id: u32) -> Result<GameRecord, IndexError> {
        if u64::from(id) >= self.file.header.games {
            return Err(IndexError::Format("game number out of range"));
        }
        let mut b = [0u8; GAME_BYTES];
        self.read_at(self.file.header.game_off(id), &mut b)?;
        Ok(GameRecord::decode(&b))
    }

    /// The game numbered `id`.
    pub fn game(&self, id: u32) -> Result<GameInfo, IndexError> {
        let g = self.game_record(id)?;
        if u64::from(g.file) >= self.file.header.files {
            return Err(IndexError::Format("file number out of range"));
        }
        let strings = GameStrings::decode(&self.string(g.strings)?);
        let mut fb = [0u8; FILE_BYTES];
        self.read_at(self.file.header.file_off(g.file), &mut fb)?;
        let file = self.string(FileRecord::decode(&fb).path)?;
        Ok(GameInfo {
            id,
            file,
            game_in_file: g.game_in_file,
            moves: g.moves,
            black: strings.black,
            white: strings.white,
            date: strings.date,
            result: strings.result,
            winner: g.winner,
        })
    }

    /// Each game's file (its number, as [`IndexReader::file_path`] takes it) and place in that
    /// file (from 0), in the order of the games. The game table is read in large blocks and
    /// no strings are read: [`IndexReader::game`] for every game of a million took seconds.
    pub fn game_places(&self) -> Result<Vec<(u32, u32)>, IndexError> {
        // 2 MiB at a time.
        self.game_places_by(1 << 16)
    }

    /// [`IndexReader::game_places`], reading `block` records at a time.
    pub(super) fn game_places_by(&self, block: u64) -> Result<Vec<(u32, u32)>, IndexError> {
        let games = self.file.header.games;
        // The header was checked against the file's length, so this is what the file holds.
        let mut places = Vec::with_capacity(usize::try_from(games).unwrap_or(0));
        let mut buf = Vec::new();
        let mut first = 0u64;
        while first < games {
            let n = (games - first).min(block.max(1));
            buf.resize(n as usize * GAME_BYTES, 0);
            let at = self.file.header.games_off + first * GAME_BYTES as u64;
            self.read_at(at, &mut buf)?;
            for b in buf.as_chunks::<GAME_BYTES>().0 {
                let g = GameRecord::decode(b);
                if u64::from(g.file) >= self.file.header.files {
                    return Err(IndexError::Format("file number out of range"));
                }
                places.push((g.file, g.game_in_file));
            }
            first += n;
        }
        Ok(places)
    }

    /// The paths of all files, in file order: the file table read in blocks, the strings
    /// through a window of a megabyte (one read per file took seconds for a million).
    pub fn file_paths(&self) -> Result<Vec<String>, IndexError> {
        self.file_paths_by(1 << 16, 1 << 20)
    }

    /// [`IndexReader::file_paths`], reading `block` records and `window` bytes of strings at a
    /// time.
    pub(super) fn file_paths_by(
        &self,
        block: u64,
        window_bytes: u64,
    ) -> Result<Vec<String>, IndexError> {
        let mut paths = Vec::with_capacity(usize::try_from(self.file.header.files).unwrap_or(0));
        self.each_file_path_by(block, window_bytes, |_, path| {
            paths.push(path.to_owned());
            Ok(())
        })?;
        Ok(paths)
    }

    /// Calls `visit` with each file's number and path (its bytes read as UTF-8, lossily), in
    /// file order, as [`IndexReader::file_paths`] reads them, without holding them all: a
    /// million paths are about 130 MB as `String`s.
    pub fn each_file_path(
        &self,
        visit: impl FnMut(u32, &str) -> Result<(), IndexError>,
    ) -> Result<(), IndexError> {
        self.each_file_path_by(1 << 16, 1 << 20, visit)
    }

    /// [`IndexReader::each_file_path`], reading `block` records and `window` bytes of strings
    /// at a time.
    fn each_file_path_by(
        &self,
        block: u64,
        window_bytes: u64,
        mut visit: impl FnMut(u32, &str) -> Result<(), IndexError>,
    ) -> Result<(), IndexError> {
        let files = self.file.header.files;
        let (mut table, mut window) = (Vec::new(), Vec::new());
        let mut window_off = 0u64;
        let strings_end = self.file.header.summaries_off();
        let mut first = 0u64;
        while first < files {
            let n = (files - first).min(block.max(1));
            table.resize(n as usize * FILE_BYTES, 0);
            self.read_at(
                self.file.header.files_off + first * FILE_BYTES as u64,
                &mut table,
            )?;
            for (k, b) in table.as_chunks::<FILE_BYTES>().0.iter().enumerate() {
                let r = FileRecord::decode(b).path;
                let at = self
                    .file
                    .header
                    .strings_off()
                    .checked_add(r.off)
                    .filter(|a| a.saturating_add(u64::from(r.len)) <= strings_end)
                    .ok_or(IndexError::Format("a string runs past the end of the file"))?;
                let end = at + u64::from(r.len);
                if at < window_off || end > window_off + window.len() as u64 {
                    // Paths come in the order they were written, so the next ones are most
                    // likely just after this one.
                    window_off = at;
                    let len = (strings_end - at).min(window_bytes.max(u64::from(r.len)));
                    window.resize(len as usize, 0);
                    self.read_at(at, &mut window)?;
                }
                let from = (at - window_off) as usize;
                let bytes = &window[from..from + r.len as usize];
                // File numbers are u32 in the game records: the header's count was checked.
                let number = u32::try_from(first + k as u64)
                    .map_err(|_| IndexError::Format("too many files"))?;
                visit(number, &String::from_utf8_lossy(bytes))?;
            }
            first += n;
        }
        Ok(())
    }

    /// The number of files the index was built from (with or without games kept).
    pub fn files(&self) -> u64 {
        self.file.header.files
    }

    /// The path of file `n` (from 0, in the order they were indexed), as it was given.
    pub fn file_path(&self, n: u32) -> Result<String, IndexError> {
        if u64::from(n) >= self.file.header.files {
            return Err(IndexError::Format("file number out of range"));
        }
        let mut fb = [0u8; FILE_BYTES];
        self.read_at(self.file.header.file_off(n), &mut fb)?;
        self.string(FileRecord::decode(&fb).path)
    }

    /// The winner of game `id` (one read of its record).
    pub fn winner(&self, id: u32) -> Result<Winner, IndexError> {
        Ok(self.game_record(id)?.winner)
    }

    /// The key of entry `i`.
    fn entry_key(&self, i: u64) -> Result<Key, IndexError> {
        let mut b = [0u8; ENTRY_BYTES];
        self.read_at(self.file.header.entry_off(i), &mut b)?;
        Ok(Entry::decode_key(&b))
    }

    /// The entries with this key.
    fn entries_with(&self, key: &Key) -> Result<Vec<Entry>, IndexError> {
        let entries = self.file.header.entries;
        let (mut lo, mut hi) = (0u64, entries);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.entry_key(mid)? < *key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let mut out = Vec::new();
        if lo >= entries {
            return Ok(out);
        }
        // The run of equal keys, read a block of entries at a time from where it starts.
        const BLOCK: u64 = 512;
        let mut block = vec![0u8; BLOCK as usize * ENTRY_BYTES];
        let mut at = lo;
        'runs: while at < entries {
            let n = BLOCK.min(entries - at);
            let bytes = &mut block[..n as usize * ENTRY_BYTES];
            self.read_at(self.file.header.entry_off(at), bytes)?;
            for b in bytes.chunks_exact(ENTRY_BYTES) {
                let e = Entry::decode(b.try_into().expect("chunks of ENTRY_BYTES"));
                if e.key != *key {
                    break 'runs;
                }
                out.push(e);
            }
            at += n;
        }
        Ok(out)
    }

    fn key_of(&self, board: &Board, to_play: Color) -> (Key, Symmetry) {
        let canon = self.keys.table().symmetric_hashes(board).canonical();
        let size = self.size;
        let h2 = self
            .second
            .of(board.stones().map(|(p, c)| (p.index(size), c)));
        (Key::new(canon.hash, h2, to_play), canon.symmetry)
    }

    /// Where the summaries start (tests damage them).
    #[cfg(test)]
    pub(super) fn sum_off_for_tests(&self) -> u64 {
        self.file.header.summaries_off()
    }

    /// Number of summarized keys.
    pub fn summaries(&self) -> u64 {
        self.file.trailer.summaries
    }

    /// The summary of `key`, if it has one: binary search of the directory.
    fn summary_of(&self, key: &Key) -> Result<Option<(Summary, u64)>, IndexError> {
        let (mut lo, mut hi) = (0u64, self.file.trailer.summaries);
        let mut d = [0u8; DIR_BYTES];
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            self.read_at(self.file.trailer.dir_record_off(mid), &mut d)?;
            let rec = DirRecord::decode(&d);
            match rec.key.cmp(key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    let bad = IndexError::Format("a summary runs past its section");
                    let at = rec
                        .off
                        .checked_add(self.file.header.summaries_off())
                        .filter(|a| {
                            a.checked_add(rec.len)
                                .is_some_and(|e| e <= self.file.trailer.dir_off)
                        })
                        .ok_or(bad)?;
                    if rec.len < SUMMARY_HEAD_BYTES as u64 {
                        return Err(IndexError::Format("bad summary record"));
                    }
                    let mut h = [0u8; SUMMARY_HEAD_BYTES];
                    self.read_at(at, &mut h)?;
                    let mut s = Summary::parse_head(
                        SummaryHead::decode(&h),
                        rec.len,
                        self.file.header.entries,
                    )?;
                    let mut c = vec![0u8; s.head.conts as usize * CONT_BYTES];
                    self.read_at(at + SUMMARY_HEAD_BYTES as u64, &mut c)?;
                    s.parse_conts(&c);
                    return Ok(Some((s, at)));
                }
            }
        }
        Ok(None)
    }

    /// The game set of a summary read at `at`.
    fn summary_games(&self, s: &Summary, at: u64) -> Result<GameSet, IndexError> {
        let mut b = vec![0u8; s.head.set_len as usize];
        self.read_at(at + s.head.set_at(), &mut b)?;
        GameSet::parse(s.head.set_kind, &b, s.head.games, self.file.header.games)
    }

    /// `count` entries from number `first`.
    fn read_entries(&self, first: u64, count: u64) -> Result<Vec<Entry>, IndexError> {
        let mut b = vec![0u8; (count as usize) * ENTRY_BYTES];
        self.read_at(self.file.header.entry_off(first), &mut b)?;
        Ok(Entry::decode_all(&b).collect())
    }

    /// The keys to search for a query, and the symmetries that leave its board unchanged.
    fn queries(
        &self,
        board: &Board,
        to_play: Color,
        swap_colors: bool,
    ) -> Result<(Vec<Query>, Vec<Symmetry>), IndexError> {
        if board.size() != self.size {
            return Err(IndexError::BoardSize {
                board: board.size(),
                index: self.size,
            });
        }
        if !self.holds(board) {
            return Err(IndexError::NotHeld {
                stones: board.stone_count() as u32,
                most: self.file.header.most_stones.unwrap_or(u16::MAX),
            });
        }
        // Moves the symmetries of the query board map onto each other are one continuation.
        let stabilizer = stabilizer(board);
        let (key, qsym) = self.key_of(board, to_play);
        let mut queries = vec![Query {
            key,
            qsym,
            swapped: false,
        }];
        if swap_colors {
            let mut swapped = Board::new(self.size);
            for (p, c) in board.stones() {
                let _ = swapped.set(p, Some(c.opponent()));
            }
            let (k2, s2) = self.key_of(&swapped, to_play.opponent());
            if k2 != key {
                queries.push(Query {
                    key: k2,
                    qsym: s2,
                    swapped: true,
                });
            }
        }
        Ok((queries, stabilizer))
    }

    /// A stored next-move code (canonical orientation) in the query's orientation, as the
    /// representative of its class under the query's symmetries; `None` for no next move.
    fn query_code(
        &self,
        code: u16,
        q: &Query,
        stabilizer: &[Symmetry],
    ) -> Result<Option<u16>, IndexError> {
        let size = self.size;
        Ok(match code {
            NEXT_NONE => None,
            NEXT_PASS => Some(NEXT_PASS),
            i => {
                let c = Point::from_index(usize::from(i), size)
                    .ok_or(IndexError::Format("bad next move"))?;
                Some(representative(
                    q.qsym.inverse().apply(c, size),
                    stabilizer,
                    size,
                ))
            }
        })
    }

    fn occurrence(
        &self,
        e: &Entry,
        q: &Query,
        stabilizer: &[Symmetry],
    ) -> Result<Occurrence, IndexError> {
        let gsym = e.symmetry;
        let next = self.query_code(e.next, q, stabilizer)?;
        Ok(Occurrence {
            game: e.game,
            move_number: e.move_number,
            // query -> canonical -> game: qsym then gsym's inverse.
            symmetry: q.qsym.then(gsym.inverse()),
            swapped: q.swapped,
            in_variation: e.in_variation,
            next: next.map(|c| code_to_move(c, self.size)),
        })
    }

    /// Adds one entry's continuation.
    fn count_entry(
        &self,
        stats: &mut ContinuationSums,
        e: &Entry,
        q: &Query,
        stabilizer: &[Symmetry],
    ) -> Result<(), IndexError> {
        if let Some(c) = self.query_code(e.next, q, stabilizer)? {
            let (b, w) = (e.winner == Winner::Black, e.winner == Winner::White);
            stats.add(c, 1, u64::from(b), u64::from(w), q.swapped);
        }
        Ok(())
    }

    /// The games that reached `board` with `to_play` to move, in any symmetry (and, with
    /// `swap_colors`, with the colours swapped), and their continuations: every matching entry
    /// is read (see [`IndexReader::lookup_page`] for what a listing needs, in bounded time).
    pub fn lookup(
        &self,
        board: &Board,
        to_play: Color,
        swap_colors: bool,
    ) -> Result<LookupResult, IndexError> {
        let (queries, stabilizer) = self.queries(board, to_play, swap_colors)?;
        let mut occurrences = Vec::new();
        let mut stats = ContinuationSums::default();
        for q in &queries {
            for e in self.entries_with(&q.key)? {
                self.count_entry(&mut stats, &e, q, &stabilizer)?;
                occurrences.push(self.occurrence(&e, q, &stabilizer)?);
            }
        }
        occurrences.sort_by_key(|o| (o.game, o.move_number, o.swapped));
        Ok(LookupResult {
            hash: queries[0].key.h1,
            occurrences,
            continuations: stats.into_continuations(self.size),
        })
    }

    /// The same answer as [`LookupPage::from_result`] of [`IndexReader::lookup`], but reading
    /// only a summary and the first `limit` entries of a key that has a summary (the common
    /// positions), and every entry of the others (fewer than the summary threshold).
    pub fn lookup_page(
        &self,
        board: &Board,
        to_play: Color,
        swap_colors: bool,
        limit: usize,
    ) -> Result<LookupPage, IndexError> {
        let (queries, stabilizer) = self.queries(board, to_play, swap_colors)?;
        let mut stats = ContinuationSums::default();
        let mut first = Vec::new();
        let (mut occurrences, mut swapped) = (0u64, 0u64);
        // Per key: its distinct games' count and a way to get the set when two keys matched.
        let mut sets: Vec<(u64, KeyGames)> = Vec::new();
        for q in &queries {
            let (count, games, set) = match self.summary_of(&q.key)? {
                Some((s, at)) => {
                    for c in &s.conts {
                        if let Some(code) = self.query_code(c.code, q, &stabilizer)? {
                            stats.add(code, c.count, c.black, c.white, q.swapped);
                        }
                    }
                    let h = s.head;
                    for e in self.read_entries(h.first, h.count.min(limit as u64))? {
                        first.push(self.occurrence(&e, q, &stabilizer)?);
                    }
                    (h.count, h.games, KeyGames::Stored(s, at))
                }
                None => {
                    let entries = self.entries_with(&q.key)?;
                    let mut games: Vec<u32> = Vec::new();
                    for (i, e) in entries.iter().enumerate() {
                        self.count_entry(&mut stats, e, q, &stabilizer)?;
                        if i < limit {
                            first.push(self.occurrence(e, q, &stabilizer)?);
                        }
                        let g = e.game;
                        if games.last() != Some(&g) {
                            games.push(g);
                        }
                    }
                    (
                        entries.len() as u64,
                        games.len() as u64,
                        KeyGames::Read(GameSet::List(games)),
                    )
                }
            };
            occurrences = occurrences.saturating_add(count);
            if q.swapped {
                swapped = swapped.saturating_add(count);
            }
            if count > 0 {
                sets.push((games, set));
            }
        }
        let mut games: u64 = sets.iter().fold(0, |n, s| n.saturating_add(s.0));
        if let [(_, a), (_, b)] = &sets[..] {
            let load = |s: &KeyGames| match s {
                KeyGames::Read(set) => Ok(set.clone()),
                KeyGames::Stored(s, at) => self.summary_games(s, *at),
            };
            games = games.saturating_sub(load(a)?.intersection_len(&load(b)?));
        }
        first.sort_by_key(|o| (o.game, o.move_number, o.swapped));
        first.truncate(limit);
        Ok(LookupPage {
            hash: queries[0].key.h1,
            occurrences,
            games,
            swapped,
            continuations: stats.into_continuations(self.size),
            first,
        })
    }
}
