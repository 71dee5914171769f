//! The provenance of a scored file: a JSON sidecar (`NAME.dat.json`) beside it saying which
//! engine scored it, with which settings, from which positions, which shard, and whether the
//! shard is complete. A run that resumes a file checks the sidecar and refuses to append scores
//! of another engine or setting; a merge of shards checks that the parts agree, that every shard
//! 1..=N is there once, and that each is complete.

use kifu_fs::shard::{check_set, PartInfo, Shard};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The engine that scored a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineInfo {
    /// The command line it was started with.
    pub command: String,
    /// Its answer to GTP `name`.
    pub name: String,
    /// Its answer to GTP `version`.
    pub version: String,
}

/// What a scored file holds and how it was made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// The kifu version that wrote it.
    pub kifu: String,
    /// The engine.
    pub engine: EngineInfo,
    /// How it was asked: `gtp` (`final_score` playouts) or `analysis` (KataGo's analysis
    /// engine; files written before there was a choice say nothing and are `gtp`).
    #[serde(default = "gtp")]
    pub protocol: String,
    /// Visits of each analysis search (0 for GTP).
    #[serde(default)]
    pub visits: u32,
    /// The rules asked of the engine.
    pub rules: String,
    /// The komi the engine was given (kifu scores with komi 0 and keeps the margin).
    pub komi: f64,
    /// Playouts per position.
    pub playouts: u32,
    /// The first seed.
    pub seed: u32,
    /// The board size.
    pub size: u32,
    /// The position files scored, as given.
    pub positions: Vec<String>,
    /// Distinct positions in them (all shards).
    pub distinct: u64,
    /// The shard (I, N), if the run scored one share.
    pub shard: Option<(u64, u64)>,
    /// Positions in this shard (all of them without a shard).
    pub in_shard: u64,
    /// Whether every position of the shard has a score.
    pub complete: bool,
}

fn gtp() -> String {
    "gtp".to_string()
}

/// Why a sidecar could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ProvenanceError {
    /// The sidecar could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The sidecar.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The sidecar is not the JSON kifu writes.
    #[error("{path}: not a kifu provenance file: {message}")]
    Malformed {
        /// The sidecar.
        path: PathBuf,
        /// What the JSON reader said.
        message: String,
    },
    /// The file was made with other settings.
    #[error("{path}: made with {field} {theirs}, not {ours}: scores of different settings cannot share a file")]
    Differs {
        /// The sidecar.
        path: PathBuf,
        /// The setting.
        field: &'static str,
        /// Its value there.
        theirs: String,
        /// Its value here.
        ours: String,
    },
    /// A part of a merge is missing, repeated, or incomplete.
    #[error("{0}")]
    Parts(String),
}

/// The sidecar of the scored file `dat`: `dat` with `.json` appended.
pub fn sidecar_path(dat: &Path) -> PathBuf {
    let mut s = dat.as_os_str().to_os_string();
    s.push(".json");
    PathBuf::from(s)
}

impl Provenance {
    /// Reads the sidecar of `dat`, `None` if there is none.
    pub fn read(dat: &Path) -> Result<Option<Provenance>, ProvenanceError> {
        let path = sidecar_path(dat);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(ProvenanceError::Io { path, source }),
        };
        serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| ProvenanceError::Malformed {
                path,
                message: e.to_string(),
            })
    }

    /// The sidecar's text.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("plain data serializes");
        s.push('\n');
        s
    }

    /// The settings that must be equal for scores to share a file or a merge: engine (command,
    /// name, version), rules, komi, playouts, seed, size. (The positions may differ: a queue of
    /// the positions still to do continues a file.)
    fn settings(&self) -> [(&'static str, String); 10] {
        [
            ("protocol", self.protocol.clone()),
            ("visits", self.visits.to_string()),
            ("engine", self.engine.command.clone()),
            ("engine name", self.engine.name.clone()),
            ("engine version", self.engine.version.clone()),
            ("rules", self.rules.clone()),
            ("komi", self.komi.to_string()),
            ("playouts", self.playouts.to_string()),
            ("seed", self.seed.to_string()),
            ("size", self.size.to_string()),
        ]
    }

    /// Checks that scores made as `self` may be added to a file made as `earlier` (whose sidecar
    /// is `path`): the same settings and the same shard.
    pub fn check_resume(&self, earlier: &Provenance, path: &Path) -> Result<(), ProvenanceError> {
        let differs = |field, theirs: String, ours: String| ProvenanceError::Differs {
            path: path.to_path_buf(),
            field,
            theirs,
            ours,
        };
        for ((field, theirs), (_, ours)) in earlier.settings().into_iter().zip(self.settings()) {
            if theirs != ours {
                return Err(differs(field, theirs, ours));
            }
        }
        if earlier.shard != self.shard {
            return Err(differs(
                "shard",
                shard_text(earlier.shard),
                shard_text(self.shard),
            ));
        }
        Ok(())
    }
}

fn shard_text(s: Option<(u64, u64)>) -> String {
    match s {
        Some((i, n)) => format!("{i}/{n}"),
        None => "none".to_string(),
    }
}

/// Checks the parts of a sharded run before they are merged: each has a sidecar, all were made
/// with the same settings and the same number of shards `n`, every shard 1..=n is there exactly
/// once, and each is complete. Errors name the part.
pub fn check_parts(parts: &[PathBuf]) -> Result<Vec<Provenance>, ProvenanceError> {
    let mut read = Vec::new();
    for p in parts {
        let prov = Provenance::read(p)?.ok_or_else(|| {
            ProvenanceError::Parts(format!(
                "{}: no provenance sidecar ({}): not a part of a sharded run",
                p.display(),
                sidecar_path(p).display()
            ))
        })?;
        read.push(prov);
    }
    let Some(first) = read.first() else {
        return Err(ProvenanceError::Parts("no parts to merge".to_string()));
    };
    for (p, prov) in parts.iter().zip(&read) {
        prov.check_resume(
            &Provenance {
                shard: prov.shard,
                ..first.clone()
            },
            &sidecar_path(p),
        )
        .map_err(|e| {
            ProvenanceError::Parts(format!(
                "{}: made otherwise than {}: {e}",
                p.display(),
                parts[0].display()
            ))
        })?;
        if (&prov.positions, prov.distinct) != (&first.positions, first.distinct) {
            return Err(ProvenanceError::Parts(format!(
                "{}: scored from {:?} ({} positions), but {} from {:?} ({} positions)",
                p.display(),
                prov.positions,
                prov.distinct,
                parts[0].display(),
                first.positions,
                first.distinct
            )));
        }
    }
    let infos: Vec<PartInfo> = parts
        .iter()
        .zip(&read)
        .map(|(p, prov)| PartInfo {
            path: p.clone(),
            shard: prov.shard.and_then(|(i, n)| Shard::new(i, n).ok()),
            complete: prov.complete,
        })
        .collect();
    check_set(&infos).map_err(|e| ProvenanceError::Parts(e.to_string()))?;
    Ok(read)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prov(shard: Option<(u64, u64)>, complete: bool) -> Provenance {
        Provenance {
            kifu: "0.1.0".into(),
            engine: EngineInfo {
                command: "gnugo --mode gtp".into(),
                name: "GNU Go".into(),
                version: "3.8".into(),
            },
            protocol: "gtp".into(),
            visits: 0,
            rules: "chinese".into(),
            komi: 0.0,
            playouts: 3,
            seed: 1,
            size: 9,
            positions: vec!["p.dat".into()],
            distinct: 10,
            shard,
            in_shard: 5,
            complete,
        }
    }

    fn write(dir: &Path, name: &str, p: &Provenance) -> PathBuf {
        let dat = dir.join(name);
        std::fs::write(&dat, b"").unwrap();
        std::fs::write(sidecar_path(&dat), p.to_json()).unwrap();
        dat
    }

    #[test]
    fn parts_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let a = write(dir.path(), "a.dat", &prov(Some((1, 2)), true));
        let b = write(dir.path(), "b.dat", &prov(Some((2, 2)), true));
        assert_eq!(check_parts(&[b.clone(), a.clone()]).unwrap().len(), 2);
        let e = check_parts(std::slice::from_ref(&a))
            .unwrap_err()
            .to_string();
        assert_eq!(e, "missing shard 2/2 of 2");
        let e = check_parts(&[a.clone(), a.clone()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("shard 1/2 is given twice"), "{e}");
        let c = write(dir.path(), "c.dat", &prov(Some((2, 3)), true));
        let e = check_parts(&[a.clone(), c]).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!(
                "{}: shard 2/3, but",
                dir.path().join("c.dat").display()
            )),
            "{e}"
        );
        let d = write(dir.path(), "d.dat", &prov(Some((2, 2)), false));
        let e = check_parts(&[a.clone(), d]).unwrap_err().to_string();
        assert!(e.contains("is not complete"), "{e}");
        let mut other = prov(Some((2, 2)), true);
        other.rules = "japanese".into();
        let f = write(dir.path(), "f.dat", &other);
        let e = check_parts(&[a.clone(), f]).unwrap_err().to_string();
        assert!(
            e.contains("rules chinese, not japanese") || e.contains("rules japanese, not chinese"),
            "{e}"
        );
        let g = dir.path().join("g.dat");
        std::fs::write(&g, b"").unwrap();
        let e = check_parts(&[a, g]).unwrap_err().to_string();
        assert!(e.contains("no provenance sidecar"), "{e}");
        let round = Provenance::read(&b).unwrap().unwrap();
        assert_eq!(round, prov(Some((2, 2)), true));
    }
}
