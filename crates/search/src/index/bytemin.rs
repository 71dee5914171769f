//! The earliest of the bytes a mask picks in a few rows: the prune's cell-by-cell test of a
//! game with few candidates reads the last changes of the cells the final board contradicts,
//! a row of the rectangle at a time (`survives` in [`super::prune`]). Read one by one, with a
//! branch per cell, a lone stone's side (about 30 such cells a candidate at the end of a game)
//! spent a quarter of its search there. On x86-64 a row's 32 bytes are two SSE2 vectors (part
//! of the architecture's baseline): each row is masked, compared with the stones' arrival and
//! folded into a running minimum, reduced once per candidate ([`Earliest`]; reduced per row,
//! the cut sides took 3% longer), and [`masked_min`] finds the row and cell that hold it.

/// The smallest of the bytes `bytes[at + i]` for the bits `i` set in `mask` (a byte past the
/// end reads 255), with the bits of `mask` whose byte holds it; `None` when `mask` is 0.
#[inline(always)]
pub(crate) fn masked_min(bytes: &[u8], at: usize, mask: u32) -> Option<(u8, u32)> {
    if mask == 0 {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    {
        Some(sse2::masked_min(bytes, at, mask))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Some(plain(bytes, at, mask))
    }
}

/// The earliest of the picked bytes of the rows added ([`Earliest::add`]), each of which must
/// come after `born`.
#[derive(Clone, Copy)]
pub(crate) struct Earliest {
    #[cfg(target_arch = "x86_64")]
    inner: sse2::Earliest,
    #[cfg(not(target_arch = "x86_64"))]
    inner: Plain,
}

impl Earliest {
    /// No row yet; a picked byte no greater than `born` fails the candidate.
    #[inline(always)]
    pub(crate) fn new(born: u32) -> Earliest {
        let born = u8::try_from(born).unwrap_or(u8::MAX);
        Earliest {
            #[cfg(target_arch = "x86_64")]
            inner: sse2::Earliest::new(born),
            #[cfg(not(target_arch = "x86_64"))]
            inner: Plain::new(born),
        }
    }

    /// Adds the bytes `bytes[at + i]` for the bits `i` set in `mask` (a byte past the end
    /// reads 255); false when one of them is no greater than `born`.
    #[inline(always)]
    pub(crate) fn add(&mut self, bytes: &[u8], at: usize, mask: u32) -> bool {
        mask == 0 || self.inner.add(bytes, at, mask)
    }

    /// The least byte picked (`None`: none was).
    #[inline(always)]
    pub(crate) fn least(&self) -> Option<u8> {
        self.inner.least()
    }
}

/// [`Earliest`] a byte at a time: the reference, and the code on other architectures.
#[derive(Clone, Copy)]
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
struct Plain {
    born: u8,
    least: Option<u8>,
}

#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
impl Plain {
    fn new(born: u8) -> Plain {
        Plain { born, least: None }
    }

    fn add(&mut self, bytes: &[u8], at: usize, mask: u32) -> bool {
        if mask == 0 {
            return true;
        }
        let (b, _) = plain(bytes, at, mask);
        self.least = Some(self.least.map_or(b, |l| l.min(b)));
        b > self.born
    }

    fn least(&self) -> Option<u8> {
        self.least
    }
}

/// [`masked_min`] a byte at a time (for a `mask` not 0): the reference, and the code on other
/// architectures.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn plain(bytes: &[u8], at: usize, mask: u32) -> (u8, u32) {
    let byte = |i: u32| bytes.get(at + i as usize).copied().unwrap_or(u8::MAX);
    let least = super::columns::ones(&[u64::from(mask)])
        .map(|i| byte(i as u32))
        .min()
        .unwrap_or(u8::MAX);
    let holding = super::columns::ones(&[u64::from(mask)])
        .filter(|&i| byte(i as u32) == least)
        .fold(0, |m, i| m | 1 << i);
    (least, holding)
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_andnot_si128, _mm_cmpeq_epi8, _mm_cvtsi128_si32, _mm_min_epu8,
        _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi64x, _mm_set1_epi8, _mm_set_epi64x,
        _mm_srli_si128,
    };

    // SAFETY (every `unsafe` block of this module): the intrinsics called there only need
    // the `sse2` target feature, which every x86_64 processor has (it is in the x86_64
    // baseline: `target_feature = "sse2"` always holds there); none of them reads memory
    // (the bytes come through safe slice reads).

    /// Eight bytes from `at` as a little-endian word, 255 past the end.
    #[inline(always)]
    fn word(bytes: &[u8], at: usize) -> i64 {
        match bytes.get(at..at + 8) {
            Some(b) => u64::from_le_bytes(b.try_into().expect("8 bytes")) as i64,
            None => word_at_end(bytes, at),
        }
    }

    /// [`word`] for the bytes at the table's end (out of line: were it inlined, the
    /// compiler kept the whole row's read out of line, a call a row).
    #[cold]
    #[inline(never)]
    fn word_at_end(bytes: &[u8], at: usize) -> i64 {
        let mut b = [u8::MAX; 8];
        for (k, v) in b.iter_mut().enumerate() {
            if let Some(&x) = bytes.get(at + k) {
                *v = x;
            }
        }
        u64::from_le_bytes(b) as i64
    }

    /// The sixteen bytes from `at`, those whose bit of `mask` (16 bits) is clear set to 255.
    #[inline(always)]
    #[allow(unsafe_code)]
    fn picked(bytes: &[u8], at: usize, mask: u32) -> __m128i {
        const SPREAD: u64 = 0x0101_0101_0101_0101;
        let lo = u64::from(mask & 0xff) * SPREAD;
        let hi = u64::from(mask >> 8 & 0xff) * SPREAD;
        let (w0, w1) = (word(bytes, at), word(bytes, at + 8));
        unsafe {
            // Lane `k` of each half holds its byte of `mask` ANDed with `1 << k`.
            let bit = _mm_set1_epi64x(0x8040_2010_0804_0201u64 as i64);
            let spread = _mm_set_epi64x(hi as i64, lo as i64);
            let set = _mm_cmpeq_epi8(_mm_and_si128(spread, bit), bit);
            _mm_or_si128(
                _mm_set_epi64x(w1, w0),
                _mm_andnot_si128(set, _mm_set1_epi8(-1)),
            )
        }
    }

    /// The smallest byte of `v`.
    #[inline(always)]
    #[allow(unsafe_code)]
    fn least(v: __m128i) -> u8 {
        unsafe {
            let v = _mm_min_epu8(v, _mm_srli_si128::<8>(v));
            let v = _mm_min_epu8(v, _mm_srli_si128::<4>(v));
            let v = _mm_min_epu8(v, _mm_srli_si128::<2>(v));
            let v = _mm_min_epu8(v, _mm_srli_si128::<1>(v));
            (_mm_cvtsi128_si32(v) & 0xff) as u8
        }
    }

    /// The lanes of `v` that hold `b`, as bits.
    #[inline(always)]
    #[allow(unsafe_code)]
    fn holding(v: __m128i, b: u8) -> u32 {
        unsafe { _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8))) as u32 }
    }

    /// The lanes' minimum of `a` and `b`.
    #[inline(always)]
    #[allow(unsafe_code)]
    fn min(a: __m128i, b: __m128i) -> __m128i {
        unsafe { _mm_min_epu8(a, b) }
    }

    /// [`super::Earliest`] on SSE2: the running minimum of the rows' picked bytes, lane by
    /// lane (lanes never picked hold 255), and `born` in every lane.
    #[derive(Clone, Copy)]
    pub(super) struct Earliest {
        least: __m128i,
        born: __m128i,
        any: bool,
    }

    #[allow(unsafe_code)]
    impl Earliest {
        #[inline(always)]
        pub(super) fn new(born: u8) -> Earliest {
            unsafe {
                Earliest {
                    least: _mm_set1_epi8(-1),
                    born: _mm_set1_epi8(born as i8),
                    any: false,
                }
            }
        }

        /// Folds in `v`, whose lanes picked are the bits of `m`; false when one of them is no
        /// greater than `born`.
        #[inline(always)]
        fn fold(&mut self, v: __m128i, m: u32) -> bool {
            unsafe {
                let early = _mm_cmpeq_epi8(_mm_min_epu8(v, self.born), v);
                if _mm_movemask_epi8(early) as u32 & m != 0 {
                    return false;
                }
            }
            self.least = min(self.least, v);
            true
        }

        #[inline(always)]
        pub(super) fn add(&mut self, bytes: &[u8], at: usize, mask: u32) -> bool {
            self.any = true;
            let low = mask & 0xffff;
            if low != 0 && !self.fold(picked(bytes, at, low), low) {
                return false;
            }
            let high = mask >> 16;
            high == 0 || self.fold(picked(bytes, at + 16, high), high)
        }

        #[inline(always)]
        pub(super) fn least(&self) -> Option<u8> {
            self.any.then(|| least(self.least))
        }
    }

    /// [`super::masked_min`] for a `mask` not 0.
    #[inline(always)]
    pub(super) fn masked_min(bytes: &[u8], at: usize, mask: u32) -> (u8, u32) {
        let low = picked(bytes, at, mask & 0xffff);
        let (b, lanes) = if mask >> 16 == 0 {
            let b = least(low);
            (b, holding(low, b))
        } else {
            let high = picked(bytes, at + 16, mask >> 16);
            let b = least(min(low, high));
            (b, holding(low, b) | holding(high, b) << 16)
        };
        // Lanes not picked hold 255 too.
        (b, lanes & mask)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table of bytes with frequent ties, 255 ("never" in the tables) and 0, and a source of
    /// masks of a few fixed shapes and random ones.
    fn cases() -> (Vec<u8>, impl FnMut() -> (usize, u32, u64)) {
        let mut next = super::super::xorshift();
        let bytes: Vec<u8> = (0..80)
            .map(|_| match next() % 5 {
                0 => 255,
                1 => 0,
                k => (next() % (8 * k)) as u8,
            })
            .collect();
        let fixed = [
            0,
            1,
            1 << 31,
            u32::MAX,
            0xffff,
            0xffff_0000,
            0x8001,
            0x1_0000,
        ];
        let len = bytes.len() as u64;
        let case = move || {
            // Rows run past the table's end too.
            let at = (next() % (len + 4)) as usize;
            let mask = match next() % 3 {
                0 => fixed[(next() % 8) as usize],
                _ => next() as u32 & next() as u32,
            };
            (at, mask, next())
        };
        (bytes, case)
    }

    #[test]
    fn masked_min_is_the_plain_minimum() {
        let (bytes, mut case) = cases();
        for _ in 0..5000 {
            let (at, mask, _) = case();
            let want = (mask != 0).then(|| plain(&bytes, at, mask));
            assert_eq!(masked_min(&bytes, at, mask), want, "mask {mask:#x} at {at}");
        }
        assert_eq!(masked_min(&[], 0, 5), Some((255, 5)));
        assert_eq!(masked_min(&[3, 1, 1], 0, 0b110), Some((1, 0b110)));
        assert_eq!(masked_min(&[3, 1, 2], 0, 0b101), Some((2, 0b100)));
    }

    /// Up to four rows a candidate, against the byte-at-a-time [`Plain`].
    #[test]
    fn earliest_is_the_plain_minimum() {
        let (bytes, mut case) = cases();
        for k in 0..5000 {
            let (_, _, r) = case();
            let born = match r % 4 {
                0 => 0,
                1 => 255,
                _ => (r >> 8) % 40,
            } as u32;
            let rows: Vec<(usize, u32)> = (0..1 + (r >> 16) % 4)
                .map(|_| {
                    let (a, m, _) = case();
                    (a, m)
                })
                .collect();
            let (mut fast, mut plain) = (Earliest::new(born), Plain::new(born as u8));
            let mut kept = true;
            for &(at, mask) in &rows {
                let (a, b) = (fast.add(&bytes, at, mask), plain.add(&bytes, at, mask));
                assert_eq!(a, b, "case {k}: rows {rows:?}, born {born}");
                kept = a;
                if !a {
                    break;
                }
            }
            // (After a row fails, the least is not read.)
            if kept {
                assert_eq!(fast.least(), plain.least(), "case {k}: rows {rows:?}");
            }
        }
        let mut e = Earliest::new(3);
        assert!(e.add(&[9, 4, 255], 0, 0b110) && e.add(&[], 5, 1) && e.add(&[1], 0, 0));
        assert_eq!(e.least(), Some(4));
        assert!(!e.add(&[3], 0, 1));
        assert_eq!(Earliest::new(0).least(), None);
        // A stone never arriving (born past 255): any cell contradicted fails it.
        assert!(!Earliest::new(300).add(&[], 0, 1));
    }
}
