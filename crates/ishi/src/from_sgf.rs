//! stub
/// x
pub fn from_sgf(_c: &kifu_sgf::Collection) -> crate::to_sgf::FromSgf {
    todo!()
}
