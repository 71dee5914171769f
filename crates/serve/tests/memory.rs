//! What a long-running server holds does not grow with the requests it answers: the bytes
//! allocated and not yet freed, counted by this test binary's allocator, after thousands of
//! lookups and searches through the real router are what they were after the first hundred.
//! (Each answered request used to keep its cancel flag for good, 24 bytes.) A binary of its
//! own: tests running beside it would move the count.

mod common;

use axum::http::StatusCode;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

/// The system allocator, counting the bytes it holds for the program.
struct Counting;

static HELD: AtomicIsize = AtomicIsize::new(0);

// SAFETY: each call is passed on to `System` with the pointer and layout it was given, so every
// guarantee `GlobalAlloc` asks for holds as it holds for `System`; the count beside it is a
// relaxed atomic add, which neither allocates nor unwinds. (`alloc_zeroed` and `realloc` keep
// their default bodies, which call these two.)
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: `layout` is the caller's, valid for `System` as for any allocator.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            HELD.fetch_add(layout.size() as isize, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above (so from `System`) with this `layout`.
        unsafe { System.dealloc(ptr, layout) };
        HELD.fetch_sub(layout.size() as isize, Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

#[tokio::test]
async fn answered_requests_leave_nothing_behind() {
    let f = common::fixture();
    let requests = [
        ("/api/db/0/lookup", r##"{"moves": ["C7", "G3"]}"##),
        (
            "/api/db/0/search",
            r##"{"query": {"pattern": "...\n...\n..#"}}"##,
        ),
    ];
    let round = || async {
        for (uri, body) in requests {
            let (status, _) = common::call(&f.app, "POST", uri, body).await;
            assert_eq!(status, StatusCode::OK, "{uri}");
        }
    };
    // The first requests fill what is made once: the searches' cache, the blocking thread.
    for _ in 0..100 {
        round().await;
    }
    let before = HELD.load(Ordering::Relaxed);
    let rounds = 2_000;
    for _ in 0..rounds {
        round().await;
    }
    let grown = HELD.load(Ordering::Relaxed) - before;
    // A leak of a few bytes a request shows as tens of kilobytes; the allowance is for what a
    // thread the runtime starts or stops meanwhile holds.
    assert!(
        grown < 8 << 10,
        "{grown} bytes more held after {} requests",
        2 * rounds
    );
}
