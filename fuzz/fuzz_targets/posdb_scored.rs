//! Any bytes as a scored file: reading never panics and every record re-encodes to its bytes.
#![no_main]
use kifu_posdb::ScoredReader;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut offset = 0usize;
    for item in ScoredReader::new(data) {
        match item {
            Ok(rec) => {
                assert_eq!(&data[offset..offset + 12], &rec.to_bytes()[..]);
                offset += 12;
            }
            Err(e) => {
                assert_eq!(e.offset as usize, offset);
                break;
            }
        }
    }
});
