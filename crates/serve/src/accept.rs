//! The accept loop: connections with timeouts, a bound on how many are open, and room made
//! for a new client when they are all taken by clients that are sending nothing.

use crate::app::App;
use axum::body::HttpBody;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{Notify, Semaphore};

/// How long a client may take to send a request's headers (also the most a kept-alive
/// connection stays open without a request).
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a client may take to send a request's body.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// The most connections served at once. When they are all open, the one idle the longest (no
/// request being answered: kept alive, or still sending its headers or its body) is closed for
/// the next.
pub const MAX_CONNECTIONS: usize = 256;

/// How long the requests in flight have to finish once the server is told to stop.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

/// What the accept loop sees of a connection.
struct Shared {
    /// Requests being answered: from their headers read to their response's body sent.
    busy: AtomicUsize,
    /// Of those, the ones whose body is still coming: a client that sends a body slowly, or
    /// stops halfway, holds no more claim to its connection than one that sends nothing.
    receiving: AtomicUsize,
    /// When it was last busy or opened, in milliseconds from the server's start.
    idle_since: AtomicU64,
    /// Asks it to close.
    evict: Notify,
}

/// The open connections, for choosing one to close.
#[derive(Default)]
struct Open {
    next: u64,
    conns: Vec<(u64, Arc<Shared>)>,
}

/// Takes a connection out of [`Open`] when its task ends, however it ends.
struct Registered {
    open: Arc<Mutex<Open>>,
    id: u64,
}

impl Drop for Registered {
    fn drop(&mut self) {
        if let Ok(mut open) = self.open.lock() {
            open.conns.retain(|(id, _)| *id != self.id);
        }
    }
}

/// Marks a connection busy while it lives: made when a request's headers are read, dropped
/// with the response's body once it is sent (or dropped unsent).
struct Busy {
    shared: Arc<Shared>,
    start: Instant,
}

impl Busy {
    fn new(shared: &Arc<Shared>, start: Instant) -> Busy {
        shared.busy.fetch_add(1, Ordering::SeqCst);
        Busy {
            shared: shared.clone(),
            start,
        }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        let ms = self.start.elapsed().as_millis() as u64;
        self.shared.idle_since.store(ms, Ordering::SeqCst);
        self.shared.busy.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Shared {
    /// No request of its own being answered: none, or only requests still receiving their
    /// bodies.
    fn idle(&self) -> bool {
        self.busy.load(Ordering::SeqCst) <= self.receiving.load(Ordering::SeqCst)
    }
}

/// A request's body that counts as receiving until its end is read (or it is dropped).
struct Receiving {
    inner: hyper::body::Incoming,
    shared: Option<Arc<Shared>>,
}

impl Receiving {
    fn new(inner: hyper::body::Incoming, shared: &Arc<Shared>) -> Receiving {
        shared.receiving.fetch_add(1, Ordering::SeqCst);
        Receiving {
            inner,
            shared: Some(shared.clone()),
        }
    }

    fn received(&mut self) {
        if let Some(s) = self.shared.take() {
            s.receiving.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

impl Drop for Receiving {
    fn drop(&mut self) {
        self.received();
    }
}

impl HttpBody for Receiving {
    type Data = axum::body::Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>> {
        let this = self.get_mut();
        let frame = std::pin::Pin::new(&mut this.inner).poll_frame(cx);
        if matches!(
            frame,
            std::task::Poll::Ready(None) | std::task::Poll::Ready(Some(Err(_)))
        ) || this.inner.is_end_stream()
        {
            this.received();
        }
        frame
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.inner.size_hint()
    }
}

/// Asks the connection idle the longest to close; `false` when every one is answering a
/// request.
fn evict_one(open: &Mutex<Open>) -> bool {
    let Ok(open) = open.lock() else {
        return false;
    };
    let idle = open
        .conns
        .iter()
        .filter(|(_, s)| s.idle())
        .min_by_key(|(_, s)| s.idle_since.load(Ordering::SeqCst));
    match idle {
        Some((_, s)) => {
            s.evict.notify_one();
            true
        }
        None => false,
    }
}

/// Serves `app` on `listener` until `shutdown` completes, then finishes the requests in flight.
///
/// Its own accept loop rather than `axum::serve`, which gives a client that never finishes its
/// headers (or never sends any) the connection for ever: a few hundred such clients took every
/// file descriptor of the process. Here each connection has [`HEADER_TIMEOUT`] for its headers
/// and [`BODY_TIMEOUT`] for its body (`error::Body`), and at most [`MAX_CONNECTIONS`] are open.
/// When they all are, the connection idle the longest is closed for the new one, so clients
/// that hold connections without a whole request (no request, or headers or a body sent in
/// part) delay no one; only requests being answered keep theirs (a new client then waits for
/// one to end). Once told to stop, it gives the requests
/// in flight [`SHUTDOWN_GRACE`].
pub async fn serve(
    app: Arc<App>,
    listener: tokio::net::TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    use http_body_util::BodyExt;
    use hyper_util::rt::{TokioIo, TokioTimer};
    use tower::ServiceExt;
    let router = crate::api::router(app);
    let start = Instant::now();
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let open = Arc::new(Mutex::new(Open::default()));
    // Raised once to close the connections (after the requests in flight).
    let (close, closing) = tokio::sync::watch::channel(false);
    let mut connections = tokio::task::JoinSet::new();
    tokio::pin!(shutdown);
    'serve: loop {
        while connections.try_join_next().is_some() {}
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // Out of file descriptors, or a connection reset before it was accepted:
                // the listener stays up.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break 'serve,
        };
        // Every connection open: the one idle the longest is asked to close (again after a
        // while, in case it took a request meanwhile and stayed, or every one was busy).
        let slot = loop {
            if let Ok(slot) = slots.clone().try_acquire_owned() {
                break slot;
            }
            let again = if evict_one(&open) { 100 } else { 1000 };
            tokio::select! {
                slot = slots.clone().acquire_owned() => match slot {
                    Ok(slot) => break slot,
                    Err(_) => break 'serve,
                },
                () = tokio::time::sleep(Duration::from_millis(again)) => {}
                () = &mut shutdown => break 'serve,
            }
        };
        let shared = Arc::new(Shared {
            busy: AtomicUsize::new(0),
            receiving: AtomicUsize::new(0),
            idle_since: AtomicU64::new(start.elapsed().as_millis() as u64),
            evict: Notify::new(),
        });
        let registered = {
            let mut o = open.lock().unwrap_or_else(|e| e.into_inner());
            let id = o.next;
            o.next += 1;
            o.conns.push((id, shared.clone()));
            Registered {
                open: open.clone(),
                id,
            }
        };
        let router = router.clone();
        let marked = shared.clone();
        let service =
            hyper::service::service_fn(move |r: axum::http::Request<hyper::body::Incoming>| {
                let busy = Busy::new(&marked, start);
                let r = if r.body().is_end_stream() {
                    r.map(axum::body::Body::new)
                } else {
                    r.map(|b| axum::body::Body::new(Receiving::new(b, &marked)))
                };
                let answer = router.clone().oneshot(r);
                async move {
                    let response = answer.await?;
                    // Busy until the body is sent: the closure that holds the mark goes with it.
                    Ok::<_, std::convert::Infallible>(response.map(|body| {
                        axum::body::Body::new(body.map_frame(move |frame| {
                            let _ = &busy;
                            frame
                        }))
                    }))
                }
            });
        let mut closing = closing.clone();
        connections.spawn(async move {
            let _slot = slot;
            let _registered = registered;
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT);
            let conn = builder.serve_connection(TokioIo::new(stream), service);
            tokio::pin!(conn);
            loop {
                tokio::select! {
                    _ = conn.as_mut() => return,
                    () = shared.evict.notified() => {
                        // A request that came meanwhile (its body read) keeps it open.
                        if shared.idle() {
                            return;
                        }
                    }
                    _ = closing.changed() => {
                        conn.as_mut().graceful_shutdown();
                        let _ = conn.await;
                        return;
                    }
                }
            }
        });
    }
    drop(listener);
    let _ = close.send(true);
    // The requests in flight have a while to finish; a client still sending its request (or
    // its body) then is cut off, and a search still running is cancelled with its request.
    let drained = async { while connections.join_next().await.is_some() {} };
    if tokio::time::timeout(SHUTDOWN_GRACE, drained).await.is_err() {
        connections.abort_all();
        while connections.join_next().await.is_some() {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A connection is idle with no request, or with requests still receiving their bodies;
    /// a request whose body is read (or that has none) makes it busy until its answer is sent.
    #[test]
    fn only_requests_with_their_bodies_read_keep_a_connection() {
        let s = Arc::new(Shared {
            busy: AtomicUsize::new(0),
            receiving: AtomicUsize::new(0),
            idle_since: AtomicU64::new(0),
            evict: Notify::new(),
        });
        assert!(s.idle());
        let answering = Busy::new(&s, Instant::now());
        assert!(!s.idle());
        drop(answering);
        assert!(s.idle());
        let uploading = Busy::new(&s, Instant::now());
        s.receiving.fetch_add(1, Ordering::SeqCst);
        assert!(s.idle());
        s.receiving.fetch_sub(1, Ordering::SeqCst);
        assert!(!s.idle());
        drop(uploading);
        assert!(s.idle());
        let open = Mutex::new(Open {
            next: 1,
            conns: vec![(0, s.clone())],
        });
        assert!(evict_one(&open));
        let _busy = Busy::new(&s, Instant::now());
        assert!(!evict_one(&open));
    }
}
