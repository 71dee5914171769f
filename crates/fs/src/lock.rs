//! Advisory exclusive locks (`flock`) on files kifu appends to or resumes.
//!
//! A lock belongs to the open file, so it ends when the file is closed or the process dies,
//! whatever way it dies: a kill never leaves a stale lock behind. When the lock is taken, the
//! holder's process id is looked up in `/proc/locks` so the message can name it.

use crate::FsError;
use std::fs::{File, TryLockError};
use std::path::Path;

/// What to do when another process holds the lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// Wait until it is released (for short critical sections, such as appending a line).
    Block,
    /// Fail at once with [`FsError::Locked`] naming the holder (for long writers, such as a
    /// scoring run: two of them on one file would do the same work twice).
    Fail,
}

/// Takes an exclusive lock on `file` (opened from `path`, which is only used in messages and to
/// find the holder).
pub fn lock_exclusive(file: &File, path: &Path, wait: Wait) -> Result<(), FsError> {
    match wait {
        Wait::Block => file.lock().map_err(|e| FsError::io(path, "cannot lock", e)),
        Wait::Fail => match file.try_lock() {
            Ok(()) => Ok(()),
            Err(TryLockError::WouldBlock) => Err(FsError::Locked {
                path: path.to_owned(),
                pid: holder(file),
            }),
            Err(TryLockError::Error(e)) => Err(FsError::io(path, "cannot lock", e)),
        },
    }
}

/// Whether some process holds a lock on `file` (tries to take it and releases it at once).
pub fn is_locked(file: &File) -> bool {
    match file.try_lock() {
        Ok(()) => {
            let _ = file.unlock();
            false
        }
        Err(_) => true,
    }
}

/// The process holding an `flock` on `file`, from `/proc/locks` (Linux), if it can be told.
pub fn holder(file: &File) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    let meta = file.metadata().ok()?;
    let table = std::fs::read_to_string("/proc/locks").ok()?;
    holder_in(
        &table,
        dev_major(meta.dev()),
        dev_minor(meta.dev()),
        meta.ino(),
    )
}

/// Finds the pid of an `FLOCK` entry on inode `ino` of device `major:minor` in the text of
/// `/proc/locks` (lines such as `1: FLOCK  ADVISORY  WRITE 4242 fd:01:1234 0 EOF`; blocked
/// waiters are marked `->` and are not holders). Matches by inode alone when no line matches the
/// device too (overlay file systems report their own device numbers), if that is unambiguous.
pub fn holder_in(table: &str, major: u64, minor: u64, ino: u64) -> Option<u32> {
    let mut exact = None;
    let mut by_inode = Vec::new();
    for line in table.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.get(1) == Some(&"->") || fields.get(1) != Some(&"FLOCK") {
            continue;
        }
        let (Some(pid), Some(id)) = (fields.get(4), fields.get(5)) else {
            continue;
        };
        let Ok(pid) = pid.parse::<u32>() else {
            continue;
        };
        let mut parts = id.split(':');
        let (Some(ma), Some(mi), Some(i)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        if i.parse::<u64>().ok() != Some(ino) {
            continue;
        }
        by_inode.push(pid);
        let hex = |s: &str| u64::from_str_radix(s, 16).ok();
        if hex(ma) == Some(major) && hex(mi) == Some(minor) {
            exact = Some(pid);
        }
    }
    exact.or_else(|| {
        by_inode.dedup();
        (by_inode.len() == 1).then(|| by_inode[0])
    })
}

// Linux's encoding of dev_t (glibc's gnu_dev_major/minor).
fn dev_major(dev: u64) -> u64 {
    ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff)
}

fn dev_minor(dev: u64) -> u64 {
    (dev & 0xff) | ((dev >> 12) & !0xff)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_fails_naming_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        let a = File::create(&p).unwrap();
        let b = File::open(&p).unwrap();
        lock_exclusive(&a, &p, Wait::Fail).unwrap();
        // flock locks belong to open files: a second open file in this process conflicts as a
        // second process would.
        let err = lock_exclusive(&b, &p, Wait::Fail).unwrap_err();
        match &err {
            FsError::Locked { pid, .. } => {
                assert_eq!(*pid, Some(std::process::id()), "{err}")
            }
            e => panic!("{e}"),
        }
        assert!(err.to_string().contains(&format!(
            "in use by another process (pid {})",
            std::process::id()
        )));
        assert!(is_locked(&b));
        drop(a);
        // Blocking: a test elsewhere in this process may fork, and a forked child shares the
        // lock until it execs.
        lock_exclusive(&b, &p, Wait::Block).unwrap();
    }

    #[test]
    fn proc_locks_lines() {
        let t = "1: FLOCK  ADVISORY  WRITE 4242 fd:01:1234 0 EOF\n\
                 1: -> FLOCK  ADVISORY  WRITE 77 fd:01:1234 0 EOF\n\
                 2: POSIX  ADVISORY  WRITE 99 fd:01:1234 0 EOF\n\
                 3: FLOCK  ADVISORY  WRITE 5 00:2a:1234 0 EOF\n";
        assert_eq!(holder_in(t, 0xfd, 1, 1234), Some(4242));
        assert_eq!(holder_in(t, 0, 0x2a, 1234), Some(5));
        // Neither device matches and two holders share the inode: no guess.
        assert_eq!(holder_in(t, 8, 1, 1234), None);
        assert_eq!(holder_in(t, 0xfd, 1, 999), None);
    }
}
