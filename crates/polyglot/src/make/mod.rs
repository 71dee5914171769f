//! Making a book from PGN, like Polyglot's `make-book`.
//!
//! For every (position, move) of every game's main line up to `max_ply`, Polyglot counts
//! the games `n` and the sum of `result + 1` from the mover's side (2 win, 1 draw or
//! unknown, 0 loss); when a move's `n` reaches 16384, all moves of that position are
//! halved (`(x + 1) / 2`). Entries are dropped when `n < min_game`, the sum is 0, the
//! score `sum / n / 2` is below `min_score`, or the side is filtered out; the weight is the
//! sum (or 1 with `uniform`). Records are sorted by key, then weight descending, then the
//! order in which the (position, move) was first seen (glibc's stable `qsort` in Polyglot).
//!
//! [`Compat::Polyglot`] gives Polyglot 2.0.4's bytes: no header, every game from the
//! standard start position (its `FEN` tag is ignored), the result only from the `Result`
//! tag, and the first bad game stops everything ([`Error::Game`]; Polyglot stops too but
//! writes no book and exits 0). [`Compat::Kifu`] (default) skips bad games with a warning,
//! starts games with a `FEN` tag from that position, takes the result from the movetext
//! when the tag is missing, and writes a header.
//!
//! Memory stays bounded: games are read in batches and replayed in parallel (rayon), the
//! (key, move) counts live in a hash map that is spilled to disk as a sorted run whenever
//! it grows past [`MakeOptions::max_entries_in_memory`], and the runs are merged at the
//! end. Halving depends on the order of games, so the few positions where a move reaches
//! 16384 games are replayed exactly in a second, streaming pass over the PGN.

pub mod counts;
mod pgn;
mod runs;

pub use counts::{CountsInfo, CountsPart};
pub use pgn::{PgnGame, PgnReader};

use crate::error::{Error, Result};
use crate::key::{key, key_after, position_from_fen};
use crate::moves::RawMove;
use crate::record::Entry;
use kifu_fs::shard::Shard;
use rayon::prelude::*;
use runs::{Agg, AggMap, RunSet};
use shakmaty::san::San;
use shakmaty::{Chess, Color, Move, Position};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Polyglot's `COUNT_MAX`.
pub const COUNT_MAX: u32 = 16384;
/// Games per parallel batch.
const BATCH: usize = 512;

/// Whose behaviour to follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compat {
    /// Skip bad games, honour `FEN`, write a header.
    #[default]
    Kifu,
    /// Byte-identical to Debian's polyglot 2.0.4 `make-book`.
    Polyglot,
}

/// Options of [`make_book`], with Polyglot's names and defaults.
#[derive(Debug, Clone)]
pub struct MakeOptions {
    /// `-max-ply`: plies of each game used (1024).
    pub max_ply: u32,
    /// `-min-game`: least games for a move to be kept (3).
    pub min_game: u32,
    /// `-min-score`: least score in percent (0).
    pub min_score: f64,
    /// `-only-white`: keep only moves of White.
    pub only_white: bool,
    /// `-only-black`: keep only moves of Black.
    pub only_black: bool,
    /// `-uniform`: every weight 1.
    pub uniform: bool,
    /// Whose behaviour to follow.
    pub compat: Compat,
    /// Distinct (key, move) pairs kept in memory before a sorted run is spilled to disk.
    pub max_entries_in_memory: usize,
    /// Folder for spilled runs (the system's temporary folder if `None`).
    pub temp_dir: Option<PathBuf>,
}

impl Default for MakeOptions {
    fn default() -> Self {
        MakeOptions {
            max_ply: 1024,
            min_game: 3,
            min_score: 0.0,
            only_white: false,
            only_black: false,
            uniform: false,
            compat: Compat::Kifu,
            max_entries_in_memory: 8 << 20,
            temp_dir: None,
        }
    }
}

/// A game that was skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedGame {
    /// The PGN file.
    pub path: PathBuf,
    /// 1-based game number in the file.
    pub game: u64,
    /// Why (with ply and move).
    pub reason: String,
}

impl std::fmt::Display for SkippedGame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: game {}: {}",
            self.path.display(),
            self.game,
            self.reason
        )
    }
}

/// What [`make_book`] did.
#[derive(Debug, Clone, Default)]
pub struct MakeReport {
    /// Games read (including skipped ones).
    pub games: u64,
    /// Games skipped as bad.
    pub skipped: Vec<SkippedGame>,
    /// Positions (plies) counted.
    pub plies: u64,
    /// Distinct (key, move) pairs before filtering.
    pub pairs: u64,
    /// Entries in the book (filled by [`make_book`] only).
    pub entries: Vec<Entry>,
    /// Number of entries written.
    pub written: u64,
    /// Sorted runs spilled to disk.
    pub runs_spilled: usize,
    /// Positions where halving made a second pass necessary.
    pub halved_keys: usize,
}

/// One counted move: key, move, `result + 1` from the mover's side, mover is White.
#[derive(Clone, Copy)]
struct Event {
    key: u64,
    mv: RawMove,
    delta: u8,
    white: bool,
}

/// Reads a move token the way Polyglot's tolerant SAN reader does: SAN, SAN with the
/// promotion `=` left out (`g8Q`), `0-0` castling, or UCI (`e2e4`, `e1h1`).
pub fn parse_token(pos: &Chess, token: &str) -> std::result::Result<Move, String> {
    let san_err = match token.parse::<shakmaty::san::SanPlus>() {
        Ok(s) => match s.san.to_move(pos) {
            Ok(m) => return Ok(m),
            Err(e) => e.to_string(),
        },
        Err(e) => e.to_string(),
    };
    let t = token.trim_end_matches(['+', '#', '!', '?']);
    let mut fixed = match t {
        "0-0" => "O-O".to_string(),
        "0-0-0" => "O-O-O".to_string(),
        _ => t.to_string(),
    };
    let b = fixed.as_bytes();
    if b.len() >= 3
        && b"QRBNqrbn".contains(&b[b.len() - 1])
        && (b'1'..=b'8').contains(&b[b.len() - 2])
        && (b'a'..=b'h').contains(&b[0])
    {
        let p = fixed.pop().map(|c| c.to_ascii_uppercase()).unwrap_or('Q');
        fixed.push('=');
        fixed.push(p);
    }
    if fixed != token {
        if let Ok(m) = fixed
            .parse::<San>()
            .map_err(|e| e.to_string())
            .and_then(|s| s.to_move(pos).map_err(|e| e.to_string()))
        {
            return Ok(m);
        }
    }
    crate::key::parse_move(pos, t).map_err(|_| san_err)
}

/// Replays a game; the events of its first `max_ply` plies, or why it is bad.
fn replay(game: &PgnGame, max_ply: u32, compat: Compat) -> std::result::Result<Vec<Event>, String> {
    if let Some(e) = &game.error {
        return Err(e.clone());
    }
    let mut pos = match (&game.fen, compat) {
        (Some(f), Compat::Kifu) => position_from_fen(f).map_err(|e| e.to_string())?,
        _ => Chess::default(),
    };
    let white_result = match (compat, game.result_tag, game.result_token) {
        (_, Some(r), _) => r,
        (Compat::Kifu, None, Some(r)) => r,
        _ => 0,
    };
    let mut result = if pos.turn() == Color::White {
        white_result
    } else {
        -white_result
    };
    let mut k = key(&pos);
    let n = game.moves.len().min(max_ply as usize);
    let mut events = Vec::with_capacity(n);
    for ply in 0..n {
        let token = game.mv(ply);
        let m = parse_token(&pos, token).map_err(|e| {
            format!(
                "line {}, column {}, ply {}: move {}{}{token}: {e}",
                game.moves[ply].2,
                game.moves[ply].3,
                ply + 1,
                pos.fullmoves(),
                if pos.turn() == Color::White {
                    ". "
                } else {
                    "... "
                }
            )
        })?;
        events.push(Event {
            key: k,
            mv: RawMove::encode(m),
            delta: (result + 1) as u8,
            white: pos.turn() == Color::White,
        });
        let next = key_after(&pos, k, m);
        pos.play_unchecked(m);
        k = next.unwrap_or_else(|| key(&pos));
        result = -result;
    }
    Ok(events)
}

/// Reads games from every input in order and hands them out in batches.
struct GameStream<'a> {
    inputs: &'a [PathBuf],
    file: usize,
    reader: Option<PgnReader<std::fs::File>>,
    strict: bool,
    bytes_done: u64,
}

impl<'a> GameStream<'a> {
    fn new(inputs: &'a [PathBuf], compat: Compat) -> Self {
        GameStream {
            inputs,
            file: 0,
            reader: None,
            strict: compat == Compat::Polyglot,
            bytes_done: 0,
        }
    }

    /// Up to `BATCH` games, each with its file index; empty at the end.
    fn next_batch(&mut self) -> Result<Vec<(usize, PgnGame)>> {
        let mut batch = Vec::with_capacity(BATCH);
        while batch.len() < BATCH && self.file < self.inputs.len() {
            let path = &self.inputs[self.file];
            if self.reader.is_none() {
                let f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
                self.reader = Some(PgnReader::new(f));
            }
            let reader = self.reader.as_mut().expect("opened above");
            match reader
                .next_game(self.strict)
                .map_err(|e| Error::io(path, e))?
            {
                Some(g) => {
                    let stop = self.strict && g.error.is_some();
                    batch.push((self.file, g));
                    if stop {
                        // Polyglot stops at the first error: read no further.
                        self.file = self.inputs.len();
                        break;
                    }
                }
                None => {
                    self.bytes_done += reader.bytes_read();
                    self.reader = None;
                    self.file += 1;
                }
            }
        }
        Ok(batch)
    }

    fn bytes_read(&self) -> u64 {
        self.bytes_done + self.reader.as_ref().map_or(0, |r| r.bytes_read())
    }
}

/// Builds a book from PGN files. `progress` is called with the bytes of PGN read so far.
/// Returns the entries in book order in [`MakeReport::entries`]; see [`make_book_to`] to
/// stream them instead.
pub fn make_book(
    inputs: &[PathBuf],
    opts: &MakeOptions,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<MakeReport> {
    let mut entries = Vec::new();
    let mut report = make_book_to(inputs, opts, progress, &mut |e| {
        entries.push(*e);
        Ok(())
    })?;
    report.entries = entries;
    Ok(report)
}

/// Like [`make_book`], but hands each entry, in book order, to `sink` instead of keeping
/// them (so memory stays bounded however large the book); `MakeReport::entries` is empty.
/// Games are replayed on the current rayon pool.
pub fn make_book_to(
    inputs: &[PathBuf],
    opts: &MakeOptions,
    progress: &(dyn Fn(u64) + Sync),
    sink: &mut dyn FnMut(&Entry) -> Result<()>,
) -> Result<MakeReport> {
    let counted = count(inputs, opts, Shard::whole(), progress)?;
    finish(inputs, opts, counted, sink)
}

/// The counts of one shard's games, in memory and in spilled runs.
struct Counted {
    report: MakeReport,
    map: AggMap,
    runs: RunSet,
}

/// First pass: counts every (key, move) of the games of `shard` (a game's number in the whole
/// input, from 0, modulo N). Every game is read, so numbers do not depend on the shard; only the
/// shard's games are replayed. In Polyglot mode a game the reader could not read stops every
/// shard, as it stops Polyglot.
fn count(
    inputs: &[PathBuf],
    opts: &MakeOptions,
    shard: Shard,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Counted> {
    let mut report = MakeReport::default();
    let mut map = AggMap::default();
    let mut runs = RunSet::new(opts.temp_dir.as_deref());
    let mut stream = GameStream::new(inputs, opts.compat);
    let mut sequence: u64 = 0;
    loop {
        let batch = stream.next_batch()?;
        if batch.is_empty() {
            break;
        }
        let first = sequence;
        sequence += batch.len() as u64;
        let strict = opts.compat == Compat::Polyglot;
        let mine: Vec<(u64, &(usize, PgnGame))> = batch
            .iter()
            .enumerate()
            .map(|(k, g)| (first + k as u64, g))
            .filter(|(seq, (_, g))| shard.contains(*seq) || (strict && g.error.is_some()))
            .collect();
        let replayed: Vec<_> = mine
            .par_iter()
            .map(|(_, (_, g))| replay(g, opts.max_ply, opts.compat))
            .collect();
        for ((seq, (file, game)), events) in mine.iter().zip(replayed) {
            report.games += 1;
            let events = match events {
                Ok(ev) => ev,
                Err(reason) => {
                    let path = inputs[*file].clone();
                    if strict {
                        return Err(Error::Game {
                            path,
                            game: game.number,
                            reason,
                        });
                    }
                    report.skipped.push(SkippedGame {
                        path,
                        game: game.number,
                        reason,
                    });
                    continue;
                }
            };
            report.plies += events.len() as u64;
            for (ply, ev) in events.iter().enumerate() {
                let order = (seq << 20) | ply as u64;
                let a = map.entry((ev.key, ev.mv.0)).or_insert(Agg {
                    n: 0,
                    sum: 0,
                    first: order,
                    white: ev.white,
                });
                a.n += 1;
                a.sum += u64::from(ev.delta);
            }
        }
        if map.len() > opts.max_entries_in_memory {
            runs.spill(&mut map)?;
        }
        progress(stream.bytes_read());
    }
    Ok(Counted { report, map, runs })
}

/// Counts the games of `shard` and writes them as a counts file ([`counts`]) to `w`: the part
/// of a sharded job that [`make_book_from_counts`] turns into the book. The filters of `opts`
/// (min games, min score, sides, uniform) are not applied here but when the book is made.
pub fn make_counts(
    inputs: &[PathBuf],
    opts: &MakeOptions,
    shard: Shard,
    progress: &(dyn Fn(u64) + Sync),
    w: &mut dyn std::io::Write,
) -> Result<CountsInfo> {
    let mut files = Vec::with_capacity(inputs.len());
    for p in inputs {
        let bytes = std::fs::metadata(p).map_err(|e| Error::io(p, e))?.len();
        files.push(counts::InputFile {
            path: p.clone(),
            bytes,
        });
    }
    let Counted {
        report,
        map,
        mut runs,
    } = count(inputs, opts, shard, progress)?;
    let mut info = CountsInfo {
        kifu: env!("CARGO_PKG_VERSION").to_string(),
        inputs: files,
        max_ply: opts.max_ply,
        compat: counts::compat_name(opts.compat).to_string(),
        shard: (shard.number(), shard.count()),
        games: report.games,
        plies: report.plies,
        skipped: report
            .skipped
            .iter()
            .map(|s| counts::SkippedEntry {
                file: inputs.iter().position(|p| *p == s.path).unwrap_or(0),
                game: s.game,
                reason: s.reason.clone(),
            })
            .collect(),
        records: 0,
        check: None,
    };
    counts::write_counts(w, &mut info, &mut |emit| {
        runs.for_each_merged(&map, |key, moves| {
            for (mv, a) in moves {
                emit(key, *mv, a)?;
            }
            Ok(())
        })
    })?;
    Ok(info)
}

/// Makes the book from the counts files of every shard of a job ([`make_counts`]), in any
/// order: the same entries, in the same order, as [`make_book_to`] over the same games with
/// the same options. The parts must agree on the inputs, `max_ply` and the compatibility mode
/// (`opts.max_ply` and `opts.compat` are taken from them); the PGN files are read again only if
/// a move reached [`COUNT_MAX`] games (halving), and then must be unchanged.
pub fn make_book_from_counts(
    parts: &[PathBuf],
    opts: &MakeOptions,
    sink: &mut dyn FnMut(&Entry) -> Result<()>,
) -> Result<(MakeReport, CountsInfo)> {
    let opened = parts
        .iter()
        .map(|p| CountsPart::open(p))
        .collect::<Result<Vec<_>>>()?;
    let mut runs = RunSet::new(opts.temp_dir.as_deref());
    let info = counts::combine(opened, &mut runs)?;
    let mut opts = opts.clone();
    opts.max_ply = info.max_ply;
    opts.compat = if info.compat == "polyglot" {
        Compat::Polyglot
    } else {
        Compat::Kifu
    };
    let inputs: Vec<PathBuf> = info.inputs.iter().map(|f| f.path.clone()).collect();
    let report = MakeReport {
        games: info.games,
        plies: info.plies,
        skipped: counts::skipped_games(&info),
        ..MakeReport::default()
    };
    let counted = Counted {
        report,
        map: AggMap::default(),
        runs,
    };
    let check_inputs = || -> Result<()> {
        for f in &info.inputs {
            let meta = std::fs::metadata(&f.path).map_err(|e| Error::io(&f.path, e))?;
            // A counts file names the PGN files to read again: only regular files (a FIFO or
            // a device named there would be read forever).
            if !meta.is_file() {
                return Err(Error::Counts {
                    path: f.path.clone(),
                    reason: "not a regular file: the games cannot be read again".into(),
                });
            }
            let now = meta.len();
            if now != f.bytes {
                return Err(Error::Counts {
                    path: f.path.clone(),
                    reason: format!(
                        "{now} bytes now, {} when it was counted: halving needs the same games",
                        f.bytes
                    ),
                });
            }
        }
        Ok(())
    };
    let report = finish_checked(&inputs, &opts, counted, sink, &check_inputs)?;
    Ok((report, info))
}

/// Second half of make-book: the positions where a move reached [`COUNT_MAX`] replayed
/// exactly, then filtering, weights and book order.
fn finish(
    inputs: &[PathBuf],
    opts: &MakeOptions,
    counted: Counted,
    sink: &mut dyn FnMut(&Entry) -> Result<()>,
) -> Result<MakeReport> {
    finish_checked(inputs, opts, counted, sink, &|| Ok(()))
}

fn finish_checked(
    inputs: &[PathBuf],
    opts: &MakeOptions,
    counted: Counted,
    sink: &mut dyn FnMut(&Entry) -> Result<()>,
    before_second_pass: &dyn Fn() -> Result<()>,
) -> Result<MakeReport> {
    let Counted {
        mut report,
        mut map,
        mut runs,
    } = counted;
    report.runs_spilled = runs.len();

    // Positions where some move reached COUNT_MAX: halving happened, replay them exactly.
    let mut hot: HashMap<u64, Vec<(u16, u64, u64)>> = HashMap::new();
    if runs.len() == 0 {
        // Everything is in memory: no merge (and no sort) is needed to find them.
        for (&(key, _), a) in &map {
            if a.n >= u64::from(COUNT_MAX) {
                hot.insert(key, Vec::new());
            }
        }
    } else {
        runs.for_each_merged(&map, |key, moves| {
            if moves.iter().any(|(_, a)| a.n >= u64::from(COUNT_MAX)) {
                hot.insert(key, Vec::new());
            }
            Ok(())
        })?;
    }
    report.halved_keys = hot.len();
    if !hot.is_empty() {
        before_second_pass()?;
        simulate_halving(inputs, opts, &mut hot)?;
    }

    let min_score = opts.min_score / 100.0;
    let mut pairs = 0u64;
    if runs.len() == 0 {
        // Most pairs are seen once or twice and fail -min-game: drop them before the
        // sort, which then orders only what can be written. Their counts are final
        // (no run holds more of them); hot keys are recounted, so they stay.
        pairs = map.len() as u64;
        let min_game = u64::from(opts.min_game);
        map.retain(|(key, _), a| a.n >= min_game || hot.contains_key(key));
    }
    let counted_already = runs.len() == 0;
    let mut group: Vec<(Entry, u64)> = Vec::new();
    runs.for_each_merged(&map, |key, moves| {
        if !counted_already {
            pairs += moves.len() as u64;
        }
        group.clear();
        let exact = hot.get(&key);
        for (mv, a) in moves {
            let (n, sum) = match exact {
                Some(list) => list
                    .iter()
                    .find(|(m, _, _)| m == mv)
                    .map(|&(_, n, s)| (n, s))
                    .unwrap_or((a.n, a.sum)),
                None => (a.n, a.sum),
            };
            if !keep(n, sum, a.white, min_score, opts) {
                continue;
            }
            let weight = if opts.uniform {
                1
            } else {
                sum.min(65535) as u16
            };
            group.push((
                Entry {
                    key,
                    raw_move: RawMove(*mv),
                    weight,
                    learn: 0,
                },
                a.first,
            ));
        }
        group.sort_by(|a, b| b.0.weight.cmp(&a.0.weight).then(a.1.cmp(&b.1)));
        report.written += group.len() as u64;
        for (e, _) in &group {
            sink(e)?;
        }
        Ok(())
    })?;
    report.pairs = pairs;
    Ok(report)
}

/// Polyglot's `keep_entry`.
fn keep(n: u64, sum: u64, white: bool, min_score: f64, opts: &MakeOptions) -> bool {
    if n < u64::from(opts.min_game) || sum == 0 {
        return false;
    }
    let score = (sum as f64 / n as f64) / 2.0;
    if score < min_score {
        return false;
    }
    // -only-white removes Black's moves and vice versa; Polyglot lets the last one win.
    if (opts.only_white && !white) || (opts.only_black && white) {
        return false;
    }
    true
}

/// Second pass: replays the games in order and applies Polyglot's counting with halving,
/// only for the `hot` keys. Fills each key's list with (move, n, sum) in first-seen order.
fn simulate_halving(
    inputs: &[PathBuf],
    opts: &MakeOptions,
    hot: &mut HashMap<u64, Vec<(u16, u64, u64)>>,
) -> Result<()> {
    let mut stream = GameStream::new(inputs, opts.compat);
    loop {
        let batch = stream.next_batch()?;
        if batch.is_empty() {
            return Ok(());
        }
        let replayed: Vec<_> = batch
            .par_iter()
            .map(|(_, g)| replay(g, opts.max_ply, opts.compat))
            .collect();
        for events in replayed.into_iter().flatten() {
            for ev in events {
                let Some(list) = hot.get_mut(&ev.key) else {
                    continue;
                };
                let i = match list.iter().position(|(m, _, _)| *m == ev.mv.0) {
                    Some(i) => i,
                    None => {
                        list.push((ev.mv.0, 0, 0));
                        list.len() - 1
                    }
                };
                list[i].1 += 1;
                list[i].2 += u64::from(ev.delta);
                if list[i].1 >= u64::from(COUNT_MAX) {
                    for e in list.iter_mut() {
                        e.1 = e.1.div_ceil(2);
                        e.2 = e.2.div_ceil(2);
                    }
                }
            }
        }
    }
}

/// The path's display name for a header comment.
pub fn file_names(inputs: &[PathBuf]) -> String {
    inputs
        .iter()
        .map(|p| {
            Path::new(p).file_name().map_or_else(
                || p.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}
