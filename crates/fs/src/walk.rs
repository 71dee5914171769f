//! Folder walks for inputs: regular files (and symlinks to them) whose names end in one of the
//! wanted extensions, sorted; everything else that matches by name (a FIFO, a socket, a device,
//! a dangling symlink) is reported once as skipped, since opening a FIFO would block forever.
//! Symlinked folders are followed, each real folder once, so a symlink cycle ends the walk there.

use crate::{kind_name, FsError};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// An entry the walk did not take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The entry.
    pub path: PathBuf,
    /// Why (`FIFO`, `dangling symlink`, `symlink loop`, ...).
    pub why: String,
}

/// What a walk found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Found {
    /// Files to read, sorted.
    pub files: Vec<PathBuf>,
    /// Entries left out, folder by folder in the order the walk met them.
    pub skipped: Vec<Skipped>,
}

/// Walks `root` recursively for files ending in one of `exts` (case-insensitive; an empty list
/// takes every regular file).
///
/// Folders are listed a level at a time, the folders of a level in parallel (rayon): listing
/// is mostly the kernel's work, and a collection of 100,000 files in a thousand folders took
/// a tenth of a second of `kifu pos index` on one thread before any file was read. Which
/// folder is walked and which is a loop is decided in one order, level by level.
pub fn walk(root: &Path, exts: &[&str]) -> Result<Found, FsError> {
    use rayon::prelude::*;
    use std::os::unix::fs::MetadataExt;
    let mut found = Found::default();
    let mut seen = HashSet::new();
    let meta = std::fs::metadata(root).map_err(|e| FsError::io(root, "cannot read", e))?;
    seen.insert((meta.dev(), meta.ino()));
    // A level at a time, in a list: folder depth must not matter.
    let mut level = vec![root.to_path_buf()];
    while !level.is_empty() {
        let listed = level
            .par_iter()
            .map(|d| list(d, exts))
            .collect::<Result<Vec<_>, _>>()?;
        let mut next = Vec::new();
        for l in listed {
            found.files.extend(l.files);
            found.skipped.extend(l.skipped);
            for (path, id, linked) in l.folders {
                if seen.insert(id) {
                    next.push(path);
                } else if linked {
                    found.skipped.push(Skipped {
                        path,
                        why: "symlink loop (a folder already walked)".into(),
                    });
                }
            }
        }
        level = next;
    }
    sort_paths(&mut found.files);
    Ok(found)
}

/// One folder's entries: the files taken, the folders in it (each with its device and inode,
/// and whether it is reached through a symlink), and the entries left out.
#[derive(Default)]
struct Listing {
    files: Vec<PathBuf>,
    folders: Vec<(PathBuf, (u64, u64), bool)>,
    skipped: Vec<Skipped>,
}

/// Lists folder `d` for [`walk`].
fn list(d: &Path, exts: &[&str]) -> Result<Listing, FsError> {
    use std::os::unix::fs::MetadataExt;
    let mut out = Listing::default();
    let entries = std::fs::read_dir(d).map_err(|e| FsError::io(d, "cannot list the folder", e))?;
    for e in entries {
        let e = e.map_err(|e| FsError::io(d, "cannot list the folder", e))?;
        let path = e.path();
        let ft = e
            .file_type()
            .map_err(|err| FsError::io(&path, "cannot read", err))?;
        let wanted = has_ext(&path, exts);
        if ft.is_dir() {
            let m = e
                .metadata()
                .map_err(|err| FsError::io(&path, "cannot read", err))?;
            out.folders.push((path, (m.dev(), m.ino()), false));
            continue;
        }
        if ft.is_file() {
            if wanted {
                out.files.push(path);
            }
            continue;
        }
        if ft.is_symlink() {
            match std::fs::metadata(&path) {
                Ok(m) if m.is_dir() => out.folders.push((path, (m.dev(), m.ino()), true)),
                Ok(m) if m.is_file() => {
                    if wanted {
                        out.files.push(path);
                    }
                }
                Ok(m) if wanted => out.skipped.push(Skipped {
                    path,
                    why: format!("symlink to a {}", kind_name(&m.file_type())),
                }),
                Ok(_) => {}
                Err(err) if wanted => out.skipped.push(Skipped {
                    path,
                    why: if err.raw_os_error() == Some(40) {
                        "symlink loop".to_string()
                    } else {
                        format!("dangling symlink ({err})")
                    },
                }),
                Err(_) => {}
            }
            continue;
        }
        if wanted {
            out.skipped.push(Skipped {
                path,
                why: kind_name(&ft).to_string(),
            });
        }
    }
    Ok(out)
}

/// Sorts the paths of one walk as `Path` orders them (component by component), by their bytes
/// instead of a component parse at every comparison (the sort of a large tree's paths was a
/// few percent of an index build): they share the root as given and differ only in names
/// joined by `/` (a directory entry is never `.` or `..`), so their bytes with each `/` taken
/// as the lowest byte compare as their components do. The bytes are compared in place: a
/// sorted copy of each path as a key (`sort_by_cached_key`) was about 130 MB more at the end
/// of the walk of a million files.
fn sort_paths(files: &mut [PathBuf]) {
    use rayon::slice::ParallelSliceMut;
    use std::os::unix::ffi::OsStrExt;
    // Two paths of one walk are never equal (each folder is listed once), so an unstable
    // sort gives the one order.
    files.par_sort_unstable_by(|a, b| {
        path_order(a.as_os_str().as_bytes(), b.as_os_str().as_bytes())
    });
}

/// The order of two paths' bytes with `/` below every other byte (a path holds no NUL).
fn path_order(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    let i = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let low = |c: u8| if c == b'/' { 0 } else { c };
    match (a.get(i), b.get(i)) {
        (Some(&x), Some(&y)) => low(x).cmp(&low(y)),
        _ => a.len().cmp(&b.len()),
    }
}

/// Whether `path` ends in one of `exts` (case-insensitive); an empty list takes any name.
pub fn has_ext(path: &Path, exts: &[&str]) -> bool {
    exts.is_empty()
        || path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| exts.iter().any(|x| x.eq_ignore_ascii_case(e)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// The byte keys order a walk's paths exactly as `Path`'s own order does, with names that
    /// sort before `/` as bytes (space, `!`, `-`, `.`) and prefixes of each other.
    #[test]
    fn paths_sort_as_path_orders_them() {
        let names = [
            "a", "a b", "a-b", "a.b", "a!", "ab", "a/b", "a/b/c", "a-b/c", "a b/c",
        ];
        for root in ["games", "./games/", "/tmp//x", ""] {
            let mut paths: Vec<PathBuf> = Vec::new();
            for (i, n) in names.iter().enumerate() {
                for m in ["", "/z.sgf", "-1/z.sgf", " 2.sgf", "/y/z.sgf"] {
                    paths.push(Path::new(root).join(format!("{n}{m}{i}")));
                }
            }
            let mut want = paths.clone();
            want.sort();
            paths.reverse();
            sort_paths(&mut paths);
            assert_eq!(paths, want, "root {root:?}");
        }
    }

    proptest::proptest! {
        /// Any names (of the bytes that sort around `/`) under one root sort as `Path` sorts
        /// them.
        #[test]
        fn any_names_sort_as_path_orders_them(
            names in proptest::collection::vec("[ab!. /-]{1,24}", 1..40),
            root in "(/tmp/games|\\./g/|r)",
        ) {
            let mut paths: Vec<PathBuf> = names
                .iter()
                // A walk's names: no empty component, `.` or `..`.
                .map(|n| {
                    let parts: Vec<&str> = n
                        .split('/')
                        .filter(|c| !c.is_empty() && *c != "." && *c != "..")
                        .collect();
                    Path::new(&root).join(if parts.is_empty() { "x".into() } else { parts.join("/") })
                })
                .collect();
            paths.sort();
            paths.dedup();
            let want = paths.clone();
            paths.reverse();
            sort_paths(&mut paths);
            proptest::prop_assert_eq!(paths, want);
        }
    }

    #[test]
    fn regular_files_only_and_no_loops() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("a/b")).unwrap();
        std::fs::write(d.join("a/x.sgf"), b"").unwrap();
        std::fs::write(d.join("a/b/y.SGF"), b"").unwrap();
        std::fs::write(d.join("a/b/z.txt"), b"").unwrap();
        let status = std::process::Command::new("mkfifo")
            .arg(d.join("a/f.sgf"))
            .status()
            .unwrap();
        assert!(status.success());
        symlink("x.sgf", d.join("a/l.sgf")).unwrap();
        symlink("nowhere.sgf", d.join("a/dangling.sgf")).unwrap();
        symlink("..", d.join("a/b/up")).unwrap();
        symlink("loop2.sgf", d.join("loop1.sgf")).unwrap();
        symlink("loop1.sgf", d.join("loop2.sgf")).unwrap();
        let f = walk(d, &["sgf"]).unwrap();
        assert_eq!(
            f.files,
            vec![d.join("a/b/y.SGF"), d.join("a/l.sgf"), d.join("a/x.sgf")]
        );
        let mut why: Vec<(String, String)> = f
            .skipped
            .iter()
            .map(|s| {
                let name = s.path.strip_prefix(d).unwrap().display().to_string();
                (name, s.why.split(" (").next().unwrap().to_string())
            })
            .collect();
        why.sort();
        assert_eq!(
            why,
            vec![
                ("a/b/up".into(), "symlink loop".into()),
                ("a/dangling.sgf".into(), "dangling symlink".into()),
                ("a/f.sgf".into(), "FIFO".into()),
                ("loop1.sgf".into(), "symlink loop".into()),
                ("loop2.sgf".into(), "symlink loop".into()),
            ]
        );
    }
}
