//! The routes: the page's files and the JSON API behind every page action. Answers are the
//! library's serde types, the same JSON `kifu ... --json` prints.

use crate::app::{App, Served};
use crate::board::{replay, view, BoardRequest};
use crate::error::{ApiError, Body};
use axum::extract::{Path, Query as UrlQuery, State};
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use kifu_go::{BoardSize, Color};
use kifu_search::scan::Page;
use kifu_search::{Database, Query};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The largest request body accepted.
pub const MAX_BODY: usize = 256 * 1024;
/// The most matches one page of an answer may list.
pub const MAX_PAGE: u64 = 1_000;
/// The most games one SGF download may hold.
pub const MAX_DOWNLOAD: usize = 1_000;
/// The most moves a query's sequence may have.
pub const MAX_SEQUENCE: usize = 64;

/// Every route of the API, as the OpenAPI document lists them (checked by a test).
pub const API_ROUTES: &[(&str, &str)] = &[
    ("get", "/api/info"),
    ("post", "/api/go/board"),
    ("post", "/api/db/{db}/lookup"),
    ("post", "/api/db/{db}/search"),
    ("post", "/api/db/{db}/search.svg"),
    ("post", "/api/db/{db}/games"),
    ("get", "/api/db/{db}/games/{game}"),
    ("get", "/api/db/{db}/games/{game}/sgf"),
    ("post", "/api/db/{db}/sgf"),
    ("get", "/api/books/{book}"),
    ("get", "/api/openapi.json"),
];

/// The router of `app`. It runs on a tokio runtime with time enabled (`enable_time` or
/// `enable_all`): the reading of a request's body is timed.
pub fn router(app: Arc<App>) -> Router {
    let log = app.access_log;
    let r = Router::new()
        .route("/", get(crate::assets::index))
        .route("/{file}", get(crate::assets::file))
        .route("/api/info", get(info))
        .route("/api/go/board", post(board))
        .route("/api/db/{db}/lookup", post(lookup))
        .route("/api/db/{db}/search", post(search))
        .route("/api/db/{db}/search.svg", post(search_svg))
        .route("/api/db/{db}/games", post(filter_games))
        .route("/api/db/{db}/games/{game}", get(game))
        .route("/api/db/{db}/games/{game}/sgf", get(game_sgf))
        .route("/api/db/{db}/sgf", post(download))
        .route("/api/books/{book}", get(book))
        .route("/api/openapi.json", get(crate::assets::openapi))
        .fallback(|| async { ApiError::not_found("no such page") })
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BODY))
        .with_state(app);
    if log {
        r.layer(axum::middleware::from_fn(access_log))
    } else {
        r
    }
}

async fn access_log(req: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let started = std::time::Instant::now();
    let line = format!("{} {}", req.method(), req.uri());
    let res = next.run(req).await;
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    // The log is the server's own output on stderr, one line a request.
    #[allow(clippy::disallowed_macros)]
    {
        eprintln!("{line} {} {ms:.1}ms", res.status().as_u16());
    }
    res
}

/// The database numbered `id` in the path, with its number (for the blocking work, which takes
/// the shared `App` rather than a borrow).
fn database<'a>(app: &'a App, id: &str) -> Result<(usize, &'a Served<Database>), ApiError> {
    id.parse::<usize>()
        .ok()
        .and_then(|i| app.databases.get(i).map(|d| (i, d)))
        .ok_or_else(|| {
            ApiError::not_found(format!(
                "no database {id} (there are {})",
                app.databases.len()
            ))
        })
}

/// Runs blocking work off the async threads, one of at most the permitted number at a time;
/// `cancel` is raised if the client goes away (the request's future is dropped) so the work
/// can stop early.
async fn blocking<T: Send + 'static>(
    app: &Arc<App>,
    work: impl FnOnce(&App, &AtomicBool) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let _permit = app
        .searches
        .acquire()
        .await
        .map_err(|_| ApiError::unavailable("the server is shutting down"))?;
    let cancel = Arc::new(AtomicBool::new(false));
    struct Raise(Arc<AtomicBool>);
    impl Drop for Raise {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Relaxed);
        }
    }
    let guard = Raise(cancel.clone());
    let app = app.clone();
    let out = tokio::task::spawn_blocking(move || work(&app, &cancel))
        .await
        .map_err(|e| ApiError::internal(format!("the request failed: {e}")))?;
    // Finished: raising the flag now stops nothing. (Forgetting the guard instead kept its
    // `Arc` alive for good: 24 bytes leaked a request, found by the fuzz target's leak check.)
    drop(guard);
    out
}

#[derive(Serialize)]
struct InfoDb {
    id: usize,
    name: String,
    size: u32,
    games: u64,
    variations: bool,
}

#[derive(Serialize)]
struct InfoBook {
    id: usize,
    name: String,
    entries: usize,
}

#[derive(Serialize)]
struct Info {
    version: &'static str,
    databases: Vec<InfoDb>,
    books: Vec<InfoBook>,
}

async fn info(State(app): State<Arc<App>>) -> Json<Info> {
    Json(Info {
        version: env!("CARGO_PKG_VERSION"),
        databases: app
            .databases
            .iter()
            .enumerate()
            .map(|(id, d)| InfoDb {
                id,
                name: d.name.clone(),
                size: u32::from(d.value.size().get()),
                games: d.value.games(),
                variations: d.value.reader().variations(),
            })
            .collect(),
        books: app
            .books
            .iter()
            .enumerate()
            .map(|(id, b)| InfoBook {
                id,
                name: b.name.clone(),
                entries: b.value.len(),
            })
            .collect(),
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BoardBody {
    size: u32,
    #[serde(default)]
    setup: Option<String>,
    #[serde(default)]
    to_play: Option<Color>,
    #[serde(default)]
    moves: Vec<String>,
}

async fn board(Body(b): Body<BoardBody>) -> Result<Response, ApiError> {
    let size = BoardSize::new(b.size).map_err(|e| ApiError::bad("size", e))?;
    let req = BoardRequest {
        setup: b.setup,
        to_play: b.to_play,
        moves: b.moves,
    };
    Ok(Json(view(&replay(size, &req)?)).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LookupBody {
    #[serde(default)]
    setup: Option<String>,
    #[serde(default)]
    to_play: Option<Color>,
    #[serde(default)]
    moves: Vec<String>,
    #[serde(default)]
    swap_colors: bool,
    #[serde(default = "twenty")]
    limit: u64,
}

fn twenty() -> u64 {
    20
}

fn fifty() -> u64 {
    50
}

/// Refuses a page longer than [`MAX_PAGE`], naming the `limit` field.
fn page_limit(limit: u64) -> Result<(), ApiError> {
    if limit > MAX_PAGE {
        return Err(ApiError::bad("limit", format!("at most {MAX_PAGE}")));
    }
    Ok(())
}

async fn lookup(
    State(app): State<Arc<App>>,
    Path(db): Path<String>,
    Body(b): Body<LookupBody>,
) -> Result<Response, ApiError> {
    let (i, d) = database(&app, &db)?;
    page_limit(b.limit)?;
    let req = BoardRequest {
        setup: b.setup,
        to_play: b.to_play,
        moves: b.moves,
    };
    let pos = replay(d.value.size(), &req)?;
    let (board, to_play) = (pos.board(), pos.to_play());
    let answer = blocking(&app, move |app, _| {
        app.databases[i]
            .value
            .lookup(&board, to_play, b.swap_colors, b.limit as usize)
            .map_err(ApiError::internal)
    })
    .await?;
    Ok(Json(answer).into_response())
}

/// A rectangle of the board a pattern was cut from: its placement is read as Kombilo reads a
/// selection (`Placement::of_region`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Region {
    col: u32,
    row: u32,
    width: u32,
    height: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SearchBody {
    query: Query,
    #[serde(default)]
    region: Option<Region>,
    #[serde(default)]
    offset: u64,
    #[serde(default = "fifty")]
    limit: u64,
    #[serde(default)]
    no_duplicates: bool,
}

fn checked_query(b: &mut SearchBody, size: BoardSize) -> Result<(), ApiError> {
    page_limit(b.limit)?;
    let p = &b.query.pattern;
    let n = u32::from(size.get());
    if p.width() > n || p.height() > n {
        return Err(ApiError::bad(
            "query.pattern",
            format!(
                "a {}x{} pattern does not fit the {n}x{n} board",
                p.width(),
                p.height()
            ),
        ));
    }
    if let Some(r) = &b.region {
        if (r.width, r.height) != (p.width(), p.height()) {
            return Err(ApiError::bad(
                "region",
                format!(
                    "a {}x{} region for a {}x{} pattern",
                    r.width,
                    r.height,
                    p.width(),
                    p.height()
                ),
            ));
        }
        if r.col.saturating_add(r.width) > n || r.row.saturating_add(r.height) > n {
            return Err(ApiError::bad("region", "the region leaves the board"));
        }
        b.query.placement = kifu_search::Placement::of_region(r.col, r.row, r.width, r.height, n);
    }
    if b.query.sequence.len() > MAX_SEQUENCE {
        return Err(ApiError::bad(
            "query.sequence",
            format!("at most {MAX_SEQUENCE} moves"),
        ));
    }
    b.query.validate_on(size).map_err(|e| {
        use kifu_search::query::QueryError;
        let field = match &e {
            QueryError::Moves { .. } => "query.moves".to_string(),
            QueryError::SequenceOutside { .. } => "query.sequence".to_string(),
            QueryError::Filters(f) => format!("query.filters.{}", f.field()),
            QueryError::Placement { .. } => "query.placement".to_string(),
        };
        ApiError::bad(field, e)
    })
}

/// An error when the database's pattern index could not be read during a search (changed in
/// place since the server opened it): the answer left games out, and a part of an answer is
/// a wrong answer, not one to give.
fn whole(d: &kifu_search::Database) -> Result<(), ApiError> {
    match d.patterns().unreadable() {
        Some(why) => Err(ApiError::internal(why)),
        None => Ok(()),
    }
}

async fn run_search(
    app: &Arc<App>,
    db: &str,
    mut b: SearchBody,
) -> Result<(usize, Query, kifu_search::SearchAnswer), ApiError> {
    let (i, d) = database(app, db)?;
    checked_query(&mut b, d.value.size())?;
    let q = b.query.clone();
    let answer = blocking(app, move |app, cancel| {
        let page = Page {
            offset: b.offset,
            limit: b.limit,
        };
        let d = &app.databases[i].value;
        let answer = d
            .search_cancellable(&b.query, page, b.no_duplicates, cancel)
            .map(|s| s.answer)
            .ok_or_else(|| ApiError::unavailable("cancelled"))?;
        whole(d)?;
        Ok(answer)
    })
    .await?;
    Ok((i, q, answer))
}

async fn search(
    State(app): State<Arc<App>>,
    Path(db): Path<String>,
    Body(b): Body<SearchBody>,
) -> Result<Response, ApiError> {
    let (_, _, answer) = run_search(&app, &db, b).await?;
    Ok(Json(answer).into_response())
}

async fn search_svg(
    State(app): State<Arc<App>>,
    Path(db): Path<String>,
    Body(b): Body<SearchBody>,
) -> Result<Response, ApiError> {
    let (i, q, answer) = run_search(&app, &db, b).await?;
    let svg = kifu_search::svg::pattern_svg(&q, Some(&answer), app.databases[i].value.size())
        .ok_or_else(|| ApiError::bad("query.pattern", "the pattern does not fit the board"))?;
    Ok(([(header::CONTENT_TYPE, "image/svg+xml")], svg).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GamesBody {
    #[serde(default)]
    filters: kifu_search::Filters,
    #[serde(default)]
    offset: u64,
    #[serde(default = "fifty")]
    limit: u64,
    #[serde(default)]
    no_duplicates: bool,
}

/// The games whose information passes the filters: a search with no pattern.
async fn filter_games(
    State(app): State<Arc<App>>,
    Path(db): Path<String>,
    Body(b): Body<GamesBody>,
) -> Result<Response, ApiError> {
    let (i, _) = database(&app, &db)?;
    page_limit(b.limit)?;
    b.filters
        .validate()
        .map_err(|e| ApiError::bad(format!("filters.{}", e.field()), e))?;
    let answer = blocking(&app, move |app, _cancel| {
        let page = Page {
            offset: b.offset,
            limit: b.limit,
        };
        Ok(app.databases[i]
            .value
            .filter_games(&b.filters, page, b.no_duplicates))
    })
    .await?;
    Ok(Json(answer).into_response())
}

fn game_number(d: &Served<Database>, game: &str) -> Result<u64, ApiError> {
    game.parse::<u64>()
        .ok()
        .filter(|&g| g < d.value.games())
        .ok_or_else(|| {
            ApiError::not_found(format!(
                "no game {game} (the database has {})",
                d.value.games()
            ))
        })
}

#[derive(Serialize)]
struct GameAnswer {
    game: u64,
    black: String,
    white: String,
    date: String,
    result: String,
    file: String,
    game_in_file: u32,
    #[serde(flatten)]
    view: crate::view::GameView,
}

async fn game(
    State(app): State<Arc<App>>,
    Path((db, game)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let (i, d) = database(&app, &db)?;
    let id = game_number(d, &game)?;
    let answer = blocking(&app, move |app, _| {
        let (info, sgf) = app.databases[i]
            .value
            .game_sgf(id)
            .map_err(ApiError::internal)?;
        let parsed = kifu_sgf::Collection::parse(sgf.as_bytes());
        let tree = parsed
            .collection
            .game(0)
            .ok_or_else(|| ApiError::internal("the game's SGF is empty"))?;
        let view = crate::view::game_view(tree).map_err(|e| ApiError {
            status: 422,
            error: e.to_string(),
            field: None,
        })?;
        Ok(GameAnswer {
            game: id,
            black: info.black,
            white: info.white,
            date: info.date,
            result: info.result,
            file: info.file,
            game_in_file: info.game_in_file + 1,
            view,
        })
    })
    .await?;
    Ok(Json(answer).into_response())
}

fn sgf_response(text: String, name: &str) -> Response {
    let mut res = text.into_response();
    let h = res.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/x-go-sgf; charset=utf-8"),
    );
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{name}\"")) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    res
}

async fn game_sgf(
    State(app): State<Arc<App>>,
    Path((db, game)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let (i, d) = database(&app, &db)?;
    let id = game_number(d, &game)?;
    let text = blocking(&app, move |app, _| {
        app.databases[i]
            .value
            .game_sgf(id)
            .map(|(_, t)| t)
            .map_err(ApiError::internal)
    })
    .await?;
    Ok(sgf_response(text, &format!("game-{id}.sgf")))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DownloadBody {
    #[serde(default)]
    games: Vec<u64>,
    #[serde(default)]
    search: Option<SearchBody>,
}

async fn download(
    State(app): State<Arc<App>>,
    Path(db): Path<String>,
    Body(b): Body<DownloadBody>,
) -> Result<Response, ApiError> {
    let (i, d) = database(&app, &db)?;
    let mut ids = b.games;
    if let Some(mut s) = b.search {
        // Every game with a hit, not a page of matches (which may all be one game's).
        checked_query(&mut s, d.value.size())?;
        let games = blocking(&app, move |app, cancel| {
            let d = &app.databases[i].value;
            let games = d
                .matching_games(&s.query, s.no_duplicates, cancel)
                .map(|(_, games)| games)
                .ok_or_else(|| ApiError::unavailable("cancelled"))?;
            whole(d)?;
            Ok(games)
        })
        .await?;
        if games.len() > MAX_DOWNLOAD {
            return Err(ApiError::bad(
                "search",
                format!(
                    "the search matches {} games: at most {MAX_DOWNLOAD} at once",
                    games.len()
                ),
            ));
        }
        ids.extend(games);
    }
    ids.sort_unstable();
    ids.dedup();
    if ids.is_empty() {
        return Err(ApiError::bad("games", "no games to download"));
    }
    if ids.len() > MAX_DOWNLOAD {
        return Err(ApiError::bad(
            "games",
            format!("at most {MAX_DOWNLOAD} games at once"),
        ));
    }
    if let Some(&bad) = ids.iter().find(|&&g| g >= d.value.games()) {
        return Err(ApiError::bad("games", format!("no game {bad}")));
    }
    let text = blocking(&app, move |app, cancel| {
        let mut out = String::new();
        for id in ids {
            if cancel.load(Ordering::Relaxed) {
                return Err(ApiError::unavailable("cancelled"));
            }
            let (_, t) = app.databases[i]
                .value
                .game_sgf(id)
                .map_err(ApiError::internal)?;
            out.push_str(&t);
        }
        Ok(out)
    })
    .await?;
    Ok(sgf_response(text, "games.sgf"))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BookParams {
    #[serde(default)]
    fen: Option<String>,
    #[serde(default)]
    moves: Option<String>,
}

async fn book(
    State(app): State<Arc<App>>,
    Path(book): Path<String>,
    params: Result<UrlQuery<BookParams>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    let UrlQuery(p) = params.map_err(|e| ApiError::bad("", e.body_text()))?;
    let b = book
        .parse::<usize>()
        .ok()
        .and_then(|i| app.books.get(i))
        .ok_or_else(|| {
            ApiError::not_found(format!("no book {book} (there are {})", app.books.len()))
        })?;
    if p.fen.as_ref().is_some_and(|f| f.len() > 200) {
        return Err(ApiError::bad("fen", "too long"));
    }
    if p.moves.as_ref().is_some_and(|m| m.len() > 4_000) {
        return Err(ApiError::bad("moves", "too long"));
    }
    let start = match &p.fen {
        Some(f) if !f.trim().is_empty() => {
            kifu_polyglot::position_from_fen(f).map_err(|e| ApiError::bad("fen", e))?
        }
        _ => kifu_polyglot::shakmaty::Chess::default(),
    };
    let pos = match &p.moves {
        Some(m) if !m.trim().is_empty() => {
            kifu_polyglot::position_after(start, m).map_err(|e| ApiError::bad("moves", e))?
        }
        _ => start,
    };
    Ok(Json(kifu_polyglot::book_position(&b.value, &pos)).into_response())
}
