//! Position index files: any bytes opened as an index, then a lookup, game reads, the whole game and file tables and a check of every block; errors only,
//! never a panic or an allocation beyond the file's size.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("kifu-fuzz-index-{}", std::process::id()));
    if std::fs::write(&path, data).is_err() {
        return;
    }
    if let Ok(db) = kifu_posdb::index::IndexReader::open(&path) {
        let board = kifu_go::Board::new(db.size());
        let _ = db.lookup(&board, kifu_go::Color::Black, true);
        let _ = db.lookup_page(&board, kifu_go::Color::Black, true, 20);
        let _ = db.lookup_page(&board, kifu_go::Color::White, false, 0);
        let _ = db.game_places();
        let _ = db.file_paths();
        for g in 0..db.games().min(4) {
            let _ = db.game(g as u32);
        }
        let _ = db.verify();
    }
});
