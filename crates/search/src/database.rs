//! A `kifu pos index` database opened once for many queries: the entry point of every skin
//! (the CLI, `kifu serve`, Python). It owns the index reader and the pattern index, and answers
//! pattern searches, batches of them, and duplicate groups, and hands out single games as SGF.
//! The list of the games' files is read from the index when a plain scan needs it, not kept.
//!
//! Searches go through the pattern index ([`crate::index`]): its sidecar file beside the index
//! (`DB.kpp`, written by `kifu pos index`) is read at [`Database::open`], or, when there is none
//! or it was made for another game list, the index is built from the games' files and saved.
//! The answers are the plain scan's ([`crate::collection`]), which the tests hold it to.

use crate::answer::SearchAnswer;
use crate::collection::{index_files, search_files_many, CollectionFile, Failure, ManyAnswers};
use crate::index::{index_fingerprint, sidecar_path, PatternIndex, PatternIndexError};
use crate::lookup::LookupAnswer;
use crate::query::Query;
use crate::scan::Page;
use kifu_go::BoardSize;
use kifu_posdb::extract::SourceError;
use kifu_posdb::index::{IndexError, IndexReader};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::OnceLock;

/// Why a game could not be handed out.
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    /// No game has that number.
    #[error("no game {id}: the database has {games} games")]
    NoSuchGame {
        /// The number asked for.
        id: u64,
        /// The games of the database.
        games: u64,
    },
    /// The index could not be read.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// The game's file could not be read.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// The file no longer holds the game the index names (changed since indexing).
    #[error("{file}: game {game} is no longer in the file (changed since indexing?)")]
    Changed {
        /// The file.
        file: String,
        /// The game within it, from 1.
        game: u32,
    },
}

/// Groups of duplicate games and the files that could not be read while finding them.
#[derive(Debug, Clone, Default)]
pub struct Duplicates {
    /// Each group's game numbers in order (the first is the one kept by searches without
    /// duplicates), groups in the order of their first game.
    pub groups: Vec<Vec<u64>>,
    /// Files that could not be read.
    pub failures: Vec<Failure>,
}

/// What [`Database::verify`] found in a database whose files are whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Verified {
    /// The index file's format: 4 has checksums; 2 and 3 (from an older kifu) have none.
    pub format: u8,
    /// Whether every byte of the index file was checked against a checksum (format 4).
    pub index_checked: bool,
    /// The games of the index.
    pub games: u64,
    /// Whether the pattern index beside it was found and checked; `false`: missing, or made
    /// for another game list (the next opening builds it again).
    pub pattern_index_checked: bool,
}

/// An opened database. `Sync`: one value serves concurrent queries.
#[derive(Debug)]
pub struct Database {
    path: PathBuf,
    reader: IndexReader,
    fingerprint: u64,
    patterns: PatternIndex,
    duplicates: OnceLock<Duplicates>,
}

impl Database {
    /// Opens the index at `path`, reads the list of its games and its pattern index (built
    /// from the games' files and saved beside it when missing or made for another game list; a
    /// damaged one is an error).
    pub fn open(path: &Path) -> Result<Database, IndexError> {
        let reader = IndexReader::open(path)?;
        // The list of files is not made to be hashed (it is 250 MB at a million files).
        let fingerprint = index_fingerprint(&reader)?;
        let sidecar = sidecar_path(path);
        let patterns = match PatternIndex::load(&sidecar, fingerprint)
            .map_err(|e| IndexError::Companion(e.to_string()))?
        {
            Some(p) => p,
            None => {
                let files = index_files(&reader)?;
                // Built into the sidecar and opened from it, so the games' cold parts stay on
                // disk. A file that cannot be read (then nothing is saved, and the failure is
                // reported with every search) or a folder that cannot be written to (it only
                // costs the next open a build): built in memory.
                match PatternIndex::build_to(&files, &sidecar, fingerprint) {
                    Ok(Some(p)) => p,
                    _ => PatternIndex::build(&files),
                }
            }
        };
        Ok(Database {
            path: path.to_path_buf(),
            reader,
            fingerprint,
            patterns,
            duplicates: OnceLock::new(),
        })
    }

    /// Reads both files of the database at `path` whole and checks them: every block of the
    /// index against its checksum ([`IndexReader::verify`]) and the pattern index beside it
    /// against its own, as opening does. Nothing is built or written. A damaged file is an
    /// error that names the bytes ([`IndexError::Damaged`]) or the pattern index's place.
    pub fn verify(path: &Path) -> Result<Verified, IndexError> {
        let reader = IndexReader::open(path)?;
        reader.verify()?;
        let fingerprint = index_fingerprint(&reader)?;
        let patterns = PatternIndex::load(&sidecar_path(path), fingerprint)
            .map_err(|e| IndexError::Companion(e.to_string()))?;
        Ok(Verified {
            format: reader.format(),
            index_checked: reader.has_checksums(),
            games: reader.games(),
            pattern_index_checked: patterns.is_some(),
        })
    }

    /// Writes the pattern index beside the index file (what `kifu pos index` does after the
    /// build), returning the sidecar's path.
    pub fn save_pattern_index(&self) -> Result<std::path::PathBuf, PatternIndexError> {
        let sidecar = sidecar_path(&self.path);
        self.patterns.save(&sidecar, self.fingerprint)?;
        Ok(sidecar)
    }

    /// The pattern index.
    pub fn patterns(&self) -> &PatternIndex {
        &self.patterns
    }

    /// The games' files and the numbers of their games (what the plain search reads), read
    /// from the index each time: not kept, since the pattern index does not need it once open
    /// (for a million games it is 200 MB).
    pub fn files(&self) -> Result<Vec<CollectionFile>, IndexError> {
        index_files(&self.reader)
    }

    /// The index file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The full-board index (lookups of whole positions, game information).
    pub fn reader(&self) -> &IndexReader {
        &self.reader
    }

    /// The board size of the database.
    pub fn size(&self) -> BoardSize {
        self.reader.size()
    }

    /// The number of games.
    pub fn games(&self) -> u64 {
        self.reader.games()
    }

    /// The duplicate groups (from the signatures in the pattern index).
    pub fn duplicates(&self) -> &Duplicates {
        // The signatures were taken when the pattern index was built.
        self.duplicates.get_or_init(|| Duplicates {
            groups: self.patterns.duplicate_groups(),
            failures: self.patterns.failures(),
        })
    }

    /// Searches for `query` (on rayon's current pool), leaving out all but the first game of
    /// each group of duplicates if `no_duplicates`; the files that could not be read are in the
    /// answer's `failures`.
    pub fn search(&self, query: &Query, page: Page, no_duplicates: bool) -> Searched {
        let mut many = self.search_many(std::slice::from_ref(query), page, no_duplicates);
        Searched {
            answer: many.answers.pop().expect("one answer per query"),
            failures: many.failures,
        }
    }

    /// [`Database::search`], given up (`None`) soon after `cancel` is raised (a server's client
    /// went away).
    pub fn search_cancellable(
        &self,
        query: &Query,
        page: Page,
        no_duplicates: bool,
        cancel: &AtomicBool,
    ) -> Option<Searched> {
        let skip = self.skipped(no_duplicates);
        let mut answers = self.patterns.search_many_until(
            std::slice::from_ref(query),
            page,
            Some(self.size()),
            skip.as_ref(),
            cancel,
        )?;
        Some(Searched {
            answer: answers.pop().expect("one answer per query"),
            failures: self.patterns.failures(),
        })
    }

    /// Every game with a hit of `query` (in order: not a page of matches, which may all be
    /// one game's), leaving out all but the first game of each group of duplicates if
    /// `no_duplicates`; with the search's answer (its totals; no matches listed). `None` if
    /// `cancel` was raised.
    pub fn matching_games(
        &self,
        query: &Query,
        no_duplicates: bool,
        cancel: &AtomicBool,
    ) -> Option<(crate::SearchAnswer, Vec<u64>)> {
        let skip = self.skipped(no_duplicates);
        self.patterns
            .matching_games(query, Some(self.size()), skip.as_ref(), cancel)
    }

    /// The games a search without duplicates leaves out.
    fn skipped(&self, no_duplicates: bool) -> Option<HashSet<u64>> {
        no_duplicates.then(|| {
            self.duplicates()
                .groups
                .iter()
                .flat_map(|g| g.iter().skip(1).copied())
                .collect()
        })
    }

    /// The games whose information passes `filters` (a search with no pattern), leaving out
    /// all but the first game of each group of duplicates if `no_duplicates`.
    pub fn filter_games(
        &self,
        filters: &crate::Filters,
        page: Page,
        no_duplicates: bool,
    ) -> crate::answer::GamesAnswer {
        let skip = self.skipped(no_duplicates);
        self.patterns.filter_games(filters, page, skip.as_ref())
    }

    /// Searches for every query of `queries` at once (each game replayed once for all of them).
    pub fn search_many(&self, queries: &[Query], page: Page, no_duplicates: bool) -> ManyAnswers {
        let skip = self.skipped(no_duplicates);
        ManyAnswers {
            answers: self
                .patterns
                .search_many(queries, page, Some(self.size()), skip.as_ref()),
            failures: self.patterns.failures(),
        }
    }

    /// The plain search of every game's file (the oracle the pattern index is tested against;
    /// slow: each file is read, parsed and replayed).
    pub fn scan_many(&self, queries: &[Query], page: Page, no_duplicates: bool) -> ManyAnswers {
        let (mut files, unread) = match self.files() {
            Ok(files) => (files, None),
            Err(e) => (
                Vec::new(),
                Some(Failure {
                    path: self.path.clone(),
                    message: format!("{}: {e}", self.path.display()),
                }),
            ),
        };
        if no_duplicates {
            crate::collection::drop_duplicates(&mut files, &self.duplicates().groups);
        }
        let mut many = search_files_many(&files, queries, page, Some(self.size()));
        many.failures.extend(unread);
        many
    }

    /// The games that reached `board` with `to_play` to move (in any symmetry, and with colours
    /// swapped if `swap_colors`): counts, continuations and the first `limit` matches. From the
    /// full-board index's entries when it holds the board, else (an index cut by stones, see
    /// [`IndexReader::most_stones`]) by the pattern index ([`lookup::lookup_page_by_search`]),
    /// which gives the same answer.
    ///
    /// [`lookup::lookup_page_by_search`]: crate::lookup::lookup_page_by_search
    pub fn lookup(
        &self,
        board: &kifu_go::Board,
        to_play: kifu_go::Color,
        swap_colors: bool,
        limit: usize,
    ) -> Result<LookupAnswer, IndexError> {
        let page = self.lookup_page(board, to_play, swap_colors, limit)?;
        LookupAnswer::new(&self.reader, &page, to_play)
    }

    /// [`Database::lookup`]'s answer in the full-board index's terms
    /// ([`IndexReader::lookup_page`]'s).
    pub fn lookup_page(
        &self,
        board: &kifu_go::Board,
        to_play: kifu_go::Color,
        swap_colors: bool,
        limit: usize,
    ) -> Result<kifu_posdb::index::LookupPage, IndexError> {
        match self.reader.lookup_page(board, to_play, swap_colors, limit) {
            Err(IndexError::NotHeld { .. }) => {
                crate::lookup::lookup_page_by_search(self, board, to_play, swap_colors, limit)
            }
            answer => answer,
        }
    }

    /// Game `id` as SGF text (the one game, as the FF\[4\] writer writes it), with the index's
    /// information about it.
    pub fn game_sgf(&self, id: u64) -> Result<(kifu_posdb::index::GameInfo, String), GameError> {
        let games = self.games();
        if id >= games {
            return Err(GameError::NoSuchGame { id, games });
        }
        let info = self.reader.game(id as u32)?;
        let coll = kifu_posdb::extract::Source::new(&info.file).read_games()?;
        let game = coll
            .game(info.game_in_file as usize)
            .ok_or_else(|| GameError::Changed {
                file: info.file.clone(),
                game: info.game_in_file + 1,
            })?;
        let text = kifu_sgf::write_game(game);
        Ok((info, text))
    }
}

/// One query's answer and the files that could not be read.
#[derive(Debug, Clone)]
pub struct Searched {
    /// The answer.
    pub answer: SearchAnswer,
    /// Files that could not be read (moved, deleted, unreadable since indexing).
    pub failures: Vec<Failure>,
}
