//! Files that appear whole or not at all.

use std::path::Path;

use crate::error::{Error, Result};

/// Writes `path` through `write`, given a temporary name beside it (`.partial-<name>`, same
/// extension), then renames that into place: a reader — or what an interrupted run leaves —
/// sees the whole file or none of it.
pub(crate) fn write_atomically(path: &Path, write: impl FnOnce(&Path) -> Result<()>) -> Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let partial = path.with_file_name(format!(".partial-{name}"));
    if let Err(e) = write(&partial) {
        let _ = std::fs::remove_file(&partial);
        return Err(e);
    }
    std::fs::rename(&partial, path).map_err(|e| Error::Parse {
        file: path.display().to_string(),
        reason: format!("cannot move the finished file into place: {e}"),
    })
}
