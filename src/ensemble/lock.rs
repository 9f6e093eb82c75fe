//! One run at a time per output directory: an advisory lock (`flock` on Unix, `LockFileEx` on
//! Windows, through [`std::fs::File::try_lock`]) on `DIR/.ricochet.lock`, a file that names its
//! holder. A second run or merge into a directory in use is refused (after half a second),
//! naming the holder, instead of overwriting or mixing the first one's files. The lock goes
//! with the process (a killed run holds nothing); the file stays, as the name of its last
//! holder.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The lock file's name inside the directory.
pub const FILE: &str = ".ricochet.lock";

/// A directory held by this process until dropped.
#[derive(Debug)]
pub struct DirLock {
    /// Holds the lock while open.
    _file: File,
    path: PathBuf,
}

impl DirLock {
    /// Takes `dir` (which must exist) for `what` (e.g. the command line), or refuses, naming
    /// the process that holds it.
    pub fn acquire(dir: &Path, what: &str) -> Result<Self> {
        let path = dir.join(FILE);
        let fail = |reason: String| Error::Parse {
            file: path.display().to_string(),
            reason,
        };
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| fail(format!("cannot open the directory's lock file: {e}")))?;
        match try_lock(&file) {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut holder = String::new();
                // (An unreadable holder is still a holder.)
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim();
                let holder = if holder.is_empty() { "another process" } else { holder };
                return Err(fail(format!(
                    "{} is in use by another run ({holder}): wait for it to finish or choose another output directory",
                    dir.display()
                )));
            }
            // A file system without locks (some network mounts): run unlocked, saying so.
            Err(std::fs::TryLockError::Error(e))
                if e.kind() == std::io::ErrorKind::Unsupported || e.raw_os_error() == Some(37) =>
            {
                log::warn!(
                    "warning: {} cannot be locked here ({e}): nothing keeps another run out",
                    dir.display()
                );
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(fail(format!("cannot lock: {e}"))),
        }
        let since = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let holder = format!(
            "pid {} on {}, since {since} s after the Unix epoch: {what}\n",
            std::process::id(),
            host_name()
        );
        // The holder's name is a courtesy: failing to write it does not stop the run.
        let _ = file
            .set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| file.write_all(holder.as_bytes()));
        Ok(Self { _file: file, path })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Tries the lock for up to [`GRACE`]: a lock this process let go of is still held for an
/// instant by a child it is starting elsewhere (a fork holds the open files until its exec
/// closes them), so a run that takes a directory just after another run in the same process
/// would be refused by chance.
fn try_lock(file: &File) -> std::result::Result<(), std::fs::TryLockError> {
    let start = std::time::Instant::now();
    loop {
        match file.try_lock() {
            Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < GRACE => {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            other => return other,
        }
    }
}

/// How long a held lock is tried again before the directory is refused.
const GRACE: std::time::Duration = std::time::Duration::from_millis(500);

/// This machine's host name (`/proc/sys/kernel/hostname`, `$HOSTNAME`, `$COMPUTERNAME`), or
/// `this host`.
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .or_else(|| std::env::var("COMPUTERNAME").ok())
        .map(|name| name.trim().to_string())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "this host".into())
}

#[cfg(test)]
mod tests {
    use super::DirLock;

    #[test]
    fn a_second_holder_is_refused_naming_the_first_until_it_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let first = DirLock::acquire(dir.path(), "ricochet run first.toml").unwrap();
        let err = DirLock::acquire(dir.path(), "ricochet run second.toml")
            .unwrap_err()
            .to_string();
        assert!(err.contains("in use by another run"), "{err}");
        assert!(err.contains(&format!("pid {}", std::process::id())), "{err}");
        assert!(err.contains("ricochet run first.toml"), "{err}");
        drop(first);
        let second = DirLock::acquire(dir.path(), "ricochet run second.toml").unwrap();
        let holder = std::fs::read_to_string(second.path()).unwrap();
        assert!(holder.ends_with("ricochet run second.toml\n"), "{holder}");
    }
}
