//! `master_game_file_list.dat`: one source file per line; a position's [`crate::ExtraInfo`]
//! `file_id` is the 1-based number of its file's line.
//!
//! The list is append-only and crash-safe: new lines are appended with one `write_all` and synced
//! before any position file refers to them, and only whole lines (ending in `\n`) count. A last
//! line without its `\n` is what a crash mid-append leaves; [`MasterList::open`] cuts it off (the
//! file ids of the whole lines never change). A file already listed keeps its line and id.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// The usual file name, next to the position file.
pub const MASTER_LIST_NAME: &str = "master_game_file_list.dat";

/// An opened (and, if needed, repaired) master list.
#[derive(Debug)]
pub struct MasterList {
    path: PathBuf,
    lines: Vec<String>,
    repaired: Option<u64>,
}

/// Why the master list could not be used.
#[derive(Debug, thiserror::Error)]
pub enum MasterListError {
    /// Reading, repairing or appending failed.
    #[error("{path}: {source}")]
    Io {
        /// The list.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
    /// A file name with a line break cannot be one line of the list.
    #[error("{0:?}: a file name with a line break cannot be listed")]
    LineBreak(String),
}

impl MasterList {
    /// Opens the list at `path` (an absent file is an empty list). A torn last line is cut off in
    /// place; [`MasterList::repaired`] says how many bytes went.
    pub fn open(path: &Path) -> Result<MasterList, MasterListError> {
        let io_err = |source| MasterListError::Io {
            path: path.to_owned(),
            source,
        };
        let mut bytes = Vec::new();
        match File::open(path) {
            Ok(mut f) => {
                f.read_to_end(&mut bytes).map_err(io_err)?;
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(io_err(e)),
        }
        let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let mut repaired = None;
        if whole < bytes.len() {
            let f = OpenOptions::new().write(true).open(path).map_err(io_err)?;
            f.set_len(whole as u64).map_err(io_err)?;
            f.sync_all().map_err(io_err)?;
            repaired = Some((bytes.len() - whole) as u64);
        }
        let lines = bytes[..whole]
            .split(|&b| b == b'\n')
            .map(|l| String::from_utf8_lossy(l).into_owned())
            .collect::<Vec<_>>();
        // `split` yields an empty piece after the final `\n`.
        let lines = if whole == 0 {
            Vec::new()
        } else {
            lines[..lines.len() - 1].to_vec()
        };
        Ok(MasterList {
            path: path.to_owned(),
            lines,
            repaired,
        })
    }

    /// Bytes of a torn last line cut off when opening, if there was one.
    pub fn repaired(&self) -> Option<u64> {
        self.repaired
    }

    /// The listed names, line 1 first.
    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    /// The file id (1-based line) of every name, appending the names not listed yet (in order,
    /// each once) with a single write, synced before returning.
    pub fn ids_for(&mut self, names: &[String]) -> Result<Vec<u32>, MasterListError> {
        let mut known: std::collections::HashMap<String, u32> = self
            .lines
            .iter()
            .enumerate()
            .map(|(i, l)| (l.clone(), i as u32 + 1))
            .collect();
        let mut append = String::new();
        let mut ids = Vec::with_capacity(names.len());
        for name in names {
            if name.contains(['\n', '\r']) {
                return Err(MasterListError::LineBreak(name.clone()));
            }
            let id = match known.get(name) {
                Some(&id) => id,
                None => {
                    self.lines.push(name.clone());
                    let id = self.lines.len() as u32;
                    known.insert(name.clone(), id);
                    append.push_str(name);
                    append.push('\n');
                    id
                }
            };
            ids.push(id);
        }
        if !append.is_empty() {
            let io_err = |source| MasterListError::Io {
                path: self.path.clone(),
                source,
            };
            let mut f = OpenOptions::new()
                .create(true)
                .append(true)
                .open(&self.path)
                .map_err(io_err)?;
            f.write_all(append.as_bytes()).map_err(io_err)?;
            f.sync_all().map_err(io_err)?;
        }
        Ok(ids)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn append_reuse_and_repair() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(MASTER_LIST_NAME);
        let mut m = MasterList::open(&p).unwrap();
        let names: Vec<String> = ["a.sgf", "b.sgf", "a.sgf"].map(String::from).to_vec();
        assert_eq!(m.ids_for(&names).unwrap(), vec![1, 2, 1]);
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "a.sgf\nb.sgf\n");
        // A crash mid-append leaves a torn line: it is cut off, the whole lines keep their ids.
        std::fs::write(&p, "a.sgf\nb.sgf\nc.s").unwrap();
        let mut m = MasterList::open(&p).unwrap();
        assert_eq!(m.repaired(), Some(3));
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "a.sgf\nb.sgf\n");
        let names: Vec<String> = ["c.sgf", "b.sgf"].map(String::from).to_vec();
        assert_eq!(m.ids_for(&names).unwrap(), vec![3, 2]);
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "a.sgf\nb.sgf\nc.sgf\n"
        );
        assert!(matches!(
            m.ids_for(&["x\ny".to_string()]),
            Err(MasterListError::LineBreak(_))
        ));
        // A file that is one torn line becomes empty.
        std::fs::write(&p, "abc").unwrap();
        let m = MasterList::open(&p).unwrap();
        assert_eq!((m.repaired(), m.lines().len()), (Some(3), 0));
    }
}
