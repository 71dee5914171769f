//! Searching whole collections: files read once each (SGF, or Ishi through its SGF
//! conversion), in parallel, the partial scans merged in file order so that the answer does not
//! depend on the number of threads.

use crate::answer::SearchAnswer;
use crate::filter::GameInfo;
use crate::query::Query;
use crate::scan::{GameSource, Page, Scan};
use kifu_go::BoardSize;
use kifu_posdb::extract::Source;
use kifu_posdb::index::{IndexError, IndexReader};
use kifu_sgf::GameTree;
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

/// A file of a collection and the numbers its games go by.
#[derive(Debug, Clone)]
pub struct CollectionFile {
    /// The file.
    pub source: Source,
    /// The number of each game of the file (by its place in the file), `None` for games that are
    /// not part of the collection (an index leaves out games of other sizes); games past the end
    /// of the list are left out too.
    pub ids: Vec<Option<u64>>,
}

impl CollectionFile {
    /// Reads the file and calls `visit` with each of its games that belong to the collection;
    /// the failure to read it, if any.
    pub fn each_game(&self, mut visit: impl FnMut(GameSource, GameTree<'_>)) -> Vec<Failure> {
        match self.source.read_games() {
            Err(e) => vec![Failure {
                path: self.source.path.clone(),
                message: e.to_string(),
            }],
            Ok(coll) => {
                for (i, game) in coll.games().enumerate() {
                    if let Some(Some(id)) = self.ids.get(i) {
                        let source = GameSource {
                            id: *id,
                            file: self.source.path.display().to_string(),
                            game_in_file: i as u32,
                        };
                        visit(source, game);
                    }
                }
                Vec::new()
            }
        }
    }
}

/// A file that could not be searched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The file.
    pub path: PathBuf,
    /// Why.
    pub message: String,
}

/// What [`search_files`] found, and the files it could not read.
#[derive(Debug, Clone)]
pub struct CollectionAnswer {
    /// The answer.
    pub answer: SearchAnswer,
    /// Files that could not be read (moved, deleted, unreadable since indexing).
    pub failures: Vec<Failure>,
}

/// Searches `files` for `query` (on rayon's current pool). Continuations of a pattern at a
/// fixed place are named as points of a board of `size`.
pub fn search_files(
    files: &[CollectionFile],
    query: &Query,
    page: Page,
    size: Option<BoardSize>,
) -> CollectionAnswer {
    let mut all = search_files_many(files, std::slice::from_ref(query), page, size);
    let answer = all.answers.pop().expect("one answer per query");
    CollectionAnswer {
        answer,
        failures: all.failures,
    }
}

/// What [`search_files_many`] found: one answer per query, in order, and the files it could not
/// read.
#[derive(Debug, Clone)]
pub struct ManyAnswers {
    /// The answers, one per query.
    pub answers: Vec<SearchAnswer>,
    /// Files that could not be read.
    pub failures: Vec<Failure>,
}

/// Searches `files` for every query at once: each file is read and parsed once, and each game
/// goes through every query (for batches of thousands of queries).
pub fn search_files_many(
    files: &[CollectionFile],
    queries: &[Query],
    page: Page,
    size: Option<BoardSize>,
) -> ManyAnswers {
    let never = AtomicBool::new(false);
    search_files_many_until(files, queries, page, size, &never).expect("never cancelled")
}

/// [`search_files_many`], given up (`None`) soon after `cancel` is raised: files not yet
/// started are skipped (for a server whose client went away).
pub fn search_files_many_until(
    files: &[CollectionFile],
    queries: &[Query],
    page: Page,
    size: Option<BoardSize>,
    cancel: &AtomicBool,
) -> Option<ManyAnswers> {
    let fresh = || -> Vec<Scan<'_>> { queries.iter().map(|q| Scan::new(q, page)).collect() };
    let (scans, failures) = files
        .par_iter()
        .map(|f| {
            let mut scans = fresh();
            if cancel.load(Ordering::Relaxed) {
                return (scans, Vec::new());
            }
            let failures = f.each_game(|source, game| {
                let info = GameInfo::from_game(&game);
                for scan in &mut scans {
                    scan.game(&source, &info, game);
                }
            });
            (scans, failures)
        })
        .reduce(
            || (fresh(), Vec::new()),
            |(a, mut fa), (b, fb)| {
                fa.extend(fb);
                (a.into_iter().zip(b).map(|(x, y)| x.merge(y)).collect(), fa)
            },
        );
    if cancel.load(Ordering::Relaxed) {
        return None;
    }
    Some(ManyAnswers {
        answers: scans.into_iter().map(|s| s.finish(size)).collect(),
        failures,
    })
}

/// The files of a `kifu pos index` database and the index's numbers of their games, in the
/// index's order.
pub fn index_files(db: &IndexReader) -> Result<Vec<CollectionFile>, IndexError> {
    let mut paths = db.file_paths()?;
    // Files are grouped by path (a path given twice is one file), in the order of their first
    // game.
    let mut slot_of_file: Vec<Option<usize>> = vec![None; paths.len()];
    let mut slot_of_path: HashMap<&str, usize> = HashMap::with_capacity(paths.len());
    let mut order: Vec<usize> = Vec::new();
    let mut ids: Vec<Vec<Option<u64>>> = Vec::new();
    for (id, (file, at)) in db.game_places()?.into_iter().enumerate() {
        let n = file as usize;
        let slot = *slot_of_file[n].get_or_insert_with(|| {
            *slot_of_path.entry(&paths[n]).or_insert_with(|| {
                order.push(n);
                ids.push(Vec::new());
                ids.len() - 1
            })
        });
        let ids = &mut ids[slot];
        let at = at as usize;
        if ids.len() <= at {
            ids.resize(at + 1, None);
        }
        ids[at] = Some(id as u64);
    }
    drop(slot_of_path);
    Ok(order
        .into_iter()
        .zip(ids)
        .map(|(n, ids)| CollectionFile {
            source: Source::new(std::mem::take(&mut paths[n])),
            ids,
        })
        .collect())
}

/// Groups of duplicate games (the same game, in any orientation: [`crate::dyer`]) among
/// `files`, each group's numbers in order, groups in the order of their first game; and the files
/// that could not be read.
pub fn duplicate_groups(files: &[CollectionFile]) -> (Vec<Vec<u64>>, Vec<Failure>) {
    let (signed, failures): (Vec<(crate::dyer::Signature, u64)>, Vec<Failure>) = files
        .par_iter()
        .map(|f| {
            let mut signed = Vec::new();
            let failures = f.each_game(|source, game| {
                if let Some(sig) = crate::dyer::signature(&game) {
                    signed.push((sig, source.id));
                }
            });
            (signed, failures)
        })
        .reduce(
            || (Vec::new(), Vec::new()),
            |(mut a, mut fa), (b, fb)| {
                a.extend(b);
                fa.extend(fb);
                (a, fa)
            },
        );
    let mut by_sig: HashMap<crate::dyer::Signature, Vec<u64>> = HashMap::new();
    for (sig, id) in signed {
        by_sig.entry(sig).or_default().push(id);
    }
    let mut groups: Vec<Vec<u64>> = by_sig
        .into_values()
        .filter(|g| g.len() > 1)
        .map(|mut g| {
            g.sort_unstable();
            g
        })
        .collect();
    groups.sort();
    (groups, failures)
}

/// Leaves out of `files` every game of `groups` but the first of each (for searches without
/// duplicates).
pub fn drop_duplicates(files: &mut [CollectionFile], groups: &[Vec<u64>]) {
    let drop: std::collections::HashSet<u64> = groups
        .iter()
        .flat_map(|g| g.iter().skip(1).copied())
        .collect();
    for f in files {
        for id in &mut f.ids {
            if id.is_some_and(|i| drop.contains(&i)) {
                *id = None;
            }
        }
    }
}
