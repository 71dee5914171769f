//! Scored files as a scoring run and a merge use them: read with a torn last record cut off,
//! opened for appending under a lock, merged by one rule, compared.
//!
//! These are the rules every skin (the CLI, Slurm tasks, the Python package) follows, so they
//! live here and not in a binary:
//! - **Resume.** [`read_scored`] with `repair` truncates a torn last record in place (a kill
//!   mid-append leaves at most one), and refuses a file with bytes but not one whole record: it
//!   is not a scored file, and cutting it would destroy it.
//! - **One writer.** [`open_for_append`] takes an exclusive lock for the whole run; a second run
//!   on the same file fails at once, naming the holder's process id.
//! - **Merge rule.** [`merge_scored`]: an id scored differently in several inputs keeps the
//!   record with the highest confidence, and among equal confidences the first input's.
//! - **Compare.** [`compare`]: where two scorers disagree, as one serde type.

use crate::id::PositionId;
use crate::io::ScoredReader;
use crate::record::{ScoredPosition, SCORED_BYTES};
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::BufReader;
use std::path::{Path, PathBuf};

/// Why a scored file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ScoredError {
    /// The file could not be opened, read, truncated or synced.
    #[error("{}: {what}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What kifu was doing.
        what: &'static str,
        /// Why.
        source: std::io::Error,
    },
    /// Bytes, but not one whole record.
    #[error("{}: not a scored file ({len} bytes, not one whole {SCORED_BYTES}-byte record); it is left as it is: remove it or choose another output", path.display())]
    NotScored {
        /// The file.
        path: PathBuf,
        /// Its length.
        len: u64,
    },
    /// A bad record (record number and byte offset in the message).
    #[error("{}: not a scored file, left as it is: {source}", path.display())]
    Record {
        /// The file.
        path: PathBuf,
        /// The reader's error.
        source: crate::io::ReadError,
    },
    /// The lock or the output path (another run holds it, not a regular file).
    #[error(transparent)]
    Fs(#[from] kifu_fs::FsError),
}

/// Where a torn last record was cut off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Repair {
    /// The record's number (from 0).
    pub record: u64,
    /// Its byte offset.
    pub offset: u64,
    /// Bytes cut.
    pub bytes_cut: u64,
}

/// The whole records of a scored file.
#[derive(Debug, Clone, Default)]
pub struct ScoredFile {
    /// The records, in file order.
    pub records: Vec<ScoredPosition>,
    /// Set when a torn last record was cut off.
    pub repaired: Option<Repair>,
}

/// Reads a scored file. With `repair`, a missing file is empty and a torn last record is
/// truncated away in place; without, both are errors.
pub fn read_scored(path: &Path, repair: bool) -> Result<ScoredFile, ScoredError> {
    let io = |what, source| ScoredError::Io {
        path: path.to_path_buf(),
        what,
        source,
    };
    let f = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && repair => {
            return Ok(ScoredFile::default())
        }
        Err(e) => return Err(io("cannot open", e)),
    };
    let len = f.metadata().map_err(|e| io("cannot read", e))?.len();
    let mut out = ScoredFile::default();
    for item in ScoredReader::new(BufReader::with_capacity(1 << 16, f)) {
        match item {
            Ok(r) => out.records.push(r),
            Err(e) if e.is_torn() && repair && e.record > 0 => {
                let f = OpenOptions::new()
                    .write(true)
                    .open(path)
                    .map_err(|e| io("cannot open to repair", e))?;
                f.set_len(e.offset).map_err(|e| io("cannot truncate", e))?;
                f.sync_all().map_err(|e| io("cannot sync", e))?;
                out.repaired = Some(Repair {
                    record: e.record,
                    offset: e.offset,
                    bytes_cut: len - e.offset,
                });
            }
            Err(e) if e.is_torn() && repair => {
                return Err(ScoredError::NotScored {
                    path: path.to_path_buf(),
                    len,
                })
            }
            Err(source) => {
                return Err(ScoredError::Record {
                    path: path.to_path_buf(),
                    source,
                })
            }
        }
    }
    Ok(out)
}

/// Opens the scored file a run appends to, creating it, and locks it for the whole run (the
/// lock goes with the file): a second run on the same file would score every position again and
/// could cut a record this one is still appending. Symlinks are followed; anything but a regular
/// file is refused.
pub fn open_for_append(path: &Path) -> Result<File, ScoredError> {
    let target = kifu_fs::atomic::resolve_symlinks(path)?;
    kifu_fs::existing_regular_file(&target)?;
    let out = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&target)
        .map_err(|source| ScoredError::Io {
            path: path.to_path_buf(),
            what: "cannot open for appending",
            source,
        })?;
    kifu_fs::lock::lock_exclusive(&out, path, kifu_fs::lock::Wait::Fail)?;
    Ok(out)
}

/// The result of [`merge_scored`].
#[derive(Debug, Clone, Default)]
pub struct MergedScores {
    /// One record per id: in order of first appearance, or sorted by id.
    pub records: Vec<ScoredPosition>,
    /// Records read.
    pub read: u64,
    /// Ids scored differently in several inputs.
    pub conflicts: u64,
}

/// Merges scored files in priority order: for an id present in several inputs with different
/// records, the highest confidence wins, and among equal confidences the first input. The output
/// keeps the order of first appearance, or with `sort` is sorted by id (the canonical form: the
/// same bytes however the work was split).
pub fn merge_scored(inputs: &[PathBuf], sort: bool) -> Result<MergedScores, ScoredError> {
    let mut order: Vec<PositionId> = Vec::new();
    let mut kept: HashMap<PositionId, ScoredPosition> = HashMap::new();
    let mut out = MergedScores::default();
    for path in inputs {
        for s in read_scored(path, false)?.records {
            out.read += 1;
            match kept.get_mut(&s.id) {
                None => {
                    order.push(s.id);
                    kept.insert(s.id, s);
                }
                Some(old) => {
                    if *old != s {
                        out.conflicts += 1;
                        if s.confidence > old.confidence {
                            *old = s;
                        }
                    }
                }
            }
        }
    }
    if sort {
        order.sort_unstable();
    }
    out.records = order.iter().map(|id| kept[id]).collect();
    Ok(out)
}

/// One score in a [`Comparison`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ScoreSide {
    /// The score byte (3..8).
    pub score: u8,
    /// The confidence in percent.
    pub confidence: u8,
}

/// A position the two files score differently.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Disagreement {
    /// The position's id.
    pub id: String,
    /// Its score in the first file.
    pub a: ScoreSide,
    /// Its score in the second file.
    pub b: ScoreSide,
}

/// Where two scored files agree and disagree: the JSON of `kifu pos compare --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Comparison {
    /// The first file.
    pub a: String,
    /// The second file.
    pub b: String,
    /// Positions scored in both.
    pub in_both: u64,
    /// Of those, scored alike.
    pub agree: u64,
    /// Of those, scored differently.
    pub disagree: u64,
    /// Positions only in the first file.
    pub only_in_a: u64,
    /// Positions only in the second file.
    pub only_in_b: u64,
    /// Positions in both by score difference 0, 1, 2, 3, 4, 5 or more.
    pub by_difference: [u64; 6],
    /// The first disagreements, in the first file's order.
    pub disagreements: Vec<Disagreement>,
}

/// Compares two scored files (the first record of an id counts), listing at most `limit`
/// disagreements.
pub fn compare(a: &Path, b: &Path, limit: usize) -> Result<Comparison, ScoredError> {
    let ra = read_scored(a, false)?.records;
    let rb = read_scored(b, false)?.records;
    let mut mb: HashMap<PositionId, ScoredPosition> = HashMap::with_capacity(rb.len());
    for s in rb {
        mb.entry(s.id).or_insert(s);
    }
    let mut seen = HashSet::new();
    let (mut both, mut agree) = (0u64, 0u64);
    let mut by_difference = [0u64; 6];
    let mut listed = Vec::new();
    for s in &ra {
        if !seen.insert(s.id) {
            continue;
        }
        let Some(t) = mb.get(&s.id) else { continue };
        both += 1;
        let d = s.score.abs_diff(t.score);
        by_difference[usize::from(d).min(5)] += 1;
        if d == 0 {
            agree += 1;
        } else if listed.len() < limit {
            listed.push(Disagreement {
                id: s.id.to_string(),
                a: ScoreSide {
                    score: s.score,
                    confidence: s.confidence,
                },
                b: ScoreSide {
                    score: t.score,
                    confidence: t.confidence,
                },
            });
        }
    }
    let only_in_a = seen.iter().filter(|id| !mb.contains_key(id)).count() as u64;
    let only_in_b = mb.keys().filter(|id| !seen.contains(id)).count() as u64;
    Ok(Comparison {
        a: a.display().to_string(),
        b: b.display().to_string(),
        in_both: both,
        agree,
        disagree: both - agree,
        only_in_a,
        only_in_b,
        by_difference,
        disagreements: listed,
    })
}
