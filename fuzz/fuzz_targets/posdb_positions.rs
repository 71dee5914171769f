//! Any bytes as a position file of several sizes: reading never panics, every record read
//! re-encodes to the bytes it came from, and an error says where it is.
#![no_main]
use kifu_go::BoardSize;
use kifu_posdb::PositionReader;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for n in [9u32, 2, 19] {
        let size = BoardSize::new(n).expect("supported size");
        let mut rd = PositionReader::new(data, size);
        let mut offset = 0usize;
        for item in &mut rd {
            match item {
                Ok(rec) => {
                    let bytes = rec.to_bytes();
                    assert_eq!(&data[offset..offset + bytes.len()], &bytes[..]);
                    offset += bytes.len();
                }
                Err(e) => {
                    assert_eq!(e.offset as usize, offset);
                    break;
                }
            }
        }
    }
});
