//! What the command line says on stderr besides its results, through the `log` facade: errors
//! and warnings (unhealthy scenes) always; notices (an engine that falls back, a resumed run)
//! and the progress display unless `-q`; each chunk's timing and the engine's choices with
//! `-v` (the library's `debug!` lines), the drivers' log with `-vv`. A full or closed stderr
//! loses the lines, never the run.

use std::io::Write;

use log::{Level, LevelFilter, Log, Metadata, Record};

/// The level of ricochet's own lines; the libraries' (wgpu, the Vulkan loader) are shown
/// from `-vv` on, errors aside.
struct Stderr {
    own: LevelFilter,
    others: LevelFilter,
}

impl Log for Stderr {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        let own = metadata.target().starts_with("ricochet");
        metadata.level() <= if own { self.own } else { self.others }
    }

    fn log(&self, record: &Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let prefix = match record.level() {
            Level::Error => "error: ",
            Level::Warn => "warning: ",
            Level::Info => "",
            Level::Debug | Level::Trace => "debug: ",
        };
        let _ = writeln!(std::io::stderr().lock(), "{prefix}{}", record.args());
    }

    fn flush(&self) {}
}

/// Sends the log to stderr: errors and warnings only with `quiet`, the debug lines with
/// `verbose` > 0 (and the libraries' with 2), everything else at the notice level.
pub fn init(quiet: bool, verbose: u8) {
    let level = match (quiet, verbose) {
        (true, _) => LevelFilter::Warn,
        (false, 0) => LevelFilter::Info,
        (false, 1) => LevelFilter::Debug,
        (false, _) => LevelFilter::Trace,
    };
    let others = if verbose >= 2 {
        LevelFilter::Trace
    } else {
        LevelFilter::Error
    };
    let logger = Box::leak(Box::new(Stderr { own: level, others }));
    if log::set_logger(logger).is_ok() {
        log::set_max_level(level.max(others));
    }
}
