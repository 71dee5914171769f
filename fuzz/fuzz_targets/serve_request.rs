//! `kifu serve`'s request handling: any body on any API route (and any query string on the book
//! route), through the real router over a small database and book; an answer, never a panic, a
//! hang or a server error.
#![no_main]
use axum::body::Body;
use axum::http::Request;
use kifu_posdb::extract::Source;
use kifu_posdb::index::{build_index, IndexOptions};
use libfuzzer_sys::fuzz_target;
use std::sync::{Arc, OnceLock};
use tower::ServiceExt;

struct Fixture {
    rt: tokio::runtime::Runtime,
    app: Arc<kifu_serve::App>,
    _dir: tempfile::TempDir,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let g = dir.path().join("g.sgf");
        std::fs::write(
            &g,
            "(;SZ[9]RE[B+3]DT[2001];B[cc];W[gg];B[cg];W[gc];B[dd];W[];B[ee](;W[ef])(;W[fe];B[ff]))",
        )
        .unwrap();
        let mut bytes = Vec::new();
        let opts = IndexOptions::new(kifu_go::BoardSize::new(9).unwrap());
        build_index(&[Source::new(&g)], &opts, &mut bytes, &|| {}).unwrap();
        let db = dir.path().join("g.kpx");
        std::fs::write(&db, bytes).unwrap();
        let start = kifu_polyglot::position_from_moves("").unwrap();
        let e = kifu_polyglot::Entry {
            key: kifu_polyglot::key(&start),
            raw_move: kifu_polyglot::RawMove(0x031c),
            weight: 1,
            learn: 0,
        };
        let book = dir.path().join("b.bin");
        std::fs::write(&book, e.to_bytes()).unwrap();
        let app = kifu_serve::App::open(&kifu_serve::Config {
            databases: vec![db],
            books: vec![book],
            access_log: false,
            concurrent_searches: 1,
            cache_bytes: None,
        })
        .unwrap();
        // (With time: the router times the reading of a body, as `kifu serve`'s runtime has it.)
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        Fixture { rt, app, _dir: dir }
    })
}

const ROUTES: &[&str] = &[
    "/api/go/board",
    "/api/db/0/lookup",
    "/api/db/0/search",
    "/api/db/0/search.svg",
    "/api/db/0/sgf",
    "/api/db/0/games",
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let f = fixture();
    let req = if usize::from(pick) < ROUTES.len() {
        Request::builder()
            .method("POST")
            .uri(ROUTES[usize::from(pick)])
            .header("content-type", "application/json")
            .body(Body::from(body.to_vec()))
            .unwrap()
    } else {
        // The rest as a query string of the book route (percent-encoded as a browser would).
        let mut uri = String::from("/api/books/0?");
        for &b in body {
            if b.is_ascii_alphanumeric() || b"=&-_.".contains(&b) {
                uri.push(char::from(b));
            } else {
                uri.push_str(&format!("%{b:02X}"));
            }
        }
        Request::builder().uri(uri).body(Body::empty()).unwrap()
    };
    let res = f
        .rt
        .block_on(kifu_serve::api::router(f.app.clone()).oneshot(req))
        .unwrap();
    assert!(res.status().as_u16() < 500, "{}", res.status());
});
