//! Finding input files: plain files as given, folders walked recursively for
//! the extensions a command reads, `-` for standard input.

use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// One input: a file, or standard input.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Input {
    /// Standard input (`-`).
    Stdin,
    /// A file, with the folder argument it was found under (for mirroring).
    File {
        /// The file.
        path: PathBuf,
        /// The folder given on the command line, if the file was found in one.
        root: Option<PathBuf>,
    },
}

impl Input {
    /// The name to show in messages.
    pub fn display(&self) -> String {
        match self {
            Input::Stdin => "<stdin>".to_string(),
            Input::File { path, .. } => path.display().to_string(),
        }
    }

    /// Reads the whole input.
    pub fn read(&self) -> Result<Vec<u8>> {
        match self {
            Input::Stdin => {
                let mut v = Vec::new();
                std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut v)
                    .context("<stdin>: cannot read")?;
                Ok(v)
            }
            Input::File { path, .. } => {
                std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))
            }
        }
    }
}

/// Expands the command line's paths: files as given (whatever their name; a FIFO named
/// explicitly is read as a stream), folders recursively for regular files ending in one of
/// `exts` (case-insensitive), sorted so that runs are deterministic. Entries of a folder that
/// are not regular files (FIFOs, devices, dangling symlinks, symlink loops) are reported once on
/// stderr and left out.
pub fn collect(paths: &[PathBuf], exts: &[&str]) -> Result<Vec<Input>> {
    let mut out = Vec::new();
    for p in paths {
        if p.as_os_str() == "-" {
            out.push(Input::Stdin);
            continue;
        }
        let meta = std::fs::metadata(p).with_context(|| format!("{}: cannot read", p.display()))?;
        if meta.is_dir() {
            let found = kifu_fs::walk::walk(p, exts)?;
            for s in &found.skipped {
                crate::output::message(format_args!(
                    "kifu: skipped {}: not a regular file ({})",
                    s.path.display(),
                    s.why
                ));
            }
            out.extend(found.files.into_iter().map(|path| Input::File {
                path,
                root: Some(p.clone()),
            }));
        } else {
            out.push(Input::File {
                path: p.clone(),
                root: None,
            });
        }
    }
    once_each(&mut out);
    Ok(out)
}

/// Keeps each file once, at its first place: a file named twice on the command line, or
/// found again under another folder given (`games/ games/pro/`), however its path is spelled
/// (the same device and inode), would otherwise be read twice, and an index would hold its
/// games twice in one table and once in another. Each file left out is named on stderr.
fn once_each(inputs: &mut Vec<Input>) {
    use rayon::prelude::*;
    let Ok(count) = u32::try_from(inputs.len()) else {
        return;
    };
    // One stat a file, in parallel (a million files: about half a second warm); (0, 0), which
    // no file has (no inode is 0), for what cannot be read or is standard input.
    let ids: Vec<(u64, u64)> = inputs
        .par_iter()
        .map(|i| match i {
            Input::Stdin => None,
            Input::File { path, .. } => file_id(path),
        })
        .map(|id| id.unwrap_or((0, 0)))
        .collect();
    // The inputs in the order of their ids (4 bytes a file: a million files are listed
    // here, beside their paths).
    let mut order: Vec<u32> = (0..count).filter(|&i| ids[i as usize] != (0, 0)).collect();
    order.par_sort_unstable_by_key(|&i| (ids[i as usize], i));
    let mut drop = vec![false; inputs.len()];
    for pair in order.windows(2) {
        let (first, next) = (pair[0] as usize, pair[1] as usize);
        if ids[first] == ids[next] {
            drop[next] = true;
        }
    }
    // Each copy named with the first of its file.
    let mut first = None;
    for &i in &order {
        let i = i as usize;
        if !drop[i] {
            first = Some(i);
        } else if let Some(f) = first {
            crate::output::message(format_args!(
                "kifu: {} is {} again: read once",
                inputs[i].display(),
                inputs[f].display()
            ));
        }
    }
    if drop.contains(&true) {
        let mut k = 0;
        inputs.retain(|_| {
            k += 1;
            !drop[k - 1]
        });
    }
}

/// A file's device and inode (what makes two paths one file), if it can be read.
pub fn file_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// The device and inode of what standard input reads, if it is a file.
pub fn stdin_id() -> Option<(u64, u64)> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let fd = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
    let m = std::fs::File::from(fd).metadata().ok()?;
    m.is_file().then(|| (m.dev(), m.ino()))
}

/// The device and inode of each file of `inputs`.
pub fn file_ids(inputs: &[Input]) -> std::collections::HashSet<(u64, u64)> {
    use rayon::prelude::*;
    inputs
        .par_iter()
        .filter_map(|i| match i {
            Input::Stdin => None,
            Input::File { path, .. } => file_id(path),
        })
        .collect()
}

/// The bytes of the file `path`, or of standard input for `-`.
pub fn read_path(path: &Path) -> Result<Vec<u8>> {
    if path.as_os_str() == "-" {
        Input::Stdin.read()
    } else {
        Input::File {
            path: path.to_path_buf(),
            root: None,
        }
        .read()
    }
}

/// Whether `path` ends in one of `exts` (case-insensitive).
pub fn has_ext(path: &Path, exts: &[&str]) -> bool {
    kifu_fs::walk::has_ext(path, exts)
}
