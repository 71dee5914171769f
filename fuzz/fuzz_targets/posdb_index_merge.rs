//! Index parts: any bytes merged (with a copy of themselves, one after the other, as `pos index
//! --add` merges); errors only, never a panic or an allocation beyond the file's size.
#![no_main]
use kifu_posdb::index::{merge_index_parts, Layout};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("kifu-fuzz-index-part-{}", std::process::id()));
    if std::fs::write(&path, data).is_err() {
        return;
    }
    let mut out = Vec::new();
    let _ = merge_index_parts(&[path.clone(), path], Layout::Concatenated, None, &mut out);
});
