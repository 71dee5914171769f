//! The chunks joined in input order into one set of columns (rows of other sizes and, with
//! `dedup`, positions seen before left out), the boards copied in parallel to their places.

use super::*;

/// Everything joined, before it becomes arrays.
pub(super) struct Joined {
    pub(super) size: usize,
    /// The rows, games numbered across all inputs.
    pub(super) cols: Cols,
    /// The feature planes, filled after joining.
    pub(super) planes: Vec<u8>,
    pub(super) failures: Vec<Failure>,
    pub(super) files: Vec<String>,
}

/// Joins the chunks in input order: rows of another size than the arrays' are left out (and
/// reported), and with `dedup` every row whose position was seen before. One chunk with nothing
/// to leave out is moved, not copied; otherwise the boards are copied in parallel into one
/// buffer, each chunk to its place.
pub(super) fn join(
    inputs: &[Input],
    mut chunks: Vec<ChunkOut>,
    mut failures: Vec<Failure>,
    want_size: Option<u8>,
    dedup: bool,
    k: usize,
) -> Joined {
    let size = want_size.or_else(|| chunks.iter().find_map(|c| c.cols.size.first().copied()));
    let n = size.unwrap_or(19);
    let pts = usize::from(n) * usize::from(n);
    // Problems in input order: per file, its replay failures, then its games of other sizes.
    for c in &mut chunks {
        let mut notes: Vec<(u32, u8, Failure)> = std::mem::take(&mut c.failures)
            .into_iter()
            .map(|(f, x)| (f, 0, x))
            .collect();
        for &(s, f, g) in &c.other_sizes {
            if s != n {
                notes.push((
                    f,
                    1,
                    Failure {
                        file: inputs[f as usize].name.clone(),
                        game: Some(g),
                        line: None,
                        column: None,
                        message: format!(
                            "game {}: a {s}x{s} board, the arrays are {n}x{n} (pass size= to choose)",
                            g + 1
                        ),
                    },
                ));
            }
        }
        notes.sort_by_key(|&(f, kind, _)| (f, kind));
        failures.extend(notes.into_iter().map(|(_, _, x)| x));
    }
    let files = inputs.iter().map(|i| i.name.clone()).collect();
    let mixed = |c: &ChunkOut| c.cols.size.iter().any(|&s| s != n);
    if chunks.len() == 1 && !dedup && !mixed(&chunks[0]) {
        let c = chunks.pop().expect("one chunk");
        return Joined {
            size: usize::from(n),
            cols: c.cols,
            planes: Vec::new(),
            failures,
            files,
        };
    }
    if !dedup && !chunks.iter().any(mixed) {
        return Joined {
            size: usize::from(n),
            cols: concat(&chunks, k),
            planes: Vec::new(),
            failures,
            files,
        };
    }
    // The rows kept, chunk by chunk (dedup looks at every earlier row, so this is in order).
    let mut seen: HashSet<(u64, u8, u8)> = HashSet::new();
    let kept: Vec<Vec<u32>> = chunks
        .iter()
        .map(|c| {
            let r = &c.cols;
            (0..r.len())
                .filter(|&i| {
                    r.size[i] == n
                        && (!dedup || seen.insert((r.hash[i], r.to_play[i], r.transform[i])))
                })
                .map(|i| i as u32)
                .collect()
        })
        .collect();
    let total: usize = kept.iter().map(Vec::len).sum();
    let mut cols = Cols::default();
    let mut game_base = 0i32;
    for (c, keep) in chunks.iter().zip(&kept) {
        for &i in keep {
            cols.push_row(&c.cols, i as usize, game_base, k);
        }
        game_base += c.games as i32;
    }
    // Zeroed pages come from the system untouched, so each worker faults in its own part.
    let mut boards = vec![0u8; total * pts];
    split(&mut boards, kept.iter().map(|keep| keep.len() * pts))
        .into_par_iter()
        .zip(chunks.par_iter().zip(&kept))
        .for_each(|(part, (c, keep))| {
            // Where each row's board starts, when the chunk holds boards of other sizes.
            let offsets: Option<Vec<usize>> = mixed(c).then(|| {
                c.cols
                    .size
                    .iter()
                    .scan(0, |o, &s| {
                        let at = *o;
                        *o += usize::from(s) * usize::from(s);
                        Some(at)
                    })
                    .collect()
            });
            for (dst, &i) in part.chunks_exact_mut(pts).zip(keep) {
                let i = i as usize;
                let at = offsets.as_ref().map_or(i * pts, |o| o[i]);
                dst.copy_from_slice(&c.cols.boards[at..at + pts]);
            }
        });
    Joined {
        size: usize::from(n),
        cols: Cols { boards, ..cols },
        planes: Vec::new(),
        failures,
        files,
    }
}

/// Replays the runs on every worker twice: first counting each run's rows (no boards), then
/// writing each run's boards straight into its part of the final array. Replaying is cheap
/// next to faulting in and copying hundreds of megabytes of boards, which a join of the runs'
/// own buffers would do twice.
pub(super) fn replay_in_place(
    inputs: &[Input],
    runs: &[(usize, &[Input])],
    opts: &Options,
    want_size: Option<u8>,
    walk_failures: Vec<Failure>,
    k: usize,
) -> Joined {
    let counted: Vec<ChunkOut> = runs
        .par_iter()
        .map(|&(first, c)| replay_chunk(c, first, opts, want_size, BoardOut::Skip))
        .collect();
    let n = want_size
        .or_else(|| counted.iter().find_map(|c| c.cols.size.first().copied()))
        .unwrap_or(19);
    let pts = usize::from(n) * usize::from(n);
    let rows: Vec<usize> = counted
        .iter()
        .map(|c| c.cols.size.iter().filter(|&&s| s == n).count())
        .collect();
    drop(counted);
    let mut boards = vec![0u8; rows.iter().sum::<usize>() * pts];
    let parts = split(&mut boards, rows.iter().map(|r| r * pts));
    let chunks: Vec<ChunkOut> = runs
        .par_iter()
        .zip(parts)
        .map(|(&(first, c), part)| {
            populate(part.as_ptr() as usize, part.as_ptr() as usize + part.len());
            replay_chunk(c, first, opts, Some(n), BoardOut::Fill { out: part, at: 0 })
        })
        .collect();
    let mut joined = join(inputs, chunks, walk_failures, Some(n), false, k);
    joined.cols.boards = boards;
    joined
}

/// `buf` cut into consecutive parts of the given lengths (for the workers to fill in
/// parallel, each its own part).
fn split(buf: &mut [u8], lens: impl Iterator<Item = usize>) -> Vec<&mut [u8]> {
    let mut parts = Vec::new();
    let mut rest = buf;
    for len in lens {
        let (part, tail) = std::mem::take(&mut rest).split_at_mut(len);
        parts.push(part);
        rest = tail;
    }
    parts
}

/// The chunks' columns one after the other (games numbered across chunks). Runs written in
/// place come here with no boards of their own (`replay_in_place`), so nothing large is copied.
fn concat(chunks: &[ChunkOut], k: usize) -> Cols {
    fn cat<T: Copy>(chunks: &[ChunkOut], col: impl Fn(&Cols) -> &Vec<T>) -> Vec<T> {
        let mut out = Vec::with_capacity(chunks.iter().map(|c| col(&c.cols).len()).sum());
        for c in chunks {
            out.extend_from_slice(col(&c.cols));
        }
        out
    }
    let mut game = Vec::with_capacity(chunks.iter().map(|c| c.cols.len()).sum());
    let mut base = 0i32;
    for c in chunks {
        game.extend(c.cols.game.iter().map(|g| g + base));
        base += c.games as i32;
    }
    debug_assert!(k == 0 || chunks.iter().all(|c| c.cols.last.len() == c.cols.len() * k));
    Cols {
        size: cat(chunks, |c| &c.size),
        to_play: cat(chunks, |c| &c.to_play),
        moves: cat(chunks, |c| &c.moves),
        move_number: cat(chunks, |c| &c.move_number),
        game,
        file: cat(chunks, |c| &c.file),
        variation: cat(chunks, |c| &c.variation),
        hash: cat(chunks, |c| &c.hash),
        symmetry: cat(chunks, |c| &c.symmetry),
        transform: cat(chunks, |c| &c.transform),
        result: cat(chunks, |c| &c.result),
        ko: cat(chunks, |c| &c.ko),
        boards: cat(chunks, |c| &c.boards),
        last: cat(chunks, |c| &c.last),
    }
}

/// The feature planes of every joined row, computed in parallel straight into the array's
/// buffer (zeroed pages are only touched where a plane has a 1).
pub(super) fn feature_planes(j: &Joined, k: usize) -> Vec<u8> {
    let pts = j.size * j.size;
    let per_row = plane_count(k) * pts;
    let c = &j.cols;
    let mut out = vec![0u8; c.len() * per_row];
    // Blocks of rows, each faulted in with one call before it is written (the planes are
    // many times the boards' size).
    const BLOCK: usize = 256;
    out.par_chunks_mut((per_row * BLOCK).max(1))
        .enumerate()
        .for_each_init(Scratch::default, |scratch, (b, block)| {
            populate(
                block.as_ptr() as usize,
                block.as_ptr() as usize + block.len(),
            );
            for (r, o) in block.chunks_mut(per_row.max(1)).enumerate() {
                let i = b * BLOCK + r;
                planes(
                    o,
                    &c.boards[i * pts..(i + 1) * pts],
                    j.size,
                    (c.to_play[i], c.ko[i]),
                    &c.last[i * k..(i + 1) * k],
                    scratch,
                );
            }
        });
    out
}
