//! API errors: one JSON shape (`{"error": "...", "field": "..."}`) for every failure, so a page
//! or a script can show what was wrong and where.

use axum::extract::rejection::BytesRejection;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// An error answer of the API.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize)]
#[error("{error}")]
pub struct ApiError {
    /// The HTTP status.
    #[serde(skip)]
    pub status: u16,
    /// What went wrong.
    pub error: String,
    /// The request field at fault (`query.pattern`, `moves[3]`), if one is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

impl ApiError {
    /// 400: the request is wrong in `field`.
    pub fn bad(field: impl Into<String>, error: impl std::fmt::Display) -> ApiError {
        let field: String = field.into();
        ApiError {
            status: 400,
            error: error.to_string(),
            field: (!field.is_empty()).then_some(field),
        }
    }

    /// 404: no such thing.
    pub fn not_found(error: impl std::fmt::Display) -> ApiError {
        ApiError {
            status: 404,
            error: error.to_string(),
            field: None,
        }
    }

    /// 500: the server failed (a database file unreadable since it was opened).
    pub fn internal(error: impl std::fmt::Display) -> ApiError {
        ApiError {
            status: 500,
            error: error.to_string(),
            field: None,
        }
    }

    /// 503: the server is shutting down or too busy.
    pub fn unavailable(error: impl std::fmt::Display) -> ApiError {
        ApiError {
            status: 503,
            error: error.to_string(),
            field: None,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        (status, Json(self)).into_response()
    }
}

/// A JSON request body read into `T`, with errors that name the field (`query.placement.kind`)
/// and the place in the body.
pub struct Body<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> axum::extract::FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(req: axum::extract::Request, state: &S) -> Result<Self, ApiError> {
        // A body announced longer than the limit is refused before a byte of it is read,
        // rather than waited for.
        let announced = req
            .headers()
            .get(axum::http::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
        if announced.is_some_and(|n| n > crate::api::MAX_BODY as u64) {
            return Err(ApiError {
                status: 413,
                error: format!("the body is longer than {} bytes", crate::api::MAX_BODY),
                field: None,
            });
        }
        // A client that stops sending its body does not hold the connection for ever.
        let read = axum::body::Bytes::from_request(req, state);
        let bytes = tokio::time::timeout(crate::accept::BODY_TIMEOUT, read)
            .await
            .map_err(|_| ApiError {
                status: 408,
                error: format!(
                    "the body did not come within {} seconds",
                    crate::accept::BODY_TIMEOUT.as_secs()
                ),
                field: None,
            })?
            .map_err(|e: BytesRejection| ApiError {
                status: e.status().as_u16(),
                error: e.body_text(),
                field: None,
            })?;
        parse_body(&bytes).map(Body)
    }
}

/// Reads a JSON body into `T`; an error names the field and the line and column of the body.
pub fn parse_body<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::bad("", "the request needs a JSON body"));
    }
    let de = &mut serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let field = if path == "." { String::new() } else { path };
        ApiError::bad(field, inner)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Outer {
        inner: Inner,
    }
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Inner {
        n: u32,
    }

    #[test]
    fn errors_name_the_field() {
        let e = parse_body::<Outer>(br#"{"inner": {"n": "x"}}"#).unwrap_err();
        assert_eq!(e.status, 400);
        assert_eq!(e.field.as_deref(), Some("inner.n"));
        assert!(e.error.contains("line 1 column 19"), "{}", e.error);
        let e = parse_body::<Outer>(b"  ").unwrap_err();
        assert_eq!(e.field, None);
        assert_eq!(e.error, "the request needs a JSON body");
    }
}
