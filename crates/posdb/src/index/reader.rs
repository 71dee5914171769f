//! Reading an index: [`IndexReader`] opens and checks a file, [`IndexReader::lookup`] searches.

use super::{
    u16_at, u32_at, u64_at, GameInfo, IndexError, SecondHash, Winner, ENTRY_BYTES, FILE_BYTES,
    GAME_BYTES, HEADER, KEY_BYTES, MAGIC, NEXT_NONE, NEXT_PASS,
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
    len: u64,
}

impl IndexReader {
    /// Opens an index file and checks its header.
    pub fn open(path: &Path) -> Result<IndexReader, IndexError> {
        let mut file = File::open(path)?;
        let len = file.metadata()?.len();
        let mut h = [0u8; HEADER];
        file.read_exact(&mut h)
            .map_err(|_| IndexError::Format("shorter than the header"))?;
        if &h[..8] != MAGIC {
            return Err(IndexError::Format("bad magic"));
        }
        let size = BoardSize::new(u32::from(h[8])).map_err(|_| IndexError::Format("bad size"))?;
        let f = |i: usize| u64_at(&h, 16 + i * 8);
        let (entries, games, files, z_off, z_len, e_off, g_off, f_off) =
            (f(0), f(1), f(2), f(3), f(4), f(5), f(6), f(7));
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
            && files
                .checked_mul(FILE_BYTES as u64)
                .and_then(|n| n.checked_add(f_off))
                .is_some_and(|s| s <= len)
            && z_len < 1 << 20;
        if !ok {
            return Err(IndexError::Format("inconsistent header"));
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
            len,
        })
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
            .filter(|a| a.saturating_add(u64::from(len)) <= self.len)
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

    /// The games that reached `board` with `to_play` to move, in any symmetry (and, with
    /// `swap_colors`, with the colours swapped), and their continuations.
    pub fn lookup(
        &self,
        board: &Board,
        to_play: Color,
        swap_colors: bool,
    ) -> Result<LookupResult, IndexError> {
        if board.size() != self.size {
            return Err(IndexError::BoardSize {
                board: board.size(),
                index: self.size,
            });
        }
        let size = self.size;
        // The symmetries that leave the query board unchanged: moves they map onto each other
        // are the same continuation (the lowest point index represents them).
        let stabilizer: Vec<Symmetry> = Symmetry::ALL
            .into_iter()
            .filter(|&s| board.transform(s) == *board)
            .collect();
        let (key, qsym) = self.key_of(board, to_play);
        let mut queries = vec![(key, qsym, false)];
        if swap_colors {
            let mut swapped = Board::new(size);
            for (p, c) in board.stones() {
                let _ = swapped.set(p, Some(c.opponent()));
            }
            let (k2, s2) = self.key_of(&swapped, to_play.opponent());
            if k2 != key {
                queries.push((k2, s2, true));
            }
        }
        let mut occurrences = Vec::new();
        let mut stats: HashMap<u16, (u64, u64, u64)> = HashMap::new();
        let found: Vec<(Vec<[u8; ENTRY_BYTES]>, Symmetry, bool)> = queries
            .into_iter()
            .map(|(k, qsym, swapped)| Ok((self.entries_with(&k)?, qsym, swapped)))
            .collect::<Result<_, IndexError>>()?;
        // Many matches (an opening position): read the whole game table once rather than one
        // record per game.
        let total: usize = found.iter().map(|f| f.0.len()).sum();
        let table = if total > 256 {
            let mut t = vec![0u8; (self.f_off - self.g_off) as usize];
            self.read_at(self.g_off, &mut t)?;
            Some(t)
        } else {
            None
        };
        let winner_of = |game: u32| -> Result<Winner, IndexError> {
            match &table {
                Some(t) => t
                    .get(game as usize * GAME_BYTES + 12)
                    .map(|&b| Winner::from_byte(b))
                    .ok_or(IndexError::Format("game number out of range")),
                None => self.winner(game),
            }
        };
        for (entries, qsym, swapped) in found {
            for e in entries {
                let game = u32_at(&e, 17);
                let gsym = Symmetry::from_index(usize::from(e[23]))
                    .ok_or(IndexError::Format("bad symmetry byte"))?;
                // The stored point is in the canonical orientation; back to the query's, then
                // to the representative of its class.
                let next_code = match u16_at(&e, 24) {
                    NEXT_NONE => None,
                    NEXT_PASS => Some(NEXT_PASS),
                    i => {
                        let c = Point::from_index(usize::from(i), size)
                            .ok_or(IndexError::Format("bad next move"))?;
                        let p = qsym.inverse().apply(c, size);
                        let rep = stabilizer
                            .iter()
                            .map(|s| s.apply(p, size).index(size))
                            .min()
                            .unwrap_or(p.index(size));
                        Some(rep as u16)
                    }
                };
                if let Some(c) = next_code {
                    let winner = winner_of(game)?;
                    let winner = if swapped { winner.swapped() } else { winner };
                    let s = stats.entry(c).or_default();
                    s.0 += 1;
                    s.1 += u64::from(winner == Winner::Black);
                    s.2 += u64::from(winner == Winner::White);
                }
                occurrences.push(Occurrence {
                    game,
                    move_number: u16_at(&e, 21),
                    // query -> canonical -> game: qsym then gsym's inverse.
                    symmetry: qsym.then(gsym.inverse()),
                    swapped,
                    next: next_code.map(|c| code_to_move(c, size)),
                });
            }
        }
        occurrences.sort_by_key(|o| (o.game, o.move_number, o.swapped));
        let mut continuations: Vec<(u16, Continuation)> = stats
            .into_iter()
            .map(|(c, (count, b, w))| {
                let mv = code_to_move(c, size);
                (
                    c,
                    Continuation {
                        mv,
                        count,
                        black_wins: b,
                        white_wins: w,
                    },
                )
            })
            .collect();
        continuations.sort_by(|a, b| b.1.count.cmp(&a.1.count).then(a.0.cmp(&b.0)));
        Ok(LookupResult {
            hash: u64_at(&key, 0),
            occurrences,
            continuations: continuations.into_iter().map(|(_, c)| c).collect(),
        })
    }
}
