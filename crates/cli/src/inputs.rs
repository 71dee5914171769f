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
    Ok(out)
}

/// Whether `path` ends in one of `exts` (case-insensitive).
pub fn has_ext(path: &Path, exts: &[&str]) -> bool {
    kifu_fs::walk::has_ext(path, exts)
}
