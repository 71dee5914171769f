//! PNG diagrams: kifu's SVG rasterised by resvg (feature `png`), so the picture is the same as the
//! SVG's at any scale.
//!
//! Text (coordinates, labels, move numbers) needs a font. The system's fonts are loaded; the SVG
//! asks for `Helvetica, Arial, sans-serif`, and when neither named family is installed, the generic
//! `sans-serif` is mapped to the first installed family from a list of common sans-serif ones
//! (DejaVu Sans, Liberation Sans, Noto Sans, ...), else to any installed family. With no font at
//! all the board is still drawn and [`Png::text_dropped`] says that its text is missing.

use resvg::{tiny_skia, usvg};

/// Why a PNG could not be made.
#[derive(Debug, thiserror::Error)]
pub enum PngError {
    /// The SVG text did not parse (it is kifu's own, so this is a bug, reported rather than hidden).
    #[error("the SVG diagram could not be read: {0}")]
    Svg(#[from] usvg::Error),
    /// The scale is not a positive number, or the picture would be empty or too large.
    #[error("scale {scale} gives no usable picture size (at most {max} pixels a side)")]
    Size {
        /// The scale asked for.
        scale: f32,
        /// The largest side allowed.
        max: u32,
    },
    /// The PNG encoder failed.
    #[error("PNG encoding failed: {0}")]
    Encode(String),
}

/// A rendered diagram.
#[derive(Debug, Clone)]
pub struct Png {
    /// The PNG file's bytes.
    pub bytes: Vec<u8>,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The SVG had text but no font was found, so the text is not drawn.
    pub text_dropped: bool,
}

/// Largest side of a rendered picture: bounds memory (4 bytes a pixel) whatever the scale asked.
pub const MAX_SIDE: u32 = 8192;

const SANS: [&str; 8] = [
    "Helvetica",
    "Arial",
    "DejaVu Sans",
    "Liberation Sans",
    "Noto Sans",
    "FreeSans",
    "Nimbus Sans",
    "Roboto",
];

/// Renders an SVG diagram (from [`crate::diagram::svg_diagram`]) to PNG at `scale` pixels per SVG
/// unit (1.0 gives the SVG's own size).
pub fn render_png(svg: &str, scale: f32) -> Result<Png, PngError> {
    let mut opt = usvg::Options::default();
    let db = opt.fontdb_mut();
    db.load_system_fonts();
    let families: Vec<String> = db
        .faces()
        .flat_map(|f| f.families.iter().map(|(name, _)| name.clone()))
        .collect();
    let installed = |name: &str| families.iter().any(|f| f.eq_ignore_ascii_case(name));
    if let Some(sans) = SANS
        .iter()
        .find(|name| installed(name))
        .map(|s| (*s).to_owned())
        .or_else(|| families.first().cloned())
    {
        db.set_sans_serif_family(sans);
    }
    let text_dropped = families.is_empty() && svg.contains("<text");
    let tree = usvg::Tree::from_str(svg, &opt)?;
    let size = tree.size();
    let bad = PngError::Size {
        scale,
        max: MAX_SIDE,
    };
    if !(scale.is_finite() && scale > 0.0) {
        return Err(bad);
    }
    let (w, h) = (
        (size.width() * scale).ceil(),
        (size.height() * scale).ceil(),
    );
    if !(1.0..=MAX_SIDE as f32).contains(&w) || !(1.0..=MAX_SIDE as f32).contains(&h) {
        return Err(bad);
    }
    let (width, height) = (w as u32, h as u32);
    let mut pixmap = tiny_skia::Pixmap::new(width, height).ok_or(bad)?;
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    let bytes = pixmap
        .encode_png()
        .map_err(|e| PngError::Encode(e.to_string()))?;
    Ok(Png {
        bytes,
        width,
        height,
        text_dropped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagram::{svg_diagram, Markup, SvgOptions};
    use crate::{Board, BoardSize};

    #[test]
    fn sizes_follow_the_scale_and_bad_scales_are_refused() {
        let board = Board::new(BoardSize::NINE);
        let svg = svg_diagram(&board, &Markup::default(), &SvgOptions::default());
        let one = render_png(&svg, 1.0).unwrap();
        let two = render_png(&svg, 2.0).unwrap();
        assert_eq!((two.width, two.height), (2 * one.width, 2 * one.height));
        assert_eq!(&one.bytes[..8], b"\x89PNG\r\n\x1a\n");
        for scale in [0.0, -1.0, f32::NAN, f32::INFINITY, 1e6] {
            assert!(matches!(
                render_png(&svg, scale),
                Err(PngError::Size { .. })
            ));
        }
        assert!(matches!(render_png("<svg", 1.0), Err(PngError::Svg(_))));
    }
}
