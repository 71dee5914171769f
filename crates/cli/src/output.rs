//! Output helpers shared by all commands: safe file writing (temporary file in the
//! same folder, then rename), `-` for stdout, and progress bars that stay quiet
//! when stderr is not a terminal.

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::path::Path;

/// Writes `bytes` to `path` atomically: a temporary file in the same folder is
/// written, synced and renamed over `path`, so a reader (or a crash) never sees a
/// half-written file. `-` writes to stdout. An existing file's permissions are kept.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomically_with(path, |w| {
        w.write_all(bytes)
            .with_context(|| format!("{}: write failed", path.display()))
    })
}

/// Like [`write_atomically`], but the content is produced by `fill` writing into a
/// buffered writer, so large outputs are never held in memory. On error the temporary
/// file is removed and `path` is untouched.
pub fn write_atomically_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<()> {
    if path.as_os_str() == "-" {
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        fill(&mut out)?;
        return out.flush().context("writing to stdout");
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let tmp = tempfile::Builder::new()
        .prefix(".kifu-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .with_context(|| format!("{}: cannot create a temporary file", dir.display()))?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, EarlyWriteback::new(tmp));
    fill(&mut w)?;
    let tmp = w
        .into_inner()
        .map_err(|e| e.into_error())
        .with_context(|| format!("{}: write failed", path.display()))?
        .file;
    tmp.as_file()
        .sync_all()
        .with_context(|| format!("{}: sync failed", path.display()))?;
    keep_permissions(path, tmp.path());
    tmp.persist(path).with_context(|| {
        format!(
            "{}: cannot rename the temporary file into place",
            path.display()
        )
    })?;
    Ok(())
}

/// A file being written that asks the kernel to start writing each completed 16 MiB to disk,
/// so the device works while the output is still being produced: the sync before the rename
/// then waits for the last part only, instead of for the whole file (a 473 MB position file
/// took a quarter of a second to sync), and dirty pages never pile up to the point where the
/// kernel throttles the writer. Only a hint: on other systems, or if it fails, nothing changes.
struct EarlyWriteback {
    file: tempfile::NamedTempFile,
    written: u64,
    started: u64,
}

/// Bytes between two writeback hints.
const WRITEBACK_STEP: u64 = 16 << 20;

impl EarlyWriteback {
    fn new(file: tempfile::NamedTempFile) -> EarlyWriteback {
        EarlyWriteback {
            file,
            written: 0,
            started: 0,
        }
    }

    fn hint(&mut self) {
        if self.written - self.started < WRITEBACK_STEP {
            return;
        }
        #[cfg(target_os = "linux")]
        {
            use rustix::fs::{fadvise, Advice};
            use std::num::NonZeroU64;
            // DONTNEED starts writeback of the dirty pages of the range (without waiting) and
            // drops its pages already clean; the output is not read back.
            let len = NonZeroU64::new(self.written - self.started);
            let _ = fadvise(self.file.as_file(), self.started, len, Advice::DontNeed);
        }
        self.started = self.written;
    }
}

impl Write for EarlyWriteback {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write(buf)?;
        self.written += n as u64;
        self.hint();
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// Runs `job`, which writes `path` (atomically, as [`write_atomically_with`]) while
/// it works through `len` items, calling its tick once per item for a progress bar.
/// Returns what `job` returns.
pub fn write_with_progress<T>(
    path: &Path,
    len: u64,
    what: &str,
    job: impl FnOnce(&mut dyn Write, &(dyn Fn() + Sync)) -> Result<T>,
) -> Result<T> {
    let bar = progress(len, what);
    let mut result = None;
    write_atomically_with(path, |w| {
        result = Some(job(w, &|| bar.inc(1))?);
        Ok(())
    })?;
    bar.finish_and_clear();
    result.context("the job wrote nothing")
}

/// A progress bar over `len` items, drawn only when stderr is a terminal.
pub fn progress(len: u64, what: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} {msg} [{bar:30}] {pos}/{len} ({per_sec}, eta {eta})",
        )
        .expect("static template is valid")
        .progress_chars("=> "),
    );
    bar.set_message(what.to_string());
    bar
}

/// Gives the temporary file the permissions of the file it replaces, or the usual
/// `rw-r--r--` for a new file (temporary files are created private).
fn keep_permissions(path: &Path, tmp: &Path) {
    match std::fs::metadata(path) {
        Ok(meta) => {
            let _ = std::fs::set_permissions(tmp, meta.permissions());
        }
        Err(_) => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let _ = std::fs::set_permissions(tmp, std::fs::Permissions::from_mode(0o644));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writeback hints change nothing in what is written, across several hint steps and
    /// writes that straddle them.
    #[test]
    fn early_writeback_writes_every_byte() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.bin");
        let chunk: Vec<u8> = (0..1_000_003u32).map(|i| (i * 7 % 251) as u8).collect();
        let rounds = (2 * WRITEBACK_STEP as usize) / chunk.len() + 3;
        write_atomically_with(&path, |w| {
            for _ in 0..rounds {
                w.write_all(&chunk)?;
            }
            Ok(())
        })
        .unwrap();
        let got = std::fs::read(&path).unwrap();
        assert_eq!(got.len(), rounds * chunk.len());
        assert!(got.chunks(chunk.len()).all(|c| c == &chunk[..]));
        // Nothing else is left in the folder (the temporary file was renamed).
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
