//! stub
use crate::model::Document;
/// x
pub struct Converted {
    /// c
    pub collection: kifu_sgf::Collection,
    /// d
    pub diagnostics: Vec<crate::Diagnostic>,
}
/// x
pub fn to_sgf(_d: &Document) -> Converted {
    todo!()
}
/// y
pub struct FromSgf {
    /// d
    pub document: Document,
}
