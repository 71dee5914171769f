//! The API on a small hand-made database, through the real router: answers equal the library's
//! (so the CLI's JSON), bad requests answer 400 naming the field, no path reaches the file
//! system, limits hold, and the OpenAPI document lists exactly the routes.

mod common;

use axum::http::StatusCode;
use common::{call, fixture};
use kifu_go::BoardSize;
use kifu_serve::App;
use serde_json::{json, Value};
use std::sync::Arc;

async fn call_json(app: &Arc<App>, method: &str, uri: &str, body: &str) -> (StatusCode, Value) {
    let (status, bytes) = call(app, method, uri, body).await;
    let v = serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("{uri}: not JSON ({e}): {}", String::from_utf8_lossy(&bytes)));
    (status, v)
}

#[tokio::test]
async fn answers_equal_the_librarys() {
    let f = fixture();
    let (s, v) = call_json(&f.app, "GET", "/api/info", "").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["databases"][0]["games"], 3);
    assert_eq!(v["databases"][0]["size"], 9);
    assert_eq!(v["books"][0]["entries"], 1);

    // Lookup after B C7 W G3: the two games that went so, each continuing differently.
    let (s, v) = call_json(
        &f.app,
        "POST",
        "/api/db/0/lookup",
        r##"{"moves": ["C7", "G3"]}"##,
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let db = kifu_search::Database::open(&f.db).unwrap();
    let mut board = kifu_go::Board::new(BoardSize::new(9).unwrap());
    board
        .set(
            kifu_go::Point::from_human("C7", db.size()).unwrap(),
            Some(kifu_go::Color::Black),
        )
        .unwrap();
    board
        .set(
            kifu_go::Point::from_human("G3", db.size()).unwrap(),
            Some(kifu_go::Color::White),
        )
        .unwrap();
    let want = db.lookup(&board, kifu_go::Color::Black, false, 20).unwrap();
    assert_eq!(v, serde_json::to_value(&want).unwrap());
    // The third game reached it too, turned half a circle (B G3, W C7).
    assert_eq!(v["games"], 3);
    assert_eq!(v["matches"][2]["symmetry_name"], "rotate 180");

    // Pattern search: a region of the top-left corner.
    let body = json!({
        "query": {"pattern": "...\n...\n..#"},
        "region": {"col": 0, "row": 0, "width": 3, "height": 3},
        "limit": 10,
    });
    let (s, v) = call_json(&f.app, "POST", "/api/db/0/search", &body.to_string()).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let mut q = kifu_search::Query::new(
        kifu_search::Pattern::parse("...\n...\n..#").unwrap(),
        kifu_search::Placement::At { col: 0, row: 0 },
    );
    q.symmetries = true;
    let want = db.search(
        &q,
        kifu_search::scan::Page {
            offset: 0,
            limit: 10,
        },
        false,
    );
    assert_eq!(v, serde_json::to_value(&want.answer).unwrap());
    assert_eq!(v["games"], 3);

    // Games by their information alone.
    let body_games = json!({"filters": {"player": "ann"}, "limit": 5});
    let (s, v) = call_json(&f.app, "POST", "/api/db/0/games", &body_games.to_string()).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let filters = kifu_search::Filters {
        player: Some("ann".into()),
        ..kifu_search::Filters::default()
    };
    let want = db.filter_games(
        &filters,
        kifu_search::scan::Page {
            offset: 0,
            limit: 5,
        },
        false,
    );
    assert_eq!(v, serde_json::to_value(&want).unwrap());
    assert!(v["games"].as_u64().unwrap() >= 1, "{v}");
    assert_eq!(v["matches"][0]["black"], "Ann");
    let (s, v) = call_json(
        &f.app,
        "POST",
        "/api/db/0/games",
        &json!({"filters": {"winner": "nobody"}}).to_string(),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");

    // The SVG of the same search.
    let (s, svg) = call(&f.app, "POST", "/api/db/0/search.svg", &body.to_string()).await;
    assert_eq!(s, StatusCode::OK);
    assert!(String::from_utf8(svg).unwrap().starts_with("<svg"));

    // A game for the viewer, with its comment and variation.
    let (s, v) = call_json(&f.app, "GET", "/api/db/0/games/0", "").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["black"], "Ann");
    assert_eq!(v["nodes"].as_array().unwrap().len(), 5);
    assert_eq!(v["nodes"][4]["comment"], "four corners");
    assert_eq!(v["nodes"][4]["rows"][2], "..#...O..");
    let (s, v) = call_json(&f.app, "GET", "/api/db/0/games/2", "").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["nodes"][3]["children"], json!([4, 5]));

    // SGF downloads: one game, and every game of a search.
    let (s, sgf) = call(&f.app, "GET", "/api/db/0/games/1/sgf", "").await;
    assert_eq!(s, StatusCode::OK);
    assert!(String::from_utf8(sgf).unwrap().contains("PB[Cid]"));
    let dl = json!({"search": body});
    let (s, sgf) = call(&f.app, "POST", "/api/db/0/sgf", &dl.to_string()).await;
    assert_eq!(s, StatusCode::OK);
    let text = String::from_utf8(sgf).unwrap();
    let parsed = kifu_sgf::Collection::parse(text.as_bytes());
    assert_eq!(parsed.collection.len(), 3);
    // An empty point anywhere: hundreds of hits a game, every game downloaded (the
    // download took the games of the first 1,000 matches; `matching_games` is tested
    // against the plain scan in kifu-search's `deep_pages.rs`).
    let empty = json!({"search": {"query": {"pattern": ".", "placement": {"kind": "anywhere"}}}});
    let (s, sgf) = call(&f.app, "POST", "/api/db/0/sgf", &empty.to_string()).await;
    assert_eq!(s, StatusCode::OK);
    let text = String::from_utf8(sgf).unwrap();
    assert_eq!(
        kifu_sgf::Collection::parse(text.as_bytes())
            .collection
            .len(),
        3
    );

    // The book.
    let (s, v) = call_json(&f.app, "GET", "/api/books/0", "").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["entries"][0]["san"], "e4");
    assert_eq!(v["entries"][0]["share"], 100.0);
    let (s, v) = call_json(&f.app, "GET", "/api/books/0?moves=e4%20e5", "").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["entries"], json!([]));
    assert_eq!(
        v["fen"],
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    );
}

#[tokio::test]
async fn bad_requests_name_the_field() {
    let f = fixture();
    let cases: &[(&str, &str, &str, u16, Option<&str>)] = &[
        (
            "POST",
            "/api/db/0/lookup",
            r##"{"moves": ["C7", "C7"]}"##,
            400,
            Some("moves[1]"),
        ),
        (
            "POST",
            "/api/db/0/lookup",
            r##"{"moves": ["Z99"]}"##,
            400,
            Some("moves[0]"),
        ),
        (
            "POST",
            "/api/db/0/lookup",
            r##"{"limit": 100000}"##,
            400,
            Some("limit"),
        ),
        (
            "POST",
            "/api/db/0/lookup",
            r##"{"colour": "B"}"##,
            400,
            Some("colour"),
        ),
        ("POST", "/api/db/0/lookup", "", 400, None),
        ("POST", "/api/db/0/lookup", "{", 400, None),
        (
            "POST",
            "/api/db/0/search",
            r##"{"query": {"pattern": "#Q"}}"##,
            400,
            Some("query.pattern"),
        ),
        (
            "POST",
            "/api/db/0/search",
            r##"{"query": {"pattern": ""}}"##,
            400,
            Some("query.pattern"),
        ),
        (
            "POST",
            "/api/db/0/search",
            "{\"query\": {\"pattern\": \"##########\"}}",
            400,
            Some("query.pattern"),
        ),
        (
            "POST",
            "/api/db/0/search",
            r##"{"query": {"pattern": "#", "moves": [9, 2]}}"##,
            400,
            Some("query.moves"),
        ),
        (
            "POST",
            "/api/db/0/search",
            r##"{"query": {"pattern": "#."}, "region": {"col": 8, "row": 0, "width": 2, "height": 1}}"##,
            400,
            Some("region"),
        ),
        (
            "POST",
            "/api/db/0/search",
            r##"{"query": {"pattern": "#", "placement": {"kind": "up"}}}"##,
            400,
            Some("query.placement.kind"),
        ),
        (
            "POST",
            "/api/db/0/sgf",
            r##"{"games": [7]}"##,
            400,
            Some("games"),
        ),
        ("POST", "/api/db/0/sgf", r##"{}"##, 400, Some("games")),
        (
            "POST",
            "/api/go/board",
            r##"{"size": 40}"##,
            400,
            Some("size"),
        ),
        (
            "POST",
            "/api/go/board",
            r##"{"size": 9, "setup": "#O"}"##,
            400,
            Some("setup"),
        ),
        ("GET", "/api/books/0?fen=nonsense", "", 400, Some("fen")),
        ("GET", "/api/books/0?moves=e4%20e4", "", 400, Some("moves")),
        ("GET", "/api/books/0?colour=w", "", 400, None),
        ("GET", "/api/db/1/games/0", "", 404, None),
        ("GET", "/api/db/x/games/0", "", 404, None),
        ("GET", "/api/db/0/games/3", "", 404, None),
        ("GET", "/api/db/0/games/-1", "", 404, None),
        ("GET", "/api/books/9", "", 404, None),
        ("GET", "/api/nothing", "", 404, None),
        ("GET", "/..%2F..%2Fetc%2Fpasswd", "", 404, None),
        ("GET", "/%2e%2e/Cargo.toml", "", 404, None),
        ("GET", "/db.kpx", "", 404, None),
    ];
    for &(method, uri, body, status, field) in cases {
        let (s, v) = call_json(&f.app, method, uri, body).await;
        assert_eq!(s.as_u16(), status, "{method} {uri} {body}: {v}");
        assert!(
            v["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{uri}: {v}"
        );
        match field {
            Some("") => assert!(v.get("field").is_none(), "{uri}: {v}"),
            Some(name) => assert_eq!(v["field"], name, "{uri} {body}: {v}"),
            None => {}
        }
    }
    // A body over the limit is refused before it is read to the end.
    let big = format!(r##"{{"moves": [{}]}}"##, vec!["\"pass\""; 60_000].join(","));
    let (s, v) = call_json(&f.app, "POST", "/api/db/0/lookup", &big).await;
    assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE, "{v}");
}

#[tokio::test]
async fn the_page_and_the_openapi_document() {
    let f = fixture();
    let (s, html) = call(&f.app, "GET", "/", "").await;
    assert_eq!(s, StatusCode::OK);
    assert!(String::from_utf8(html)
        .unwrap()
        .contains("<script src=\"/app.js\">"));
    for (name, _, body) in kifu_serve::assets::FILES {
        let (s, got) = call(&f.app, "GET", &format!("/{name}"), "").await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(got, body.as_bytes());
    }
    let (s, doc) = call_json(&f.app, "GET", "/api/openapi.json", "").await;
    assert_eq!(s, StatusCode::OK);
    assert!(doc["openapi"].as_str().unwrap().starts_with("3."));
    let mut documented: Vec<(String, String)> = Vec::new();
    for (path, ops) in doc["paths"].as_object().unwrap() {
        for method in ops.as_object().unwrap().keys() {
            documented.push((method.clone(), path.clone()));
        }
    }
    documented.sort();
    let mut routes: Vec<(String, String)> = kifu_serve::api::API_ROUTES
        .iter()
        .map(|(m, p)| (m.to_string(), p.to_string()))
        .collect();
    routes.sort();
    assert_eq!(documented, routes);
    // Every documented route exists: with valid numbers it is never a 404 or 405.
    for (method, path) in &routes {
        let uri = path
            .replace("{db}", "0")
            .replace("{game}", "0")
            .replace("{book}", "0");
        let body = if path.ends_with("/sgf") && method == "post" {
            r##"{"games": [0]}"##
        } else if path.contains("search") {
            r##"{"query": {"pattern": "#"}}"##
        } else if path.ends_with("board") {
            r##"{"size": 9}"##
        } else {
            "{}"
        };
        let (s, _) = call(&f.app, &method.to_uppercase(), &uri, body).await;
        assert_eq!(s, StatusCode::OK, "{method} {uri}");
    }
    // Every $ref of the document resolves.
    let text = doc.to_string();
    for piece in text.split("\"$ref\":\"#/components/schemas/").skip(1) {
        let name = &piece[..piece.find('"').unwrap()];
        assert!(doc["components"]["schemas"].get(name).is_some(), "{name}");
    }
}

/// A pattern index changed in place after the server opened it cannot be read by a search:
/// the answer would leave games out, so the request fails naming the file, never a part of
/// an answer given as the answer.
#[tokio::test]
async fn a_pattern_index_changed_under_the_server_fails_the_search() {
    let f = fixture();
    let kpp = f.db.with_extension("kpp");
    let file = std::fs::OpenOptions::new().write(true).open(&kpp).unwrap();
    file.set_modified(std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(7))
        .unwrap();
    let body = r##"{"query": {"pattern": "#", "placement": {"kind": "anywhere"}}}"##;
    let (s, v) = call_json(&f.app, "POST", "/api/db/0/search", body).await;
    assert_eq!(s, StatusCode::INTERNAL_SERVER_ERROR, "{v}");
    let e = v["error"].as_str().unwrap();
    assert!(e.contains("db.kpp: changed since it was opened"), "{e}");
    let (s, _) = call_json(&f.app, "POST", "/api/db/0/games", r#"{"filters": {}}"#).await;
    assert_eq!(s, StatusCode::OK);
}
