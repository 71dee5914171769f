//! The page's files, embedded in the binary: no request path ever reaches the file system.

use crate::error::ApiError;
use axum::extract::Path;
use axum::http::header;
use axum::response::{IntoResponse, Response};

/// The page's files: name, content type, bytes.
pub const FILES: &[(&str, &str, &str)] = &[
    (
        "index.html",
        "text/html; charset=utf-8",
        include_str!("../web/index.html"),
    ),
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/app.js"),
    ),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("../web/style.css"),
    ),
    (
        "favicon.svg",
        "image/svg+xml",
        include_str!("../web/favicon.svg"),
    ),
];

/// The OpenAPI document of the API.
pub const OPENAPI: &str = include_str!("../web/openapi.json");

fn serve(name: &str) -> Response {
    match FILES.iter().find(|(n, _, _)| *n == name) {
        Some((_, kind, body)) => (
            [
                (header::CONTENT_TYPE, *kind),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            *body,
        )
            .into_response(),
        None => ApiError::not_found(format!("no file {name}")).into_response(),
    }
}

/// `/`: the page.
pub async fn index() -> Response {
    serve("index.html")
}

/// `/{file}`: one of the page's files.
pub async fn file(Path(name): Path<String>) -> Response {
    serve(&name)
}

/// `/api/openapi.json`.
pub async fn openapi() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], OPENAPI).into_response()
}
