//! Writing: the Parquet encoder behind a plain [`Write`], and the two-thread pipeline that keeps
//! the replay and the encoding busy at once with bounded memory.
//!
//! The parquet crate's [`ArrowWriter`] wants an owned `Write + Send`; kifu's outputs are
//! `&mut dyn Write` (an atomic file, standard output). So the encoder writes into a `Vec<u8>`
//! that is emptied into the real output after every batch: it holds at most what the encoder
//! wrote since (a finished row group, or the footer), and the file is written in one stream,
//! front to back, so it may go to a pipe.

use crate::{Compression, ExportError, ExportOptions};
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use parquet::arrow::ArrowWriter;
use parquet::basic::ZstdLevel;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;
use std::io::Write;
use std::sync::mpsc::{sync_channel, SyncSender};

/// Batches waiting between the producer and the encoder: enough to keep both threads busy.
const QUEUE: usize = 2;

/// The encoder and where its bytes go.
pub(crate) struct ParquetOut<'w> {
    writer: ArrowWriter<Vec<u8>>,
    out: &'w mut dyn Write,
    bytes: u64,
}

/// What the encoder wrote.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Written {
    pub bytes: u64,
    pub row_groups: u64,
}

impl<'w> ParquetOut<'w> {
    pub fn new(
        schema: SchemaRef,
        opts: &ExportOptions,
        out: &'w mut dyn Write,
    ) -> Result<ParquetOut<'w>, ExportError> {
        let compression = match opts.compression {
            Compression::Zstd => parquet::basic::Compression::ZSTD(ZstdLevel::default()),
            Compression::Snappy => parquet::basic::Compression::SNAPPY,
            Compression::None => parquet::basic::Compression::UNCOMPRESSED,
        };
        // The schema's metadata (`kifu.kind`, `kifu.size`) also as the file's own key-value
        // metadata, for readers that do not read the embedded Arrow schema.
        let mut kv: Vec<KeyValue> = schema
            .metadata()
            .iter()
            .map(|(k, v)| KeyValue::new(k.clone(), v.clone()))
            .collect();
        kv.sort_by(|a, b| a.key.cmp(&b.key));
        let props = WriterProperties::builder()
            .set_key_value_metadata(Some(kv))
            .set_compression(compression)
            .set_max_row_group_row_count(Some(opts.row_group_rows.max(1)))
            .set_created_by(format!("kifu {}", env!("CARGO_PKG_VERSION")));
        // The board cells' min and max (0 and 2) say nothing: no statistics for them (5% of
        // the time of an export).
        let cells = ColumnPath::new(vec!["board".into(), "list".into(), "item".into()]);
        let props = props
            .set_column_statistics_enabled(cells, EnabledStatistics::None)
            .build();
        let writer = ArrowWriter::try_new(Vec::new(), schema, Some(props))?;
        Ok(ParquetOut {
            writer,
            out,
            bytes: 0,
        })
    }

    /// Moves what the encoder has written so far to the output.
    fn drain(&mut self) -> Result<(), ExportError> {
        let buf = self.writer.inner_mut();
        if !buf.is_empty() {
            self.out.write_all(buf)?;
            self.bytes += buf.len() as u64;
            buf.clear();
        }
        Ok(())
    }

    pub fn write(&mut self, batch: &RecordBatch) -> Result<(), ExportError> {
        self.writer.write(batch)?;
        self.drain()
    }

    /// Writes the last row group and the footer, and flushes the output.
    pub fn finish(mut self) -> Result<Written, ExportError> {
        let meta = self.writer.finish()?;
        self.drain()?;
        self.out.flush()?;
        Ok(Written {
            bytes: self.bytes,
            row_groups: meta.num_row_groups() as u64,
        })
    }
}

/// The producer's end of the pipeline: batches go to the encoder's thread.
pub(crate) struct BatchTx {
    tx: SyncSender<RecordBatch>,
}

impl BatchTx {
    /// Hands a batch to the encoder; [`ExportError::Stopped`] once the encoder has given up (its
    /// own error is the one reported).
    pub fn send(&mut self, batch: RecordBatch) -> Result<(), ExportError> {
        self.tx.send(batch).map_err(|_| ExportError::Stopped)
    }
}

/// Runs `produce` on a thread of its own, sending record batches of `schema`, while this thread
/// encodes them into `out`. Memory: the batches in flight ([`QUEUE`] plus one being built and
/// one being encoded) and the row group being encoded. The producer's result and what was
/// written, or the first error (the encoder's when the producer only stopped because of it).
pub(crate) fn pipeline<T: Send>(
    schema: SchemaRef,
    opts: &ExportOptions,
    out: &mut dyn Write,
    produce: impl FnOnce(&mut BatchTx) -> Result<T, ExportError> + Send,
) -> Result<(T, Written), ExportError> {
    let (tx, rx) = sync_channel::<RecordBatch>(QUEUE);
    std::thread::scope(|s| {
        let producer = s.spawn(move || produce(&mut BatchTx { tx }));
        let encoded = (|| {
            let mut w = ParquetOut::new(schema, opts, out)?;
            for batch in &rx {
                w.write(&batch)?;
            }
            Ok::<_, ExportError>(w)
        })();
        // The producer sees a closed channel from here on and stops at its next batch.
        drop(rx);
        let produced = match producer.join() {
            Ok(r) => r,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        match (produced, encoded) {
            (_, Err(e)) | (Err(e), _) => Err(e),
            (Ok(t), Ok(w)) => Ok((t, w.finish()?)),
        }
    })
}
