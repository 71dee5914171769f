//! The writer of the time tables: [`encode`] and its working tables ([`Scratch`]).

use super::{words, MainLine, NEVER};
use crate::index::format::put_varint;

/// Appends the tables of a game of side `n`: its final board `fin` (a state per point: 0
/// empty, 1 black, 2 white), and per point its first stone (`u32::MAX`: never) and last
/// change in nodes, and `twice` (the state of its one stone when it held one and was then
/// emptied for good, else 0), in units of `1 << shift` nodes (which the caller chose so that
/// every last change fits below 255), the changes of the points changed again (`changes`:
/// point, node, state, by point then node; those of points that held one stone are skipped),
/// then `line` when the main line is plain; `scratch` holds the working tables.
pub(crate) fn encode(
    fin: &[u8],
    (first, last, twice): (&[u32], &[u32], &[u8]),
    changes: &[(u16, u32, u8)],
    (n, shift): (usize, u8),
    line: Option<MainLine>,
    (out, scratch): (&mut Vec<u8>, &mut Scratch),
) {
    // One pass over the points fills every table (every game an index takes comes here): the
    // board's words and the per-point bytes in place, the bit words and the again-points'
    // first times aside, written after the bytes. It was one pass per table, with a call per
    // bit for the bit words.
    let (nn, nw) = (n * n, words(n));
    let start = out.len();
    out.resize(start + 8 * n + nn, 0);
    let (board, lasts) = out[start..].split_at_mut(8 * n);
    let Scratch {
        rows,
        again,
        inside,
        firsts,
        held,
        parity,
        many,
        list,
    } = scratch;
    for v in [
        &mut *firsts,
        &mut *held,
        &mut *parity,
        &mut *many,
        &mut *list,
    ] {
        v.clear();
    }
    rows.clear();
    rows.resize(2 * n, 0);
    again.clear();
    again.resize(nw, 0);
    inside.clear();
    inside.resize(nw, 0);
    let mut next = changes.iter().peekable();
    let unit = (1u32 << shift) - 1;
    let (mut col, mut row) = (0, 0);
    for q in 0..nn {
        let s = fin[q];
        if s != 0 {
            rows[usize::from(s - 1) * n + row] |= 1 << col;
        }
        let (f, l) = (first[q], last[q]);
        if f != u32::MAX {
            // Rounded up by a shift, not `div_ceil`: a division by a variable per point was
            // a real division (tens of cycles) for every point of every game.
            lasts[q] = ((u64::from(l) + u64::from(unit)) >> shift) as u8;
            // A point whose first stone is its last change changed once.
            if l != f {
                again[q / 64] |= 1 << (q % 64);
                let k = firsts.len();
                if shift == 1 {
                    push_pair(parity, k, ((l & 1) | (f & 1) << 1) as u8);
                }
                let bits = match twice.get(q) {
                    Some(&s) if s != 0 => 1 | u8::from(s == 2) << 1,
                    _ => 0,
                };
                push_pair(held, k, bits);
                firsts.push((f >> shift) as u8);
                if bits == 0 {
                    while next.next_if(|c| usize::from(c.0) < q).is_some() {}
                    let (mut prev, mut count) = (0, 0u64);
                    list.clear();
                    while let Some(&(_, node, state)) = next.next_if(|c| usize::from(c.0) == q) {
                        put_varint(list, u64::from(node - prev) << 2 | u64::from(state));
                        (prev, count) = (node, count + 1);
                    }
                    put_varint(many, count);
                    many.extend_from_slice(list);
                }
            } else if f & unit != 0 {
                inside[q / 64] |= 1 << (q % 64);
            }
        } else {
            lasts[q] = NEVER;
        }
        col += 1;
        if col == n {
            (col, row) = (0, row + 1);
        }
    }
    for (w, bytes) in rows.iter().zip(board.chunks_exact_mut(4)) {
        bytes.copy_from_slice(&w.to_le_bytes());
    }
    let mut before = 0u16;
    for bits in again.iter() {
        out.extend_from_slice(&bits.to_le_bytes());
        out.extend_from_slice(&before.to_le_bytes());
        before += bits.count_ones() as u16;
    }
    if shift > 0 {
        for bits in inside.iter() {
            out.extend_from_slice(&bits.to_le_bytes());
        }
    }
    out.extend_from_slice(firsts);
    out.extend_from_slice(held);
    out.extend_from_slice(parity);
    put_varint(out, many.len() as u64);
    out.extend_from_slice(many);
    match line {
        None => out.push(0),
        Some(l) => {
            put_varint(out, u64::from(l.nodes));
            put_varint(out, u64::from(l.passes));
            out.push(l.mid_passes().count() as u8);
            let mut prev = 0;
            for p in l.mid_passes() {
                put_varint(out, u64::from(p - prev));
                prev = p;
            }
        }
    }
}

/// The working tables of [`encode`], kept from one game to the next on a thread (made anew
/// for each game they were eight allocations a game).
#[derive(Default)]
pub(crate) struct Scratch {
    /// The board's words, by colour and row.
    rows: Vec<u32>,
    /// The points changed again, and those whose first stone came inside a unit.
    again: Vec<u64>,
    inside: Vec<u64>,
    /// The again-points' first times.
    firsts: Vec<u8>,
    /// Two bits an again-point: it held one stone, then was emptied for good; that stone was
    /// White. And when units are two nodes ([`Halves`]): its last change's node is odd; its
    /// first stone's.
    ///
    /// [`Halves`]: super::read::Halves
    held: Vec<u8>,
    parity: Vec<u8>,
    /// The other again-points' changes, and one point's as it is read.
    many: Vec<u8>,
    list: Vec<u8>,
}

/// Sets pair `k` (bits `2k` and `2k + 1`) of `bits` to `pair`, the pairs before it set.
fn push_pair(bits: &mut Vec<u8>, k: usize, pair: u8) {
    if k.is_multiple_of(4) {
        bits.push(0);
    }
    if let Some(b) = bits.last_mut() {
        *b |= pair << (2 * (k % 4));
    }
}
