//! `kifu pos extract`: game collections to a position file (the work is kifu-posdb's
//! `extract`); this module finds the inputs, the Zobrist table and the master list.

use crate::inputs::{collect, Input};
use crate::output::{write_atomically, write_with_progress};
use crate::Outcome;
use anyhow::{bail, Result};
use clap::Args;
use kifu_go::replay::Scope;
use kifu_go::{BoardSize, ZobristKeys, ZobristTable};
use kifu_posdb::extract::{extract, ExtractOptions, Source, SourceKind};
use kifu_posdb::masterlist::{MasterList, MASTER_LIST_NAME};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// Which positions an extraction keeps and how it keys them: the options `kifu pos extract`
/// and `kifu slurm extract` share (the Slurm task gets them back through
/// [`ExtractSelection::to_args`]).
#[derive(Args, Debug, Clone)]
pub struct ExtractSelection {
    /// Positions of all variations, not only the main lines.
    #[arg(long)]
    pub variations: bool,
    /// First move number kept (0 = the position before the first move).
    #[arg(long, default_value_t = 0)]
    pub from: u32,
    /// Last move number kept.
    #[arg(long)]
    pub to: Option<u32>,
    /// Board size kept (games of other sizes are skipped and counted).
    #[arg(long, default_value_t = 9)]
    pub size: u32,
    /// The zobrist_board_N.dat table to key with. Default: the one next to the output if there is
    /// one, else kifu's own table (written next to the output).
    #[arg(long)]
    pub zobrist: Option<PathBuf>,
    /// Write every occurrence of each position, not only the first.
    #[arg(long)]
    pub all_occurrences: bool,
}

impl ExtractSelection {
    /// The options as `kifu pos extract` arguments, all but `--zobrist` (whose table a caller
    /// resolves: a sharded run must name the table one run would use).
    pub fn to_args(&self) -> Vec<String> {
        let mut args = vec![
            "--size".into(),
            self.size.to_string(),
            "--from".into(),
            self.from.to_string(),
        ];
        if let Some(to) = self.to {
            args.extend(["--to".into(), to.to_string()]);
        }
        if self.variations {
            args.push("--variations".into());
        }
        if self.all_occurrences {
            args.push("--all-occurrences".into());
        }
        args
    }
}

/// `kifu pos extract` arguments.
#[derive(Args, Debug)]
pub struct ExtractArgs {
    /// SGF files and folders (searched recursively for .sgf; with --ascii also .txt and .pos).
    /// Files ending in .txt or .pos are ASCII positions (81 characters then B or W).
    #[arg(required = true)]
    games: Vec<PathBuf>,
    /// The position file to write (replaced safely).
    #[arg(short, long)]
    output: PathBuf,
    #[command(flatten)]
    select: ExtractSelection,
    /// Write PositionExtraInfo (file id, variation, move) and list the files in
    /// master_game_file_list.dat next to the output.
    #[arg(long)]
    extra: bool,
    /// Read every file given (and .txt/.pos files in folders) as ASCII positions.
    #[arg(long)]
    ascii: bool,
    #[command(flatten)]
    threads: crate::args::Threads,
    /// With --shard I/N, the output is a part (the positions of shard I, the `.order` of their
    /// places in the input, and a `.json` manifest written last) that `kifu pos merge --shards`
    /// merges with the other N - 1 into the bytes of one run.
    #[command(flatten)]
    sharding: crate::args::Sharding,
    /// Memory for sorting before spilling to temporary files: bytes, or with K, M or G.
    #[arg(long, default_value = "256M")]
    memory: String,
    /// JSON summary on stdout.
    #[arg(long)]
    json: bool,
}

/// Parses `256M`, `64K`, `1G` or plain bytes.
pub fn parse_bytes(text: &str) -> Result<usize> {
    let t = text.trim();
    let (num, mult) = match t.chars().last().map(|c| c.to_ascii_uppercase()) {
        Some('K') => (&t[..t.len() - 1], 1usize << 10),
        Some('M') => (&t[..t.len() - 1], 1 << 20),
        Some('G') => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    let Ok(n) = num.trim().parse::<usize>() else {
        crate::usage!("{text:?} is not a number of bytes (e.g. 256M, 64K, 1G)");
    };
    match n.checked_mul(mult) {
        Some(n) => Ok(n),
        None => crate::usage!("{text:?} is too large"),
    }
}

/// The input files of a command, as kifu-posdb sources, their kind told by their extension
/// ([`Source::new`]; `ascii`, from `--ascii`, makes every file ASCII positions).
pub fn sources(paths: &[PathBuf], ascii: bool) -> Result<Vec<Source>> {
    let exts: &[&str] = if ascii {
        &["sgf", "go", "txt", "pos"]
    } else {
        &["sgf", "go"]
    };
    let mut out = Vec::new();
    for input in collect(paths, exts)? {
        match input {
            Input::Stdin => {
                crate::usage!("`-` (stdin) is not supported here: give files or folders")
            }
            Input::File { path, .. } => {
                let mut source = Source::new(path);
                if ascii {
                    source.kind = SourceKind::Ascii;
                }
                out.push(source);
            }
        }
    }
    Ok(out)
}

fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The Zobrist keys: `--zobrist`, else the table next to `output`, else kifu's own (written next
/// to `output` unless it goes to stdout). Returns the keys and the table file used or written.
pub fn zobrist_keys(
    given: Option<&Path>,
    output: &Path,
    size: BoardSize,
) -> Result<(Arc<ZobristKeys>, Option<PathBuf>, bool)> {
    let load = |p: &Path| -> Result<Arc<ZobristKeys>> {
        let table = ZobristTable::load(p)?;
        if table.size() != size {
            bail!(
                "{}: the table is for {} boards, not {size}",
                p.display(),
                table.size()
            );
        }
        Ok(Arc::new(ZobristKeys::new(table)))
    };
    if let Some(p) = given {
        return Ok((load(p)?, Some(p.to_path_buf()), false));
    }
    if output.as_os_str() == "-" {
        return Ok((ZobristKeys::default_for(size), None, false));
    }
    let beside = folder_of(output).join(format!("zobrist_board_{}.dat", size.points()));
    // A FIFO by that name would block the load forever: only a regular file is a table.
    if kifu_fs::existing_regular_file(&beside)? {
        return Ok((load(&beside)?, Some(beside), false));
    }
    let keys = ZobristKeys::default_for(size);
    if let Err(e) = write_atomically(&beside, keys.table().to_text().as_bytes()) {
        // Another run into the same folder (a shard, a second extraction) wrote the table
        // between the look above and this write, and may still hold it while it finishes: the
        // table it wrote is whole (renamed into place once written), and is the one to use.
        if kifu_fs::existing_regular_file(&beside)? {
            return Ok((load(&beside)?, Some(beside), false));
        }
        return Err(e);
    }
    Ok((keys, Some(beside), true))
}

/// Writes one part of a sharded extraction: the manifest of an earlier run goes first (a part
/// without one is not finished), the new one is written last.
fn write_part(
    a: &ExtractArgs,
    sources: &[Source],
    opts: &ExtractOptions,
    shard: kifu_fs::shard::Shard,
) -> Result<kifu_posdb::extract::ExtractSummary> {
    use kifu_posdb::parts::{checksum, order_path, PartManifest, Summed};
    let manifest = kifu_posdb::provenance::sidecar_path(&a.output);
    match std::fs::remove_file(&manifest) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            bail!(
                "{}: cannot remove the old manifest: {e}",
                manifest.display()
            )
        }
        _ => {}
    }
    let mut order = kifu_fs::atomic::AtomicFile::create(&order_path(&a.output))?;
    let (s, records_xxh3, order_xxh3) =
        write_with_progress(&a.output, sources.len() as u64, "extracting", |w, tick| {
            let mut records = Summed::new(w);
            let mut buffered = Summed::new(std::io::BufWriter::with_capacity(1 << 16, &mut order));
            let s = kifu_posdb::extract::extract_part(
                sources,
                opts,
                &mut records,
                &mut buffered,
                tick,
            )?;
            std::io::Write::flush(&mut buffered)?;
            Ok((s, records.sum(), buffered.sum()))
        })?;
    order.commit()?;
    let n2 = opts.size.points() as u64;
    let part = PartManifest {
        job: "extract".into(),
        kifu: env!("CARGO_PKG_VERSION").into(),
        settings: vec![
            format!("size={}", opts.size.get()),
            format!("variations={}", a.select.variations),
            format!("from={}", opts.from),
            format!("to={}", opts.to),
            format!("all_occurrences={}", opts.all_occurrences),
            format!("extra={}", a.extra),
            format!(
                "zobrist={:016x}",
                checksum(opts.keys.table().to_text().as_bytes())
            ),
        ],
        inputs: sources
            .iter()
            .map(|s| s.path.display().to_string())
            .collect(),
        shard: (shard.number(), shard.count()),
        record_bytes: kifu_posdb::ID_BYTES as u64 + n2 + 1 + if a.extra { 8 } else { 0 },
        records: s.written,
        records_xxh3: Some(records_xxh3),
        order_xxh3: Some(order_xxh3),
        index_check: None,
    };
    write_atomically(&manifest, part.to_json().as_bytes())?;
    Ok(s)
}

/// Runs `kifu pos extract`.
pub fn run(a: ExtractArgs) -> Result<Outcome> {
    if a.json && a.output.as_os_str() == "-" {
        crate::usage!("--json prints to stdout, which -o - takes for the positions");
    }
    let started = Instant::now();
    let size = super::size_arg(a.select.size)?;
    let to = a.select.to.unwrap_or(u32::MAX);
    if a.select.from > to {
        crate::usage!("--from {} is after --to {to}", a.select.from);
    }
    let memory = parse_bytes(&a.memory)?;
    // Listed on the command's threads too: folders are listed in parallel.
    let sources = a.threads.run(|| sources(&a.games, a.ascii))??;
    let written = [
        a.output.clone(),
        kifu_posdb::provenance::sidecar_path(&a.output),
        kifu_posdb::parts::order_path(&a.output),
        folder_of(&a.output).join(MASTER_LIST_NAME),
    ];
    for out in &written {
        let given = sources.iter().map(|s| s.path.as_path());
        crate::output::refuse_overwrite(out, given.chain(a.select.zobrist.as_deref()))?;
    }
    let (keys, zobrist_path, zobrist_written) =
        zobrist_keys(a.select.zobrist.as_deref(), &a.output, size)?;
    let mut opts = ExtractOptions::new(size);
    opts.scope = if a.select.variations {
        Scope::AllVariations
    } else {
        Scope::MainLineOnly
    };
    opts.from = a.select.from;
    opts.to = to;
    opts.keys = keys;
    opts.all_occurrences = a.select.all_occurrences;
    opts.memory_limit = memory;
    if a.output.as_os_str() != "-" {
        opts.temp_dir = Some(folder_of(&a.output));
    }
    let mut master_repaired = None;
    let mut master_path = None;
    if a.extra {
        if a.output.as_os_str() == "-" {
            crate::usage!("--extra needs an output file (the master list goes next to it)");
        }
        let path = folder_of(&a.output).join(MASTER_LIST_NAME);
        let mut list = MasterList::open(&path)?;
        master_repaired = list.repaired();
        if let Some(n) = master_repaired {
            crate::output::message(format_args!(
                "{}: repaired: a torn last line ({n} bytes) was cut off",
                path.display()
            ));
        }
        let names = sources
            .iter()
            .map(|s| {
                std::fs::canonicalize(&s.path)
                    .unwrap_or_else(|_| s.path.clone())
                    .display()
                    .to_string()
            })
            .collect::<Vec<_>>();
        opts.file_ids = Some(list.ids_for(&names)?);
        master_path = Some(path);
    }
    opts.shard = a.sharding.shard;
    let s = match a.sharding.shard {
        None => a.threads.run(|| {
            write_with_progress(&a.output, sources.len() as u64, "extracting", |w, tick| {
                Ok(extract(&sources, &opts, w, tick)?)
            })
        })??,
        Some(shard) => {
            if a.output.as_os_str() == "-" {
                crate::usage!("--shard writes a part: give a file to -o, not `-`");
            }
            a.threads.run(|| write_part(&a, &sources, &opts, shard))??
        }
    };
    for e in &s.errors {
        crate::output::message(format_args!("kifu: {e}"));
    }
    let secs = started.elapsed().as_secs_f64();
    let rate = |n: u64| if secs > 0.0 { n as f64 / secs } else { 0.0 };
    let v = json!({
        "output": a.output.display().to_string(),
        "files": s.files, "files_failed": s.files_failed,
        "files_without_games": s.files_without_games,
        "games": s.games, "games_failed": s.games_failed,
        "games_other_size": s.games_other_size,
        "positions_other_size": s.positions_other_size,
        "positions_out_of_range": s.positions_out_of_range,
        "occurrences": s.occurrences, "distinct": s.distinct, "written": s.written,
        "collisions": s.collisions, "spilled_runs": s.spilled_runs,
        "zobrist": zobrist_path.map(|p| p.display().to_string()),
        "zobrist_written": zobrist_written,
        "master_list": master_path.map(|p| p.display().to_string()),
        "master_list_repaired_bytes": master_repaired,
        "errors": s.errors,
        "seconds": secs,
        "games_per_second": rate(s.games),
        "positions_per_second": rate(s.occurrences),
    });
    if a.json {
        crate::output::print_json(&v)?;
    } else {
        crate::output::message(format_args!(
            "{} files, {} games: {} positions, {} distinct, {} written to {} ({} games of other sizes skipped, {} failed files, {} files without games, {} failed games) in {secs:.2}s",
            s.files, s.games, s.occurrences, s.distinct, s.written, a.output.display(),
            s.games_other_size, s.files_failed, s.files_without_games, s.games_failed
        ));
    }
    Ok(if s.files_failed > 0 || s.games_failed > 0 {
        Outcome::Findings
    } else {
        Outcome::Ok
    })
}
