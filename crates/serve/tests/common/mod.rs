//! What the serve tests share: a small hand-made database and book, opened by a server, and
//! one request answered through the real router.
// (Each test binary uses a part of it.)
#![allow(dead_code)]

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use kifu_go::BoardSize;
use kifu_posdb::extract::Source;
use kifu_posdb::index::{build_index, IndexOptions};
use kifu_serve::{App, Config};
use std::sync::Arc;
use tower::ServiceExt;

/// A database of three 9x9 games and a book of one entry, in a folder of their own.
pub struct Fixture {
    pub _dir: tempfile::TempDir,
    pub app: Arc<App>,
    pub db: std::path::PathBuf,
}

/// Opens a server on a fresh [`Fixture`].
pub fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let games = [
        "(;GM[1]SZ[9]PB[Ann]PW[Bob]DT[2001-02-03]RE[B+R];B[cc];W[gg];B[cg];W[gc]C[four corners])",
        "(;GM[1]SZ[9]PB[Cid]PW[Ann]DT[2005-06-07]RE[W+2.5];B[cc];W[gg];B[gc];W[cg])",
        "(;GM[1]SZ[9]PB[Bob]PW[Cid]DT[2009]RE[B+1.5];B[gg];W[cc];B[cg](;W[gc])(;W[ee]))",
    ];
    let mut sources = Vec::new();
    for (i, g) in games.iter().enumerate() {
        let p = dir.path().join(format!("g{i}.sgf"));
        std::fs::write(&p, g).unwrap();
        sources.push(Source::new(&p));
    }
    let db = dir.path().join("db.kpx");
    let mut bytes = Vec::new();
    build_index(
        &sources,
        &IndexOptions::new(BoardSize::new(9).unwrap()),
        &mut bytes,
        &|| {},
    )
    .unwrap();
    std::fs::write(&db, bytes).unwrap();
    // A book of one entry: 1. e4 from the start.
    let start = kifu_polyglot::position_from_moves("").unwrap();
    let e4 = kifu_polyglot::Entry {
        key: kifu_polyglot::key(&start),
        raw_move: kifu_polyglot::RawMove::new(
            kifu_polyglot::shakmaty::Square::E2,
            kifu_polyglot::shakmaty::Square::E4,
            None,
        ),
        weight: 3,
        learn: 0,
    };
    let book = dir.path().join("book.bin");
    std::fs::write(&book, e4.to_bytes()).unwrap();
    let app = App::open(&Config {
        databases: vec![db.clone()],
        books: vec![book],
        access_log: false,
        concurrent_searches: 2,
        // A small cache: the searches read the games from the sidecar again and again.
        cache_bytes: Some(64 << 10),
    })
    .unwrap();
    Fixture { _dir: dir, app, db }
}

/// Answers one request through the real router: its status and body.
pub async fn call(app: &Arc<App>, method: &str, uri: &str, body: &str) -> (StatusCode, Vec<u8>) {
    let req = Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap();
    let res = kifu_serve::api::router(app.clone())
        .oneshot(req)
        .await
        .unwrap();
    let status = res.status();
    let bytes = res.into_body().collect().await.unwrap().to_bytes().to_vec();
    (status, bytes)
}
