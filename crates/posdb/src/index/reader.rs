//! Reading an index: [`IndexReader`] opens and checks a file, [`IndexReader::lookup`] searches.

use super::summary::{entry_wins, GameSet, Summary, CONT_BYTES, DIR_BYTES, SUMMARY_HEAD};
use super::{
    u16_at, u32_at, u64_at, GameInfo, IndexError, SecondHash, Winner, ENTRY_BYTES, FILE_BYTES,
    FLAG_VARIATIONS, GAME_BYTES, HEADER, KEY_BYTES, MAGIC, MAGIC_V1, NEXT_NONE, NEXT_PASS, TRAILER,
    TRAILER_MAGIC, VARIATION_BIT,
};
use kifu_go::{Board, BoardSize, Color, Move, Point, Symmetry, ZobristKeys, ZobristTable};
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::Arc;

/// One game where the position occurred.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Occurrence {
    /// The game number.
    pub game: u32,
    /// The move number of the position in the game.
    pub move_number: u16,
    /// The symmetry from the query's board to the game's board.
    pub symmetry: Symmetry,
    /// Whether the game had the position with colours swapped.
    pub swapped: bool,
    /// Whether the position is in a variation of the game, not its main line (only in indexes
    /// built with variations).
    pub in_variation: bool,
    /// The next move in the query's orientation (`None`: none), as played by the side to move
    /// in the query (after swapping colours back).
    pub next: Option<Move>,
}

/// A continuation with its statistics, from the query's point of view (colours swapped back).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Continuation {
    /// The move (a representative of its class when the position is symmetric: the moves that
    /// a symmetry of the position maps onto each other are counted together).
    pub mv: Move,
    /// Games that continued so.
    pub count: u64,
    /// Of those, won by Black.
    pub black_wins: u64,
    /// Of those, won by White.
    pub white_wins: u64,
}

/// The answer to a lookup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LookupResult {
    /// The canonical hash of the query (the PositionId hash).
    pub hash: u64,
    /// Every occurrence, by game and move number.
    pub occurrences: Vec<Occurrence>,
    /// Continuations, most played first (then by move).
    pub continuations: Vec<Continuation>,
}

/// What `kifu pos lookup` shows: the counts of a [`LookupResult`], its continuations, and its
/// first occurrences only. [`IndexReader::lookup_page`] reads precomputed summaries for the
/// common positions, so it takes about as long for the empty board as for a rare position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LookupPage {
    /// The canonical hash of the query (the PositionId hash).
    pub hash: u64,
    /// Occurrences (all of them, not only those listed).
    pub occurrences: u64,
    /// Distinct games among them.
    pub games: u64,
    /// Occurrences with colours swapped.
    pub swapped: u64,
    /// Continuations, most played first (then by move).
    pub continuations: Vec<Continuation>,
    /// The first occurrences, by game and move number (at most the limit asked for).
    pub first: Vec<Occurrence>,
}

impl LookupPage {
    /// The page of a full answer: what [`IndexReader::lookup_page`] gives with this `limit`.
    pub fn from_result(r: &LookupResult, limit: usize) -> LookupPage {
        let mut games: Vec<u32> = r.occurrences.iter().map(|o| o.game).collect();
        games.dedup();
        LookupPage {
            hash: r.hash,
            occurrences: r.occurrences.len() as u64,
            games: games.len() as u64,
            swapped: r.occurrences.iter().filter(|o| o.swapped).count() as u64,
            continuations: r.continuations.clone(),
            first: r.occurrences.iter().take(limit).cloned().collect(),
        }
    }
}

/// One key searched: the query's key, the symmetry from the query board to the canonical one,
/// whether it is the colour-swapped board.
struct Query {
    key: [u8; KEY_BYTES],
    qsym: Symmetry,
    swapped: bool,
}

/// The distinct games of a key: read from its entries, or in a summary (read at the offset) and
/// loaded only when needed.
enum KeyGames {
    Read(GameSet),
    Stored(Summary, u64),
}

/// Continuation sums by the query's representative code.
#[derive(Default)]
struct Stats(HashMap<u16, (u64, u64, u64)>);

impl Stats {
    fn add(&mut self, code: u16, count: u64, black: u64, white: u64, swapped: bool) {
        let (black, white) = if swapped {
            (white, black)
        } else {
            (black, white)
        };
        // Counts may come from a summary in the file: a damaged one must not overflow.
        let s = self.0.entry(code).or_default();
        s.0 = s.0.saturating_add(count);
        s.1 = s.1.saturating_add(black);
        s.2 = s.2.saturating_add(white);
    }

    fn into_continuations(self, size: BoardSize) -> Vec<Continuation> {
        let mut c: Vec<(u16, Continuation)> = self
            .0
            .into_iter()
            .map(|(c, (count, b, w))| {
                (
                    c,
                    Continuation {
                        mv: code_to_move(c, size),
                        count,
                        black_wins: b,
                        white_wins: w,
                    },
                )
            })
            .collect();
        c.sort_by(|a, b| b.1.count.cmp(&a.1.count).then(a.0.cmp(&b.0)));
        c.into_iter().map(|(_, c)| c).collect()
    }
}

/// A next-move code (a point index in the query's orientation, or a pass) as a move.
fn code_to_move(code: u16, size: BoardSize) -> Move {
    match Point::from_index(usize::from(code), size) {
        Some(p) if code != NEXT_PASS => Move::Play(p),
        _ => Move::Pass,
    }
}

/// An opened index.
#[derive(Debug)]
pub struct IndexReader {
    file: File,
    size: BoardSize,
    keys: Arc<ZobristKeys>,
    second: SecondHash,
    entries: u64,
    games: u64,
    files: u64,
    e_off: u64,
    g_off: u64,
    f_off: u64,
    s_off: u64,
    summaries: u64,
    sum_off: u64,
    dir_off: u64,
    variations: bool,
}

impl IndexReader {
    /// Opens an index file and checks its header.
    pub fn open(path: &Path) -> Result<IndexReader, IndexError> {
        let mut file = File::open(path)?;
        let len = file.metadata()?.len();
        let mut h = [0u8; HEADER];
        file.read_exact(&mut h)
            .map_err(|_| IndexError::Format("shorter than the header"))?;
        if &h[..8] == MAGIC_V1 {
            return Err(IndexError::OldFormat(1));
        }
        if &h[..8] != MAGIC {
            return Err(IndexError::Format("bad magic"));
        }
        let size = BoardSize::new(u32::from(h[8])).map_err(|_| IndexError::Format("bad size"))?;
        let f = |i: usize| u64_at(&h, 16 + i * 8);
        let (entries, games, files, z_off, z_len, e_off, g_off, f_off, s_len) =
            (f(0), f(1), f(2), f(3), f(4), f(5), f(6), f(7), f(8));
        let sum_off = files
            .checked_mul(FILE_BYTES as u64)
            .and_then(|n| n.checked_add(f_off))
            .and_then(|n| n.checked_add(s_len));
        let ok = z_off == HEADER as u64
            && z_off.checked_add(z_len) == Some(e_off)
            && entries
                .checked_mul(ENTRY_BYTES as u64)
                .and_then(|n| n.checked_add(e_off))
                == Some(g_off)
            && games
                .checked_mul(GAME_BYTES as u64)
                .and_then(|n| n.checked_add(g_off))
                == Some(f_off)
            && sum_off.is_some_and(|s| s.saturating_add(TRAILER as u64) <= len)
            && z_len < 1 << 20;
        if !ok {
            return Err(IndexError::Format("inconsistent header"));
        }
        let sum_off = sum_off.unwrap_or(0);
        let mut t = [0u8; TRAILER];
        file.seek(SeekFrom::Start(len - TRAILER as u64))?;
        file.read_exact(&mut t)?;
        let (summaries, dir_off) = (u64_at(&t, 8), u64_at(&t, 16));
        if &t[..8] != TRAILER_MAGIC
            || dir_off < sum_off
            || summaries
                .checked_mul(DIR_BYTES as u64)
                .and_then(|n| n.checked_add(dir_off))
                .and_then(|n| n.checked_add(TRAILER as u64))
                != Some(len)
        {
            return Err(IndexError::Format("bad trailer (a torn file?)"));
        }
        let s_off = f_off + files * FILE_BYTES as u64;
        let mut z = vec![0u8; z_len as usize];
        file.seek(SeekFrom::Start(z_off))?;
        file.read_exact(&mut z)?;
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
            entries,
            games,
            files,
            e_off,
            g_off,
            f_off,
            s_off,
            summaries,
            sum_off,
            dir_off,
            variations: h[9] & FLAG_VARIATIONS != 0,
        })
    }

    /// Whether variations were indexed (else main lines only).
    pub fn variations(&self) -> bool {
        self.variations
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
        self.games
    }

    /// Number of entries.
    pub fn entries(&self) -> u64 {
        self.entries
    }

    fn read_at(&self, at: u64, buf: &mut [u8]) -> Result<(), IndexError> {
        let mut f = &self.file;
        f.seek(SeekFrom::Start(at))?;
        f.read_exact(buf)
            .map_err(|_| IndexError::Format("a section runs past the end of the file"))
    }

    fn string(&self, off: u64, len: u32) -> Result<String, IndexError> {
        let at = self
            .s_off
            .checked_add(off)
            .filter(|a| a.saturating_add(u64::from(len)) <= self.sum_off)
            .ok_or(IndexError::Format("a string runs past the end of the file"))?;
        let mut b = vec![0u8; len as usize];
        self.read_at(at, &mut b)?;
        Ok(String::from_utf8_lossy(&b).into_owned())
    }

    /// The game numbered `id`.
    pub fn game(&self, id: u32) -> Result<GameInfo, IndexError> {
        if u64::from(id) >= self.games {
            return Err(IndexError::Format("game number out of range"));
        }
        let mut b = [0u8; GAME_BYTES];
        self.read_at(self.g_off + u64::from(id) * GAME_BYTES as u64, &mut b)?;
        let file_no = u32_at(&b, 0);
        if u64::from(file_no) >= self.files {
            return Err(IndexError::Format("file number out of range"));
        }
        let text = self.string(u64_at(&b, 16), u32_at(&b, 24))?;
        let mut parts = text.split('\t').map(str::to_string);
        let mut next = || parts.next().unwrap_or_default();
        let (black, white, date, result) = (next(), next(), next(), next());
        let mut fb = [0u8; FILE_BYTES];
        self.read_at(self.f_off + u64::from(file_no) * FILE_BYTES as u64, &mut fb)?;
        let file = self.string(u64_at(&fb, 0), u32_at(&fb, 8))?;
        Ok(GameInfo {
            id,
            file,
            game_in_file: u32_at(&b, 4),
            moves: u32_at(&b, 8),
            black,
            white,
            date,
            result,
            winner: Winner::from_byte(b[12]),
        })
    }

    /// The winner of game `id` (one read of its record).
    pub fn winner(&self, id: u32) -> Result<Winner, IndexError> {
        if u64::from(id) >= self.games {
            return Err(IndexError::Format("game number out of range"));
        }
        let mut b = [0u8; GAME_BYTES];
        self.read_at(self.g_off + u64::from(id) * GAME_BYTES as u64, &mut b)?;
        Ok(Winner::from_byte(b[12]))
    }

    fn entry_key(&self, i: u64, buf: &mut [u8; ENTRY_BYTES]) -> Result<(), IndexError> {
        self.read_at(self.e_off + i * ENTRY_BYTES as u64, buf)
    }

    /// The entries with this 17-byte key.
    fn entries_with(&self, key: &[u8; KEY_BYTES]) -> Result<Vec<[u8; ENTRY_BYTES]>, IndexError> {
        let (mut lo, mut hi) = (0u64, self.entries);
        let mut b = [0u8; ENTRY_BYTES];
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            self.entry_key(mid, &mut b)?;
            if b[..KEY_BYTES] < key[..] {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let mut out = Vec::new();
        if lo >= self.entries {
            return Ok(out);
        }
        let mut f = &self.file;
        f.seek(SeekFrom::Start(self.e_off + lo * ENTRY_BYTES as u64))?;
        let mut r = BufReader::with_capacity(1 << 14, f);
        for _ in lo..self.entries {
            r.read_exact(&mut b)?;
            if b[..KEY_BYTES] != key[..] {
                break;
            }
            out.push(b);
        }
        Ok(out)
    }

    fn key_of(&self, board: &Board, to_play: Color) -> ([u8; KEY_BYTES], Symmetry) {
        let canon = self.keys.table().symmetric_hashes(board).canonical();
        let size = self.size;
        let h2 = self
            .second
            .of(board.stones().map(|(p, c)| (p.index(size), c)));
        let mut k = [0u8; KEY_BYTES];
        k[..8].copy_from_slice(&canon.hash.to_be_bytes());
        k[8..16].copy_from_slice(&h2.to_be_bytes());
        k[16] = to_play.letter() as u8;
        (k, canon.symmetry)
    }

    /// Where the summaries start (tests damage them).
    #[cfg(test)]
    pub(super) fn sum_off_for_tests(&self) -> u64 {
        self.sum_off
    }

    /// Number of summarized keys.
    pub fn summaries(&self) -> u64 {
        self.summaries
    }

    /// The summary of `key`, if it has one: binary search of the directory.
    fn summary_of(&self, key: &[u8; KEY_BYTES]) -> Result<Option<(Summary, u64)>, IndexError> {
        let (mut lo, mut hi) = (0u64, self.summaries);
        let mut d = [0u8; DIR_BYTES];
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            self.read_at(self.dir_off + mid * DIR_BYTES as u64, &mut d)?;
            match d[..KEY_BYTES].cmp(&key[..]) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    let (off, len) = (u64_at(&d, 24), u64_at(&d, 32));
                    let bad = IndexError::Format("a summary runs past its section");
                    let at = off
                        .checked_add(self.sum_off)
                        .filter(|a| a.checked_add(len).is_some_and(|e| e <= self.dir_off))
                        .ok_or(bad)?;
                    if len < SUMMARY_HEAD as u64 {
                        return Err(IndexError::Format("bad summary record"));
                    }
                    let mut h = [0u8; SUMMARY_HEAD];
                    self.read_at(at, &mut h)?;
                    let mut s = Summary::parse_head(&h, len, self.entries)?;
                    let mut c = vec![0u8; (s.set_at as usize) - SUMMARY_HEAD];
                    self.read_at(at + SUMMARY_HEAD as u64, &mut c)?;
                    s.parse_conts(&c);
                    debug_assert_eq!(s.conts.len() * CONT_BYTES, c.len());
                    return Ok(Some((s, at)));
                }
            }
        }
        Ok(None)
    }

    /// The game set of a summary read at `at`.
    fn summary_games(&self, s: &Summary, at: u64) -> Result<GameSet, IndexError> {
        let mut b = vec![0u8; s.set_len as usize];
        self.read_at(at + s.set_at, &mut b)?;
        GameSet::parse(s.set_kind, &b, s.games, self.games)
    }

    /// `count` entries from number `first`.
    fn read_entries(&self, first: u64, count: u64) -> Result<Vec<[u8; ENTRY_BYTES]>, IndexError> {
        let mut b = vec![0u8; (count as usize) * ENTRY_BYTES];
        self.read_at(self.e_off + first * ENTRY_BYTES as u64, &mut b)?;
        Ok(b.chunks_exact(ENTRY_BYTES)
            .map(|c| c.try_into().expect("entry-sized chunks"))
            .collect())
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
        // The symmetries that leave the query board unchanged: moves they map onto each other
        // are the same continuation (the lowest point index represents them).
        let stabilizer: Vec<Symmetry> = Symmetry::ALL
            .into_iter()
            .filter(|&s| board.transform(s) == *board)
            .collect();
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
                let p = q.qsym.inverse().apply(c, size);
                let rep = stabilizer
                    .iter()
                    .map(|s| s.apply(p, size).index(size))
                    .min()
                    .unwrap_or(p.index(size));
                Some(rep as u16)
            }
        })
    }

    fn occurrence(
        &self,
        e: &[u8; ENTRY_BYTES],
        q: &Query,
        stabilizer: &[Symmetry],
    ) -> Result<Occurrence, IndexError> {
        let gsym = Symmetry::from_index(usize::from(e[23] & 7))
            .ok_or(IndexError::Format("bad symmetry byte"))?;
        let next = self.query_code(u16_at(e, 24), q, stabilizer)?;
        Ok(Occurrence {
            game: u32_at(e, 17),
            move_number: u16_at(e, 21),
            // query -> canonical -> game: qsym then gsym's inverse.
            symmetry: q.qsym.then(gsym.inverse()),
            swapped: q.swapped,
            in_variation: e[23] & VARIATION_BIT != 0,
            next: next.map(|c| code_to_move(c, self.size)),
        })
    }

    /// Adds one entry's continuation.
    fn count_entry(
        &self,
        stats: &mut Stats,
        e: &[u8; ENTRY_BYTES],
        q: &Query,
        stabilizer: &[Symmetry],
    ) -> Result<(), IndexError> {
        if let Some(c) = self.query_code(u16_at(e, 24), q, stabilizer)? {
            let (b, w) = entry_wins(e[23]);
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
        let mut stats = Stats::default();
        for q in &queries {
            for e in self.entries_with(&q.key)? {
                self.count_entry(&mut stats, &e, q, &stabilizer)?;
                occurrences.push(self.occurrence(&e, q, &stabilizer)?);
            }
        }
        occurrences.sort_by_key(|o| (o.game, o.move_number, o.swapped));
        Ok(LookupResult {
            hash: u64_at(&queries[0].key, 0),
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
        let mut stats = Stats::default();
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
                    for e in self.read_entries(s.first, s.count.min(limit as u64))? {
                        first.push(self.occurrence(&e, q, &stabilizer)?);
                    }
                    (s.count, s.games, KeyGames::Stored(s, at))
                }
                None => {
                    let entries = self.entries_with(&q.key)?;
                    let mut games: Vec<u32> = Vec::new();
                    for (i, e) in entries.iter().enumerate() {
                        self.count_entry(&mut stats, e, q, &stabilizer)?;
                        if i < limit {
                            first.push(self.occurrence(e, q, &stabilizer)?);
                        }
                        let g = u32_at(e, 17);
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
            hash: u64_at(&queries[0].key, 0),
            occurrences,
            games,
            swapped,
            continuations: stats.into_continuations(self.size),
            first,
        })
    }
}
