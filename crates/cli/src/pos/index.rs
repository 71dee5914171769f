//! `kifu pos index` and `kifu pos lookup`: full-board search over game collections (the index
//! format and the search are kifu-posdb's `index` module).

use crate::output::write_with_progress;
use crate::Outcome;
use anyhow::{bail, Context, Result};
use clap::Args;
use kifu_go::replay::{replay_game, ReplayError, ReplayOptions, ReplaySink, Step};
use kifu_go::{navigate, Board, Color};
use kifu_posdb::index::{
    build_index, build_index_with, FileWork, IndexOptions, IndexReader, Layout,
};
use kifu_search::index::{FileRecords, PatternIndexBuilder};
use kifu_search::lookup::{move_text, LookupAnswer, LookupScore};
use kifu_sgf::Collection;
use serde_json::json;
use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Instant;

/// Which positions an index holds and how it keys them: the options `kifu pos index` and
/// `kifu slurm index` share (the Slurm task gets them back through [`IndexSelection::to_args`]).
#[derive(Args, Debug, Clone)]
pub struct IndexSelection {
    /// Index every variation too, not only the main lines (their moves count as continuations,
    /// not in win rates).
    #[arg(long)]
    pub variations: bool,
    /// Board size indexed (games of other sizes are skipped and counted).
    #[arg(long, default_value_t = 19)]
    pub size: u32,
    /// A zobrist_board_N.dat table, so keys match position files made with it (default: kifu's own).
    #[arg(long)]
    pub zobrist: Option<PathBuf>,
    /// Keep full-board entries only for positions of at most this many stones (default 12:
    /// about the first dozen moves), or `all`. `kifu pos lookup` answers the other positions
    /// from the pattern index beside the index (the same answers, in about half a millisecond
    /// instead of microseconds), for an index about an eighth the size. An index of every
    /// variation keeps all.
    #[arg(long, value_name = "N|all")]
    pub entry_stones: Option<String>,
}

impl IndexSelection {
    /// The options as `kifu pos index` arguments, all but `--zobrist` (a path, which the
    /// caller quotes for its shell).
    pub fn to_args(&self) -> Vec<String> {
        let mut args = vec!["--size".into(), self.size.to_string()];
        if self.variations {
            args.push("--variations".into());
        }
        if let Some(e) = &self.entry_stones {
            args.extend(["--entry-stones".into(), e.clone()]);
        }
        args
    }

    /// The most stones of a position whose entries are kept (`None`: all), from
    /// `--entry-stones` and `--variations`; a usage error if they do not go together.
    pub fn most_stones(&self) -> Result<Option<u16>> {
        let asked = match self.entry_stones.as_deref() {
            None => None,
            Some("all") => Some(None),
            Some(n) => match n.parse::<u16>() {
                Ok(n) => Some(Some(n)),
                Err(_) => crate::usage!("--entry-stones {n:?}: a number of stones or `all`"),
            },
        };
        match kifu_posdb::index::most_stones_for(self.variations, asked) {
            Ok(cut) => Ok(cut),
            Err(e) => crate::usage!("--entry-stones with --variations: {e}"),
        }
    }
}

/// `kifu pos index` arguments.
#[derive(Args, Debug)]
pub struct IndexArgs {
    /// SGF and Ishi (.go) files, and folders (searched recursively for .sgf and .go).
    #[arg(required = true)]
    games: Vec<PathBuf>,
    /// The index file to write (replaced safely).
    #[arg(short, long)]
    output: PathBuf,
    #[command(flatten)]
    select: IndexSelection,
    #[command(flatten)]
    threads: crate::args::Threads,
    /// With --shard I/N, index only the files whose place in the input (from 0) modulo N is
    /// I - 1, into a part (an index of those files, its pattern index, and a `.json` manifest
    /// written last) that `kifu pos merge --shards` merges with the other N - 1 into the index
    /// of one run (the pattern index copied from the parts', without reading the games again).
    #[command(flatten)]
    sharding: crate::args::Sharding,
    /// Add the games to the index given to -o (with its size, variations and Zobrist table)
    /// without indexing its games again: the result is the index of one build over its files
    /// then these. Files it already holds are skipped. Only the new games are read, for the pattern index too.
    #[arg(long, conflicts_with_all = ["size", "variations", "zobrist", "shard", "entry_stones"])]
    add: bool,
    /// Memory for sorting before spilling to temporary files: bytes, or with K, M or G (what
    /// the sort allocates, 32 bytes a position as held). The default holds about 30 million
    /// positions (180,000 19x19 games) without a spill, which halves the build time of such
    /// collections (spilled entries are written out and read back).
    #[arg(long, default_value = "1G")]
    memory: String,
    /// JSON summary on stdout.
    #[arg(long)]
    json: bool,
}

/// `kifu pos lookup` arguments.
#[derive(Args, Debug)]
pub struct LookupArgs {
    /// The index (from kifu pos index).
    db: PathBuf,
    /// Take the position from this SGF file...
    #[arg(long, requires = "move", conflicts_with = "board")]
    sgf: Option<PathBuf>,
    /// ...after this many moves (as `kifu show --move`)...
    #[arg(long = "move")]
    r#move: Option<u32>,
    /// ...of this game of the file (1 = the first)...
    #[arg(long, default_value_t = 1)]
    game: usize,
    /// ...and this variation (0 = the main line, then each further leaf in file order, as
    /// `kifu show --variation`).
    #[arg(long, default_value_t = 0)]
    variation: u32,
    /// Or give the board: N*N characters `#` black, `O` white, `.` empty, row by row from the
    /// top-left (spaces, line breaks and `/` between rows are ignored)...
    #[arg(long, requires = "to_play")]
    board: Option<String>,
    /// ...and the side to play, B or W.
    #[arg(long)]
    to_play: Option<String>,
    /// Also find the position with the colours swapped (and the other side to play); their
    /// continuations and results count from the query's point of view.
    #[arg(long)]
    swap_colors: bool,
    /// Scored files whose scores of the position to show (program x ruleset from the name).
    #[arg(long, num_args = 1)]
    scores: Vec<PathBuf>,
    /// Games listed at most.
    #[arg(long, default_value_t = 20)]
    limit: usize,
    /// JSON output.
    #[arg(long)]
    json: bool,
}

/// Runs `kifu pos index`.
pub fn index(a: IndexArgs) -> Result<Outcome> {
    if a.json && a.output.as_os_str() == "-" {
        crate::usage!("--json prints to stdout, which -o - takes for the index");
    }
    if a.add {
        return add(a);
    }
    let started = Instant::now();
    let size = super::size_arg(a.select.size)?;
    // Listed on the command's threads too: folders are listed in parallel.
    let all_sources = a
        .threads
        .run(|| super::extract::sources(&a.games, false))??;
    let shard = a.sharding.shard;
    // A part's files are a share of all, which its manifest lists; a whole index's are all
    // (one list: a copy was 100 MB at a million files).
    let (sources, all_sources): (Vec<_>, Vec<_>) = match shard {
        Some(shard) => (
            all_sources
                .iter()
                .enumerate()
                .filter(|(i, _)| shard.contains(*i as u64))
                .map(|(_, s)| s.clone())
                .collect(),
            all_sources,
        ),
        None => (all_sources, Vec::new()),
    };
    let given = all_sources.iter().chain(&sources).map(|s| s.path.as_path());
    refuse_inputs(&a.output, given, a.select.zobrist.as_deref())?;
    let manifest = kifu_posdb::provenance::sidecar_path(&a.output);
    if shard.is_some() {
        if a.output.as_os_str() == "-" {
            crate::usage!("--shard writes a part: give a file to -o, not `-`");
        }
        match std::fs::remove_file(&manifest) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                bail!(
                    "{}: cannot remove the old manifest: {e}",
                    manifest.display()
                )
            }
            _ => {}
        }
    }
    let mut opts = IndexOptions::new(size);
    if let Some(z) = &a.select.zobrist {
        let (keys, _, _) = super::extract::zobrist_keys(Some(z), &a.output, size)?;
        opts.keys = keys;
    }
    opts.memory_limit = super::extract::parse_bytes(&a.memory)?;
    opts.variations = a.select.variations;
    opts.most_stones = a.select.most_stones()?;
    // A part has its pattern index too, made from the same reads: the merge copies the
    // parts' records instead of reading every game's file again.
    let mut builder = if regular_or_new(&a.output) {
        PatternIndexBuilder::new(&kifu_search::index::sidecar_path(&a.output)).ok()
    } else {
        None
    };
    let (s, patterns) = a.threads.run(|| -> Result<_> {
        let sources = sources;
        let s = write_with_progress(&a.output, sources.len() as u64, "indexing", |w, tick| {
            Ok(build_with_patterns(
                &sources,
                &opts,
                w,
                tick,
                builder.as_mut(),
            )?)
        })?;
        // Freed before the pattern index reads the index's own list of files back.
        drop(sources);
        for e in &s.errors {
            crate::output::message(format_args!("kifu: {e}"));
        }
        let patterns = if shard.is_some() {
            // Only from the reads: a part whose records could not be made this way has
            // none, and the merge reads its files.
            part_pattern_index(&a.output, builder.take())?
        } else {
            pattern_index(&a.output, builder.take())?
        };
        Ok((s, patterns))
    })??;
    if let Some(shard) = shard {
        let part = kifu_posdb::parts::PartManifest {
            job: "index".into(),
            kifu: env!("CARGO_PKG_VERSION").into(),
            settings: vec![
                format!("size={}", size.get()),
                format!("variations={}", a.select.variations),
                format!(
                    "entry_stones={}",
                    opts.most_stones.map_or("all".into(), |m| m.to_string())
                ),
                format!(
                    "zobrist={:016x}",
                    kifu_posdb::parts::checksum(opts.keys.table().to_text().as_bytes())
                ),
            ],
            inputs: all_sources
                .iter()
                .map(|s| s.path.display().to_string())
                .collect(),
            shard: (shard.number(), shard.count()),
            record_bytes: 0,
            records: s.files,
            records_xxh3: None,
            order_xxh3: None,
            index_check: IndexReader::open(&a.output)
                .with_context(|| a.output.display().to_string())?
                .content_check(),
        };
        crate::output::write_atomically(&manifest, part.to_json().as_bytes())?;
    }
    let secs = started.elapsed().as_secs_f64();
    let rate = |n: u64| if secs > 0.0 { n as f64 / secs } else { 0.0 };
    let v = json!({
        "output": a.output.display().to_string(), "variations": a.select.variations,
        "files": s.files, "files_failed": s.files_failed,
        "files_without_games": s.files_without_games, "games": s.games,
        "games_other_size": s.games_other_size, "games_failed": s.games_failed,
        "positions": s.positions, "entries": s.entries, "entry_stones": opts.most_stones,
        "spilled_runs": s.spilled_runs, "errors": s.errors,
        "seconds": secs, "games_per_second": rate(s.games), "positions_per_second": rate(s.positions),
        "pattern_index": patterns.as_ref().map(|(p, _, _)| p.display().to_string()),
        "pattern_index_bytes": patterns.as_ref().map(|(_, b, _)| *b),
        "duplicate_groups": patterns.as_ref().map(|(_, _, d)| *d),
    });
    if a.json {
        crate::output::print_json(&v)?;
    } else {
        crate::output::message(format_args!(
            "indexed {} games ({} positions) from {} files in {secs:.2}s; {} games of other sizes skipped, {} failed files, {} files without games, {} failed games",
            s.games, s.positions, s.files, s.games_other_size, s.files_failed, s.files_without_games, s.games_failed
        ));
        if let Some((path, _, groups)) = &patterns {
            crate::output::message(format_args!(
                "pattern index {}; {groups} groups of duplicate games (kifu pos duplicates lists them)",
                path.display()
            ));
        }
    }
    Ok(if s.files_failed > 0 || s.games_failed > 0 {
        Outcome::Findings
    } else {
        Outcome::Ok
    })
}

/// Builds the index of `sources` into `out`; with `builder`, the pattern index's records
/// too, made from the same reads of the files, and the builder sealed once every file is read
/// (its sidecar is then written while the index is sorted and written).
fn build_with_patterns(
    sources: &[kifu_posdb::extract::Source],
    opts: &IndexOptions,
    out: &mut dyn std::io::Write,
    tick: &(dyn Fn() + Sync),
    builder: Option<&mut PatternIndexBuilder>,
) -> Result<kifu_posdb::index::IndexSummary, kifu_posdb::index::IndexError> {
    let Some(b) = builder else {
        return build_index(sources, opts, out, tick);
    };
    // Appended to on the building thread, sealed on it too: the lock is never contended.
    let b = std::sync::Mutex::new(b);
    let lock = || b.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut append = |source: &kifu_posdb::extract::Source, first, records| {
        lock().append(source, first, records)
    };
    let mut appended = || lock().seal();
    let work = FileWork {
        visit: &FileRecords::build,
        append: &mut append,
        appended: Some(&mut appended),
    };
    build_index_with(sources, opts, out, tick, Some(work))
}

/// Whether `path` names a regular file or nothing yet (not `-`, a FIFO or a device).
fn regular_or_new(path: &std::path::Path) -> bool {
    path.as_os_str() != "-" && kifu_fs::existing_regular_file(path).is_ok()
}

/// The fingerprint a pattern index of the index at `output` carries
/// ([`kifu_search::index::index_fingerprint`]: its files not held).
fn games_fingerprint(output: &std::path::Path) -> Result<u64> {
    let reader = IndexReader::open(output).with_context(|| output.display().to_string())?;
    Ok(kifu_search::index::index_fingerprint(&reader)?)
}

/// The files and game numbers of the index at `output`, and the fingerprint a pattern index
/// of them carries.
fn games_files(
    output: &std::path::Path,
) -> Result<(Vec<kifu_search::collection::CollectionFile>, u64)> {
    let reader = IndexReader::open(output).with_context(|| output.display().to_string())?;
    let files = kifu_search::collection::index_files(&reader)?;
    let fingerprint = kifu_search::index::fingerprint(&files);
    Ok((files, fingerprint))
}

/// Builds the pattern index of the index just written at `output` and saves it beside it (the
/// `.kpp` sidecar `kifu pos search` reads); its path and size. Nothing for an output that is
/// not a regular file (`-o /dev/null`, a FIFO). Also the number of groups of duplicate games.
/// `built`: the records made while the index read the files, used when they are those of
/// the index's games (else the files are read again).
fn pattern_index(
    output: &std::path::Path,
    built: Option<PatternIndexBuilder>,
) -> Result<Option<(PathBuf, u64, usize)>> {
    use kifu_search::index::PatternIndex;
    if !std::fs::metadata(output).is_ok_and(|m| m.is_file()) {
        return Ok(None);
    }
    let sidecar = kifu_search::index::sidecar_path(output);
    // The index's list of files is made only when the sidecar is built from it.
    let from_reads = match built {
        Some(b) => b.finish(games_fingerprint(output)?)?,
        None => None,
    };
    // Else built straight into the sidecar; with a file that cannot be read, in memory (its
    // failures are reported with every search) and saved as it is.
    let groups = match from_reads {
        Some(written) => written.duplicate_groups,
        None => {
            let (files, fingerprint) = games_files(output)?;
            match PatternIndex::build_to(&files, &sidecar, fingerprint)? {
                Some(p) => p.duplicate_groups().len(),
                None => {
                    let p = PatternIndex::build(&files);
                    p.save(&sidecar, fingerprint)?;
                    p.duplicate_groups().len()
                }
            }
        }
    };
    let bytes = std::fs::metadata(&sidecar).map_or(0, |m| m.len());
    Ok(Some((sidecar, bytes, groups)))
}

/// The pattern index of the part just written at `output` (`--shard`), from the records
/// `built` while the part read its files; none (and no old one left) when they cannot serve.
fn part_pattern_index(
    output: &std::path::Path,
    built: Option<PatternIndexBuilder>,
) -> Result<Option<(PathBuf, u64, usize)>> {
    let sidecar = kifu_search::index::sidecar_path(output);
    let written = match built {
        Some(b) if std::fs::metadata(output).is_ok_and(|m| m.is_file()) => {
            b.finish(games_fingerprint(output)?)?
        }
        _ => None,
    };
    let Some(w) = written else {
        match std::fs::remove_file(&sidecar) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                bail!(
                    "{}: cannot remove the old pattern index: {e}",
                    sidecar.display()
                )
            }
            _ => return Ok(None),
        }
    };
    let bytes = std::fs::metadata(&sidecar).map_or(0, |m| m.len());
    Ok(Some((sidecar, bytes, w.duplicate_groups)))
}

/// The pattern index of `output` merged from the parts `parts`: copied from the parts' own
/// pattern indexes when each has one of its games, else built from the games' files.
fn merged_pattern_index(
    output: &std::path::Path,
    parts: &[PathBuf],
) -> Result<Option<(PathBuf, u64, usize)>> {
    use kifu_search::index::{sidecar_path, PatternIndex};
    if !std::fs::metadata(output).is_ok_and(|m| m.is_file()) {
        return Ok(None);
    }
    let mut opened = Vec::with_capacity(parts.len());
    for part in parts {
        let fingerprint = games_fingerprint(part)?;
        // A part without a usable pattern index (none, an older kifu's, another index's,
        // a damaged one, which is said): all are read from the files.
        match PatternIndex::load(&sidecar_path(part), fingerprint) {
            Ok(Some(p)) => opened.push(p),
            Ok(None) => return pattern_index(output, None),
            Err(e) => {
                crate::output::message(format_args!(
                    "kifu: {e}; the pattern index is made from the games' files"
                ));
                return pattern_index(output, None);
            }
        }
    }
    let (files, fingerprint) = games_files(output)?;
    let sidecar = sidecar_path(output);
    match PatternIndexBuilder::merged(&opened, &files, &sidecar, fingerprint)? {
        Some(w) => {
            let bytes = std::fs::metadata(&sidecar).map_or(0, |m| m.len());
            Ok(Some((sidecar, bytes, w.duplicate_groups)))
        }
        None => pattern_index(output, None),
    }
}

/// The pattern index of `output` after games were added: `old` (the old games' pattern index)
/// with the new files' games, or built whole when there is no usable `old`.
/// Also says whether the old pattern index was extended (rather than rebuilt).
#[allow(clippy::type_complexity)]
fn extend_pattern_index(
    output: &std::path::Path,
    old: Option<kifu_search::index::PatternIndex>,
) -> Result<(Option<(PathBuf, u64, usize)>, bool)> {
    let Some(old) = old else {
        return Ok((pattern_index(output, None)?, false));
    };
    let (files, fingerprint) = games_files(output)?;
    let sidecar = kifu_search::index::sidecar_path(output);
    // The old games copied from the old sidecar, the new ones built; a new file that cannot
    // be read: built whole (its failure reported).
    let Some(patterns) = old.extend_to(&files, &sidecar, fingerprint)? else {
        return Ok((pattern_index(output, None)?, false));
    };
    let bytes = std::fs::metadata(&sidecar).map_or(0, |m| m.len());
    Ok((
        Some((sidecar, bytes, patterns.duplicate_groups().len())),
        true,
    ))
}

/// Refuses (exit 2) an index written over one of its inputs (`inputs`, and the Zobrist table
/// `zobrist`): the index, its pattern index or its manifest.
fn refuse_inputs<'a>(
    output: &std::path::Path,
    inputs: impl Iterator<Item = &'a std::path::Path> + Clone,
    zobrist: Option<&'a std::path::Path>,
) -> Result<()> {
    let written = [
        output.to_path_buf(),
        kifu_search::index::sidecar_path(output),
        kifu_posdb::provenance::sidecar_path(output),
    ];
    for out in &written {
        crate::output::refuse_overwrite(out, inputs.clone().chain(zobrist))?;
    }
    Ok(())
}

/// `kifu pos index --add`: the new files indexed on their own, then concatenated after the
/// existing index's files by the merge of sharded builds.
fn add(a: IndexArgs) -> Result<Outcome> {
    let started = Instant::now();
    let existing =
        IndexReader::open(&a.output).with_context(|| format!("{}", a.output.display()))?;
    let canonical =
        |p: &std::path::Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let mut known: HashSet<PathBuf> = HashSet::new();
    for n in 0..existing.files() {
        let n = u32::try_from(n).context("too many files")?;
        known.insert(canonical(std::path::Path::new(&existing.file_path(n)?)));
    }
    let mut sources = a
        .threads
        .run(|| super::extract::sources(&a.games, false))??;
    refuse_inputs(&a.output, sources.iter().map(|s| s.path.as_path()), None)?;
    let given = sources.len();
    sources.retain(|s| !known.contains(&canonical(&s.path)));
    let skipped = given - sources.len();
    if skipped > 0 {
        crate::output::message(format_args!(
            "kifu: {skipped} of the {given} files are in {} already: skipped",
            a.output.display()
        ));
    }
    // The pattern index of the old games, if it is up to date: only the new games are added.
    let old_patterns = {
        kifu_search::index::PatternIndex::load(
            &kifu_search::index::sidecar_path(&a.output),
            kifu_search::index::index_fingerprint(&existing)?,
        )
        .ok()
        .flatten()
    };
    let mut opts = IndexOptions::new(existing.size());
    opts.keys = existing.keys().clone();
    opts.variations = existing.variations();
    opts.most_stones = existing.most_stones();
    opts.memory_limit = super::extract::parse_bytes(&a.memory)?;
    let folder = a
        .output
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), std::path::Path::to_path_buf);
    opts.temp_dir = Some(folder.clone());
    drop(existing);
    let new = tempfile::Builder::new()
        .prefix(".kifu-add-")
        .tempfile_in(&folder)
        .with_context(|| format!("{}: cannot create a temporary file", folder.display()))?;
    // The new games' pattern records made from the same reads and replays as their entries,
    // after the old games' records.
    let sidecar = kifu_search::index::sidecar_path(&a.output);
    let mut builder = old_patterns
        .as_ref()
        .and_then(|old| PatternIndexBuilder::extending(old, &sidecar).ok());
    let (s, counts, (patterns, extended)) = a.threads.run(|| -> Result<_> {
        let mut w = std::io::BufWriter::new(new.as_file());
        let bar = crate::output::progress(sources.len() as u64, "indexing");
        let tick = || bar.inc(1);
        let s = build_with_patterns(&sources, &opts, &mut w, &tick, builder.as_mut())?;
        std::io::Write::flush(&mut w)?;
        drop(w);
        bar.finish_and_clear();
        for e in &s.errors {
            crate::output::message(format_args!("kifu: {e}"));
        }
        let parts = [a.output.clone(), new.path().to_path_buf()];
        let mut counts = kifu_posdb::index::IndexSummary::default();
        crate::output::write_atomically_with(&a.output, |w| {
            counts = kifu_posdb::index::merge_index_parts(
                &parts,
                Layout::Concatenated,
                Some(folder.clone()),
                w,
            )?;
            Ok(())
        })?;
        let written = match builder.take() {
            Some(b) => b.finish(games_fingerprint(&a.output)?)?,
            None => None,
        };
        let patterns = match written {
            Some(w) => {
                let bytes = std::fs::metadata(&sidecar).map_or(0, |m| m.len());
                (Some((sidecar.clone(), bytes, w.duplicate_groups)), true)
            }
            None => extend_pattern_index(&a.output, old_patterns)?,
        };
        Ok((s, counts, patterns))
    })??;
    let (positions, entries, games, files) =
        (counts.positions, counts.entries, counts.games, counts.files);
    let secs = started.elapsed().as_secs_f64();
    let v = json!({
        "output": a.output.display().to_string(), "skipped_files": skipped, "added_files": s.files, "added_games": s.games,
        "added_positions": s.positions, "files_failed": s.files_failed, "games_failed": s.games_failed,
        "files_without_games": s.files_without_games,
        "games_other_size": s.games_other_size, "files": files, "games": games, "positions": positions,
        "entries": entries,
        "pattern_index": patterns.as_ref().map(|(p, _, _)| p.display().to_string()),
        "pattern_index_extended": extended,
        "seconds": secs, "errors": s.errors,
    });
    if a.json {
        crate::output::print_json(&v)?;
    } else {
        crate::output::message(format_args!(
            "added {} games ({} positions) from {} files to {}: now {games} games, {positions} positions, {files} files ({secs:.2}s)",
            s.games, s.positions, s.files, a.output.display()
        ));
    }
    Ok(if s.files_failed > 0 || s.games_failed > 0 {
        Outcome::Findings
    } else {
        Outcome::Ok
    })
}

/// `kifu pos merge --shards` of the parts of a sharded index build: the index (and pattern
/// index) of one run.
pub fn merge_parts(inputs: &[PathBuf], output: &std::path::Path, json: bool) -> Result<Outcome> {
    let manifests = kifu_posdb::parts::check_manifests(inputs, "index")?;
    for (m, p) in manifests.iter().zip(inputs) {
        let check = IndexReader::open(p)
            .with_context(|| p.display().to_string())?
            .content_check();
        if m.index_check.is_some_and(|want| check != Some(want)) {
            bail!(
                "{}: not the index its manifest describes (shard {}/{}): another shard's files, \
                 or rewritten since; build that shard again",
                p.display(),
                m.shard.0,
                m.shard.1
            );
        }
    }
    let mut ordered: Vec<(u64, PathBuf)> = manifests
        .iter()
        .zip(inputs)
        .map(|(m, p)| (m.shard.0, p.clone()))
        .collect();
    ordered.sort();
    let parts: Vec<PathBuf> = ordered.into_iter().map(|(_, p)| p).collect();
    let temp = output
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map(std::path::Path::to_path_buf);
    let mut counts = kifu_posdb::index::IndexSummary::default();
    crate::output::write_atomically_with(output, |w| {
        counts = kifu_posdb::index::merge_index_parts(&parts, Layout::Shards, temp, w)?;
        Ok(())
    })?;
    let patterns = merged_pattern_index(output, &parts)?;
    let (positions, entries, games, files) =
        (counts.positions, counts.entries, counts.games, counts.files);
    if json {
        crate::output::print_json(&json!({
            "inputs": inputs.len(), "positions": positions, "entries": entries, "games": games, "files": files,
            "pattern_index": patterns.as_ref().map(|(p, _, _)| p.display().to_string()),
        }))?;
    } else {
        crate::output::message(format_args!(
            "merged {} index parts into {} ({games} games, {positions} positions, {files} files)",
            inputs.len(),
            output.display()
        ));
    }
    Ok(Outcome::Ok)
}

/// The position after the last node of a line (given by pre-order indices) with a number of
/// moves played, and the replay error of the game if any.
struct LinePosition<'a> {
    on_line: &'a HashSet<usize>,
    moves: u32,
    found: Option<(Board, Color)>,
    error: Option<ReplayError>,
}

impl ReplaySink for LinePosition<'_> {
    fn position(&mut self, s: &Step<'_>) {
        if s.move_number == self.moves && self.on_line.contains(&s.node_index) {
            self.found = Some((s.position.board(), s.to_play));
        }
    }
    fn game_error(&mut self, e: ReplayError) {
        self.error = Some(e);
    }
}

fn query_position(a: &LookupArgs) -> Result<(Board, Color)> {
    if let (Some(path), Some(n)) = (&a.sgf, a.r#move) {
        return game_position(path, a.game, a.variation, n);
    }
    board_position(a)
}

/// The position after move `n` of variation `variation` of game `game` (from 1) of an SGF file,
/// as the index stores it, and who is to play.
pub fn game_position(
    path: &std::path::Path,
    game_number: usize,
    variation: u32,
    n: u32,
) -> Result<(Board, Color)> {
    {
        let name = path.display();
        if game_number == 0 {
            crate::usage!("--game 0: games are counted from 1");
        }
        let bytes = crate::inputs::read_path(path)?;
        let coll = Collection::parse_vec(bytes).collection;
        let game = game_number
            .checked_sub(1)
            .and_then(|i| coll.game(i))
            .with_context(|| {
                format!(
                    "{name}: no game {game_number} (the file has {})",
                    coll.len()
                )
            })?;
        let line = navigate::variation_line(game, variation).with_context(|| {
            format!(
                "{name}: game {game_number} has no variation {variation} (it has {})",
                navigate::leaves(game).count()
            )
        })?;
        // The position the index stores for move N of the line: after the last node of the line
        // with N moves played (setup or comments after a move stand for it, as in the index),
        // N counting the moves replayed, as the move numbers of the matches do.
        let root = game.root().index();
        let on_line: HashSet<usize> = line.iter().map(|node| node.index() - root).collect();
        let mut at = LinePosition {
            on_line: &on_line,
            moves: n,
            found: None,
            error: None,
        };
        at = replay_game(game, &ReplayOptions::default(), at);
        if let Some(e) = at.error {
            bail!("{name}: {e}");
        }
        let found = at.found;
        found.with_context(|| {
            format!("{name}: game {game_number} has no move {n} on variation {variation}")
        })
    }
}

fn board_position(a: &LookupArgs) -> Result<(Board, Color)> {
    let (Some(rows), Some(tp)) = (&a.board, &a.to_play) else {
        crate::usage!("give --sgf FILE --move N, or --board ROWS --to-play B|W");
    };
    let rows: Vec<u8> = rows.bytes().filter(|&b| b != b'/').collect();
    let board = Board::from_rows(&rows, None).context("--board")?;
    let to_play = match tp.as_str() {
        "B" | "b" => Color::Black,
        "W" | "w" => Color::White,
        other => crate::usage!("--to-play {other:?}: B or W"),
    };
    Ok((board, to_play))
}

/// Runs `kifu pos lookup`.
pub fn lookup(a: LookupArgs) -> Result<Outcome> {
    let db = IndexReader::open(&a.db).with_context(|| a.db.display().to_string())?;
    let tables = super::view::load_scores(&a.scores)?;
    let (board, to_play) = query_position(&a)?;
    let size = db.size();
    // Counts, continuations and the listed games only: summaries answer the common positions.
    // A board the entries do not hold (an index cut by stones) is looked up by the pattern
    // index, opened only then (opening reads every game's summary).
    let r = match db.lookup_page(&board, to_play, a.swap_colors, a.limit) {
        Err(kifu_posdb::index::IndexError::NotHeld { .. }) => kifu_search::Database::open(&a.db)
            .with_context(|| a.db.display().to_string())?
            .lookup_page(&board, to_play, a.swap_colors, a.limit)
            .with_context(|| a.db.display().to_string())?,
        r => r?,
    };
    let pct = |n: u64, d: u64| {
        if d > 0 {
            n as f64 * 100.0 / d as f64
        } else {
            0.0
        }
    };
    let mut scores = Vec::new();
    for t in &tables {
        for s in t.by_hash(r.hash, to_play) {
            scores.push((t.label(), s));
        }
    }
    let mut answer = LookupAnswer::new(&db, &r, to_play)?;
    answer.scores = scores
        .iter()
        .map(|(l, s)| LookupScore {
            scorer: l.clone(),
            id: s.id.to_string(),
            score: s.score,
            confidence: s.confidence,
        })
        .collect();
    let listed = &answer.matches;
    if a.json {
        crate::output::print_json(&answer)?;
    } else {
        let mut o = format!(
            "position {:016x}, {} to play: {} occurrences in {} games ({} with colours swapped)\n",
            r.hash, to_play, r.occurrences, r.games, r.swapped
        );
        if !r.continuations.is_empty() {
            o.push_str("move   games  Black wins  White wins  Black %  White %\n");
            for c in &r.continuations {
                o.push_str(&format!(
                    "{:<5} {:>6}  {:>10}  {:>10}  {:>6.1}%  {:>6.1}%\n",
                    move_text(Some(c.mv), size),
                    c.count,
                    c.black_wins,
                    c.white_wins,
                    pct(c.black_wins, c.count),
                    pct(c.white_wins, c.count)
                ));
            }
        }
        for m in listed {
            o.push_str(&format!(
                "game {} move {} ({}{}{}) next {}: {} - {} {} {} [{} game {}]\n",
                m.game,
                m.move_number,
                m.symmetry_name,
                if m.swapped { ", colours swapped" } else { "" },
                if m.in_variation {
                    ", in a variation"
                } else {
                    ""
                },
                m.next,
                m.black,
                m.white,
                m.date,
                m.result,
                m.file,
                m.game_in_file
            ));
        }
        if r.occurrences > listed.len() as u64 {
            o.push_str(&format!(
                "... {} more (--limit)\n",
                r.occurrences - listed.len() as u64
            ));
        }
        if !tables.is_empty() {
            // One column per scored file, side by side; a tiebreaker above 0 is named.
            let cols: Vec<String> = tables
                .iter()
                .map(|t| {
                    let found: Vec<String> = scores
                        .iter()
                        .filter(|(l, _)| *l == t.label())
                        .map(|(_, s)| {
                            let tb = if s.id.tiebreak > 0 {
                                format!(" [tiebreaker {}]", s.id.tiebreak)
                            } else {
                                String::new()
                            };
                            format!("{} ({}%){tb}", s.score, s.confidence)
                        })
                        .collect();
                    let text = if found.is_empty() {
                        "-".to_string()
                    } else {
                        found.join(", ")
                    };
                    format!("{}: {text}", t.label())
                })
                .collect();
            o.push_str(&format!("scores: {}\n", cols.join("  ")));
        }
        super::emit(&o)?;
    }
    Ok(Outcome::Ok)
}
