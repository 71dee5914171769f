//! Replay speed: random legal games (generated before timing) replayed from the empty board with
//! legality checks, captures and all 8 symmetric hashes, reading the canonical hash after every
//! move. Throughput is in moves (elements) per second.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kifu_go::{BoardSize, Color, Move, Point, Position, Rules};
use std::hint::black_box;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Whether `p` is a one-point eye of `color` (all neighbours its stones or the edge).
fn is_eye(pos: &Position, p: Point, color: Color) -> bool {
    let size = pos.size();
    let n = i64::from(size.get());
    let (c, r) = (i64::from(p.col()), i64::from(p.row()));
    [(c - 1, r), (c + 1, r), (c, r - 1), (c, r + 1)]
        .into_iter()
        .filter(|&(c, r)| c >= 0 && r >= 0 && c < n && r < n)
        .all(|(c, r)| {
            let q = Point::new(c as u32, r as u32, size).unwrap();
            pos.stone_at(q) == Some(color)
        })
}

/// A random legal game that does not fill its own eyes, ending after two passes.
fn random_game(size: BoardSize, rng: &mut Rng) -> Vec<(Color, Move)> {
    let mut pos = Position::new(size);
    let mut moves = Vec::new();
    let mut color = Color::Black;
    let cap = size.points() * 3;
    while moves.len() < cap && pos.consecutive_passes() < 2 {
        let mut candidates: Vec<Point> = size
            .all_points()
            .filter(|&p| pos.stone_at(p).is_none() && !is_eye(&pos, p, color))
            .collect();
        let mut chosen = Move::Pass;
        while !candidates.is_empty() {
            let i = (rng.next() % candidates.len() as u64) as usize;
            let p = candidates.swap_remove(i);
            if pos.check(color, Move::Play(p)).is_ok() {
                chosen = Move::Play(p);
                break;
            }
        }
        pos.play(color, chosen).expect("checked legal");
        moves.push((color, chosen));
        color = color.opponent();
    }
    moves
}

fn replay(size: BoardSize, rules: Rules, games: &[Vec<(Color, Move)>]) -> u64 {
    let mut acc = 0u64;
    for game in games {
        let mut pos = Position::with_rules(size, rules);
        for &(color, mv) in game {
            let _ = pos.play(color, mv);
            acc ^= pos.canonical().hash;
        }
    }
    acc
}

fn bench_play(c: &mut Criterion) {
    let mut group = c.benchmark_group("play+8 hashes");
    for (n, games) in [(9u32, 400usize), (19, 60)] {
        let size = BoardSize::new(n).unwrap();
        let mut rng = Rng(0x6b69_6675 + u64::from(n));
        let games: Vec<_> = (0..games).map(|_| random_game(size, &mut rng)).collect();
        let total: usize = games.iter().map(Vec::len).sum();
        group.throughput(Throughput::Elements(total as u64));
        group.bench_with_input(BenchmarkId::from_parameter(size), &games, |b, g| {
            b.iter(|| black_box(replay(size, Rules::default(), black_box(g))))
        });
        // Positional superko adds a hash-set insert and lookup per move.
        group.bench_with_input(BenchmarkId::new("superko", size), &games, |b, g| {
            b.iter(|| black_box(replay(size, Rules::CHINESE, black_box(g))))
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30);
    targets = bench_play
}
criterion_main!(benches);
