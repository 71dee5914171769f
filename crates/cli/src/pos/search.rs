//! `kifu pos search`: pattern search over a `kifu pos index` database (the query model and the
//! search are kifu-search's; this module reads the command line and prints the answer).

use crate::Outcome;
use anyhow::{Context, Result};
use clap::Args;
use kifu_go::{BoardSize, Color, Point};
use kifu_search::filter::parse_winner;
use kifu_search::scan::Page;
use kifu_search::{Database, Filters, Pattern, Placement, Query, SearchAnswer, Side};
use std::fmt::Write as _;
use std::path::PathBuf;

/// The most matches one page may list.
const MAX_PAGE: u64 = 10_000;

/// `kifu pos search` arguments.
#[derive(Args, Debug)]
pub struct SearchArgs {
    /// The database (`kifu pos index` output).
    db: PathBuf,
    /// Many queries in one run: a file (`-` for stdin) with one JSON query a line (kifu-search's
    /// `Query`: `{"pattern": "..O/.#.", "placement": {"kind": "at", "col": 0, "row": 0},
    /// "swap_colors": true, "to_play": "B", "moves": [0, 60], "filters": {"player": "Lee"}}`;
    /// only `pattern` is required), or filters alone (`{"filters": {"event": "Meijin"}}`, answered
    /// as `--json` answers filters without a pattern); one JSON answer a line, in order.
    #[arg(long, value_name = "FILE", conflicts_with_all = [
        "pattern", "pattern_file", "sgf", "svg", "move", "game", "variation", "area", "at",
        "corner", "edge", "anywhere", "no_symmetries", "swap_colors", "to_play", "moves",
        "sequence", "allow_tenuki", "count", "variations", "player", "black", "white",
        "date_from", "date_to", "event", "winner", "result", "handicap", "komi", "text",
    ])]
    batch: Option<PathBuf>,
    /// The pattern as rows: `#`/`X` black, `O` white, `.` empty, `*`/`?` anything, `x` empty or
    /// black, `o` empty or white; rows separated by line breaks or `/` (`"..O/.#./..."`).
    #[arg(long, conflicts_with_all = ["pattern_file", "sgf"])]
    pattern: Option<String>,
    /// A file holding the pattern's rows.
    #[arg(long, conflicts_with = "sgf")]
    pattern_file: Option<PathBuf>,
    /// Take the pattern from a game: this SGF file...
    #[arg(long, requires_all = ["move", "area"])]
    sgf: Option<PathBuf>,
    /// ...after this many moves...
    #[arg(long = "move")]
    r#move: Option<u32>,
    /// ...of this game of the file (1 = the first)...
    #[arg(long, default_value_t = 1)]
    game: usize,
    /// ...and variation (0 = the main line)...
    #[arg(long, default_value_t = 0)]
    variation: u32,
    /// ...the stones of this rectangle, two corners such as `A19:G13`. An area that touches a
    /// corner is a corner pattern, one touching one edge a side pattern, else it is sought
    /// anywhere (as Kombilo reads a selection).
    #[arg(long)]
    area: Option<String>,
    /// The pattern's top-left cell stands on this point (e.g. `A19` for the top-left corner).
    #[arg(long, conflicts_with_all = ["corner", "edge", "anywhere"])]
    at: Option<String>,
    /// The pattern stands in the top-left corner (and, by symmetry, in every corner).
    #[arg(long, conflicts_with_all = ["edge", "anywhere"])]
    corner: bool,
    /// The pattern touches this edge (top, bottom, left, right), anywhere along it.
    #[arg(long, value_parser = parse_side, conflicts_with = "anywhere")]
    edge: Option<Side>,
    /// The pattern may stand anywhere (the default for --pattern without --at/--corner/--edge).
    #[arg(long)]
    anywhere: bool,
    /// Only the pattern as given, not its 8 orientations.
    #[arg(long)]
    no_symmetries: bool,
    /// Also with Black and White exchanged.
    #[arg(long)]
    swap_colors: bool,
    /// Only positions where this colour (B or W, in the pattern's colours) is to play.
    #[arg(long, value_parser = parse_color)]
    to_play: Option<Color>,
    /// Only positions after these moves: `FROM-TO` (e.g. `0-60` for "before move 60").
    #[arg(long, value_name = "FROM-TO", value_parser = parse_range)]
    moves: Option<(u32, u32)>,
    /// Moves that must follow the pattern, inside it, in order: `"W D17 B C17 W C16"`. Points
    /// are board points for a pattern at a fixed place (--corner, --at, a corner --area); for
    /// others, points of the pattern placed at the board's top-left (A19 is its top-left cell).
    /// Continuations are then the moves after the sequence.
    #[arg(long, value_name = "MOVES")]
    sequence: Option<String>,
    /// Between the moves of --sequence, moves elsewhere (and passes) are allowed.
    #[arg(long, requires = "sequence")]
    allow_tenuki: bool,
    /// What counts as one occurrence: `positions` (every position where the pattern stands,
    /// with the move right after it) or `placements` (each place and orientation once per game,
    /// where it first appears, with the next move inside the pattern however late: Kombilo's
    /// counting; with --sequence, where it first appears and the sequence follows).
    #[arg(long, value_parser = parse_counting, default_value = "positions")]
    count: kifu_search::Counting,
    /// Search the variations too (needs an index built with --variations to mean more than
    /// the main lines, since the games are read again from their files).
    #[arg(long)]
    variations: bool,
    /// Games where either player's name contains this.
    #[arg(long)]
    player: Option<String>,
    /// Games where Black's name contains this.
    #[arg(long)]
    black: Option<String>,
    /// Games where White's name contains this.
    #[arg(long)]
    white: Option<String>,
    /// Games from this date on (`1990`, `1990-05`, `1990-05-17`).
    #[arg(long)]
    date_from: Option<String>,
    /// Games up to this date (a prefix takes its whole year or month).
    #[arg(long)]
    date_to: Option<String>,
    /// Games whose event contains this.
    #[arg(long)]
    event: Option<String>,
    /// Games won by: black, white, draw, unknown.
    #[arg(long, value_parser = parse_winner_arg)]
    winner: Option<kifu_search::filter::Winner>,
    /// Games whose result contains this (`B+R`).
    #[arg(long)]
    result: Option<String>,
    /// Handicap range `MIN-MAX`.
    #[arg(long, value_name = "MIN-MAX", value_parser = parse_range)]
    handicap: Option<(u32, u32)>,
    /// Komi range `MIN:MAX` (e.g. `6.5:7.5`).
    #[arg(long, value_name = "MIN:MAX", value_parser = parse_komi)]
    komi: Option<(f64, f64)>,
    /// Games whose players, event, date or result contain this.
    #[arg(long)]
    text: Option<String>,
    /// Leave out duplicate games (the same game in any orientation, by a Dyer-style signature:
    /// see `kifu pos duplicates`), keeping the first of each group.
    #[arg(long)]
    no_duplicates: bool,
    /// Matches listed (at most 10,000).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(0..=MAX_PAGE))]
    limit: u64,
    /// Matches skipped before the list.
    #[arg(long, default_value_t = 0)]
    offset: u64,
    #[command(flatten)]
    threads: crate::args::Threads,
    #[command(flatten)]
    cache: crate::args::Cache,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Also write the pattern as an SVG diagram with the continuations lettered (A = the most
    /// played, as in the table).
    #[arg(long, value_name = "OUT.svg")]
    svg: Option<PathBuf>,
}

fn parse_counting(t: &str) -> Result<kifu_search::Counting, String> {
    match t {
        "positions" => Ok(kifu_search::Counting::Positions),
        "placements" => Ok(kifu_search::Counting::Placements),
        _ => Err(format!("{t}: positions or placements")),
    }
}

fn parse_side(t: &str) -> Result<Side, String> {
    match t.to_ascii_lowercase().as_str() {
        "top" => Ok(Side::Top),
        "bottom" => Ok(Side::Bottom),
        "left" => Ok(Side::Left),
        "right" => Ok(Side::Right),
        _ => Err(format!("{t}: top, bottom, left or right")),
    }
}

fn parse_color(t: &str) -> Result<Color, String> {
    match t {
        "B" | "b" => Ok(Color::Black),
        "W" | "w" => Ok(Color::White),
        _ => Err(format!("{t}: B or W")),
    }
}

fn parse_winner_arg(t: &str) -> Result<kifu_search::filter::Winner, String> {
    parse_winner(t).ok_or_else(|| format!("{t}: black, white, draw or unknown"))
}

fn parse_range(t: &str) -> Result<(u32, u32), String> {
    let parsed = t
        .split_once('-')
        .map(|(a, b)| (a.trim().parse::<u32>(), b.trim().parse::<u32>()));
    match parsed {
        Some((Ok(a), Ok(b))) if a <= b => Ok((a, b)),
        _ => Err(format!("{t}: expected FROM-TO with FROM <= TO, e.g. 0-60")),
    }
}

fn parse_komi(t: &str) -> Result<(f64, f64), String> {
    let parsed = t
        .split_once(':')
        .map(|(a, b)| (a.trim().parse::<f64>(), b.trim().parse::<f64>()));
    match parsed {
        Some((Ok(a), Ok(b))) if a.is_finite() && b.is_finite() && a <= b => Ok((a, b)),
        _ => Err(format!(
            "{t}: expected MIN:MAX with MIN <= MAX, e.g. 6.5:7.5"
        )),
    }
}

/// A rectangle `A19:G13` on a board of `size`: (col, row, width, height).
fn parse_area(t: &str, size: BoardSize) -> Result<(u32, u32, u32, u32)> {
    let Some((a, b)) = t.split_once(':') else {
        crate::usage!("--area {t}: expected two corners such as A19:G13");
    };
    let (Ok(a), Ok(b)) = (Point::from_human(a, size), Point::from_human(b, size)) else {
        crate::usage!("--area {t}: corners must be points of a {size} board, such as A19:G13");
    };
    let (c0, c1) = (a.col().min(b.col()), a.col().max(b.col()));
    let (r0, r1) = (a.row().min(b.row()), a.row().max(b.row()));
    Ok((
        u32::from(c0),
        u32::from(r0),
        u32::from(c1 - c0) + 1,
        u32::from(r1 - r0) + 1,
    ))
}

/// `"W D17 B C17"` (commas allowed) as moves of the pattern: colour and cell.
fn parse_sequence(
    text: &str,
    pattern: &Pattern,
    placement: Placement,
    size: BoardSize,
) -> Result<Vec<(Color, (u32, u32))>> {
    let (c0, r0) = match placement {
        Placement::At { col, row } => (col, row),
        Placement::Edge { .. } | Placement::Anywhere => (0, 0),
    };
    let tokens: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .collect();
    if tokens.is_empty() || !tokens.len().is_multiple_of(2) {
        crate::usage!("--sequence {text:?}: expected colour and point pairs, e.g. \"W D17 B C17\"");
    }
    let mut out = Vec::new();
    for pair in tokens.chunks(2) {
        let Ok(color) = parse_color(pair[0]) else {
            crate::usage!("--sequence: {:?} is not a colour (B or W)", pair[0]);
        };
        let Ok(p) = Point::from_human(pair[1], size) else {
            crate::usage!("--sequence: {:?} is not a point of a {size} board", pair[1]);
        };
        let (col, row) = (u32::from(p.col()), u32::from(p.row()));
        let inside =
            col >= c0 && row >= r0 && col - c0 < pattern.width() && row - r0 < pattern.height();
        if !inside {
            crate::usage!("--sequence: {} is outside the pattern", pair[1]);
        }
        out.push((color, (col - c0, row - r0)));
    }
    Ok(out)
}

/// The query the command line asks, for a database of boards of `size`.
fn query(a: &SearchArgs, size: BoardSize) -> Result<Query> {
    let n = u32::from(size.get());
    let (pattern, placement) = if let Some(path) = &a.sgf {
        let (Some(mv), Some(area)) = (a.r#move, &a.area) else {
            crate::usage!("--sgf needs --move N and --area A19:G13");
        };
        let (board, _) = super::index::game_position(path, a.game, a.variation, mv)?;
        if board.size() != size {
            crate::usage!(
                "{}: a {} board, but the database holds {size} games",
                path.display(),
                board.size()
            );
        }
        let (c, r, w, h) = parse_area(area, size)?;
        let pattern = Pattern::from_board(&board, c, r, w, h)
            .with_context(|| format!("--area {area}: no stone and no empty point"))?;
        (pattern, Placement::of_region(c, r, w, h, n))
    } else {
        let text = match (&a.pattern, &a.pattern_file) {
            (Some(t), _) => t.clone(),
            (None, Some(f)) => String::from_utf8(crate::inputs::read_path(f)?)
                .map_err(|_| crate::UsageError(format!("{}: not UTF-8 text", f.display())))?,
            (None, None) => crate::usage!(
                "give --pattern ROWS, --pattern-file FILE or --sgf F --move N --area A19:G13, \
                 or only filters (--player, --event, --date-from...) to list the games"
            ),
        };
        let pattern = match Pattern::parse(&text) {
            Ok(p) => p,
            Err(e) => crate::usage!("--pattern: {e}"),
        };
        let placement = if let Some(at) = &a.at {
            let Ok(p) = Point::from_human(at, size) else {
                crate::usage!("--at {at}: not a point of a {size} board");
            };
            Placement::At {
                col: u32::from(p.col()),
                row: u32::from(p.row()),
            }
        } else if a.corner {
            Placement::At { col: 0, row: 0 }
        } else if let Some(side) = a.edge {
            Placement::Edge { side }
        } else {
            Placement::Anywhere
        };
        (pattern, placement)
    };
    if pattern.width() > n || pattern.height() > n {
        crate::usage!(
            "the pattern is {}x{}, larger than the database's {size} board",
            pattern.width(),
            pattern.height()
        );
    }
    if let Placement::At { col, row } = placement {
        if col + pattern.width() > n || row + pattern.height() > n {
            crate::usage!(
                "--at: a {}x{} pattern there leaves the board",
                pattern.width(),
                pattern.height()
            );
        }
    }
    let sequence = match &a.sequence {
        None => Vec::new(),
        Some(text) => parse_sequence(text, &pattern, placement, size)?,
    };
    let mut q = Query::new(pattern, placement);
    q.sequence = sequence;
    q.allow_tenuki = a.allow_tenuki;
    q.counting = a.count;
    q.symmetries = !a.no_symmetries;
    q.swap_colors = a.swap_colors;
    q.to_play = a.to_play;
    q.moves = a.moves;
    q.variations = a.variations;
    q.filters = filters(a);
    Ok(q)
}

/// The game-information conditions of the command line.
fn filters(a: &SearchArgs) -> Filters {
    Filters {
        player: a.player.clone(),
        black: a.black.clone(),
        white: a.white.clone(),
        date_from: a.date_from.clone(),
        date_to: a.date_to.clone(),
        event: a.event.clone(),
        winner: a.winner,
        result: a.result.clone(),
        handicap_min: a.handicap.map(|h| h.0),
        handicap_max: a.handicap.map(|h| h.1),
        komi_min: a.komi.map(|k| k.0),
        komi_max: a.komi.map(|k| k.1),
        size: None,
        text: a.text.clone(),
    }
}

/// `kifu pos search DB` with filters and no pattern: the games that pass them.
fn filter_games(a: &SearchArgs, db: &Database, page: Page) -> Result<Outcome> {
    let needs_pattern = [
        (a.svg.is_some(), "--svg"),
        (a.sequence.is_some(), "--sequence"),
        (a.at.is_some(), "--at"),
        (a.corner, "--corner"),
        (a.edge.is_some(), "--edge"),
        (a.anywhere, "--anywhere"),
        (a.moves.is_some(), "--moves"),
        (a.to_play.is_some(), "--to-play"),
    ];
    if let Some((_, name)) = needs_pattern.iter().find(|(given, _)| *given) {
        crate::usage!("{name} needs a pattern (--pattern, --pattern-file or --sgf)");
    }
    let answer = db.filter_games(&filters(a), page, a.no_duplicates);
    if a.json {
        crate::output::print_json(&answer)?;
        return Ok(Outcome::Ok);
    }
    let mut o = String::new();
    let r = &answer.results;
    let _ = writeln!(
        o,
        "{} of {} games pass the filters: Black won {} ({:.1}%), White won {} ({:.1}%)",
        answer.games,
        answer.games_searched,
        r.black_wins,
        r.black_win_rate * 100.0,
        r.white_wins,
        r.white_win_rate * 100.0
    );
    if !answer.by_year.is_empty() {
        let years: Vec<String> = answer
            .by_year
            .iter()
            .map(|y| format!("{}: {}", y.year, y.games))
            .collect();
        let _ = writeln!(o, "games by year: {}", years.join(", "));
    }
    for g in &answer.matches {
        let _ = writeln!(
            o,
            "game {}: {} - {} {} {} {} [{} game {}]",
            g.game,
            g.info.black,
            g.info.white,
            g.info.date,
            g.info.event,
            g.info.result,
            g.file,
            g.game_in_file
        );
    }
    let shown = answer.offset + answer.matches.len() as u64;
    if answer.games > shown {
        let _ = writeln!(o, "... {} more (--limit, --offset)", answer.games - shown);
    }
    super::emit(&o)?;
    Ok(Outcome::Ok)
}

/// A line of a `--batch` file.
enum BatchLine {
    /// A pattern search.
    Query(Box<Query>),
    /// Filters alone (`{"filters": {...}}`): the games they pass.
    Filters(Box<kifu_search::Filters>),
}

/// A `--batch` line without a pattern: filters alone, nothing else.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FiltersLine {
    filters: kifu_search::Filters,
}

/// The lines of a `--batch` file, one JSON query a line (blank lines skipped): a pattern
/// query, or filters alone. A bad line is a usage error naming the file's line (and the
/// column of a JSON syntax error).
fn batch_queries(path: &std::path::Path, size: BoardSize) -> Result<Vec<BatchLine>> {
    let input = if path.as_os_str() == "-" {
        crate::inputs::Input::Stdin
    } else {
        crate::inputs::Input::File {
            path: path.to_path_buf(),
            root: None,
        }
    };
    let name = input.display();
    let bytes = input.read()?;
    let Ok(text) = String::from_utf8(bytes) else {
        crate::usage!("{name}: not UTF-8 text");
    };
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let value: serde_json::Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                // serde_json places the error in the line alone: its line is always 1.
                let text = e.to_string();
                let suffix = format!(" at line {} column {}", e.line(), e.column());
                let why = text.strip_suffix(&suffix).unwrap_or(&text);
                crate::usage!("{name}: line {}, column {}: {why}", i + 1, e.column())
            }
        };
        if value.get("pattern").is_none() {
            match serde_json::from_value::<FiltersLine>(value) {
                Ok(f) if !f.filters.is_empty() => {
                    if let Err(e) = f.filters.validate() {
                        crate::usage!("{name}: line {}: filters: {e}", i + 1);
                    }
                    out.push(BatchLine::Filters(Box::new(f.filters)))
                }
                Ok(_) => crate::usage!("{name}: line {}: the filters are empty", i + 1),
                Err(e) => crate::usage!(
                    "{name}: line {}: {e} (a line holds a query with a pattern, or filters alone: {{\"filters\": {{...}}}})",
                    i + 1
                ),
            }
            continue;
        }
        let q: Query = match serde_json::from_value(value) {
            Ok(q) => q,
            Err(e) => crate::usage!("{name}: line {}: {e}", i + 1),
        };
        if let Err(e) = q.validate_on(size) {
            crate::usage!("{name}: line {}: {e}", i + 1);
        }
        out.push(BatchLine::Query(Box::new(q)));
    }
    Ok(out)
}

/// Answers the lines of a `--batch` file, one JSON answer a line in their order: the pattern
/// queries all in one search, the filter lines each in a pass over the games' information.
fn run_batch(a: &SearchArgs, db: &Database, page: Page, path: &std::path::Path) -> Result<Outcome> {
    let lines = batch_queries(path, db.size())?;
    let queries: Vec<Query> = lines
        .iter()
        .filter_map(|l| match l {
            BatchLine::Query(q) => Some((**q).clone()),
            BatchLine::Filters(_) => None,
        })
        .collect();
    let (found, games) = a.threads.run(|| {
        let found = db.search_many(&queries, page, a.no_duplicates);
        let games: Vec<_> = lines
            .iter()
            .filter_map(|l| match l {
                BatchLine::Filters(f) => Some(db.filter_games(f, page, a.no_duplicates)),
                BatchLine::Query(_) => None,
            })
            .collect();
        (found, games)
    })?;
    for f in &found.failures {
        crate::output::message(format_args!("kifu: {}", f.message));
    }
    let mut out = crate::output::stdout();
    let (mut answers, mut games) = (found.answers.iter(), games.iter());
    for line in &lines {
        let written = match line {
            BatchLine::Query(_) => answers.next().map(|x| serde_json::to_writer(&mut out, x)),
            BatchLine::Filters(_) => games.next().map(|x| serde_json::to_writer(&mut out, x)),
        };
        if let Some(w) = written {
            w.map_err(std::io::Error::from)?;
        }
        std::io::Write::write_all(&mut out, b"\n")?;
    }
    Ok(if found.failures.is_empty() {
        Outcome::Ok
    } else {
        Outcome::Findings
    })
}

/// `kifu pos duplicates` arguments.
#[derive(Args, Debug)]
pub struct DuplicatesArgs {
    /// The database (`kifu pos index` output).
    db: PathBuf,
    #[command(flatten)]
    threads: crate::args::Threads,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// Runs `kifu pos duplicates`: the groups of duplicate games of a database. Exit 1 when there
/// are any.
pub fn duplicates(a: DuplicatesArgs) -> Result<Outcome> {
    let db = Database::open(&a.db).with_context(|| a.db.display().to_string())?;
    let dups = a.threads.run(|| db.duplicates())?;
    let (groups, failures) = (&dups.groups, &dups.failures);
    for f in failures {
        crate::output::message(format_args!("kifu: {}", f.message));
    }
    let describe = |id: u64| -> Result<serde_json::Value> {
        let g = db.reader().game(id as u32)?;
        Ok(serde_json::json!({
            "game": id, "black": g.black, "white": g.white, "date": g.date, "result": g.result,
            "file": g.file, "game_in_file": g.game_in_file + 1,
        }))
    };
    let listed: Vec<Vec<serde_json::Value>> = groups
        .iter()
        .map(|g| g.iter().map(|&id| describe(id)).collect::<Result<Vec<_>>>())
        .collect::<Result<_>>()?;
    if a.json {
        crate::output::print_json(&serde_json::json!({
            "games": db.games(), "groups": listed.len(),
            "duplicates": listed.iter().map(|g| g.len() - 1).sum::<usize>(),
            "list": listed,
        }))?;
    } else {
        let mut o = String::new();
        for (k, g) in listed.iter().enumerate() {
            let _ = writeln!(o, "group {}:", k + 1);
            for m in g {
                let _ = writeln!(
                    o,
                    "  game {}: {} - {} {} {} [{} game {}]",
                    m["game"],
                    str_of(&m["black"]),
                    str_of(&m["white"]),
                    str_of(&m["date"]),
                    str_of(&m["result"]),
                    str_of(&m["file"]),
                    m["game_in_file"]
                );
            }
        }
        let _ = writeln!(
            o,
            "{} groups of duplicates ({} games that repeat another) among {} games",
            listed.len(),
            listed.iter().map(|g| g.len() - 1).sum::<usize>(),
            db.games()
        );
        super::emit(&o)?;
    }
    Ok(if listed.is_empty() && failures.is_empty() {
        Outcome::Ok
    } else {
        Outcome::Findings
    })
}

fn str_of(v: &serde_json::Value) -> &str {
    v.as_str().unwrap_or("")
}

/// Runs `kifu pos search`.
pub fn search(a: SearchArgs) -> Result<Outcome> {
    if let Some(out) = &a.svg {
        if out.as_os_str() == "-" && a.json {
            crate::usage!("--svg - and --json would both go to standard output: give --svg a file");
        }
        let sidecar = kifu_search::index::sidecar_path(&a.db);
        let inputs = [&a.db, &sidecar]
            .into_iter()
            .chain(&a.batch)
            .chain(&a.pattern_file)
            .chain(&a.sgf)
            .map(PathBuf::as_path);
        crate::output::refuse_overwrite(out, inputs)?;
    }
    if let Err(e) = filters(&a).validate() {
        crate::usage!("{e}");
    }
    let no_pattern = a.pattern.is_none() && a.pattern_file.is_none() && a.sgf.is_none();
    let filters_alone = no_pattern && !filters(&a).is_empty();
    // The query is read before the database is opened (a fifth of a second at 100,000
    // games), so that a mistyped pattern is told at once: the board size is the index's
    // header's.
    let size = kifu_posdb::index::IndexReader::open(&a.db)
        .with_context(|| a.db.display().to_string())?
        .size();
    let q = if a.batch.is_none() && !filters_alone {
        Some(query(&a, size)?)
    } else {
        None
    };
    let db = Database::open(&a.db).with_context(|| a.db.display().to_string())?;
    db.patterns().set_cache_limit(a.cache.bytes());
    let page = Page {
        offset: a.offset,
        limit: a.limit,
    };
    if let Some(path) = &a.batch {
        return run_batch(&a, &db, page, path);
    }
    let Some(q) = q else {
        return filter_games(&a, &db, page);
    };
    let found = a.threads.run(|| db.search(&q, page, a.no_duplicates))?;
    for f in &found.failures {
        crate::output::message(format_args!("kifu: {}", f.message));
    }
    if let Some(out) = &a.svg {
        let svg = kifu_search::svg::pattern_svg(&q, Some(&found.answer), size)
            .context("the pattern does not fit the board")?;
        crate::output::write_atomically(out, svg.as_bytes())?;
        if out.as_os_str() == "-" {
            // The SVG alone on standard output, so that it can be redirected to a file.
            return Ok(if found.failures.is_empty() {
                Outcome::Ok
            } else {
                Outcome::Findings
            });
        }
    }
    if a.json {
        crate::output::print_json(&found.answer)?;
    } else {
        super::emit(&text(&found.answer))?;
    }
    Ok(if found.failures.is_empty() {
        Outcome::Ok
    } else {
        Outcome::Findings
    })
}

fn text(r: &SearchAnswer) -> String {
    let mut o = String::new();
    let pct = |n: u64, d: u64| {
        if d > 0 {
            n as f64 * 100.0 / d as f64
        } else {
            0.0
        }
    };
    let _ = writeln!(
        o,
        "{} occurrences in {} of {} games ({} with colours swapped)",
        r.occurrences, r.games, r.games_searched, r.swapped
    );
    if !r.continuations.is_empty() || r.tenuki.count > 0 {
        o.push_str("   move    games  Black wins  White wins  Black %  White %\n");
        let rows = r
            .continuations
            .iter()
            .map(|c| {
                let label = c.label.map_or(' ', |l| l);
                (format!("{label}  {} {}", c.color, c.mv), &c.tally)
            })
            .chain(std::iter::once(("   tenuki".to_string(), &r.tenuki)))
            .chain((r.passes.count > 0).then(|| ("   pass".to_string(), &r.passes)));
        for (name, t) in rows {
            let _ = writeln!(
                o,
                "{name:<10} {:>5}  {:>10}  {:>10}  {:>6.1}%  {:>6.1}%",
                t.count,
                t.black_wins,
                t.white_wins,
                pct(t.black_wins, t.count),
                pct(t.white_wins, t.count)
            );
        }
    }
    if !r.by_year.is_empty() {
        let years: Vec<String> = r
            .by_year
            .iter()
            .map(|y| format!("{}: {}", y.year, y.hits))
            .collect();
        let _ = writeln!(o, "hits by year: {}", years.join(", "));
    }
    for m in &r.matches {
        let _ = writeln!(
            o,
            "game {} move {} ({}{}{}) next {}: {} - {} {} {} [{} game {}]",
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
            m.info.black,
            m.info.white,
            m.info.date,
            m.info.result,
            m.file,
            m.game_in_file
        );
    }
    let shown = r.offset + r.matches.len() as u64;
    if r.occurrences > shown {
        let _ = writeln!(o, "... {} more (--limit, --offset)", r.occurrences - shown);
    }
    o
}
