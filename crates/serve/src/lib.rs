//! kifu-serve: `kifu serve`, a local web explorer and JSON API over `kifu pos index` databases
//! and Polyglot books.
//!
//! - [`app`]: what is opened once and shared by every request ([`app::App`]), and the server
//!   loop with graceful shutdown.
//! - [`api`]: the routes. Every answer is a library type (`kifu_search::SearchAnswer`,
//!   `kifu_search::LookupAnswer`, `kifu_polyglot::BookPosition`), so the API prints the JSON
//!   the CLI's `--json` prints; errors are [`error::ApiError`]: `{"error", "field"}`.
//! - [`board`] and [`view`]: positions and whole games replayed by kifu-go for the page, which
//!   carries no Go rules of its own.
//! - [`assets`]: the page (plain JavaScript, no build step) embedded in the binary.
//!
//! Why axum on tokio: requests are short and many (a lookup per click, thousands a second in
//! the benchmark), searches are CPU work handed to blocking threads under a limit, and axum
//! gives graceful shutdown, body limits and typed extractors without a framework of our own.
//!
//! ```
//! use kifu_serve::board::{replay, view, BoardRequest};
//! use kifu_go::BoardSize;
//! let req = BoardRequest { moves: vec!["D4".into(), "pass".into()], ..Default::default() };
//! let pos = replay(BoardSize::new(9).unwrap(), &req).unwrap();
//! assert_eq!(view(&pos).rows[5], "...#.....");
//! ```

pub mod accept;
pub mod api;
pub mod app;
pub mod assets;
pub mod board;
pub mod error;
pub mod view;

pub use accept::{serve, BODY_TIMEOUT, HEADER_TIMEOUT, MAX_CONNECTIONS, SHUTDOWN_GRACE};
pub use app::{shutdown_signal, App, Config, OpenError};
