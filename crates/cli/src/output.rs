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
    let mut w = std::io::BufWriter::with_capacity(1 << 20, tmp);
    fill(&mut w)?;
    let tmp = w
        .into_inner()
        .map_err(|e| e.into_error())
        .with_context(|| format!("{}: write failed", path.display()))?;
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
