//! Book counts: the intermediate file of a sharded `make-book`.
//!
//! A Polyglot book keeps scaled weights, which cannot be added up; a counts file keeps what
//! make-book counts before it weighs: for every (position key, move) of the games of one shard,
//! the games `n`, the sum of `result + 1` from the mover's side, where the pair was first seen,
//! and whether the mover was White. Counts of disjoint shards add up exactly, so
//! [`super::make_book_from_counts`] gives the same book, byte for byte, as one
//! [`super::make_book_to`] over all the games, whatever the number of shards and the order of
//! the parts.
//!
//! # Layout (all integers little-endian unless said)
//! ```text
//! "KIFUBKC1"                           8 bytes, magic
//! records, sorted by (key, move), each 35 bytes:
//!   key       u64 big-endian           the Polyglot key of the position
//!   move      u16 big-endian           the Polyglot move
//!   n         u64                      games that played it
//!   sum       u64                      sum of result + 1 (2 win, 1 draw or unknown, 0 loss)
//!   first     u64                      first seen: game number in the whole input << 20 | ply
//!   white     u8                       1 when White moved
//! trailer JSON (CountsInfo)             what was counted, from which files, which shard, and
//!                                      a checksum of the records and of itself (`check`)
//! trailer length u64, "KIFUBKC1"       16 bytes
//! ```
//! The game number in `first` counts every game of every input in order, whichever shard it
//! belongs to, so the earliest pair wins across parts as it does in one pass. The trailer says
//! how many records there are: a file cut short is refused, never merged; and its `check` is
//! the XXH3-64 of the records then of the trailer's JSON written with `check` null, so a
//! changed byte is refused too (the JSON is made again from what was read: serde_json writes
//! the same struct as the same bytes).

use super::runs::{Agg, RunSet, RUN_RECORD};
use super::{Compat, SkippedGame};
use crate::error::{Error, Result};
use kifu_fs::shard::{check_set, PartInfo, Shard};
use serde::{Deserialize, Serialize};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The magic at both ends of a counts file.
pub const COUNTS_MAGIC: &[u8; 8] = b"KIFUBKC1";
/// The most bytes a trailer may have (it lists the inputs and the skipped games).
const MAX_TRAILER: u64 = 64 << 20;

/// One input PGN file as the counts saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputFile {
    /// The path as given.
    pub path: PathBuf,
    /// Its size in bytes when it was counted (a merge that must read it again checks it).
    pub bytes: u64,
}

/// A skipped game, in a counts trailer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkippedEntry {
    /// Index of the file in [`CountsInfo::inputs`].
    pub file: usize,
    /// 1-based game number in that file.
    pub game: u64,
    /// Why it was skipped.
    pub reason: String,
}

/// The trailer of a counts file: what was counted. Unknown fields are refused: a damaged key
/// (`check` renamed) must not pass for a file of an older kifu without a checksum.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CountsInfo {
    /// The kifu version that wrote it.
    pub kifu: String,
    /// The PGN files, in order.
    pub inputs: Vec<InputFile>,
    /// Plies of each game counted.
    pub max_ply: u32,
    /// `kifu` or `polyglot`.
    pub compat: String,
    /// The shard, `[I, N]`.
    pub shard: (u64, u64),
    /// Games of the shard read (skipped ones included).
    pub games: u64,
    /// Plies counted.
    pub plies: u64,
    /// Games of the shard skipped as bad.
    pub skipped: Vec<SkippedEntry>,
    /// Records in the file.
    pub records: u64,
    /// XXH3-64 of the records' bytes, then of this trailer's JSON written with `check` null:
    /// a changed byte of either is refused when the file is opened. `None` in files of an
    /// older kifu (read unchecked); an older kifu ignores it.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "kifu_fs::shard::hex_checksum"
    )]
    pub check: Option<u64>,
}

impl CountsInfo {
    /// The settings that parts of one job share (everything but the shard and what it
    /// counted).
    fn same_job(&self, other: &CountsInfo) -> bool {
        (&self.inputs, self.max_ply, &self.compat) == (&other.inputs, other.max_ply, &other.compat)
    }
}

/// The name of a compatibility mode in a trailer.
pub fn compat_name(c: Compat) -> &'static str {
    match c {
        Compat::Kifu => "kifu",
        Compat::Polyglot => "polyglot",
    }
}

/// Takes each counted pair (key, move, counts), in order.
pub type PairSink<'a> = dyn FnMut(u64, u16, &Agg) -> Result<()> + 'a;

/// Writes a counts file: the magic, `records` (sorted by key then move, each pair once), the
/// trailer. `info.records` is set to the number written.
pub fn write_counts(
    w: &mut dyn Write,
    info: &mut CountsInfo,
    records: &mut dyn FnMut(&mut PairSink<'_>) -> Result<()>,
) -> Result<()> {
    w.write_all(COUNTS_MAGIC)?;
    let mut n = 0u64;
    let mut sum = Checksum::default();
    records(&mut |key, mv, a| {
        let r = super::runs::encode(key, mv, a);
        w.write_all(&r)?;
        sum.add(&r);
        n += 1;
        Ok(())
    })?;
    info.records = n;
    info.check = None;
    let unchecked = trailer_json(info)?;
    sum.add(&unchecked);
    info.check = Some(sum.value());
    let json = trailer_json(info)?;
    w.write_all(&json)?;
    w.write_all(&(json.len() as u64).to_le_bytes())?;
    w.write_all(COUNTS_MAGIC)?;
    Ok(())
}

/// The trailer's JSON bytes.
fn trailer_json(info: &CountsInfo) -> Result<Vec<u8>> {
    serde_json::to_vec(info).map_err(|e| Error::Stream(std::io::Error::other(e)))
}

/// XXH3-64 of bytes fed in pieces.
#[derive(Default)]
struct Checksum(twox_hash::XxHash3_64);

impl Checksum {
    fn add(&mut self, bytes: &[u8]) {
        std::hash::Hasher::write(&mut self.0, bytes);
    }

    fn value(&self) -> u64 {
        std::hash::Hasher::finish(&self.0)
    }
}

/// A counts file opened for merging: its trailer and its records' place.
#[derive(Debug)]
pub struct CountsPart {
    /// The file.
    pub path: PathBuf,
    /// Its trailer.
    pub info: CountsInfo,
    file: std::fs::File,
}

impl CountsPart {
    /// Opens a counts file and checks its frame: magic at both ends, a readable trailer, and
    /// exactly `records` whole records between them.
    pub fn open(path: &Path) -> Result<CountsPart> {
        let bad = |reason: String| Error::Counts {
            path: path.to_path_buf(),
            reason,
        };
        // Looked at before opening: opening a FIFO for reading waits for a writer for ever.
        let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
        if !meta.is_file() {
            return Err(bad(format!(
                "not a regular file ({})",
                kifu_fs::kind_name(&meta.file_type())
            )));
        }
        let mut file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
        let mut head = [0u8; 8];
        if len < 24 || file.read_exact(&mut head).is_err() || &head != COUNTS_MAGIC {
            return Err(bad(format!(
                "not a kifu book counts file ({len} bytes; it does not start with KIFUBKC1)"
            )));
        }
        let mut tail = [0u8; 16];
        file.seek(SeekFrom::Start(len - 16))
            .and_then(|_| file.read_exact(&mut tail))
            .map_err(|e| Error::io(path, e))?;
        if &tail[8..] != COUNTS_MAGIC {
            return Err(bad(format!(
                "cut short or damaged: no KIFUBKC1 at its end (byte offset {})",
                len - 8
            )));
        }
        let json_len = u64::from_le_bytes(tail[..8].try_into().expect("8 bytes"));
        if json_len > MAX_TRAILER || json_len > len - 24 {
            return Err(bad(format!(
                "trailer length {json_len} does not fit the file"
            )));
        }
        let json_at = len - 16 - json_len;
        let mut json = vec![0u8; json_len as usize];
        file.seek(SeekFrom::Start(json_at))
            .and_then(|_| file.read_exact(&mut json))
            .map_err(|e| Error::io(path, e))?;
        let info: CountsInfo = serde_json::from_slice(&json)
            .map_err(|e| bad(format!("trailer at byte offset {json_at}: {e}")))?;
        let body = json_at - 8;
        if body % RUN_RECORD as u64 != 0 || body / RUN_RECORD as u64 != info.records {
            return Err(bad(format!(
                "{body} bytes of records where the trailer says {} records of {RUN_RECORD} bytes",
                info.records
            )));
        }
        if let Some(check) = info.check {
            // The records read once here, at disk speed, so that a damaged part is refused
            // before anything is merged (the merge reads them again, run by run).
            let mut sum = Checksum::default();
            file.seek(SeekFrom::Start(8))
                .map_err(|e| Error::io(path, e))?;
            let mut left = body;
            let mut buf = vec![0u8; 1 << 20];
            while left > 0 {
                let n = left.min(buf.len() as u64) as usize;
                file.read_exact(&mut buf[..n])
                    .map_err(|e| Error::io(path, e))?;
                sum.add(&buf[..n]);
                left -= n as u64;
            }
            sum.add(&trailer_json(&CountsInfo {
                check: None,
                ..info.clone()
            })?);
            if sum.value() != check {
                return Err(bad(format!(
                    "damaged: its records (byte offsets 8 to {json_at}) or its trailer do not \
                     match their checksum; count that shard again"
                )));
            }
        }
        Ok(CountsPart {
            path: path.to_path_buf(),
            info,
            file,
        })
    }

    /// The shard it was counted as.
    pub fn shard(&self) -> Option<Shard> {
        Shard::new(self.info.shard.0, self.info.shard.1).ok()
    }
}

/// Checks that `parts` are one whole job (the same inputs and settings, every shard 1..=N
/// once) and hands their records to `runs` as sorted runs. Returns the combined trailer
/// (games, plies and skipped games of all parts; skipped games in input order).
pub fn combine(parts: Vec<CountsPart>, runs: &mut RunSet) -> Result<CountsInfo> {
    let infos: Vec<PartInfo> = parts
        .iter()
        .map(|p| PartInfo {
            path: p.path.clone(),
            shard: p.shard(),
            complete: true,
        })
        .collect();
    check_set(&infos)?;
    let first = parts[0].info.clone();
    let mut all = CountsInfo {
        shard: (1, 1),
        games: 0,
        plies: 0,
        skipped: Vec::new(),
        records: 0,
        check: None,
        ..first.clone()
    };
    let mut skipped: Vec<(u64, SkippedEntry)> = Vec::new();
    for p in parts {
        if !p.info.same_job(&first) {
            return Err(Error::Counts {
                path: p.path.clone(),
                reason: format!(
                    "counted from other games or settings than {} (inputs, sizes, max ply, compat)",
                    infos[0].path.display()
                ),
            });
        }
        all.games += p.info.games;
        all.plies += p.info.plies;
        all.records += p.info.records;
        skipped.extend(
            p.info
                .skipped
                .iter()
                .map(|s| ((s.file as u64) << 40 | s.game, s.clone())),
        );
        runs.add_file(p.file, 8, p.info.records);
    }
    skipped.sort_by_key(|(order, _)| *order);
    all.skipped = skipped.into_iter().map(|(_, s)| s).collect();
    Ok(all)
}

/// The skipped games of a trailer as [`SkippedGame`]s.
pub fn skipped_games(info: &CountsInfo) -> Vec<SkippedGame> {
    info.skipped
        .iter()
        .map(|s| SkippedGame {
            path: info
                .inputs
                .get(s.file)
                .map_or_else(PathBuf::new, |f| f.path.clone()),
            game: s.game,
            reason: s.reason.clone(),
        })
        .collect()
}
