//! The files' paths of an index, kept in one buffer: one allocation for all of them instead of
//! one each (a million single-game files took 135 bytes a path as separate strings, 50 here);
//! and, while a sidecar is built, in a temporary file instead ([`NameSpool`]).

/// Strings, in order, in one buffer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Names {
    text: String,
    /// Where each string ends in `text`.
    ends: Vec<usize>,
}

impl Names {
    /// Appends `s`.
    pub fn push(&mut self, s: &str) {
        self.text.push_str(s);
        self.ends.push(self.text.len());
    }

    /// How many strings there are.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// The `i`-th string (from 0).
    pub fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        self.text.get(start..end)
    }

    /// The strings in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + Clone + '_ {
        (0..self.len()).map(|i| self.get(i).unwrap_or_default())
    }
}

impl<S: AsRef<str>> FromIterator<S> for Names {
    fn from_iter<I: IntoIterator<Item = S>>(items: I) -> Names {
        let mut names = Names::default();
        for s in items {
            names.push(s.as_ref());
        }
        names
    }
}

/// Strings appended, in order, to an unnamed temporary file and read back in order: the
/// files' names a sidecar is written with at the end of a build, kept off the heap (about
/// 70 bytes a file at a million files). Nothing is left on disk when the process ends, however
/// it ends.
pub(crate) struct NameSpool {
    /// The file, read at offsets (a read does not move the appends' position).
    file: std::fs::File,
    /// Appends, to the same file.
    w: std::io::BufWriter<std::fs::File>,
    /// The strings appended.
    len: usize,
    /// The bytes appended.
    bytes: u64,
}

impl NameSpool {
    /// A spool in folder `dir` (the output's, which has room for what it is given).
    pub fn new_in(dir: &std::path::Path) -> std::io::Result<NameSpool> {
        let file = tempfile::tempfile_in(dir)?;
        let w = std::io::BufWriter::with_capacity(1 << 16, file.try_clone()?);
        Ok(NameSpool {
            file,
            w,
            len: 0,
            bytes: 0,
        })
    }

    /// Appends `s`.
    pub fn push(&mut self, s: &str) -> std::io::Result<()> {
        use std::io::Write;
        let len = u32::try_from(s.len()).map_err(std::io::Error::other)?;
        self.w.write_all(&len.to_le_bytes())?;
        self.w.write_all(s.as_bytes())?;
        self.len += 1;
        self.bytes += 4 + u64::from(len);
        Ok(())
    }

    /// Writes out what was appended, so that [`NameSpool::iter`] reads it all.
    pub fn flush(&mut self) -> std::io::Result<()> {
        std::io::Write::flush(&mut self.w)
    }

    /// The strings in order, as far as [`NameSpool::flush`] wrote them: each a read of the
    /// file, which may fail.
    pub fn iter(&self) -> SpoolIter<'_> {
        SpoolIter {
            file: Some(&self.file),
            offset: 0,
            buf: Vec::new(),
            at: 0,
            left: self.len,
            end: self.bytes,
        }
    }
}

/// The strings of a [`NameSpool`], read through a buffer of their own (a clone reads them
/// again from where it was made).
#[derive(Clone)]
pub(crate) struct SpoolIter<'a> {
    /// None: no strings.
    file: Option<&'a std::fs::File>,
    /// The file's offset just past `buf`.
    offset: u64,
    buf: Vec<u8>,
    /// Where the next string's length is in `buf`.
    at: usize,
    left: usize,
    /// The bytes appended: a length past them is not read (nor its buffer made).
    end: u64,
}

impl SpoolIter<'_> {
    /// No strings.
    pub fn empty() -> SpoolIter<'static> {
        SpoolIter {
            file: None,
            offset: 0,
            buf: Vec::new(),
            at: 0,
            left: 0,
            end: 0,
        }
    }

    /// At least `need` bytes from `at` in `buf`.
    fn fill(&mut self, need: usize) -> std::io::Result<()> {
        use std::os::unix::fs::FileExt;
        if self.buf.len() - self.at >= need {
            return Ok(());
        }
        self.buf.drain(..self.at);
        self.at = 0;
        let Some(file) = self.file else {
            return Err(std::io::Error::other("no spool"));
        };
        let have = self.buf.len();
        self.buf.resize(need.max(1 << 16), 0);
        let mut got = have;
        while got < need {
            match file.read_at(&mut self.buf[got..], self.offset) {
                Ok(0) => {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        "the spooled names end early",
                    ))
                }
                Ok(n) => {
                    got += n;
                    self.offset += n as u64;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        self.buf.truncate(got);
        Ok(())
    }

    fn read(&mut self) -> std::io::Result<String> {
        self.fill(4)?;
        let len = u32::from_le_bytes(
            self.buf[self.at..self.at + 4]
                .try_into()
                .unwrap_or_default(),
        );
        self.at += 4;
        let start = self.offset - (self.buf.len() - self.at) as u64;
        if start + u64::from(len) > self.end {
            return Err(std::io::Error::other(
                "a spooled name runs past the spool's end",
            ));
        }
        let len = len as usize;
        self.fill(len)?;
        let s = std::str::from_utf8(&self.buf[self.at..self.at + len])
            .map_err(std::io::Error::other)?
            .to_string();
        self.at += len;
        Ok(s)
    }
}

impl Iterator for SpoolIter<'_> {
    type Item = std::io::Result<String>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let read = self.read();
        if read.is_err() {
            // Nothing after a failed read is trusted.
            self.left = 0;
        }
        Some(read)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for SpoolIter<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_come_back_as_pushed() {
        let list = ["a/b.sgf", "", "c.sgf", "ünïcode/路径.sgf", ""];
        let names: Names = list.iter().copied().collect();
        assert_eq!(names.len(), 5);
        assert_eq!(names.iter().collect::<Vec<_>>(), list);
        for (i, s) in list.iter().enumerate() {
            assert_eq!(names.get(i), Some(*s));
        }
        assert_eq!(names.get(5), None);
        assert_eq!(Names::default().iter().count(), 0);
    }

    #[test]
    fn spooled_strings_come_back_as_pushed_whatever_their_length() {
        let dir = tempfile::tempdir().unwrap();
        let mut spool = NameSpool::new_in(dir.path()).unwrap();
        // Longer than the read buffer too, and strings across its ends.
        let list: Vec<String> = (0..5000)
            .map(|i| "é".repeat(i % 97) + &i.to_string())
            .chain(["".to_string(), "x".repeat(200_000)])
            .collect();
        for s in &list {
            spool.push(s).unwrap();
        }
        spool.flush().unwrap();
        let mut it = spool.iter();
        assert_eq!(it.len(), list.len());
        let first: Vec<String> = it.by_ref().take(10).map(Result::unwrap).collect();
        let copy = it.clone();
        let rest: Vec<String> = it.map(Result::unwrap).collect();
        assert_eq!([first, rest].concat(), list);
        assert_eq!(copy.map(Result::unwrap).collect::<Vec<_>>(), list[10..]);
        // Appended after a reading: read by the next.
        spool.push("more").unwrap();
        spool.flush().unwrap();
        assert_eq!(spool.iter().last().unwrap().unwrap(), "more");
        // Not flushed: the reading fails instead of giving other strings.
        spool.push("unwritten").unwrap();
        assert!(spool.iter().last().unwrap().is_err());
    }
}
