//! Outputs that never leave half a file: [`AtomicFile`] writes a temporary file in the target's
//! folder, syncs it and renames it over the target.
//!
//! - The temporary file is named `.kifu-XXXXXX.tmp` and locked ([`crate::lock`]) while it is
//!   written, so a later run can tell a killed run's leftover (unlocked) from a live writer's
//!   file (locked) and remove only the former ([`clean_stale_temps`], done once per folder per
//!   process when an output is created there).
//! - `-o link` where `link` is a symlink replaces the link's target, not the link.
//! - An existing target that is not a regular file (`/dev/null`, a FIFO, a terminal) is written
//!   directly: renaming over it would replace a device node.

use crate::lock::{is_locked, lock_exclusive, Wait};
use crate::FsError;
use std::collections::HashSet;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The name prefix of every temporary file kifu creates beside its outputs.
pub const TEMP_PREFIX: &str = ".kifu-";
/// The name suffix of every temporary file kifu creates beside its outputs.
pub const TEMP_SUFFIX: &str = ".tmp";

/// Symlinks followed before giving up (Linux's own limit).
const MAX_LINKS: usize = 40;

/// An output being written; [`AtomicFile::commit`] puts it in place, dropping it leaves the
/// target untouched.
pub struct AtomicFile {
    inner: Inner,
    target: PathBuf,
    // The lock on the file being replaced, held until the rename: a file another process
    // appends to under its lock (a scoring run's output) is never replaced under it.
    _target_lock: Option<File>,
}

enum Inner {
    // The file and its path apart, so that write errors are the system's own, without
    // tempfile's path decoration (the message names the target instead).
    Temp(BufWriter<File>, tempfile::TempPath),
    Direct(BufWriter<File>),
}

impl std::fmt::Debug for AtomicFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AtomicFile")
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

impl AtomicFile {
    /// Starts writing `path`: symlinks are followed to the file they name, stale temporaries in
    /// its folder are removed, and a locked temporary file is created beside it.
    pub fn create(path: &Path) -> Result<AtomicFile, FsError> {
        let target = resolve_symlinks(path)?;
        match std::fs::metadata(&target) {
            Ok(m) if m.is_dir() => {
                return Err(FsError::NotRegular {
                    path: target,
                    kind: "folder",
                })
            }
            Ok(m) if !m.is_file() => {
                let f = std::fs::OpenOptions::new()
                    .write(true)
                    .open(&target)
                    .map_err(|e| FsError::io(&target, "cannot open for writing", e))?;
                return Ok(AtomicFile {
                    inner: Inner::Direct(BufWriter::with_capacity(1 << 20, f)),
                    target,
                    _target_lock: None,
                });
            }
            _ => {}
        }
        let target_lock = match File::open(&target) {
            Ok(f) => {
                lock_exclusive(&f, &target, Wait::Fail)?;
                Some(f)
            }
            Err(_) => None,
        };
        let dir = folder_of(&target).to_path_buf();
        clean_stale_temps_once(&dir);
        let (file, path) = locked_temp_in(&dir)?.into_parts();
        Ok(AtomicFile {
            inner: Inner::Temp(BufWriter::with_capacity(1 << 20, file), path),
            target,
            _target_lock: target_lock,
        })
    }

    /// The file that will be replaced (after following symlinks).
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Flushes and syncs what is written so far, so that a writer can wait for the disk on a
    /// thread of its own before [`AtomicFile::commit`] (whose own sync then finds little left
    /// to write). Nothing for a target written directly.
    pub fn sync(&mut self) -> Result<(), FsError> {
        match &mut self.inner {
            Inner::Direct(_) => Ok(()),
            Inner::Temp(w, _) => {
                w.flush()
                    .map_err(|e| FsError::io(&self.target, "write failed", e))?;
                w.get_ref()
                    .sync_data()
                    .map_err(|e| FsError::io(&self.target, "sync failed", e))
            }
        }
    }

    /// Flushes, syncs and renames the temporary file over the target (keeping an existing
    /// target's permissions). On error the target is untouched and the temporary file removed.
    pub fn commit(self) -> Result<(), FsError> {
        let target = self.target;
        match self.inner {
            Inner::Direct(mut w) => w
                .flush()
                .map_err(|e| FsError::io(&target, "write failed", e)),
            Inner::Temp(w, path) => {
                let file = w
                    .into_inner()
                    .map_err(|e| FsError::io(&target, "write failed", e.into_error()))?;
                file.sync_all()
                    .map_err(|e| FsError::io(&target, "sync failed", e))?;
                keep_permissions(&target, &path);
                path.persist(&target).map_err(|e| {
                    FsError::io(
                        &target,
                        "cannot rename the temporary file into place",
                        e.error,
                    )
                })?;
                // The temporary file's lock is now on the target: released at once, not after
                // the folder's sync, so that another run replacing the target a moment later
                // does not find it held.
                drop(file);
                // The folder entry is what makes the rename durable.
                if let Ok(d) = File::open(folder_of(&target)) {
                    let _ = d.sync_all();
                }
                Ok(())
            }
        }
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.inner {
            Inner::Temp(w, _) => w.write(buf),
            Inner::Direct(w) => w.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match &mut self.inner {
            Inner::Temp(w, _) => w.write_all(buf),
            Inner::Direct(w) => w.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.inner {
            Inner::Temp(w, _) => w.flush(),
            Inner::Direct(w) => w.flush(),
        }
    }
}

/// The folder a file is in (`.` for a bare name).
pub fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Follows symlinks from `path` to the name they end at (which need not exist yet: a dangling
/// link names the file to create). A loop is an error.
pub fn resolve_symlinks(path: &Path) -> Result<PathBuf, FsError> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = std::fs::read_link(&p)
                    .map_err(|e| FsError::io(&p, "cannot read the symlink", e))?;
                p = if link.is_absolute() {
                    link
                } else {
                    folder_of(&p).join(link)
                };
            }
            _ => return Ok(p),
        }
    }
    Err(FsError::io(
        path,
        "cannot follow the symlink",
        io::Error::other("too many levels of symbolic links"),
    ))
}

/// A new temporary file in `dir`, named `.kifu-XXXXXX.tmp`, created and locked, for callers that
/// need a named scratch file (a spool of standard input); removed when dropped, and removed by a
/// later run's [`clean_stale_temps`] if this process is killed.
pub fn locked_temp_in(dir: &Path) -> Result<tempfile::NamedTempFile, FsError> {
    loop {
        let tmp = tempfile::Builder::new()
            .prefix(TEMP_PREFIX)
            .suffix(TEMP_SUFFIX)
            .tempfile_in(dir)
            .map_err(|e| FsError::io(dir, "cannot create a temporary file", e))?;
        lock_exclusive(tmp.as_file(), tmp.path(), Wait::Block)?;
        // Another run's cleanup may have taken the file for a leftover between its creation and
        // the lock (it removes files under their lock, so after our lock it cannot): make sure
        // the name is still ours, else start again.
        if same_file(tmp.as_file(), tmp.path()) {
            return Ok(tmp);
        }
    }
}

/// A spool of standard input in the system's temporary folder (for inputs read twice).
pub fn spool_stdin() -> Result<tempfile::NamedTempFile, FsError> {
    let dir = std::env::temp_dir();
    clean_stale_temps_once(&dir);
    let mut tmp = locked_temp_in(&dir)?;
    io::copy(&mut io::stdin().lock(), tmp.as_file_mut())
        .map_err(|e| FsError::io("<stdin>", "cannot read", e))?;
    tmp.as_file_mut()
        .flush()
        .map_err(|e| FsError::io(tmp.path().to_path_buf(), "write failed", e))?;
    Ok(tmp)
}

fn same_file(f: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (f.metadata(), std::fs::symlink_metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Removes the temporary files of killed kifu runs in `dir`: regular files named
/// `.kifu-*.tmp` that no process holds locked. Returns how many went. Files of live writers
/// (locked) and anything else are left alone.
pub fn clean_stale_temps(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        if !(name.starts_with(TEMP_PREFIX) && name.ends_with(TEMP_SUFFIX)) {
            continue;
        }
        if !e.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let path = e.path();
        let Ok(f) = File::open(&path) else { continue };
        if is_locked(&f) {
            continue;
        }
        // Removed under our own lock, so a writer that created it a moment ago and locks it now
        // waits for us, then sees its name gone (see `locked_temp_in`).
        if lock_exclusive(&f, &path, Wait::Fail).is_ok()
            && same_file(&f, &path)
            && std::fs::remove_file(&path).is_ok()
        {
            removed += 1;
        }
    }
    removed
}

/// [`clean_stale_temps`] at most once per folder per process: a folder converted into a folder
/// must not be listed once per file.
fn clean_stale_temps_once(dir: &Path) {
    static DONE: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);
    let key = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    {
        let mut done = DONE.lock().unwrap_or_else(|p| p.into_inner());
        if !done.get_or_insert_with(HashSet::new).insert(key) {
            return;
        }
    }
    clean_stale_temps(dir);
}

/// Gives the temporary file the permissions of the file it replaces, or the usual
/// `rw-r--r--` for a new file (temporary files are created private).
fn keep_permissions(path: &Path, tmp: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let perm = match std::fs::metadata(path) {
        Ok(meta) => meta.permissions(),
        Err(_) => std::fs::Permissions::from_mode(0o644),
    };
    let _ = std::fs::set_permissions(tmp, perm);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_replaces_and_drop_leaves_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out");
        std::fs::write(&p, b"old").unwrap();
        let mut w = AtomicFile::create(&p).unwrap();
        w.write_all(b"new").unwrap();
        drop(w);
        assert_eq!(std::fs::read(&p).unwrap(), b"old");
        let mut w = AtomicFile::create(&p).unwrap();
        w.write_all(b"new").unwrap();
        w.commit().unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_file_locked_by_its_writer_is_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("scored.dat");
        std::fs::write(&p, b"appending").unwrap();
        let appender = File::open(&p).unwrap();
        lock_exclusive(&appender, &p, Wait::Fail).unwrap();
        let e = AtomicFile::create(&p).unwrap_err();
        assert!(matches!(e, FsError::Locked { .. }), "{e}");
        drop(appender);
        let mut w = AtomicFile::create(&p).unwrap();
        w.write_all(b"merged").unwrap();
        w.commit().unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"merged");
    }

    #[test]
    fn writes_through_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("sub");
        std::fs::create_dir(&real).unwrap();
        let target = real.join("t.txt");
        std::fs::write(&target, b"old").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink("sub/t.txt", &link).unwrap();
        let mut w = AtomicFile::create(&link).unwrap();
        w.write_all(b"new").unwrap();
        w.commit().unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        // A loop is an error, not a hang.
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        std::os::unix::fs::symlink(&b, &a).unwrap();
        std::os::unix::fs::symlink(&a, &b).unwrap();
        let e = AtomicFile::create(&a).unwrap_err().to_string();
        assert!(e.contains("too many levels of symbolic links"), "{e}");
    }

    #[test]
    fn stale_temps_go_live_ones_and_others_stay() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join(".kifu-dead1.tmp"), b"x").unwrap();
        std::fs::write(d.join(".kifu-dead2.tmp"), b"x").unwrap();
        std::fs::write(d.join("kifu-mine.tmp"), b"x").unwrap();
        std::fs::write(d.join(".kifu-notes.txt"), b"x").unwrap();
        let live = locked_temp_in(d).unwrap();
        assert_eq!(clean_stale_temps(d), 2);
        assert!(live.path().exists());
        let mut left: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        let live_name = live.path().file_name().unwrap().to_str().unwrap();
        let mut want = vec![".kifu-notes.txt", live_name, "kifu-mine.tmp"];
        want.sort();
        assert_eq!(left, want);
    }

    #[test]
    fn non_regular_targets_are_written_directly() {
        let mut w = AtomicFile::create(Path::new("/dev/null")).unwrap();
        w.write_all(b"x").unwrap();
        w.commit().unwrap();
        assert!(std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device());
        let dir = tempfile::tempdir().unwrap();
        let e = AtomicFile::create(dir.path()).unwrap_err().to_string();
        assert!(e.contains("not a regular file (folder)"), "{e}");
    }

    use std::os::unix::fs::FileTypeExt;
}
