//! `master_game_file_list.dat`: one source file per line; a position's [`crate::ExtraInfo`]
//! `file_id` is the 1-based number of its file's line.
//!
//! The list is append-only and crash-safe: new lines are appended with one `write_all` and synced
//! before any position file refers to them, and only whole lines (ending in `\n`) count. A last
//! line without its `\n` is what a crash mid-append leaves; [`MasterList::open`] cuts it off (the
//! file ids of the whole lines never change). A file already listed keeps its line and id.
//!
//! Several runs may share one list (two extractions into one folder): every read, repair and
//! append happens under an exclusive lock on the list, and ids are given from the list as it is
//! under that lock, never from an earlier read, so each name gets one line whoever appends.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
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
    /// The list could not be locked.
    #[error(transparent)]
    Lock(#[from] kifu_fs::FsError),
}

impl MasterList {
    /// Opens the list at `path` (an absent file is an empty list). A torn last line is cut off in
    /// place; [`MasterList::repaired`] says how many bytes went.
    pub fn open(path: &Path) -> Result<MasterList, MasterListError> {
        let mut list = MasterList {
            path: path.to_owned(),
            lines: Vec::new(),
            repaired: None,
        };
        match OpenOptions::new().read(true).write(true).open(path) {
            Ok(mut f) => {
                kifu_fs::lock::lock_exclusive(&f, path, kifu_fs::lock::Wait::Block)?;
                list.reload(&mut f)?;
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(list.io_err(e)),
        }
        Ok(list)
    }

    fn io_err(&self, source: io::Error) -> MasterListError {
        MasterListError::Io {
            path: self.path.clone(),
            source,
        }
    }

    /// Reads the list from `f` (locked by the caller), cutting a torn last line off: under the
    /// lock, a line without its `\n` is what a killed run left, never a live append.
    fn reload(&mut self, f: &mut File) -> Result<(), MasterListError> {
        let mut bytes = Vec::new();
        f.seek(SeekFrom::Start(0)).map_err(|e| self.io_err(e))?;
        f.read_to_end(&mut bytes).map_err(|e| self.io_err(e))?;
        let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        if whole < bytes.len() {
            f.set_len(whole as u64).map_err(|e| self.io_err(e))?;
            f.sync_all().map_err(|e| self.io_err(e))?;
            let cut = (bytes.len() - whole) as u64;
            self.repaired = Some(self.repaired.unwrap_or(0) + cut);
        }
        bytes.truncate(whole);
        // `split` yields an empty piece after the final `\n`.
        bytes.pop();
        self.lines = if whole == 0 {
            Vec::new()
        } else {
            bytes
                .split(|&b| b == b'\n')
                .map(|l| String::from_utf8_lossy(l).into_owned())
                .collect()
        };
        Ok(())
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
    /// each once) with a single write, synced before returning. The list is locked and read
    /// again first, so names another run appended since [`MasterList::open`] keep their ids.
    pub fn ids_for(&mut self, names: &[String]) -> Result<Vec<u32>, MasterListError> {
        if let Some(name) = names.iter().find(|n| n.contains(['\n', '\r'])) {
            return Err(MasterListError::LineBreak(name.clone()));
        }
        let mut f = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(&self.path)
            .map_err(|e| self.io_err(e))?;
        kifu_fs::lock::lock_exclusive(&f, &self.path, kifu_fs::lock::Wait::Block)?;
        self.reload(&mut f)?;
        let mut known: std::collections::HashMap<String, u32> = self
            .lines
            .iter()
            .enumerate()
            .map(|(i, l)| (l.clone(), i as u32 + 1))
            .collect();
        let mut append = String::new();
        let mut ids = Vec::with_capacity(names.len());
        for name in names {
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
            f.write_all(append.as_bytes()).map_err(|e| self.io_err(e))?;
            f.sync_all().map_err(|e| self.io_err(e))?;
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

    #[test]
    fn two_runs_sharing_a_list_never_share_ids() {
        // Two extractions opened the list before either appended: ids come from the list as
        // it is at append time, so b's files do not get a's lines.
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(MASTER_LIST_NAME);
        let mut a = MasterList::open(&p).unwrap();
        let mut b = MasterList::open(&p).unwrap();
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(a.ids_for(&names(&["f1", "f2"])).unwrap(), vec![1, 2]);
        assert_eq!(b.ids_for(&names(&["g1", "f2"])).unwrap(), vec![3, 2]);
        assert_eq!(a.ids_for(&names(&["g1", "f3"])).unwrap(), vec![3, 4]);
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "f1\nf2\ng1\nf3\n");
    }
}
