//! The search of an opened index: the games the columns (or the dense prune) keep are walked
//! in parts of [`CHUNK`] on rayon's pool, each part's scan merged in order; a deep page is
//! found in two passes ([`DEEP_PAGE`]); a search may also list every game with a hit
//! ([`PatternIndex::matching_games`]).

use super::{columns, dense, plan, store, walk, workspace, PatternIndex};
use kifu_go::BoardSize;
use rayon::prelude::*;

/// A game a search walks (its number) with its places' range in [`Visit::places`].
type Visited = (u32, Option<(u32, u32)>);

/// The games a search walks, in the index's order, each with the places of the query's plan
/// the columns found for it (`None`: the walk finds them itself), as ranges of `places`.
#[derive(Default)]
struct Visit {
    games: Vec<Visited>,
    places: Vec<u16>,
}

/// Games searched per task: enough to keep a task's fixed costs small, few enough to share
/// the work between threads.
const CHUNK: usize = 512;

/// The end of the deepest page (offset and limit) found in one pass: each part of the games
/// keeps its matches up to it, since it cannot know how many the parts before it find.
const DEEP_PAGE: u64 = 1_000;

impl PatternIndex {
    /// Searches for every query of `queries` (on rayon's current pool), leaving out the games
    /// `skip` holds; the same answers as the plain scan of the same games. Continuations of a
    /// pattern at a fixed place are named as points of a board of `size`.
    pub fn search_many(
        &self,
        queries: &[crate::Query],
        page: crate::scan::Page,
        size: Option<BoardSize>,
        skip: Option<&std::collections::HashSet<u64>>,
    ) -> Vec<crate::SearchAnswer> {
        let never = std::sync::atomic::AtomicBool::new(false);
        self.search_many_until(queries, page, size, skip, &never)
            .unwrap_or_default()
    }

    /// [`PatternIndex::search_many`], given up (`None`) soon after `cancel` is raised (checked
    /// before each part of the games).
    pub fn search_many_until(
        &self,
        queries: &[crate::Query],
        page: crate::scan::Page,
        size: Option<BoardSize>,
        skip: Option<&std::collections::HashSet<u64>>,
        cancel: &std::sync::atomic::AtomicBool,
    ) -> Option<Vec<crate::SearchAnswer>> {
        let found = self.search_each(queries, (page, false), size, skip, cancel)?;
        Some(found.into_iter().map(|(answer, _)| answer).collect())
    }

    /// The games with hits of a search for `query` (every one, in order), and its answer
    /// (with no matches listed); `None` if `cancel` was raised.
    pub fn matching_games(
        &self,
        query: &crate::Query,
        size: Option<BoardSize>,
        skip: Option<&std::collections::HashSet<u64>>,
        cancel: &std::sync::atomic::AtomicBool,
    ) -> Option<(crate::SearchAnswer, Vec<u64>)> {
        let page = crate::scan::Page {
            offset: 0,
            limit: 0,
        };
        let mut found = self.search_each(
            std::slice::from_ref(query),
            (page, true),
            size,
            skip,
            cancel,
        )?;
        let (answer, games) = found.pop()?;
        Some((answer, games.unwrap_or_default()))
    }

    /// [`PatternIndex::search_many_until`], each answer with its games with hits when `list`.
    fn search_each(
        &self,
        queries: &[crate::Query],
        (page, list): (crate::scan::Page, bool),
        size: Option<BoardSize>,
        skip: Option<&std::collections::HashSet<u64>>,
        cancel: &std::sync::atomic::AtomicBool,
    ) -> Option<Vec<(crate::SearchAnswer, Option<Vec<u64>>)>> {
        use crate::scan::{Page, Scan};
        use std::sync::atomic::Ordering;
        let sides = &self.sizes().sides;
        let mut answers = Vec::with_capacity(queries.len());
        for q in queries {
            // The variants and plan per board side, computed once for every part.
            let mut prepared: Vec<(BoardSize, crate::scan::SizeVariants, plan::Plan)> = sides
                .iter()
                .filter_map(|&s| BoardSize::new(u32::from(s)).ok())
                .map(|size| {
                    let shared = crate::scan::size_variants(q, size);
                    let plan = plan::Plan::new(&shared.0, usize::from(size.get()));
                    (size, shared, plan)
                })
                .collect();
            if let Some(s) = &self.sidecar {
                s.next_search();
            }
            let passing = self.passing(&q.filters, skip);
            // The plans learn there whether their games go to the dense prune; from here on
            // they are shared by the threads.
            let visit = self.games_to_visit(q, &mut prepared, passing.as_deref());
            let prepared = prepared;
            // A deep page (matches far from the first) is found in two passes, so that no part
            // holds the matches before it: the first counts every part's matches without
            // keeping any, the second searches again only the parts the page falls in, each
            // told where its matches start.
            let deep = page.offset.saturating_add(page.limit) > DEEP_PAGE;
            let first = if deep {
                Page {
                    offset: 0,
                    limit: 0,
                }
            } else {
                page
            };
            let fresh = |kept: Page, from_offset: bool| {
                let mut scan = if from_offset {
                    Scan::from_offset(q, kept)
                } else {
                    Scan::new(q, kept)
                };
                for (size, shared, _) in &prepared {
                    scan.seed(*size, shared.clone());
                }
                scan
            };
            let searched = self.games_searched(&|| fresh(first, false), passing.as_deref());
            let search_part = |chunk: &[Visited], kept: Page, from_offset: bool| {
                let mut scan = fresh(kept, from_offset);
                if list && !from_offset {
                    scan.list_games();
                }
                if cancel.load(Ordering::Relaxed) {
                    return scan;
                }
                let mut ws = workspace::Workspace::default();
                let mut cold = store::ColdReader::new(self, true);
                // The current group and how many of its games this chunk still reads
                // (that one included): a group of few is not read whole when the cache
                // cannot hold every group.
                let mut wanted = (usize::MAX, 0usize);
                let group = |gi: u32| gi as usize / store::GROUP;
                for (k, &(gi, places)) in chunk.iter().enumerate() {
                    if let Some(&(next, _)) = chunk.get(k + 2) {
                        cold.prefetch(next as usize);
                    }
                    wanted = match wanted {
                        (key, left) if key == group(gi) => (key, left.saturating_sub(1)),
                        _ => {
                            let key = group(gi);
                            let ahead = chunk[k..].iter().take_while(|g| group(g.0) == key);
                            (key, ahead.count())
                        }
                    };
                    let g = self.games.at(gi as usize);
                    // A sidecar that cannot be read is in the answer's failures.
                    let Ok(view) = cold.view_of(gi as usize, wanted.1) else {
                        continue;
                    };
                    let file = self.files.get(g.file as usize).unwrap_or_default();
                    let places = places.map(|(a, b)| &visit.places[a as usize..b as usize]);
                    walk::search_game(&mut scan, &mut ws, &prepared, g, view, file, places);
                }
                scan
            };
            let chunks: Vec<&[Visited]> = visit.games.chunks(CHUNK).collect();
            let parts: Vec<Scan<'_>> = chunks
                .par_iter()
                .map(|chunk| search_part(chunk, first, false))
                .collect();
            let matches = if deep {
                // Each part's share of the page, from the counts of the first pass.
                let mut before = 0u64;
                let mut shares = Vec::new();
                let end = page.offset.saturating_add(page.limit);
                for (i, part) in parts.iter().enumerate() {
                    let n = part.match_count();
                    if before < end && before + n > page.offset {
                        let from = page.offset.saturating_sub(before);
                        let upto = (end - before).min(n);
                        shares.push((
                            i,
                            Page {
                                offset: from,
                                limit: upto - from,
                            },
                        ));
                    }
                    before += n;
                }
                let found: Vec<Vec<crate::answer::Match>> = shares
                    .par_iter()
                    .map(|&(i, share)| search_part(chunks[i], share, true).take_matches())
                    .collect();
                Some(found.into_iter().flatten().collect())
            } else {
                None
            };
            if cancel.load(Ordering::Relaxed) {
                return None;
            }
            let mut all = fresh(first, false);
            if list {
                all.list_games();
            }
            for part in parts {
                all = all.merge(part);
            }
            if let Some(matches) = matches {
                all.put_page(page, matches);
            }
            // Games left out by the columns are searched all the same: they count.
            all.set_games_searched(searched);
            let games = all.take_games();
            answers.push((all.finish(size), games));
        }
        Some(answers)
    }

    /// The games a search of `q` must walk, ascending: those the columns cannot rule out
    /// (every variant's stones held at one of its places), of `passing` (all when `None`).
    fn games_to_visit(
        &self,
        q: &crate::Query,
        prepared: &mut [(BoardSize, crate::scan::SizeVariants, plan::Plan)],
        passing: Option<&[u64]>,
    ) -> Visit {
        let columns = if q.variations {
            self.columns_all
                .get_or_init(|| columns::Columns::new(&self.games, true))
        } else {
            self.columns
                .get_or_init(|| columns::Columns::new(&self.games, false))
        };
        let mut visit = Visit::default();
        for (size, _, plan) in prepared.iter_mut() {
            let found = dense::dense_or_columns(self, q, columns, plan, size.get(), passing);
            match found {
                Some(found) => {
                    visit.games.reserve(found.games.len());
                    let base = visit.places.len() as u32;
                    let mut start = base;
                    for (i, (&g, &end)) in found.games.iter().zip(&found.ends).enumerate() {
                        let places = (!found.is_dense(i)).then_some((start, base + end));
                        visit.games.push((g, places));
                        start = base + end;
                    }
                    if visit.places.is_empty() {
                        visit.places = found.places;
                    } else {
                        visit.places.extend(found.places);
                    }
                }
                None => visit.games.extend(
                    (0..self.games.len() as u32)
                        .filter(|&i| self.games.at(i as usize).side == size.get())
                        .map(|i| (i, None)),
                ),
            }
        }
        // Games of several board sides: back in the index's order.
        if prepared.len() > 1 {
            visit.games.sort_unstable_by_key(|v| v.0);
        }
        if let Some(passing) = passing {
            visit
                .games
                .retain(|&(i, _)| passing[i as usize / 64] & (1 << (i % 64)) != 0);
        }
        visit
    }

    /// The number of games a search counts as searched: those of `passing` (every game when
    /// `None`) on a board where the pattern fits, as the scans `fresh` makes count them.
    fn games_searched<'q>(
        &self,
        fresh: &(dyn Fn() -> crate::scan::Scan<'q> + Sync),
        passing: Option<&[u64]>,
    ) -> u64 {
        let mut scan = fresh();
        let infos = &self.sizes().infos;
        let fits: Vec<u8> = infos
            .iter()
            .map(|&(size, _)| size)
            .filter(|&size| scan.fits(size).is_some())
            .collect();
        let Some(passing) = passing else {
            return infos
                .iter()
                .filter(|(size, _)| fits.contains(size))
                .map(|&(_, count)| count)
                .sum();
        };
        passing
            .par_chunks(64)
            .enumerate()
            .map(|(part, words)| {
                columns::ones(words)
                    .filter(|&i| fits.contains(&self.games.at(part * 64 * 64 + i).size))
                    .count() as u64
            })
            .sum()
    }
}
