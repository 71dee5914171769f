//! Exporting a `kifu pos index` database: every game's file is read again and its games
//! replayed as the index build replayed them (main lines, or every variation when the index
//! holds them; the index's Zobrist table), and each position the index holds becomes a row.
//!
//! Rows are the index's positions (its entries, and in an index cut by stones the positions
//! whose entries it did not keep), in game order: a node's position gets one row for each child
//! that plays a move (that move is the row's next move), and one with no next move when the node
//! has no child; a child without a move (setup, a comment node) stands for its parent, so the
//! parent has no row of its own for it. On a main line this is one row per move and one for the
//! last node, and the rows of a game are in move order; with variations, a node's rows come as
//! its children are reached, and a leaf's row when its line ends. So the rows are exactly as
//! many as the index's positions (`kifu pos index --json` says how many).

use crate::schema::{
    cell_of_row_byte, color_code, index_schema, result_code, NO_MOVE, PASS, RESIGN,
};
use crate::writer::{pipeline, BatchTx};
use crate::{ExportError, ExportOptions, ExportSummary, InputKind, Progress};
use arrow_array::builder::StringBuilder;
use arrow_array::{
    ArrayRef, FixedSizeListArray, Float64Array, Int16Array, Int32Array, Int8Array, RecordBatch,
    UInt32Array, UInt64Array, UInt8Array,
};
use arrow_schema::{DataType, Field, SchemaRef};
use kifu_go::replay::{replay_game, ReplayError, ReplayOptions, ReplaySink, RootInfo, Scope, Step};
use kifu_go::{BoardSize, Move};
use kifu_posdb::index::{GameInfo, IndexReader};
use std::io::Write;
use std::sync::Arc;

/// The most failure messages kept (the counts are exact).
const MAX_MESSAGES: usize = 100;

/// What a game's rows share.
struct GameCtx {
    id: u32,
    file: String,
    game_in_file: u32,
    black: String,
    white: String,
    date: String,
    result_text: String,
    result: i8,
    resign: bool,
    komi: Option<f64>,
    handicap: i32,
}

impl GameCtx {
    fn new(info: GameInfo) -> GameCtx {
        let (result, resign) = result_code(&info.result);
        GameCtx {
            id: info.id,
            file: info.file,
            game_in_file: info.game_in_file,
            black: info.black,
            white: info.white,
            date: info.date,
            result_text: info.result,
            result,
            resign,
            komi: None,
            handicap: 0,
        }
    }
}

/// A node on the path from the root to the last node replayed; its board is in the sink's
/// arena at its depth.
#[derive(Debug, Clone, Copy)]
struct Node {
    node: usize,
    variation: u32,
    move_number: u32,
    to_play: u8,
    hash: u64,
    symmetry: u8,
    has_child: bool,
}

/// The columns of the rows not yet sent.
struct Columns {
    schema: SchemaRef,
    size: BoardSize,
    game: Vec<u32>,
    file: StringBuilder,
    game_in_file: Vec<u32>,
    variation: Vec<u32>,
    move_number: Vec<u32>,
    to_play: Vec<u8>,
    move_row: Vec<i16>,
    move_col: Vec<i16>,
    board: Vec<u8>,
    hash: Vec<u64>,
    symmetry: Vec<u8>,
    result: Vec<i8>,
    result_text: StringBuilder,
    black: StringBuilder,
    white: StringBuilder,
    date: StringBuilder,
    komi: Vec<Option<f64>>,
    handicap: Vec<i32>,
}

impl Columns {
    fn new(size: BoardSize) -> Columns {
        Columns {
            schema: index_schema(size),
            size,
            game: Vec::new(),
            file: StringBuilder::new(),
            game_in_file: Vec::new(),
            variation: Vec::new(),
            move_number: Vec::new(),
            to_play: Vec::new(),
            move_row: Vec::new(),
            move_col: Vec::new(),
            board: Vec::new(),
            hash: Vec::new(),
            symmetry: Vec::new(),
            result: Vec::new(),
            result_text: StringBuilder::new(),
            black: StringBuilder::new(),
            white: StringBuilder::new(),
            date: StringBuilder::new(),
            komi: Vec::new(),
            handicap: Vec::new(),
        }
    }

    fn len(&self) -> usize {
        self.game.len()
    }

    /// One row: `node`'s position (`cells`), its next move as (row, column), the variation.
    fn push(&mut self, g: &GameCtx, node: &Node, cells: &[u8], next: (i16, i16), variation: u32) {
        self.game.push(g.id);
        self.file.append_value(&g.file);
        self.game_in_file.push(g.game_in_file);
        self.variation.push(variation);
        self.move_number.push(node.move_number);
        self.to_play.push(node.to_play);
        self.move_row.push(next.0);
        self.move_col.push(next.1);
        self.board.extend_from_slice(cells);
        self.hash.push(node.hash);
        self.symmetry.push(node.symmetry);
        self.result.push(g.result);
        self.result_text.append_value(&g.result_text);
        self.black.append_value(&g.black);
        self.white.append_value(&g.white);
        self.date.append_value(&g.date);
        self.komi.push(g.komi);
        self.handicap.push(g.handicap);
    }

    /// The rows as a record batch; the columns are left empty.
    fn take(&mut self) -> Result<RecordBatch, ExportError> {
        let n = self.len();
        let item = Arc::new(Field::new("item", DataType::UInt8, false));
        let cells = Arc::new(UInt8Array::from(std::mem::take(&mut self.board)));
        let board = FixedSizeListArray::try_new(item, self.size.points() as i32, cells, None)?;
        let columns: Vec<ArrayRef> = vec![
            Arc::new(UInt32Array::from(std::mem::take(&mut self.game))),
            Arc::new(self.file.finish()),
            Arc::new(UInt32Array::from(std::mem::take(&mut self.game_in_file))),
            Arc::new(UInt32Array::from(std::mem::take(&mut self.variation))),
            Arc::new(UInt32Array::from(std::mem::take(&mut self.move_number))),
            Arc::new(UInt8Array::from(std::mem::take(&mut self.to_play))),
            Arc::new(Int16Array::from(std::mem::take(&mut self.move_row))),
            Arc::new(Int16Array::from(std::mem::take(&mut self.move_col))),
            Arc::new(board),
            Arc::new(UInt8Array::from(vec![self.size.get(); n])),
            Arc::new(UInt64Array::from(std::mem::take(&mut self.hash))),
            Arc::new(UInt8Array::from(std::mem::take(&mut self.symmetry))),
            Arc::new(Int8Array::from(std::mem::take(&mut self.result))),
            Arc::new(self.result_text.finish()),
            Arc::new(self.black.finish()),
            Arc::new(self.white.finish()),
            Arc::new(self.date.finish()),
            Arc::new(Float64Array::from(std::mem::take(&mut self.komi))),
            Arc::new(Int32Array::from(std::mem::take(&mut self.handicap))),
        ];
        Ok(RecordBatch::try_new(self.schema.clone(), columns)?)
    }
}

/// Where a game's rows go.
struct Out<'a> {
    cols: &'a mut Columns,
    tx: &'a mut BatchTx,
    batch_rows: usize,
}

impl Out<'_> {
    fn push(
        &mut self,
        g: &GameCtx,
        node: &Node,
        cells: &[u8],
        next: (i16, i16),
        variation: u32,
    ) -> Result<(), ExportError> {
        self.cols.push(g, node, cells, next, variation);
        if self.cols.len() >= self.batch_rows {
            let batch = self.cols.take()?;
            self.tx.send(batch)?;
        }
        Ok(())
    }
}

/// The replay sink of one game: the index build's entries (see the module docs), as rows.
struct GameRows<'a> {
    out: Out<'a>,
    game: GameCtx,
    size: BoardSize,
    /// The nodes from the root to the last one replayed.
    path: Vec<Node>,
    /// Their boards (cell codes), `size * size` bytes per node of `path`.
    cells: Vec<u8>,
    main_moves: u32,
    rows: u64,
    /// Why the game gives no rows (another board size, a replay error).
    problem: Option<String>,
    /// The rows could not be handed on: the export stops.
    error: Option<ExportError>,
}

/// A finished game.
struct GameDone {
    rows: u64,
    main_moves: u32,
    problem: Option<String>,
}

impl<'a> GameRows<'a> {
    fn new(out: Out<'a>, game: GameCtx, size: BoardSize) -> GameRows<'a> {
        GameRows {
            out,
            game,
            size,
            path: Vec::new(),
            cells: Vec::new(),
            main_moves: 0,
            rows: 0,
            problem: None,
            error: None,
        }
    }

    /// The row of the node at depth `at` of the path.
    fn emit(&mut self, at: usize, next: (i16, i16), variation: u32) {
        if self.error.is_some() {
            return;
        }
        let n2 = self.size.points();
        let node = self.path[at];
        let cells = &self.cells[at * n2..(at + 1) * n2];
        match self.out.push(&self.game, &node, cells, next, variation) {
            Ok(()) => self.rows += 1,
            Err(e) => self.error = Some(e),
        }
    }

    /// Leaves the path down to `parent` (all of it when `None`); a node left without a child
    /// ends its line: its row has no next move (or the resignation, at the end of the main line
    /// of a game won by resignation).
    fn leave_to(&mut self, parent: Option<usize>) {
        while let Some(top) = self.path.last().copied() {
            if Some(top.node) == parent {
                break;
            }
            if !top.has_child {
                let end = if top.variation == 0 && self.game.resign {
                    RESIGN
                } else {
                    NO_MOVE
                };
                self.emit(self.path.len() - 1, (end, end), top.variation);
            }
            self.path.pop();
        }
        self.cells.truncate(self.path.len() * self.size.points());
    }

    fn finish(mut self) -> Result<GameDone, ExportError> {
        if self.problem.is_none() {
            self.leave_to(None);
        }
        if let Some(e) = self.error {
            return Err(e);
        }
        Ok(GameDone {
            rows: self.rows,
            main_moves: self.main_moves,
            problem: self.problem,
        })
    }
}

impl ReplaySink for GameRows<'_> {
    const GAME_INFO: bool = true;

    fn position(&mut self, step: &Step<'_>) {
        if self.problem.is_some() || self.error.is_some() {
            return;
        }
        let pos = step.position;
        if pos.size() != self.size {
            self.problem = Some(format!(
                "a {} board, the index is {}",
                pos.size(),
                self.size
            ));
            return;
        }
        if step.variation == 0 {
            self.main_moves = step.move_number;
        }
        self.leave_to(step.parent);
        if let Some(parent) = self.path.last_mut() {
            parent.has_child = true;
            // The parent's position, continued by this node's move.
            if let Some(m) = step.mv {
                let next = match m.mv {
                    Move::Pass => (PASS, PASS),
                    Move::Play(p) => (i16::from(p.row()), i16::from(p.col())),
                };
                self.emit(self.path.len() - 1, next, step.variation);
            }
        }
        let n2 = self.size.points();
        let at = self.cells.len();
        self.cells.resize(at + n2, 0);
        let cells = &mut self.cells[at..];
        pos.write_rows(cells);
        for c in cells.iter_mut() {
            *c = cell_of_row_byte(*c);
        }
        let canon = pos.canonical();
        self.path.push(Node {
            node: step.node_index,
            variation: step.variation,
            move_number: step.move_number,
            to_play: color_code(step.to_play),
            hash: canon.hash,
            symmetry: canon.symmetry.index() as u8,
            has_child: false,
        });
    }

    fn game_info(&mut self, _game: usize, info: &RootInfo) {
        self.game.komi = info.komi();
        self.game.handicap = info.handicap().clamp(0, i64::from(i32::MAX)) as i32;
    }

    fn game_error(&mut self, error: ReplayError) {
        self.problem = Some(error.to_string());
    }
}

/// What the walk over the games found besides the rows.
#[derive(Default)]
struct Walked {
    rows: u64,
    games: u64,
    failures: Vec<String>,
    games_failed: u64,
    files_failed: u64,
}

impl Walked {
    fn fail(&mut self, message: String) {
        if self.failures.len() < MAX_MESSAGES {
            self.failures.push(message);
        }
    }
}

fn produce(
    reader: &IndexReader,
    batch_rows: usize,
    tx: &mut BatchTx,
    progress: &Progress<'_>,
) -> Result<Walked, ExportError> {
    let size = reader.size();
    let files = kifu_search::collection::index_files(reader)?;
    let replay = ReplayOptions {
        scope: if reader.variations() {
            Scope::AllVariations
        } else {
            Scope::MainLineOnly
        },
        keys: Some(reader.keys().clone()),
        ..Default::default()
    };
    let mut cols = Columns::new(size);
    let mut w = Walked::default();
    for f in &files {
        let coll = match f.source.read_games() {
            Ok(c) => c,
            Err(e) => {
                let games = f.ids.iter().flatten().count() as u64;
                w.fail(format!("{e} ({games} games of the index)"));
                w.files_failed += 1;
                w.games_failed += games;
                progress(games);
                continue;
            }
        };
        for (i, id) in f.ids.iter().enumerate() {
            let Some(id) = *id else { continue };
            let info = u32::try_from(id)
                .map_err(|_| kifu_posdb::index::IndexError::TooMany)
                .and_then(|g| reader.game(g))
                .map_err(|error| ExportError::Game { game: id, error })?;
            let file = f.source.path.display();
            let Some(tree) = coll.game(i) else {
                w.fail(format!(
                    "{file}: game {} (game {id} of the index) is no longer in the file (changed since indexing?)",
                    i + 1
                ));
                w.games_failed += 1;
                progress(1);
                continue;
            };
            let moves = info.moves;
            let out = Out {
                cols: &mut cols,
                tx: &mut *tx,
                batch_rows,
            };
            let sink = replay_game(tree, &replay, GameRows::new(out, GameCtx::new(info), size));
            let done = sink.finish()?;
            w.rows += done.rows;
            match done.problem {
                Some(p) => {
                    w.fail(format!("{file}: game {}: {p}", i + 1));
                    w.games_failed += 1;
                }
                None if done.main_moves != moves => {
                    w.fail(format!(
                        "{file}: game {}: {} moves on the main line, the index has {moves} (changed since indexing?)",
                        i + 1,
                        done.main_moves
                    ));
                    w.games_failed += 1;
                }
                None => w.games += 1,
            }
            progress(1);
        }
    }
    if cols.len() > 0 {
        tx.send(cols.take()?)?;
    }
    Ok(w)
}

/// Exports every position of the index `reader` to `out`.
pub(crate) fn export_index(
    reader: &IndexReader,
    opts: &ExportOptions,
    out: &mut dyn Write,
    progress: &Progress<'_>,
) -> Result<ExportSummary, ExportError> {
    let size = reader.size();
    let batch_rows = opts.batch_rows.max(1);
    let (w, written) = pipeline(index_schema(size), opts, out, |tx| {
        produce(reader, batch_rows, tx, progress)
    })?;
    Ok(ExportSummary {
        kind: InputKind::Index,
        size,
        rows: w.rows,
        games: w.games,
        games_failed: w.games_failed,
        files_failed: w.files_failed,
        row_groups: written.row_groups,
        bytes: written.bytes,
        failures: w.failures,
        torn: None,
    })
}
