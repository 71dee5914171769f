//! `kifu book ...`: Polyglot opening books. The logic is in kifu-polyglot; this module
//! parses arguments, prints, and writes files safely.

use crate::output::{write_atomically, write_atomically_with};
use crate::Outcome;
use anyhow::{Context, Result};
use clap::{Subcommand, ValueEnum};
use kifu_polyglot::pgheader::{self, Dialect};
use kifu_polyglot::shakmaty::Chess;
use kifu_polyglot::{
    book_position, check, merge, position_from_fen, position_from_moves, repair, writer, Book,
    BookMove, BookPosition, DuplicatePolicy, MergeStrategy,
};
use serde_json::{json, Value};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

mod make_cmd;

/// The `kifu book` subcommands.
#[derive(Subcommand, Debug)]
pub enum BookCommand {
    /// Print the entries of a position (move in SAN and UCI, weight, share, learn), or the
    /// whole book with --all.
    Dump {
        /// The book.
        book: PathBuf,
        /// The position as FEN (default: the start position).
        #[arg(long, conflicts_with = "moves")]
        fen: Option<String>,
        /// The position as moves from the start (SAN or UCI), e.g. "e4 e5 Nf3".
        #[arg(long)]
        moves: Option<String>,
        /// Every entry of the book, one line each, in book order.
        #[arg(long, conflicts_with_all = ["fen", "moves"])]
        all: bool,
        /// JSON output.
        #[arg(long)]
        json: bool,
    },
    /// Look up many positions: one FEN per line from a file or stdin (`-`).
    Lookup {
        /// The book.
        book: PathBuf,
        /// File of FENs, one per line (`-` for stdin).
        #[arg(default_value = "-")]
        fens: PathBuf,
        /// JSON output (one array).
        #[arg(long)]
        json: bool,
    },
    /// Check a book: size, order, duplicates, zero weights, move bits, header. Exit 1 on problems.
    Check {
        /// The book.
        book: PathBuf,
        /// Most findings listed per kind.
        #[arg(long, default_value_t = 20)]
        limit: usize,
        /// JSON output.
        #[arg(long)]
        json: bool,
    },
    /// Repair a book: drop a partial record, sort, merge duplicates, keep the header.
    Repair {
        /// The book to repair.
        input: PathBuf,
        /// Output book (may be the input; written safely).
        #[arg(short, long)]
        output: PathBuf,
        /// How duplicate (key, move) entries are combined.
        #[arg(long, value_enum, default_value_t = Dup::Sum)]
        duplicates: Dup,
    },
    /// Merge books. Strategies: sum (Polyglot merge-book, but saturating), first (the first
    /// book with a position gives all its moves), max, weighted (--weights 1,0.5,...).
    Merge {
        /// The books, in priority order.
        #[arg(required = true, num_args = 2..)]
        books: Vec<PathBuf>,
        /// Output book.
        #[arg(short, long)]
        output: PathBuf,
        /// How entries of a position present in several books are combined.
        #[arg(long, value_enum, default_value_t = Strategy::Sum)]
        strategy: Strategy,
        /// Factors for --strategy weighted, one per book, comma separated.
        #[arg(long, value_delimiter = ',', value_parser = crate::args::non_negative)]
        weights: Vec<f64>,
        /// Write no header even if an input has one.
        #[arg(long)]
        no_header: bool,
    },
    /// Make a book from PGN files with Polyglot make-book's options and weights; or, for a
    /// sharded job, the counts of one shard (--counts --shard I/N), and the book from the
    /// counts of every shard (--from-counts).
    Make(Box<make_cmd::MakeArgs>),
    /// pgheader 1.0.5's command line: -l, -s, -S, -d, -v VARIANTS, -c COMMENT, -f, -h.
    /// Same output and files, written safely; the right variant count where pgheader miscounts.
    #[command(disable_help_flag = true)]
    Header {
        /// pgheader's options and the book.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

/// `--duplicates`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Dup {
    /// Add weights (saturating).
    Sum,
    /// Highest weight.
    Max,
    /// First in file order.
    First,
}

/// `--strategy`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Strategy {
    /// Add weights of the same move (saturating).
    Sum,
    /// The first book that has the position wins.
    First,
    /// Highest weight of each move.
    Max,
    /// Weighted sum with --weights.
    Weighted,
}

/// `--compat`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum CompatArg {
    /// kifu's behaviour.
    Kifu,
    /// Debian polyglot 2.0.4.
    Polyglot,
}

/// Runs one `kifu book` subcommand.
pub fn run(cmd: BookCommand) -> Result<Outcome> {
    match cmd {
        BookCommand::Dump {
            book,
            fen,
            moves,
            all,
            json,
        } => dump(&book, fen, moves, all, json),
        BookCommand::Lookup { book, fens, json } => lookup(&book, &fens, json),
        BookCommand::Check { book, limit, json } => check_cmd(&book, limit, json),
        BookCommand::Repair {
            input,
            output,
            duplicates,
        } => {
            crate::output::refuse_overwrite(&output, [input.as_path()])?;
            let bytes = std::fs::read(&input).with_context(|| format!("{}", input.display()))?;
            let policy = match duplicates {
                Dup::Sum => DuplicatePolicy::Sum,
                Dup::Max => DuplicatePolicy::Max,
                Dup::First => DuplicatePolicy::First,
            };
            let (fixed, merged) = repair(&bytes, policy)?;
            write_atomically(&output, &fixed)?;
            crate::output::message(format_args!(
                "{}: {} entries written, {merged} duplicates merged, {} trailing bytes dropped",
                output.display(),
                (fixed.len() / 16) - kifu_polyglot::count_header_records(&fixed),
                bytes.len() % 16
            ));
            Ok(Outcome::Ok)
        }
        BookCommand::Merge {
            books,
            output,
            strategy,
            weights,
            no_header,
        } => {
            match strategy {
                Strategy::Weighted if weights.len() != books.len() => crate::usage!(
                    "--strategy weighted needs one weight per book: {} books, {} weights",
                    books.len(),
                    weights.len()
                ),
                Strategy::Weighted => {}
                _ if !weights.is_empty() => {
                    crate::usage!("--weights is for --strategy weighted")
                }
                _ => {}
            }
            let opened = books
                .iter()
                .map(|p| Book::open(p).with_context(|| format!("{}", p.display())))
                .collect::<Result<Vec<_>>>()?;
            let strategy = match strategy {
                Strategy::Sum => MergeStrategy::Sum,
                Strategy::First => MergeStrategy::First,
                Strategy::Max => MergeStrategy::Max,
                Strategy::Weighted => MergeStrategy::Weighted(weights),
            };
            let (header, entries) = merge(&opened, &strategy);
            let header = if no_header { None } else { header };
            write_atomically_with(&output, |w| {
                writer::write_book(w, header.as_ref(), entries.iter().copied())?;
                Ok(())
            })?;
            Ok(Outcome::Ok)
        }
        BookCommand::Make(a) => make_cmd::run(*a),
        BookCommand::Header { args } => header_cmd(&args),
    }
}

fn open(path: &Path) -> Result<Book> {
    Book::open(path).with_context(|| format!("{}", path.display()))
}

fn print_entries(out: &mut impl Write, entries: &[BookMove]) -> std::io::Result<()> {
    for v in entries {
        writeln!(
            out,
            "{:<8} {:<6} {:>6} {:>7.2}% {}",
            v.san.as_deref().unwrap_or("?"),
            v.uci.as_deref().unwrap_or(&v.raw),
            v.weight,
            v.share,
            v.learn
        )?;
    }
    Ok(())
}

fn dump(
    path: &Path,
    fen: Option<String>,
    moves: Option<String>,
    all: bool,
    json: bool,
) -> Result<Outcome> {
    let book = open(path)?;
    let mut out = crate::output::stdout();
    if all {
        if json {
            let v: Vec<Value> = book
                .entries()
                .map(|e| json!({"key": format!("{:016x}", e.key), "move": e.raw_move.to_raw_uci(), "weight": e.weight, "learn": e.learn}))
                .collect();
            serde_json::to_writer(&mut out, &v)?;
            writeln!(out)?;
        } else {
            for e in book.entries() {
                writeln!(
                    out,
                    "{:016x} {} {} {}",
                    e.key,
                    e.raw_move.to_raw_uci(),
                    e.weight,
                    e.learn
                )?;
            }
        }
        out.flush()?;
        return Ok(Outcome::Ok);
    }
    let pos = match (&fen, &moves) {
        (Some(f), _) => position_from_fen(f)?,
        (None, Some(m)) => position_from_moves(m)?,
        (None, None) => Chess::default(),
    };
    let p = book_position(&book, &pos);
    if json {
        serde_json::to_writer(&mut out, &p)?;
        writeln!(out)?;
    } else {
        writeln!(out, "key {}: {} entries", p.key, p.entries.len())?;
        print_entries(&mut out, &p.entries)?;
    }
    out.flush()?;
    Ok(Outcome::Ok)
}

fn lookup(path: &Path, fens: &Path, json: bool) -> Result<Outcome> {
    let book = open(path)?;
    let input: Box<dyn BufRead> = if fens.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(std::io::BufReader::new(
            std::fs::File::open(fens).with_context(|| format!("{}", fens.display()))?,
        ))
    };
    let mut out = crate::output::stdout();
    let mut results = Vec::new();
    let mut bad = 0usize;
    for (i, line) in input.lines().enumerate() {
        let line = line?;
        let fen = line.trim();
        if fen.is_empty() || fen.starts_with('#') {
            continue;
        }
        match position_from_fen(fen) {
            Ok(pos) => {
                // The FEN as given, not as shakmaty writes it back.
                let p = BookPosition {
                    fen: fen.to_string(),
                    ..book_position(&book, &pos)
                };
                if json {
                    results.push(p);
                } else {
                    let moves: Vec<String> = p
                        .entries
                        .iter()
                        .map(|v| format!("{}:{}", v.uci.as_deref().unwrap_or("?"), v.weight))
                        .collect();
                    writeln!(out, "{fen}\t{}\t{}", p.key, moves.join(" "))?;
                }
            }
            Err(e) => {
                bad += 1;
                crate::output::message(format_args!("{}:{}: {e}", fens.display(), i + 1));
            }
        }
    }
    if json {
        serde_json::to_writer(&mut out, &results)?;
        writeln!(out)?;
    }
    out.flush()?;
    Ok(if bad > 0 {
        Outcome::Findings
    } else {
        Outcome::Ok
    })
}

fn check_cmd(path: &Path, limit: usize, json: bool) -> Result<Outcome> {
    let bytes = std::fs::read(path).with_context(|| format!("{}", path.display()))?;
    let r = check(&bytes, limit);
    let mut out = crate::output::stdout();
    if json {
        let v = json!({
            "file": path.display().to_string(),
            "ok": r.is_ok(),
            "entries": r.entries,
            "keys": r.keys,
            "header_records": r.header_records,
            "header": r.header.as_ref().map(|h| json!({"version": h.version, "variants": h.variants, "comment": h.comment_text()})),
            "unsorted": r.counts.unsorted,
            "duplicates": r.counts.duplicates,
            "zero_weights": r.counts.zero_weights,
            "malformed_moves": r.counts.malformed_moves,
            "null_keys": r.counts.null_keys,
            "findings": r.findings.iter().map(|f| f.to_string()).collect::<Vec<_>>(),
        });
        serde_json::to_writer(&mut out, &v)?;
        writeln!(out)?;
    } else {
        for f in &r.findings {
            writeln!(out, "{}: {f}", path.display())?;
        }
        writeln!(
            out,
            "{}: {} entries, {} positions, {} header records{}; unsorted {}, duplicates {}, zero weights {}, malformed moves {}: {}",
            path.display(),
            r.entries,
            r.keys,
            r.header_records,
            r.header.as_ref().map(|h| format!(" (variants {})", h.variants.join(","))).unwrap_or_default(),
            r.counts.unsorted,
            r.counts.duplicates,
            r.counts.zero_weights,
            r.counts.malformed_moves,
            if r.is_ok() { "ok" } else { "PROBLEMS" }
        )?;
    }
    Ok(if r.is_ok() {
        Outcome::Ok
    } else {
        Outcome::Findings
    })
}

const PROG: &str = "kifu book header";

fn header_cmd(args: &[String]) -> Result<Outcome> {
    let parsed = match pgheader::parse_args(args) {
        Ok(a) => a,
        Err(e) => {
            let _ = std::io::stderr().write_all(pgheader::usage_message(PROG, &e).as_bytes());
            return Ok(Outcome::Usage);
        }
    };
    let book = match &parsed.file {
        Some(f) => std::fs::read(f),
        None => Ok(Vec::new()),
    };
    let outcome = pgheader::run(&parsed, book, Dialect::Kifu, PROG);
    if let (Some(bytes), Some(f)) = (&outcome.new_book, &parsed.file) {
        write_atomically(Path::new(f), bytes)?;
    }
    crate::output::stdout().write_all(&outcome.stdout)?;
    crate::output::finish_stdout()?;
    // pgheader's own messages; a failure to show them is not the command's failure.
    let _ = std::io::stderr().write_all(&outcome.stderr);
    Ok(if outcome.code == 0 {
        Outcome::Ok
    } else {
        Outcome::Findings
    })
}
