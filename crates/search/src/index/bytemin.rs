//! The smallest of a row's bytes picked by a mask: the prune's cell-by-cell test of a game
//! with few candidates reads the last changes of the cells the final board contradicts, a row
//! of the rectangle at a time ([`super::times::TimeRead::last_min`]). Read one by one, a lone
//! stone's side (about 30 such cells a candidate at the end of a game) spent a quarter of its
//! search there; on x86-64 a row's 32 bytes are two SSE2 vectors (part of the architecture's
//! baseline), masked and reduced in a few instructions.

/// The smallest of the bytes `bytes[at + i]` for the bits `i` set in `mask` (a byte past the
/// end reads 255), with the least such `i` that holds it; `None` when `mask` is 0.
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

/// [`masked_min`] a byte at a time (for a `mask` not 0): the reference, and the code on other
/// architectures.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn plain(bytes: &[u8], at: usize, mask: u32) -> (u8, u32) {
    let mut best = (u8::MAX, mask.trailing_zeros());
    let mut m = mask;
    while m != 0 {
        let i = m.trailing_zeros();
        m &= m - 1;
        let b = bytes.get(at + i as usize).copied().unwrap_or(u8::MAX);
        if b < best.0 {
            best = (b, i);
        }
    }
    best
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
        (b, (lanes & mask).trailing_zeros())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every mask of a few shapes and random ones, at every offset of a short table (so that
    /// rows run past its end), against the byte-at-a-time reference.
    #[test]
    fn masked_min_is_the_plain_minimum() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        // Ties are frequent in few values; 255 stands for "never" in the tables.
        let bytes: Vec<u8> = (0..80)
            .map(|_| match next() % 5 {
                0 => 255,
                1 => 0,
                k => (next() % (8 * k)) as u8,
            })
            .collect();
        let mut masks = vec![
            0,
            1,
            1 << 31,
            u32::MAX,
            0xffff,
            0xffff_0000,
            0x8001,
            0x1_0000,
        ];
        masks.extend((0..300).map(|_| next() as u32 & next() as u32));
        for &mask in &masks {
            for at in 0..bytes.len() + 4 {
                let want = (mask != 0).then(|| plain(&bytes, at, mask));
                assert_eq!(masked_min(&bytes, at, mask), want, "mask {mask:#x} at {at}");
            }
        }
        assert_eq!(masked_min(&[], 0, 5), Some((255, 0)));
        assert_eq!(masked_min(&[3, 1, 1], 0, 0b110), Some((1, 1)));
    }
}
