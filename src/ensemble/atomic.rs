//! Files that appear whole or not at all.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use crate::error::{Error, Result};

/// The prefix of the temporary files beside the final ones.
pub(crate) const PARTIAL: &str = ".partial-";

/// Writes `path` through `write`, given a temporary file beside it (`.partial-<stem>.<random>`
/// and the same extension, which picks a picture's format), flushes it to the disk, then
/// renames that into place: a reader — or what an interrupted run or a stopped machine
/// leaves — sees the whole file or none of it.
/// The temporary file is removed when `write` fails ([`tempfile`]).
pub(crate) fn write_atomically(path: &Path, write: impl FnOnce(&Path) -> Result<()>) -> Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let part = |p: Option<&std::ffi::OsStr>| p.map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let (stem, extension) = (part(path.file_stem()), part(path.extension()));
    let suffix = if extension.is_empty() {
        String::new()
    } else {
        format!(".{extension}")
    };
    let mut builder = tempfile::Builder::new();
    let prefix = format!("{PARTIAL}{stem}.");
    builder.prefix(&prefix).suffix(&suffix);
    // Readable as any file the user creates (tempfile's own are 0600; the umask applies).
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let partial = builder.tempfile_in(dir).map_err(|e| Error::Parse {
        file: path.display().to_string(),
        reason: format!("cannot create a file beside it: {e}"),
    })?;
    // An I/O error while writing (a full disk) names the file it was writing.
    write(partial.path()).map_err(|e| match e {
        Error::Io(e) => Error::Parse {
            file: path.display().to_string(),
            reason: format!("cannot write: {e}"),
        },
        other => other,
    })?;
    // On the disk before the rename, so that even a machine that stops (power, kernel) leaves
    // the whole file or the old one, never a renamed empty one.
    partial.as_file().sync_all().map_err(|e| Error::Parse {
        file: path.display().to_string(),
        reason: format!("cannot flush to the disk: {e}"),
    })?;
    partial.persist(path).map_err(|e| Error::Parse {
        file: path.display().to_string(),
        reason: format!("cannot move the finished file into place: {}", e.error),
    })?;
    Ok(())
}

/// [`write_atomically`] through a buffered writer of the temporary file (its creation error
/// names it).
pub(crate) fn write_file(path: &Path, write: impl FnOnce(&mut BufWriter<File>) -> Result<()>) -> Result<()> {
    write_atomically(path, |partial| {
        let mut out = File::create(partial).map(BufWriter::new).map_err(|e| Error::Parse {
            file: partial.display().to_string(),
            reason: format!("cannot create: {e}"),
        })?;
        write(&mut out)?;
        Ok(out.flush()?)
    })
}

/// `value` as pretty JSON and a newline into `out`.
pub(crate) fn json_to(out: &mut impl Write, value: &impl serde::Serialize) -> Result<()> {
    serde_json::to_writer_pretty(&mut *out, value).map_err(std::io::Error::other)?;
    Ok(writeln!(out)?)
}

/// `path` written atomically as `value` in pretty JSON.
pub(crate) fn write_json(path: &Path, value: &impl serde::Serialize) -> Result<()> {
    write_file(path, |out| json_to(out, value))
}

/// Makes `dir` ready for a run's files — created if needed, and a file written into it and
/// removed — so that a directory that cannot take them is found before anything is computed;
/// the error names the path.
pub fn prepare_dir(dir: &Path) -> Result<()> {
    let refuse = |what: &str, e: std::io::Error| Error::Parse {
        file: dir.display().to_string(),
        reason: format!("output directory: cannot {what}: {e}"),
    };
    std::fs::create_dir_all(dir).map_err(|e| refuse("create it", e))?;
    let probe = dir.join(format!(".ricochet-write-check-{}", std::process::id()));
    File::create(&probe).map_err(|e| refuse("write into it", e))?;
    match std::fs::remove_file(&probe) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(refuse("remove a file from it", e)),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A full disk while writing names the file, and leaves neither it nor a partial file.
    #[test]
    fn a_write_error_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("summary.csv");
        let full = std::io::Error::from_raw_os_error(28);
        let e = write_file(&path, |_| Err(Error::Io(full))).unwrap_err().to_string();
        assert!(e.contains("summary.csv") && e.contains("cannot write"), "{e}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
