//! kifu's file-system layer: the rules every kifu program follows when it touches files, in one
//! place so that the CLI, the server and the Python package cannot differ.
//!
//! - [`lock`]: advisory exclusive locks on files kifu appends to or resumes (the master list,
//!   scored files), with the holder's process id in the message when another process has it.
//! - [`atomic`]: outputs written to a locked temporary file in the same folder, synced and
//!   renamed into place (through symlinks: the link's target is replaced, not the link); stale
//!   temporaries of killed runs are removed on the next run, and only those (by name and by the
//!   lock a live writer holds).
//! - [`shard`]: the contract of sharded jobs ([`shard::Shard`], `--shard I/N`) and the check a
//!   merge makes of its parts.
//! - [`walk`]: folder walks that take regular files (and symlinks to them) only, report every
//!   other entry once, and do not loop on symlink cycles.
//!
//! ```
//! use std::io::Write;
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("out.txt");
//! let mut out = kifu_fs::atomic::AtomicFile::create(&path)?;
//! out.write_all(b"hello\n")?;
//! out.commit()?;
//! assert_eq!(std::fs::read(&path)?, b"hello\n");
//! let found = kifu_fs::walk::walk(dir.path(), &["txt"])?;
//! assert_eq!(found.files, vec![path]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod atomic;
pub mod lock;
pub mod shard;
pub mod walk;

use std::path::PathBuf;

/// Why a file operation failed, always with the path it concerned.
#[derive(Debug, thiserror::Error)]
pub enum FsError {
    /// An operating-system error on `path`.
    // The system's error is part of the message and not a `source`, so that error chains
    // (anyhow's `{:#}`) do not print it twice.
    #[error("{}: {what}: {error}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What kifu was doing (`cannot create a temporary file`, ...).
        what: &'static str,
        /// The error.
        error: std::io::Error,
    },
    /// Another process holds the lock on `path`.
    #[error("{}: in use by another process{}; wait for it to finish or stop it", path.display(), holder_text(*pid))]
    Locked {
        /// The locked file.
        path: PathBuf,
        /// The holder's process id, when the system tells (Linux's /proc/locks).
        pid: Option<u32>,
    },
    /// A path that must be a regular file is something else (a FIFO, a device, a folder).
    #[error("{}: not a regular file ({kind})", path.display())]
    NotRegular {
        /// The path.
        path: PathBuf,
        /// What it is instead.
        kind: &'static str,
    },
}

fn holder_text(pid: Option<u32>) -> String {
    match pid {
        Some(p) => format!(" (pid {p})"),
        None => String::new(),
    }
}

impl FsError {
    pub(crate) fn io(path: impl Into<PathBuf>, what: &'static str, source: std::io::Error) -> Self {
        FsError::Io {
            path: path.into(),
            what,
            error: source,
        }
    }
}

/// A short name for what a file-system entry is, for messages.
pub fn kind_name(ft: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_file() {
        "regular file"
    } else if ft.is_dir() {
        "folder"
    } else if ft.is_fifo() {
        "FIFO"
    } else if ft.is_socket() {
        "socket"
    } else if ft.is_block_device() {
        "block device"
    } else if ft.is_char_device() {
        "character device"
    } else if ft.is_symlink() {
        "symlink"
    } else {
        "special file"
    }
}

/// Checks that `path`, if it exists, is a regular file (after following symlinks): files kifu
/// reads by a fixed name beside its output (a Zobrist table) must not be a FIFO that blocks
/// forever. Returns whether it exists.
pub fn existing_regular_file(path: &std::path::Path) -> Result<bool, FsError> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => Ok(true),
        Ok(m) => Err(FsError::NotRegular {
            path: path.to_owned(),
            kind: kind_name(&m.file_type()),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(FsError::io(path, "cannot read", e)),
    }
}
