//! `kifu show FILE`: the board at one node of a game, as ASCII, rows, SVG or JSON.

use crate::inputs::Input;
use crate::output::write_atomically;
use crate::Outcome;
use anyhow::{Context, Result};
use clap::{ArgGroup, Args, ValueEnum};
use kifu_go::diagram::{ascii_diagram, render_png, svg_diagram, SvgOptions};
use kifu_go::navigate::{self, NodePosition};
use kifu_go::replay::ReplayOptions;
use kifu_go::Color;
use kifu_sgf::Collection;
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;

/// Text formats of the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// A diagram with coordinates, the last move in brackets, captures and who is to play.
    Ascii,
    /// One line per row of `#` (black), `O` (white), `.` (empty), as PositionDB files store them.
    Rows,
}

/// `kifu show`.
#[derive(Args, Debug)]
#[command(group(ArgGroup::new("picture").args(["svg", "png"]).multiple(true)))]
pub struct ShowArgs {
    /// An SGF file, or `-` for stdin.
    file: PathBuf,
    /// The game of the file (1 = the first).
    #[arg(long, default_value_t = 1)]
    game: usize,
    /// Show the position after move N of the variation (0 = the root). Default: its last node.
    #[arg(long, conflicts_with = "node")]
    r#move: Option<u32>,
    /// Show the node at PATH: child indices from the root, e.g. `0.0.1` (`root` for the root).
    #[arg(long)]
    node: Option<String>,
    /// The variation: 0 = main line, then each further leaf in file order.
    #[arg(long, default_value_t = 0, conflicts_with = "node")]
    variation: u32,
    /// Text format.
    #[arg(long, value_enum, default_value_t = Format::Ascii)]
    format: Format,
    /// Write an SVG diagram to this file (`-` for stdout) instead of printing text.
    #[arg(long, value_name = "OUT.svg")]
    svg: Option<PathBuf>,
    /// Write a PNG diagram (the SVG diagram rasterised) to this file (`-` for stdout).
    #[arg(long, value_name = "OUT.png")]
    png: Option<PathBuf>,
    /// Pixels per SVG unit for `--png` (1 gives 24 pixels between lines).
    #[arg(long, default_value_t = 2.0, requires = "png", value_parser = parse_scale)]
    scale: f32,
    /// Number the moves FROM-TO on the SVG or PNG diagram (e.g. `1-50`).
    #[arg(long, value_name = "FROM-TO", requires = "picture")]
    numbers: Option<String>,
    /// Print JSON: board rows, hash, canonical hash and its symmetry, to-play, move number.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Json {
    game: usize,
    variation: u32,
    move_number: u32,
    node: String,
    size: u8,
    rows: Vec<String>,
    to_play: char,
    last_move: Option<String>,
    captured_by_black: u32,
    captured_by_white: u32,
    hash: String,
    canonical_hash: String,
    canonical_symmetry: usize,
    canonical_symmetry_name: String,
}

/// A scale for `--png`: positive, and small enough for [`kifu_go::diagram::MAX_SIDE`] on 25x25.
fn parse_scale(text: &str) -> std::result::Result<f32, String> {
    match text.parse::<f32>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 16.0 => Ok(s),
        _ => Err(format!("{text}: expected a number above 0 and at most 16")),
    }
}

fn parse_path(text: &str) -> Result<Vec<usize>> {
    if text == "root" || text.is_empty() {
        return Ok(Vec::new());
    }
    match text
        .split(['.', ','])
        .map(|p| p.trim().parse::<usize>())
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(path) => Ok(path),
        Err(_) => crate::usage!("--node {text}: not a path like 0.0.1"),
    }
}

fn parse_range(text: &str) -> Result<(u32, u32)> {
    let parsed = text
        .split_once('-')
        .map(|(a, b)| (a.trim().parse::<u32>(), b.trim().parse::<u32>()));
    match parsed {
        Some((Ok(a), Ok(b))) if a <= b => Ok((a, b)),
        _ => crate::usage!("--numbers {text}: expected FROM-TO with FROM <= TO, e.g. 1-50"),
    }
}

fn path_text(path: &[usize]) -> String {
    if path.is_empty() {
        "root".to_owned()
    } else {
        path.iter()
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(".")
    }
}

/// Runs `kifu show`.
pub fn run(a: ShowArgs) -> Result<Outcome> {
    for out in a.svg.iter().chain(&a.png) {
        crate::output::refuse_overwrite(out, [a.file.as_path()])?;
    }
    if let (Some(svg), Some(png)) = (&a.svg, &a.png) {
        let same = svg == png
            || crate::inputs::file_id(svg)
                .is_some_and(|id| crate::inputs::file_id(png) == Some(id));
        if same {
            crate::usage!("--svg and --png name one output ({})", svg.display());
        }
    }
    if a.game == 0 {
        crate::usage!("--game 0: games are counted from 1");
    }
    let input = if a.file.as_os_str() == "-" {
        Input::Stdin
    } else {
        Input::File {
            path: a.file.clone(),
            root: None,
        }
    };
    let name = input.display();
    let numbers = a.numbers.as_deref().map(parse_range).transpose()?;
    // Ishi Standard Format files are shown through their SGF conversion.
    let is_ishi =
        matches!(&input, Input::File { path, .. } if crate::inputs::has_ext(path, &["go"]));
    let bytes = input.read()?;
    let collection = if is_ishi {
        kifu_ishi::to_sgf(&kifu_ishi::read(&bytes).document).collection
    } else {
        Collection::parse_vec(bytes).collection
    };
    let coll = &collection;
    let game = a
        .game
        .checked_sub(1)
        .and_then(|i| coll.game(i))
        .with_context(|| format!("{name}: no game {} (the file has {})", a.game, coll.len()))?;
    let node = match &a.node {
        Some(p) => {
            let path = parse_path(p)?;
            navigate::node_at_path(game, &path)
                .with_context(|| format!("{name}: no node at path {p}"))?
        }
        None => {
            let line = navigate::variation_line(game, a.variation).with_context(|| {
                format!(
                    "{name}: no variation {} (the game has {})",
                    a.variation,
                    navigate::leaves(game).count()
                )
            })?;
            match a.r#move {
                None => *line.last().expect("a line has its root"),
                Some(n) => navigate::node_with_move(&line, n).with_context(|| {
                    format!("{name}: variation {} has no move {n}", a.variation)
                })?,
            }
        }
    };
    let at = navigate::position_at(game, node, &ReplayOptions::default())
        .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    if a.svg.is_some() || a.png.is_some() {
        let size = at.position.size();
        let mut markup = navigate::markup(node, size);
        markup.last_move = at.position.last_move().and_then(|m| m.mv.point());
        if let Some((from, to)) = numbers {
            markup.move_numbers = navigate::move_numbers(&at.moves, from, to);
        }
        let text = svg_diagram(&at.position.board(), &markup, &SvgOptions::default());
        if let Some(svg) = &a.svg {
            write_atomically(svg, text.as_bytes())?;
        }
        if let Some(png) = &a.png {
            let picture = render_png(&text, a.scale)?;
            if picture.text_dropped {
                crate::output::message(format_args!(
                    "kifu: warning: no font is installed, so the PNG has no coordinates, labels or \
                     numbers (install e.g. fonts-dejavu-core)"
                ));
            }
            write_atomically(png, &picture.bytes)?;
        }
        return Ok(Outcome::Ok);
    }
    let mut out = crate::output::stdout();
    if a.json {
        serde_json::to_writer_pretty(&mut out, &json(&at, game.index()))?;
        writeln!(out)?;
        return Ok(Outcome::Ok);
    }
    match a.format {
        Format::Rows => out.write_all(at.position.board().to_rows_lines().as_bytes())?,
        Format::Ascii => {
            writeln!(
                out,
                "Game {}, variation {}, move {} (node {})",
                game.index() + 1,
                at.variation,
                at.move_number,
                path_text(&at.path)
            )?;
            out.write_all(ascii_diagram(&at.position).as_bytes())?;
        }
    }
    Ok(Outcome::Ok)
}

fn json(at: &NodePosition, game: usize) -> Json {
    let pos = &at.position;
    let size = pos.size();
    let rows = pos.board().to_rows_lines();
    let canonical = pos.canonical();
    Json {
        game: game + 1,
        variation: at.variation,
        move_number: at.move_number,
        node: path_text(&at.path),
        size: size.get(),
        rows: rows.lines().map(str::to_owned).collect(),
        to_play: pos.to_play().letter(),
        last_move: pos
            .last_move()
            .map(|m| format!("{} {}", m.color.letter(), m.mv.to_human(size))),
        captured_by_black: pos.prisoners(Color::Black),
        captured_by_white: pos.prisoners(Color::White),
        hash: format!("{:016x}", pos.hash()),
        canonical_hash: format!("{:016x}", canonical.hash),
        canonical_symmetry: canonical.symmetry.index(),
        canonical_symmetry_name: canonical.symmetry.to_string(),
    }
}
