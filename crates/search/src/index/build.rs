//! Building a sidecar without holding the index: files are read in batches (each batch in
//! parallel), their games' records spooled in order to a temporary file beside the sidecar,
//! then the sidecar is written (header, files, game count, the spooled records, checksum) and
//! opened as any other. Memory is a batch's games, not the collection's.

use super::format::fnv64_more;
use super::{store, PatternIndex, PatternIndexError};
use crate::collection::CollectionFile;
use std::io::{Read, Seek, Write};
use std::path::Path;

/// Files read at once: enough to keep both cores busy, few enough that a batch's games stay
/// small (a few megabytes of records for single-game files).
const BATCH: usize = 256;

impl PatternIndex {
    /// Builds the index of `files` into a sidecar at `path` for a database of `fingerprint`
    /// and opens it from there (only the games' hot parts in memory, as
    /// [`PatternIndex::load`]). `Ok(None)`, with nothing written, when a file could not be
    /// read: [`PatternIndex::build`] tells which.
    pub fn build_to(
        files: &[CollectionFile],
        path: &Path,
        fingerprint: u64,
    ) -> Result<Option<PatternIndex>, PatternIndexError> {
        write_sidecar(None, files, path, fingerprint)
    }

    /// The index of `files` when its first files are those of `self` (an index with games
    /// added after its files), written into a sidecar at `path` (which may be the one `self`
    /// was opened from: it is replaced by rename) and opened from there: the old games'
    /// records are copied, only the new files are read; the same bytes as
    /// [`PatternIndex::build_to`] of all `files`. `Ok(None)`, with nothing written, when
    /// `self` is not a beginning of `files` or a new file could not be read.
    pub fn extend_to(
        &self,
        files: &[CollectionFile],
        path: &Path,
        fingerprint: u64,
    ) -> Result<Option<PatternIndex>, PatternIndexError> {
        let old = self.files.len();
        if files.len() < old
            || files[..old]
                .iter()
                .zip(self.files.iter())
                .any(|(f, name)| f.source.path.display().to_string() != name)
        {
            return Ok(None);
        }
        write_sidecar(Some(self), files, path, fingerprint)
    }
}

/// Writes the sidecar of `files` at `path`: the games of `old` (an index of the first of
/// them) copied, those of the other files built in batches; then opens it.
fn write_sidecar(
    old: Option<&PatternIndex>,
    files: &[CollectionFile],
    path: &Path,
    fingerprint: u64,
) -> Result<Option<PatternIndex>, PatternIndexError> {
    let io = |source| PatternIndexError::Io {
        path: path.to_path_buf(),
        source,
    };
    let spool = kifu_fs::atomic::locked_temp_in(kifu_fs::atomic::folder_of(path))?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, spool.as_file());
    let mut games = 0u64;
    let mut record = Vec::new();
    let known = old.map_or(0, |o| o.files.len());
    if let Some(old) = old {
        let mut cold = store::ColdReader::new(old, false);
        for (gi, g) in old.games.iter().enumerate() {
            record.clear();
            let bytes = cold
                .bytes(gi)
                .map_err(|why| io(std::io::Error::other(why)))?;
            g.encode_record(bytes, &mut record);
            w.write_all(&record).map_err(io)?;
            games += 1;
        }
    }
    for (b, batch) in files[known..].chunks(BATCH).enumerate() {
        for (entries, failures) in PatternIndex::build_files(batch, known + b * BATCH) {
            if !failures.is_empty() {
                return Ok(None);
            }
            for g in entries {
                record.clear();
                // A game just built holds its cold part in memory.
                if let super::entry::Cold::Bytes(bytes) = &g.cold {
                    g.encode_record(bytes, &mut record);
                }
                w.write_all(&record).map_err(io)?;
                games += 1;
            }
        }
    }
    w.flush().map_err(io)?;
    drop(w);
    let names: Vec<String> = files
        .iter()
        .map(|f| f.source.path.display().to_string())
        .collect();
    let head = store::body_head(names.iter().map(String::as_str), games);
    let mut spooled = spool.as_file();
    let len = spooled.seek(std::io::SeekFrom::End(0)).map_err(io)?;
    spooled.rewind().map_err(io)?;
    let mut out = kifu_fs::atomic::AtomicFile::create(path)?;
    let mut hash = store::write_header(&mut out, fingerprint, &head, len).map_err(io)?;
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = spooled.read(&mut buf).map_err(io)?;
        if n == 0 {
            break;
        }
        hash = fnv64_more(hash, &buf[..n]);
        out.write_all(&buf[..n]).map_err(io)?;
    }
    out.write_all(&hash.to_le_bytes()).map_err(io)?;
    out.commit()?;
    store::open(path, fingerprint)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kifu_posdb::extract::Source;

    #[test]
    fn built_into_the_sidecar_as_built_in_memory_then_saved() {
        let dir = tempfile::tempdir().unwrap();
        // More files than a batch, so that the games of later batches keep their order.
        let mut files = Vec::new();
        for i in 0..BATCH + 7 {
            let path = dir.path().join(format!("g{i:03}.sgf"));
            let moves: String = (0..i % 9)
                .map(|m| {
                    format!(
                        ";{}[{}{}]",
                        ["B", "W"][m % 2],
                        "abcdefghi".as_bytes()[(i + m) % 9] as char,
                        "abcdefghi".as_bytes()[(3 * m) % 9] as char
                    )
                })
                .collect();
            std::fs::write(
                &path,
                format!("(;SZ[9]PB[p{i}]{moves})(;SZ[9]AB[ee];W[dd])"),
            )
            .unwrap();
            files.push(CollectionFile {
                source: Source::new(&path),
                ids: vec![Some(2 * i as u64), Some(2 * i as u64 + 1)],
            });
        }
        let sidecar = dir.path().join("db.kpp");
        let opened = PatternIndex::build_to(&files, &sidecar, 5)
            .unwrap()
            .unwrap();
        let built = PatternIndex::build(&files);
        assert_eq!(built.games(), 2 * (BATCH + 7));
        assert!(opened == built);
        assert!(opened.sidecar.is_some());
        assert_eq!(std::fs::read(&sidecar).unwrap(), built.to_bytes(5).unwrap());
        // A file that cannot be read: nothing written, the sidecar as it was.
        let before = std::fs::read(&sidecar).unwrap();
        files.push(CollectionFile {
            source: Source::new(dir.path().join("gone.sgf")),
            ids: vec![Some(9_999)],
        });
        assert!(PatternIndex::build_to(&files, &sidecar, 6)
            .unwrap()
            .is_none());
        assert_eq!(std::fs::read(&sidecar).unwrap(), before);
        let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, BATCH + 7 + 1, "temporary files left behind");
        files.pop();
        // Extended over its own file: the first files' games copied, the others built.
        let (first, _) = files.split_at(100);
        let part = PatternIndex::build_to(first, &sidecar, 7).unwrap().unwrap();
        let whole = part.extend_to(&files, &sidecar, 5).unwrap().unwrap();
        assert!(whole == built);
        assert_eq!(std::fs::read(&sidecar).unwrap(), before);
        // Not a beginning of the files: nothing written.
        let other = PatternIndex::build_to(&files[1..50], &dir.path().join("o.kpp"), 8)
            .unwrap()
            .unwrap();
        assert!(other.extend_to(&files, &sidecar, 5).unwrap().is_none());
    }
}
