//! Writes N positions from random legal 9x9 games to a position file, for benchmarks:
//! `random_positions N OUT [SEED]`. Moves per game: 20 to 49; sides to play alternate.

use kifu_go::{BoardSize, Color, Move, Point, Position, ZobristKeys};
use kifu_posdb::{Keyer, PositionRecord, PositionWriter};
use std::collections::HashSet;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args
        .get(1)
        .ok_or("usage: random_positions N OUT [SEED]")?
        .parse()?;
    let out = args.get(2).ok_or("usage: random_positions N OUT [SEED]")?;
    let mut state: u64 = args.get(3).map_or(Ok(1), |s| s.parse())?;
    let mut next = move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let size = BoardSize::NINE;
    let mut keyer = Keyer::new(ZobristKeys::default_for(size));
    let mut w = PositionWriter::new(std::io::BufWriter::new(std::fs::File::create(out)?));
    let mut seen = HashSet::new();
    while seen.len() < n {
        let mut pos = Position::new(size);
        let mut colour = Color::Black;
        for _ in 0..20 + next() % 30 {
            for _ in 0..50 {
                let p = Point::from_index((next() % 81) as usize, size).ok_or("point")?;
                if pos.play(colour, Move::Play(p)).is_ok() {
                    break;
                }
            }
            colour = colour.opponent();
        }
        let to_play = if seen.len() % 2 == 0 {
            Color::Black
        } else {
            Color::White
        };
        let board = pos.board();
        let id = keyer.key(&board, to_play)?;
        if seen.insert(id) {
            w.write(&PositionRecord {
                id,
                board,
                extra: None,
            })?;
        }
    }
    w.flush()?;
    Ok(())
}
