//! `kifu pos verify`: both files of a database read whole and checked, nothing written.

use crate::Outcome;
use anyhow::{Context, Result};
use clap::Args;
use kifu_search::Database;
use std::path::PathBuf;

/// Arguments of `kifu pos verify`.
#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// The database (`kifu pos index` output; its pattern index beside it is checked too).
    db: PathBuf,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// Runs `kifu pos verify`: exit 0 when every checksum matches, 1 (with the file and the bytes
/// named) when one does not.
pub fn verify(a: VerifyArgs) -> Result<Outcome> {
    let v = Database::verify(&a.db).with_context(|| a.db.display().to_string())?;
    let sidecar = kifu_search::index::sidecar_path(&a.db);
    if a.json {
        let mut j = serde_json::to_value(v)?;
        j["index"] = a.db.display().to_string().into();
        j["pattern_index"] = sidecar.display().to_string().into();
        crate::output::print_json(&j)?;
        return Ok(Outcome::Ok);
    }
    let index = if v.index_checked {
        "every block matches its checksum".to_string()
    } else {
        format!(
            "format {} has no checksums, nothing to check (`kifu pos index` writes format 4)",
            v.format
        )
    };
    let patterns = if v.pattern_index_checked {
        "its checksum matches"
    } else {
        "missing or made for another game list (the next search builds it)"
    };
    super::emit(&format!(
        "{}: {} games, {index}\n{}: {patterns}\n",
        a.db.display(),
        v.games,
        sidecar.display()
    ))?;
    Ok(Outcome::Ok)
}
