//! The second hash of the entries' keys: the lowest of the 8 symmetric Zobrist hashes of a
//! board with a second, fixed table, so that two boards share a key only if both 64-bit hashes
//! collide. The builder keeps it up to date point by point ([`super::sink`]); the reader hashes
//! each query board whole.

use kifu_go::{BoardSize, Color, Symmetry, ZobristTable};

/// The second table: splitmix64 from a fixed seed different from kifu-go's.
fn second_table(size: BoardSize) -> ZobristTable {
    let mut state = 0x6b69_6675_2d68_3200u64 | u64::from(size.get());
    let mut draw = || loop {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        if z != 0 {
            break z;
        }
    };
    let values = (0..size.points())
        .map(|_| [draw(), draw(), draw()])
        .collect();
    ZobristTable::from_values(values).expect("n*n values make a table")
}

/// The second hash's per-point values for all 8 symmetries.
#[derive(Debug, Clone)]
pub(super) struct SecondHash {
    // [point * 2 + colour][symmetry]
    values: Vec<[u64; 8]>,
}

impl SecondHash {
    /// The values for boards of `size`.
    pub fn new(size: BoardSize) -> SecondHash {
        let t = second_table(size);
        let mut values = vec![[0u64; 8]; size.points() * 2];
        for p in size.all_points() {
            for c in Color::ALL {
                for s in Symmetry::ALL {
                    values[p.index(size) * 2 + c.index()][s.index()] = t.value(c, s.apply(p, size));
                }
            }
        }
        SecondHash { values }
    }

    /// The values of a stone of colour `c` on point index `i`, one per symmetry: a hash kept in
    /// 8 lanes is updated by XOR-ing them in.
    #[inline(always)]
    pub fn point(&self, i: usize, c: Color) -> &[u64; 8] {
        &self.values[i * 2 + c.index()]
    }

    /// The hash of a board's stones (point index, colour).
    pub fn of(&self, stones: impl Iterator<Item = (usize, Color)>) -> u64 {
        let mut h = [0u64; 8];
        for (i, c) in stones {
            let v = self.point(i, c);
            for s in 0..8 {
                h[s] ^= v[s];
            }
        }
        h.into_iter().min().unwrap_or(0)
    }
}
