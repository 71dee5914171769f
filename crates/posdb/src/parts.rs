//! Parts of a sharded extraction, and their exact merge.
//!
//! `kifu pos extract --shard I/N -o PART` writes three files:
//! - `PART`: a position file with the positions of shard I (canonical hash modulo N = I - 1),
//!   in input order, usable as it is;
//! - `PART.order`: for each record, the place (u64, big-endian) of its occurrence in the whole
//!   input, the number that orders one pass's output;
//! - `PART.json`: the manifest ([`PartManifest`]), written last: what was extracted, how, from
//!   which files, which shard, how many records.
//!
//! [`merge_extract_parts`] checks that the parts make one whole job ([`kifu_fs::shard::check_set`],
//! the same settings and inputs, record counts that match their files) and writes the records of
//! all parts in the order of their places: the bytes of one pass over the same inputs.

use crate::provenance::sidecar_path;
use kifu_fs::shard::{check_set, PartInfo, Shard, ShardError};
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};

/// What a part of a sharded extraction or index build holds and how it was made. Unknown
/// fields are refused: a damaged key (a checksum's name changed) must not pass for a manifest
/// of an older kifu without checksums.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartManifest {
    /// `"extract"` or `"index"`: tells the two apart, and from a scored file's provenance.
    pub job: String,
    /// The kifu version that wrote it.
    pub kifu: String,
    /// The settings every part of the job shares, as `name=value` texts (board size, scope,
    /// move range, occurrences, extra info, the Zobrist table's checksum).
    pub settings: Vec<String>,
    /// The input files, in order.
    pub inputs: Vec<String>,
    /// The shard, `[I, N]`.
    pub shard: (u64, u64),
    /// Bytes of one record.
    pub record_bytes: u64,
    /// Records in the part.
    pub records: u64,
    /// XXH3-64 of the part's records (extraction parts; `None` from an older kifu, read
    /// unchecked). In the JSON, 16 hexadecimal digits.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "kifu_fs::shard::hex_checksum"
    )]
    pub records_xxh3: Option<u64>,
    /// XXH3-64 of the part's order file (as `records_xxh3`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "kifu_fs::shard::hex_checksum"
    )]
    pub order_xxh3: Option<u64>,
    /// Index parts: the check of the part's index file (its trailer's, which covers every
    /// byte through the checksums of its blocks), so that a part's files replaced by another
    /// shard's, or rewritten, are refused by the merge.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "kifu_fs::shard::hex_checksum"
    )]
    pub index_check: Option<u64>,
}

/// A writer or reader that passes bytes through and sums them (XXH3-64): how an extraction
/// part's files get the checksums its manifest holds, and how a merge checks them as it reads.
pub struct Summed<T> {
    inner: T,
    sum: twox_hash::XxHash3_64,
}

impl<T> Summed<T> {
    /// Sums what goes through `inner`.
    pub fn new(inner: T) -> Summed<T> {
        Summed {
            inner,
            sum: twox_hash::XxHash3_64::default(),
        }
    }

    /// The checksum of the bytes so far.
    pub fn sum(&self) -> u64 {
        std::hash::Hasher::finish(&self.sum)
    }
}

impl<W: Write> Write for Summed<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        std::hash::Hasher::write(&mut self.sum, &buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<R: Read> Read for Summed<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        std::hash::Hasher::write(&mut self.sum, &buf[..n]);
        Ok(n)
    }
}

/// Why parts could not be merged.
#[derive(Debug, thiserror::Error)]
pub enum PartsError {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The output could not be written.
    #[error("cannot write the merged file: {0}")]
    Write(std::io::Error),
    /// A part's manifest is missing or not one kifu writes.
    #[error("{}: {message}", path.display())]
    Manifest {
        /// The part.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The parts are not one whole job.
    #[error(transparent)]
    Set(#[from] ShardError),
}

/// The order file of the part `dat`: `dat` with `.order` appended.
pub fn order_path(dat: &Path) -> PathBuf {
    let mut s = dat.as_os_str().to_os_string();
    s.push(".order");
    PathBuf::from(s)
}

impl PartManifest {
    /// Reads the manifest of the part `dat` (`dat.json`) of a `job` (`extract`, `index`).
    pub fn read(dat: &Path, job: &str) -> Result<PartManifest, PartsError> {
        let path = sidecar_path(dat);
        let bytes = std::fs::read(&path).map_err(|e| PartsError::Manifest {
            path: dat.to_path_buf(),
            message: format!(
                "no part manifest {} ({e}): not a part of a sharded run, or its task did not finish",
                path.display()
            ),
        })?;
        let part: PartManifest =
            serde_json::from_slice(&bytes).map_err(|e| PartsError::Manifest {
                path: path.clone(),
                message: format!("not a kifu part manifest: {e}"),
            })?;
        if part.job != job {
            return Err(PartsError::Manifest {
                path,
                message: format!("a part of a {:?} job, not of {job:?}", part.job),
            });
        }
        Ok(part)
    }

    /// The manifest's text.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("plain data serializes");
        s.push('\n');
        s
    }
}

/// The job of the part `dat` from its manifest (`extract`, `index`), `None` for anything else
/// (a scored file's provenance has no job): how `kifu pos merge --shards` tells jobs apart.
pub fn part_job(dat: &Path) -> Option<String> {
    std::fs::read(sidecar_path(dat))
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .and_then(|v| v.get("job").and_then(|j| j.as_str()).map(str::to_string))
}

/// Reads and checks the manifests of the parts of one `job`: one whole split (every shard once,
/// see [`check_set`]) made with the same settings from the same inputs. Returns the manifests
/// in the order of `parts`.
pub fn check_manifests(parts: &[PathBuf], job: &str) -> Result<Vec<PartManifest>, PartsError> {
    let manifests = parts
        .iter()
        .map(|p| PartManifest::read(p, job))
        .collect::<Result<Vec<_>, _>>()?;
    let infos: Vec<PartInfo> = parts
        .iter()
        .zip(&manifests)
        .map(|(p, m)| PartInfo {
            path: p.clone(),
            shard: Shard::new(m.shard.0, m.shard.1).ok(),
            complete: true,
        })
        .collect();
    check_set(&infos)?;
    let first = &manifests[0];
    for (p, m) in parts.iter().zip(&manifests) {
        if (&m.settings, &m.inputs, m.record_bytes)
            != (&first.settings, &first.inputs, first.record_bytes)
        {
            return Err(PartsError::Manifest {
                path: p.clone(),
                message: format!(
                    "made from other inputs or with other settings than {}",
                    parts[0].display()
                ),
            });
        }
    }
    Ok(manifests)
}

/// One part being merged: its records and their places, summed as they are read.
struct Open {
    records: Summed<BufReader<std::fs::File>>,
    order: Summed<BufReader<std::fs::File>>,
    left: u64,
    path: PathBuf,
}

impl Open {
    /// Once every record is read: checks the sums against the manifest's.
    fn check(&self, m: &PartManifest) -> Result<(), PartsError> {
        for (sum, want, path) in [
            (self.records.sum(), m.records_xxh3, self.path.clone()),
            (self.order.sum(), m.order_xxh3, order_path(&self.path)),
        ] {
            if want.is_some_and(|w| w != sum) {
                return Err(PartsError::Manifest {
                    path,
                    message: "damaged: its bytes do not match the checksum of its manifest; \
                              extract that shard again"
                        .into(),
                });
            }
        }
        Ok(())
    }
}

impl Open {
    fn next_place(&mut self) -> Result<Option<u64>, PartsError> {
        if self.left == 0 {
            return Ok(None);
        }
        let mut b = [0u8; 8];
        self.order
            .read_exact(&mut b)
            .map_err(|source| PartsError::Io {
                path: order_path(&self.path),
                source,
            })?;
        Ok(Some(u64::from_be_bytes(b)))
    }
}

/// Merges the parts of a sharded extraction into `out`, in the order of one pass. Returns the
/// number of records written. Parts may be given in any order; the manifests and the files'
/// lengths are checked before the first byte is written, and each part's files against its
/// manifest's checksums as they are read: a damaged part fails the merge when its last record
/// is read, so `out` must be a file that is kept only when the merge succeeds (the CLI writes
/// a temporary file and renames it).
pub fn merge_extract_parts(parts: &[PathBuf], out: &mut dyn Write) -> Result<u64, PartsError> {
    let manifests = check_manifests(parts, "extract")?;
    let first = &manifests[0];
    let mut open = Vec::with_capacity(parts.len());
    for (p, m) in parts.iter().zip(&manifests) {
        let io = |path: &Path| {
            // Looked at before opening: opening a FIFO for reading waits for a writer.
            if let Err(e) = kifu_fs::existing_regular_file(path) {
                let why = match e {
                    kifu_fs::FsError::NotRegular { kind, .. } => {
                        format!("not a regular file ({kind})")
                    }
                    e => e.to_string(),
                };
                return Err(PartsError::Io {
                    path: path.to_path_buf(),
                    source: std::io::Error::new(std::io::ErrorKind::InvalidInput, why),
                });
            }
            let f = std::fs::File::open(path).map_err(|source| PartsError::Io {
                path: path.to_path_buf(),
                source,
            })?;
            let len = f
                .metadata()
                .map_err(|source| PartsError::Io {
                    path: path.to_path_buf(),
                    source,
                })?
                .len();
            Ok::<_, PartsError>((f, len))
        };
        let (records, len) = io(p)?;
        let (order, order_len) = io(&order_path(p))?;
        if len != m.records * m.record_bytes || order_len != m.records * 8 {
            return Err(PartsError::Manifest {
                path: p.clone(),
                message: format!(
                    "{len} bytes of records and {order_len} bytes of order where the manifest says {} records: cut short or from another run",
                    m.records
                ),
            });
        }
        open.push(Open {
            records: Summed::new(BufReader::with_capacity(1 << 16, records)),
            order: Summed::new(BufReader::with_capacity(1 << 16, order)),
            left: m.records,
            path: p.clone(),
        });
    }
    let mut heap = BinaryHeap::new();
    for (i, o) in open.iter_mut().enumerate() {
        if let Some(place) = o.next_place()? {
            heap.push(Reverse((place, i)));
        }
    }
    let mut record = vec![0u8; first.record_bytes as usize];
    let mut written = 0u64;
    let mut last = None;
    while let Some(Reverse((place, i))) = heap.pop() {
        if last.is_some_and(|l| place <= l) {
            return Err(PartsError::Manifest {
                path: order_path(&open[i].path),
                message: format!("place {place} out of order: the order file is damaged"),
            });
        }
        last = Some(place);
        let o = &mut open[i];
        o.records
            .read_exact(&mut record)
            .map_err(|source| PartsError::Io {
                path: o.path.clone(),
                source,
            })?;
        o.left -= 1;
        out.write_all(&record).map_err(PartsError::Write)?;
        written += 1;
        if let Some(next) = o.next_place()? {
            heap.push(Reverse((next, i)));
        } else {
            o.check(&manifests[i])?;
        }
    }
    // A part of no records is checked too (its sums are those of nothing).
    for (o, m) in open.iter().zip(&manifests) {
        if m.records == 0 {
            o.check(m)?;
        }
    }
    Ok(written)
}

/// A stable checksum (FNV-1a, 64 bits) of bytes, for settings such as a Zobrist table.
pub fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
