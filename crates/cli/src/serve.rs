//! `kifu serve`: the web explorer and JSON API (kifu-serve) on a local address.

use crate::Outcome;
use anyhow::{Context, Result};
use clap::Args;
use std::net::SocketAddr;
use std::path::PathBuf;

/// `kifu serve` arguments.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Databases (`kifu pos index` output) to explore.
    dbs: Vec<PathBuf>,
    /// Polyglot books to explore (repeatable).
    #[arg(long = "book", num_args = 1)]
    books: Vec<PathBuf>,
    /// The address to listen on. Anything but a loopback address lets other machines in.
    #[arg(long, default_value = "127.0.0.1:8080")]
    bind: SocketAddr,
    /// Open the page in the default browser once the server is up.
    #[arg(long)]
    open: bool,
    /// Log every request (method, path, status, time) to stderr.
    #[arg(long)]
    access_log: bool,
    /// Searches run at once at most (0: one per core); more wait their turn.
    #[arg(long, default_value_t = 0, value_parser = crate::args::jobs)]
    searches: usize,
    #[command(flatten)]
    cache: crate::args::Cache,
}

/// Runs `kifu serve` until Ctrl-C or SIGTERM.
pub fn run(a: ServeArgs) -> Result<Outcome> {
    if a.dbs.is_empty() && a.books.is_empty() {
        crate::usage!("nothing to serve: give at least one database or --book");
    }
    let config = kifu_serve::Config {
        databases: a.dbs.clone(),
        books: a.books.clone(),
        access_log: a.access_log,
        concurrent_searches: a.searches,
        cache_bytes: Some(a.cache.bytes()),
    };
    let app = kifu_serve::App::open(&config)?;
    if !a.bind.ip().is_loopback() {
        crate::output::message(format_args!(
            "kifu: warning: listening on {}, not a loopback address: other machines can reach the server",
            a.bind
        ));
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the server's runtime")?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(a.bind)
            .await
            .with_context(|| format!("cannot listen on {}", a.bind))?;
        let addr = listener.local_addr()?;
        let shutdown = kifu_serve::shutdown_signal().context("cannot install signal handlers")?;
        let url = format!("http://{addr}/");
        crate::output::message(format_args!("kifu: serving on {url} (Ctrl-C stops)"));
        if a.open {
            // Best effort: a machine without a desktop has no opener, and the URL is printed.
            let _ = std::process::Command::new("xdg-open")
                .arg(&url)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn();
        }
        kifu_serve::serve(app, listener, shutdown)
            .await
            .context("the server failed")?;
        crate::output::message(format_args!("kifu: server stopped"));
        anyhow::Ok(())
    })?;
    Ok(Outcome::Ok)
}
