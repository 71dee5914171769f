//! The opened databases and books, shared by every request, and the server around them.

use kifu_polyglot::Book;
use kifu_search::Database;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::sync::Semaphore;

/// What `kifu serve` opens.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// `kifu pos index` databases.
    pub databases: Vec<PathBuf>,
    /// Polyglot books.
    pub books: Vec<PathBuf>,
    /// Log every request to stderr.
    pub access_log: bool,
    /// Searches run at once at most (0: one per core); more wait their turn.
    pub concurrent_searches: usize,
    /// The memory for each database's games read from its pattern index while searching
    /// (`None`: [`kifu_search::index::DEFAULT_CACHE_BYTES`]).
    pub cache_bytes: Option<usize>,
}

/// Why the server could not open what it was given.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// A database.
    #[error("{path}: {source}")]
    Database {
        /// The file.
        path: PathBuf,
        /// Why.
        source: kifu_posdb::index::IndexError,
    },
    /// A book.
    #[error("{path}: {source}")]
    Book {
        /// The file.
        path: PathBuf,
        /// Why.
        source: kifu_polyglot::Error,
    },
    /// Nothing to serve.
    #[error("nothing to serve: give at least one database or --book")]
    Nothing,
}

/// A database or book with the name the page shows.
#[derive(Debug)]
pub struct Served<T> {
    /// The file name.
    pub name: String,
    /// The opened thing.
    pub value: T,
}

/// Everything requests share: opened once, read-only.
#[derive(Debug)]
pub struct App {
    /// The databases, by number.
    pub databases: Vec<Served<Database>>,
    /// The books, by number.
    pub books: Vec<Served<Book>>,
    /// Log requests.
    pub access_log: bool,
    /// Permits for searches running at once.
    pub searches: Semaphore,
}

fn name_of(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

impl App {
    /// Opens every database and book of `config`.
    pub fn open(config: &Config) -> Result<Arc<App>, OpenError> {
        if config.databases.is_empty() && config.books.is_empty() {
            return Err(OpenError::Nothing);
        }
        let mut databases = Vec::new();
        for path in &config.databases {
            let value = Database::open(path).map_err(|source| OpenError::Database {
                path: path.clone(),
                source,
            })?;
            if let Some(bytes) = config.cache_bytes {
                value.patterns().set_cache_limit(bytes);
            }
            databases.push(Served {
                name: name_of(path),
                value,
            });
        }
        let mut books = Vec::new();
        for path in &config.books {
            let value = Book::open(path).map_err(|source| OpenError::Book {
                path: path.clone(),
                source,
            })?;
            books.push(Served {
                name: name_of(path),
                value,
            });
        }
        let permits = match config.concurrent_searches {
            0 => std::thread::available_parallelism().map_or(2, |n| n.get()),
            n => n,
        };
        Ok(Arc::new(App {
            databases,
            books,
            access_log: config.access_log,
            searches: Semaphore::new(permits),
        }))
    }
}

/// A future that completes on Ctrl-C (SIGINT) or SIGTERM. The handlers are installed when this
/// is called (inside a tokio runtime), not when the future is first polled, so a signal that
/// comes right after the server says it serves is not lost to the default action.
#[cfg(unix)]
pub fn shutdown_signal() -> std::io::Result<impl std::future::Future<Output = ()> + Send> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    Ok(async move {
        tokio::select! {
            _ = term.recv() => {},
            _ = int.recv() => {},
        }
    })
}

/// A future that completes on Ctrl-C.
#[cfg(not(unix))]
pub fn shutdown_signal() -> std::io::Result<impl std::future::Future<Output = ()> + Send> {
    Ok(async {
        let _ = tokio::signal::ctrl_c().await;
    })
}
