//! The FF\[4\] writer: UTF-8 text, values byte for byte, readable lines.
//!
//! Values are written exactly as stored (already escaped), one `[...]` after
//! another; point lists are neither reordered nor expanded. Since the output
//! is UTF-8, every `CA` value is written as `UTF-8`. Lines are broken before a
//! node or between values when a line passes 76 columns (never inside a
//! value), and each variation starts on a new line. The writer walks the
//! nodes in their stored order with no recursion.

use crate::tree::{Collection, GameTree, Node, WalkEvent};
use std::io::{self, Write};

const WIDTH: usize = 76;

/// Writes the collection as SGF text.
pub fn write(coll: &Collection) -> String {
    let mut out = Vec::with_capacity(coll.text().len() + 64);
    write_to(coll, &mut out).expect("writing to a Vec cannot fail");
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Writes the collection as SGF text to `out`.
pub fn write_to<W: Write>(coll: &Collection, out: &mut W) -> io::Result<()> {
    let mut w = LineWriter { out, col: 0 };
    for game in coll.games() {
        write_tree(&mut w, game)?;
    }
    if w.col > 0 {
        w.newline()?;
    }
    Ok(())
}

/// Writes one game of a collection as SGF text (a collection of that one game), as [`write()`]
/// writes it; for handing out a single game of a file of many.
pub fn write_game(game: GameTree<'_>) -> String {
    let mut out = Vec::new();
    let mut w = LineWriter {
        out: &mut out,
        col: 0,
    };
    write_tree(&mut w, game)
        .and_then(|()| w.newline())
        .expect("writing to a Vec cannot fail");
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

fn write_tree<W: Write>(w: &mut LineWriter<'_, W>, game: GameTree<'_>) -> io::Result<()> {
    if w.col > 0 {
        w.newline()?;
    }
    w.put(b"(")?;
    game.walk(|ev| match ev {
        WalkEvent::BeginVariation => {
            w.newline()?;
            w.put(b"(")
        }
        WalkEvent::Node(node) => write_node(w, node),
        WalkEvent::EndVariation => w.put(b")"),
    })?;
    w.put(b")")
}

fn write_node<W: Write>(w: &mut LineWriter<'_, W>, node: Node<'_>) -> io::Result<()> {
    let props = node.properties();
    let first_len = node
        .properties()
        .next()
        .map_or(0, |p| p.id().len() + p.raw().len());
    if w.col > 0 && w.col + 1 + first_len.min(WIDTH) > WIDTH {
        w.newline()?;
    }
    w.put(b";")?;
    for p in props {
        let id = p.id();
        if w.col + id.len() + 2 > WIDTH && w.col > 1 {
            w.newline()?;
        }
        w.put(id.as_bytes())?;
        let is_ca = id == "CA";
        for (i, v) in p.values().enumerate() {
            let raw: &[u8] = if is_ca { b"UTF-8" } else { v.raw() };
            if i > 0 && w.col + raw.len() + 2 > WIDTH {
                w.newline()?;
            }
            w.put(b"[")?;
            w.put(raw)?;
            w.put(b"]")?;
        }
    }
    Ok(())
}

struct LineWriter<'a, W: Write> {
    out: &'a mut W,
    col: usize,
}

impl<W: Write> LineWriter<'_, W> {
    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_all(bytes)?;
        match memchr::memrchr2(b'\n', b'\r', bytes) {
            Some(i) => self.col = bytes.len() - i - 1,
            None => self.col += bytes.len(),
        }
        Ok(())
    }

    fn newline(&mut self) -> io::Result<()> {
        self.out.write_all(b"\n")?;
        self.col = 0;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_variations_and_closes_them() {
        let src = "(;FF[4];B[aa](;W[bb](;B[cc])(;B[dd];W[ee]))(;W[ff]))(;C[x])";
        let p = Collection::parse(src.as_bytes());
        let out = write(&p.collection);
        assert_eq!(
            out,
            "(;FF[4];B[aa]\n(;W[bb]\n(;B[cc])\n(;B[dd];W[ee]))\n(;W[ff]))\n(;C[x])\n"
        );
        let again = Collection::parse(out.as_bytes());
        assert_eq!(write(&again.collection), out);
    }

    #[test]
    fn ca_becomes_utf8_and_values_are_kept() {
        let p = Collection::parse(b"(;CA[ISO-8859-1]AB[aa:cc] [dd]C[a\\]b])");
        assert_eq!(write(&p.collection), "(;CA[UTF-8]AB[aa:cc][dd]C[a\\]b])\n");
    }

    #[test]
    fn long_lines_are_wrapped_between_nodes() {
        let mut s = String::from("(;FF[4]");
        for i in 0..40 {
            s.push_str(if i % 2 == 0 { ";B[aa]" } else { ";W[bb]" });
        }
        s.push(')');
        let out = write(&Collection::parse(s.as_bytes()).collection);
        assert!(out.lines().all(|l| l.len() <= WIDTH), "{out}");
        assert_eq!(out.replace('\n', ""), s);
    }
}
