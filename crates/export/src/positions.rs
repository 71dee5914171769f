//! Exporting a position file (the 9x9-experiments format: position and queue files): one row per
//! record, in file order, with the PositionExtraInfo columns where the record has the block.

use crate::schema::{cell_of_row_byte, color_code, positions_schema};
use crate::writer::{pipeline, BatchTx};
use crate::{ExportError, ExportOptions, ExportSummary, InputKind, Progress};
use arrow_array::{
    ArrayRef, FixedSizeListArray, RecordBatch, UInt32Array, UInt64Array, UInt8Array,
};
use arrow_schema::{DataType, Field, SchemaRef};
use kifu_go::BoardSize;
use kifu_posdb::{PositionReader, PositionRecord};
use std::io::{Read, Write};
use std::sync::Arc;

/// Records between two calls of the progress callback.
const TICK: u64 = 4096;

/// The columns of the rows not yet sent.
struct Columns {
    schema: SchemaRef,
    size: BoardSize,
    record: Vec<u64>,
    hash: Vec<u64>,
    tiebreak: Vec<u8>,
    to_play: Vec<u8>,
    board: Vec<u8>,
    file_id: Vec<Option<u32>>,
    variation: Vec<Option<u32>>,
    move_number: Vec<Option<u32>>,
}

impl Columns {
    fn new(size: BoardSize) -> Columns {
        Columns {
            schema: positions_schema(size),
            size,
            record: Vec::new(),
            hash: Vec::new(),
            tiebreak: Vec::new(),
            to_play: Vec::new(),
            board: Vec::new(),
            file_id: Vec::new(),
            variation: Vec::new(),
            move_number: Vec::new(),
        }
    }

    fn len(&self) -> usize {
        self.record.len()
    }

    fn push(&mut self, index: u64, r: &PositionRecord) {
        self.record.push(index);
        self.hash.push(r.id.hash);
        self.tiebreak.push(r.id.tiebreak);
        self.to_play.push(color_code(r.id.to_play));
        self.board
            .extend(r.board.to_rows().into_iter().map(cell_of_row_byte));
        self.file_id.push(r.extra.map(|e| e.file_id));
        self.variation.push(r.extra.map(|e| u32::from(e.variation)));
        self.move_number
            .push(r.extra.map(|e| u32::from(e.move_number)));
    }

    /// The rows as a record batch; the columns are left empty.
    fn take(&mut self) -> Result<RecordBatch, ExportError> {
        let n = self.len();
        let points = self.size.points() as i32;
        let item = Arc::new(Field::new("item", DataType::UInt8, false));
        let cells = UInt8Array::from(std::mem::take(&mut self.board));
        let columns: Vec<ArrayRef> = vec![
            Arc::new(UInt64Array::from(std::mem::take(&mut self.record))),
            Arc::new(UInt64Array::from(std::mem::take(&mut self.hash))),
            Arc::new(UInt8Array::from(std::mem::take(&mut self.tiebreak))),
            Arc::new(UInt8Array::from(std::mem::take(&mut self.to_play))),
            Arc::new(FixedSizeListArray::try_new(
                item,
                points,
                Arc::new(cells),
                None,
            )?),
            Arc::new(UInt8Array::from(vec![self.size.get(); n])),
            Arc::new(UInt32Array::from(std::mem::take(&mut self.file_id))),
            Arc::new(UInt32Array::from(std::mem::take(&mut self.variation))),
            Arc::new(UInt32Array::from(std::mem::take(&mut self.move_number))),
        ];
        Ok(RecordBatch::try_new(self.schema.clone(), columns)?)
    }
}

/// What the producer found besides the rows.
struct Scanned {
    rows: u64,
    torn: Option<String>,
}

fn produce(
    input: &mut dyn Read,
    size: BoardSize,
    batch_rows: usize,
    tx: &mut BatchTx,
    progress: &Progress<'_>,
) -> Result<Scanned, ExportError> {
    let mut reader = PositionReader::new(input, size);
    let mut cols = Columns::new(size);
    let mut torn = None;
    let mut rows = 0u64;
    loop {
        match reader.read_record() {
            Ok(Some(r)) => {
                cols.push(rows, &r);
                rows += 1;
                if rows.is_multiple_of(TICK) {
                    progress(TICK);
                }
                if cols.len() >= batch_rows {
                    tx.send(cols.take()?)?;
                }
            }
            Ok(None) => break,
            // The whole records before a torn last one are sound (an interrupted append).
            Err(e) if e.is_torn() => {
                torn = Some(e.to_string());
                break;
            }
            Err(e) => return Err(ExportError::Positions(e)),
        }
    }
    if cols.len() > 0 {
        tx.send(cols.take()?)?;
    }
    progress(rows % TICK);
    Ok(Scanned { rows, torn })
}

/// Exports the position records read from `input` (records of `opts.size` boards) to `out`.
pub(crate) fn export_positions(
    input: &mut (dyn Read + Send),
    opts: &ExportOptions,
    out: &mut dyn Write,
    progress: &Progress<'_>,
) -> Result<ExportSummary, ExportError> {
    let size = opts.size;
    let batch_rows = opts.batch_rows.max(1);
    let (read, written) = pipeline(positions_schema(size), opts, out, |tx| {
        produce(input, size, batch_rows, tx, progress)
    })?;
    Ok(ExportSummary {
        kind: InputKind::Positions,
        size,
        rows: read.rows,
        games: 0,
        games_failed: 0,
        files_failed: 0,
        row_groups: written.row_groups,
        bytes: written.bytes,
        failures: Vec::new(),
        torn: read.torn,
    })
}
