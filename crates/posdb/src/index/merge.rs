//! Merging the parts of a sharded index build into the index one build over all the files
//! writes, byte for byte.
//!
//! Part `I` of `N` is an ordinary index of the input files whose place in the input (from 0)
//! modulo `N` is `I - 1`, in input order (`kifu pos index --shard I/N`). One build numbers files in
//! input order and games in file order, and sorts the entries by their bytes (key, then game,
//! then move). So the merge walks the input's files in order, taking each from its part: file
//! numbers, game numbers and strings are laid out as one build lays them out. A part's games
//! keep their order under the new numbers, so each part's entries stay sorted once renumbered,
//! and a k-way merge of the parts' entries gives one build's order; the summaries are built as
//! the merged entries stream out, as a build builds them.

use super::build::{write_index, Spool, Tables};
use super::file::IndexFile;
use super::format::{Entry, FileRecord, GameRecord, Header, ENTRY_BYTES, FILE_BYTES, GAME_BYTES};
use super::{IndexError, IndexOptions, IndexSummary};
use kifu_go::{ZobristKeys, ZobristTable};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One part, opened.
struct Part {
    path: PathBuf,
    file: IndexFile,
    header: Header,
    zobrist: String,
    strings: Vec<u8>,
    files: Vec<FileRecord>,
    games: Vec<GameRecord>,
}

impl Part {
    fn open(path: &Path) -> Result<Part, IndexError> {
        let file = IndexFile::open(path)?;
        let header = file.header;
        let zobrist = String::from_utf8(file.read_vec(header.zobrist_off, header.zobrist_len)?)
            .map_err(|_| IndexError::Format("a Zobrist table that is not text"))?;
        let strings = file.read_vec(header.strings_off(), header.strings_len)?;
        let files = file
            .read_vec(header.files_off, header.files * FILE_BYTES as u64)?
            .as_chunks::<FILE_BYTES>()
            .0
            .iter()
            .map(FileRecord::decode)
            .collect();
        let games = file
            .read_vec(header.games_off, header.games * GAME_BYTES as u64)?
            .as_chunks::<GAME_BYTES>()
            .0
            .iter()
            .map(GameRecord::decode)
            .collect();
        Ok(Part {
            path: path.to_path_buf(),
            file,
            header,
            zobrist,
            strings,
            files,
            games,
        })
    }

    fn string(&self, off: u64, len: u32) -> Result<&str, IndexError> {
        let end = off
            .checked_add(u64::from(len))
            .filter(|&e| e <= self.strings.len() as u64)
            .ok_or(IndexError::Format("a string outside the strings"))?;
        std::str::from_utf8(&self.strings[off as usize..end as usize])
            .map_err(|_| IndexError::Format("a string that is not UTF-8"))
    }
}

/// Entries a stream reads at a time (about 64 KiB).
const STREAM_ENTRIES: u64 = 2520;

/// A part's entries, streamed (read and checked a few thousand at a time), with their games
/// renumbered.
struct Stream<'p> {
    part: &'p Part,
    /// Entries read and not yet taken.
    buf: Vec<u8>,
    /// Where the next entry is in `buf`.
    at: usize,
    /// The next entry to read from the file.
    next: u64,
    /// New game number of each of the part's games.
    games: Vec<u32>,
}

impl Stream<'_> {
    fn next(&mut self) -> Result<Option<[u8; ENTRY_BYTES]>, IndexError> {
        if self.at == self.buf.len() {
            let left = self.part.header.entries - self.next;
            if left == 0 {
                return Ok(None);
            }
            let n = left.min(STREAM_ENTRIES);
            let off = self.part.header.entry_off(self.next);
            self.buf = self
                .part
                .file
                .read_vec(off, n * ENTRY_BYTES as u64)
                .map_err(|e| IndexError::Part {
                    path: self.part.path.clone(),
                    reason: e.to_string(),
                })?;
            self.next += n;
            self.at = 0;
        }
        let b: &[u8; ENTRY_BYTES] = self.buf[self.at..self.at + ENTRY_BYTES]
            .try_into()
            .expect("whole entries");
        self.at += ENTRY_BYTES;
        let mut e = Entry::decode(b);
        e.game = *self.games.get(e.game as usize).ok_or(IndexError::Format(
            "an entry of a game the part does not have",
        ))?;
        Ok(Some(e.encode()))
    }
}

/// How the files of the parts make the input of the one build they stand for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Shards: file `g` of the input is file `g / N` of part `g % N` (`kifu pos index --shard`).
    Shards,
    /// One after the other: the files of the first part, then those of the second... (an index
    /// with games added: the old index, then the index of the new files).
    Concatenated,
}

/// Merges `parts` into `out`: the index of one build over their files laid out as `layout`
/// says (for shards, part `I` of `N` is `parts[I - 1]`: the caller orders them), with the board
/// size, variations, Zobrist table, summary threshold and cut by stones they were built with
/// (all alike, or the part that differs is named); temporary files go to `temp_dir`. Returns
/// its counts (files, games, positions, entries, summaries).
pub fn merge_index_parts(
    parts: &[PathBuf],
    layout: Layout,
    temp_dir: Option<PathBuf>,
    out: &mut dyn Write,
) -> Result<IndexSummary, IndexError> {
    let parts = parts
        .iter()
        .map(|p| {
            Part::open(p).map_err(|e| match e {
                IndexError::Part { .. } => e,
                e => IndexError::Part {
                    path: p.clone(),
                    reason: e.to_string(),
                },
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let n = parts.len();
    let Some(first) = parts.first() else {
        return Err(IndexError::Format("no parts to merge"));
    };
    let table = ZobristTable::parse(first.zobrist.as_bytes()).map_err(|e| IndexError::Part {
        path: first.path.clone(),
        reason: format!("its Zobrist table: {e}"),
    })?;
    let mut opts = IndexOptions::new(first.header.size);
    opts.keys = Arc::new(ZobristKeys::new(table));
    opts.variations = first.header.variations;
    opts.summary_threshold = first.header.summary_threshold;
    opts.most_stones = first.header.most_stones;
    opts.temp_dir = temp_dir;
    let opts = &opts;
    let zobrist = first.zobrist.clone();
    for p in &parts {
        let h = &p.header;
        if h.size != opts.size
            || h.variations != opts.variations
            || p.zobrist != zobrist
            || h.summary_threshold != opts.summary_threshold.max(1)
            || h.most_stones != opts.most_stones
        {
            return Err(IndexError::Part {
                path: p.path.clone(),
                reason: "built with another board size, variations, Zobrist table, summary \
                         threshold or cut by stones than the first part"
                    .into(),
            });
        }
    }
    // Files in input order, each from its part; games renumbered in that order.
    let total_files: u64 = parts.iter().map(|p| p.header.files).sum();
    let mut tables = Tables {
        games: Spool::new(&opts.temp_dir)?,
        strings: Spool::new(&opts.temp_dir)?,
        files: Vec::with_capacity(total_files as usize),
    };
    let mut renumber: Vec<Vec<u32>> = parts.iter().map(|p| vec![0; p.games.len()]).collect();
    let mut next_game = vec![0usize; n];
    let mut games = 0u64;
    let place: Box<dyn Fn(u64) -> (usize, u64)> = match layout {
        Layout::Shards => Box::new(|g| ((g % n as u64) as usize, g / n as u64)),
        Layout::Concatenated => {
            let starts: Vec<u64> = parts
                .iter()
                .scan(0u64, |acc, p| {
                    let start = *acc;
                    *acc += p.header.files;
                    Some(start)
                })
                .collect();
            Box::new(move |g| {
                let k = starts.partition_point(|&s| s <= g) - 1;
                (k, g - starts[k])
            })
        }
    };
    for g in 0..total_files {
        let (k, local) = place(g);
        let p = &parts[k];
        let Some(f) = p.files.get(local as usize) else {
            return Err(IndexError::Part {
                path: p.path.clone(),
                reason: format!(
                    "has {} files, but file {g} of the input should be its file {local}: \
                     the parts are not the N shards of one input",
                    p.files.len()
                ),
            });
        };
        let file_no = u32::try_from(g).map_err(|_| IndexError::TooMany)?;
        let path = tables.strings.push_str(p.string(f.path.off, f.path.len)?)?;
        tables.files.push(FileRecord { path });
        while let Some(r) = p.games.get(next_game[k]) {
            if u64::from(r.file) != local {
                break;
            }
            let text = p.string(r.strings.off, r.strings.len)?;
            let record = GameRecord {
                file: file_no,
                strings: tables.strings.push_str(text)?,
                ..*r
            };
            tables.games.write_all(&record.encode())?;
            renumber[k][next_game[k]] = u32::try_from(games).map_err(|_| IndexError::TooMany)?;
            next_game[k] += 1;
            games += 1;
        }
    }
    for (k, p) in parts.iter().enumerate() {
        if next_game[k] != p.games.len() {
            return Err(IndexError::Part {
                path: p.path.clone(),
                reason: "games out of file order".into(),
            });
        }
    }
    let entries: u64 = parts.iter().map(|p| p.header.entries).sum();
    let positions: u64 = parts.iter().map(|p| p.header.positions).sum();
    let mut streams: Vec<Stream<'_>> = parts
        .iter()
        .zip(renumber)
        .map(|(part, games)| Stream {
            part,
            buf: Vec::new(),
            at: 0,
            next: 0,
            games,
        })
        .collect();
    let summaries = write_index(
        out,
        opts,
        (positions, entries, games, total_files),
        tables,
        &mut |each| {
            let mut heap = BinaryHeap::with_capacity(n);
            for (k, s) in streams.iter_mut().enumerate() {
                if let Some(e) = s.next()? {
                    heap.push(Reverse((e, k)));
                }
            }
            while let Some(Reverse((e, k))) = heap.pop() {
                each(&e)?;
                if let Some(next) = streams[k].next()? {
                    if next < e {
                        return Err(IndexError::Format("a part's entries out of order"));
                    }
                    heap.push(Reverse((next, k)));
                }
            }
            Ok(())
        },
    )?;
    Ok(IndexSummary {
        files: total_files,
        games,
        positions,
        entries,
        summaries,
        ..IndexSummary::default()
    })
}
