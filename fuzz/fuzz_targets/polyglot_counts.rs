//! Book counts files (`KIFUBKC1`): any bytes merged as the one part of a job; errors only, never
//! a panic, a hang (the trailer may name any file to read again) or an allocation beyond the
//! file's size.
#![no_main]
use kifu_polyglot::make::{make_book_from_counts, MakeOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("kifu-fuzz-counts-{}", std::process::id()));
    if std::fs::write(&path, data).is_err() {
        return;
    }
    let mut written = 0u64;
    let _ = make_book_from_counts(&[path], &MakeOptions::default(), &mut |_| {
        written += 1;
        Ok(())
    });
});
