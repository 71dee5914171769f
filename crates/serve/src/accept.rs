//! The accept loop: connections with timeouts, a bound on how many are open, and room made
//! for a new client when they are all taken by clients that are sending nothing.

use crate::app::App;
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
/// request being answered: kept alive, or still sending its headers) is closed for the next.
pub const MAX_CONNECTIONS: usize = 256;

/// How long the requests in flight have to finish once the server is told to stop.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

/// What the accept loop sees of a connection.
struct Shared {
    /// Requests being answered: from their headers read to their response's body sent.
    busy: AtomicUsize,
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

/// Asks the connection idle the longest to close; `false` when every one is answering a
/// request.
fn evict_one(open: &Mutex<Open>) -> bool {
    let Ok(open) = open.lock() else {
        return false;
    };
    let idle = open
        .conns
        .iter()
        .filter(|(_, s)| s.busy.load(Ordering::SeqCst) == 0)
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
/// that hold connections without a request delay no one; only requests being answered keep
/// theirs (a new client then waits for one to end). Once told to stop, it gives the requests
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
                let answer = router.clone().oneshot(r.map(axum::body::Body::new));
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
                        // A request that came meanwhile keeps it open.
                        if shared.busy.load(Ordering::SeqCst) == 0 {
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
