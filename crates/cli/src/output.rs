//! Everything kifu writes goes through here: files (a locked temporary file in the same folder,
//! synced and renamed, through [`kifu_fs::atomic`]), standard output (one buffered writer whose
//! failures end the command with exit 1, and whose closed pipe ends it quietly), messages on
//! standard error, and progress bars that stay quiet when stderr is not a terminal.
//!
//! `print!`/`println!`/`eprint!`/`eprintln!` are refused by clippy (see `clippy.toml`): they
//! panic on a full disk or a closed pipe, which is how the class of bugs this module closes came
//! about.

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use kifu_fs::atomic::AtomicFile;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::Path;
use std::sync::Mutex;

/// The marker inside the error of a write to a closed standard output (a reader such as `head`
/// went away): `main` ends quietly when it finds it in an error's chain.
#[derive(Debug, thiserror::Error)]
#[error("standard output was closed")]
pub struct StdoutClosed;

/// Whether `e` came from writing to a closed standard output.
pub fn is_stdout_closed(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.is::<StdoutClosed>()
            || c.downcast_ref::<io::Error>()
                .and_then(|io| io.get_ref())
                .is_some_and(|inner| inner.is::<StdoutClosed>())
    })
}

static STDOUT: Mutex<Option<BufWriter<io::Stdout>>> = Mutex::new(None);

/// Standard output: a handle to the process's one buffered writer. Errors name standard output;
/// a closed pipe comes back as [`StdoutClosed`]. [`finish_stdout`] flushes it at the end.
#[derive(Debug, Clone, Copy, Default)]
pub struct Stdout;

/// Standard output (see [`Stdout`]).
pub fn stdout() -> Stdout {
    Stdout
}

fn with_stdout<T>(f: impl FnOnce(&mut BufWriter<io::Stdout>) -> io::Result<T>) -> io::Result<T> {
    let mut guard = STDOUT.lock().unwrap_or_else(|p| p.into_inner());
    let w = guard.get_or_insert_with(|| BufWriter::with_capacity(1 << 16, io::stdout()));
    f(w).map_err(stdout_error)
}

fn stdout_error(e: io::Error) -> io::Error {
    if e.kind() == io::ErrorKind::BrokenPipe {
        io::Error::new(io::ErrorKind::BrokenPipe, StdoutClosed)
    } else {
        io::Error::new(e.kind(), StdoutFailed(e))
    }
}

/// A failed write to standard output (a full disk, an I/O error).
#[derive(Debug, thiserror::Error)]
#[error("cannot write to standard output: {0}")]
struct StdoutFailed(io::Error);

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        with_stdout(|w| w.write(buf))
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        with_stdout(|w| w.write_all(buf))
    }

    fn flush(&mut self) -> io::Result<()> {
        with_stdout(|w| w.flush())
    }
}

/// Flushes standard output at the end of a command; a failure here is the command's failure.
pub fn finish_stdout() -> io::Result<()> {
    with_stdout(|w| w.flush())
}

/// Writes `v` as pretty JSON and a line break to standard output.
pub fn print_json(v: &impl serde::Serialize) -> Result<()> {
    let mut out = stdout();
    serde_json::to_writer_pretty(&mut out, v).map_err(io::Error::from)?;
    writeln!(out)?;
    Ok(())
}

/// An error as one line: each cause of the chain after a colon, except the causes whose text
/// is already in the line (the library errors put their source in their own message, and
/// `{:#}` would then print it twice or three times).
pub fn error_text(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let part = cause.to_string();
        if text.contains(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    text
}

/// Writes a message line to standard error. A failure to write it is ignored: a message that
/// cannot be shown must not turn into a different failure (or a panic, as `eprintln!` would).
pub fn message(text: impl std::fmt::Display) {
    // Standard output first, so that what was printed comes before the message about it.
    let _ = finish_stdout();
    let _ = writeln!(io::stderr().lock(), "{text}");
}

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
        let mut out = stdout();
        fill(&mut out)?;
        return Ok(out.flush()?);
    }
    let mut file = AtomicFile::create(path)?;
    fill(&mut file)?;
    file.commit()?;
    Ok(())
}

/// Refuses, as a usage error (exit 2), to write `output` over one of `inputs`: the same file
/// however it is named (the same device and inode, so a link or another spelling of the path
/// counts), which the atomic rename would replace with another kind of file (an index over
/// its games, a picture over its game) or a lossy rewrite of it (a repaired SGF or book). A
/// merge of files of one kind (`pos merge`, `book merge`) may write over one of its inputs:
/// every input is read before the rename, and nothing is lost.
/// Costs nothing when `output` does not exist yet (nothing can be overwritten); an output `-`
/// is never a file, an input `-` is whatever standard input reads.
pub fn refuse_overwrite<'a>(
    output: &Path,
    inputs: impl IntoIterator<Item = &'a Path>,
) -> Result<()> {
    if output.as_os_str() == "-" {
        return Ok(());
    }
    let Some(out) = crate::inputs::file_id(output) else {
        return Ok(());
    };
    for input in inputs {
        // `-`: standard input, which may be the output's file (`< OUT`).
        let id = if input.as_os_str() == "-" {
            crate::inputs::stdin_id()
        } else {
            crate::inputs::file_id(input)
        };
        if id == Some(out) {
            return Err(crate::UsageError(format!(
                "{}: the output is also an input ({}); give another output",
                output.display(),
                input.display()
            ))
            .into());
        }
    }
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
    if !io::stderr().is_terminal() {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_text_names_each_cause_once() {
        #[derive(Debug, thiserror::Error)]
        #[error("cannot start {command}: {source}")]
        struct Start {
            command: String,
            source: std::io::Error,
        }
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "No such file");
        let e = anyhow::Error::new(Start {
            command: "gnugo".into(),
            source: io,
        })
        .context("scoring positions.dat");
        assert_eq!(
            error_text(&e),
            "scoring positions.dat: cannot start gnugo: No such file"
        );
        let plain = anyhow::anyhow!("top").context("outer");
        assert_eq!(error_text(&plain), "outer: top");
    }
}
