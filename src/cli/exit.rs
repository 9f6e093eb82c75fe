//! The exit statuses of `ricochet`, each with its own meaning (listed by `--help` and the
//! README): scripts and schedulers can tell a failed run from unhealthy results, a failed
//! verification or a mistyped command line.

use std::process::ExitCode;

/// Some scene did not converge or became NaN or infinite, with `--fail-on unhealthy`; the
/// files are written.
pub const UNHEALTHY: u8 = 3;

/// `verify`: an engine deviates from the reference past its tolerance, or nothing could be
/// compared (without `--allow-nothing`).
pub const NOT_VERIFIED: u8 = 4;

/// Interrupted (Ctrl-C): the finished chunks are kept for `--resume`. 128 + SIGINT, as a
/// shell reports a process its interrupt stopped.
pub const INTERRUPTED: u8 = 130;

/// The list `--help` prints after the commands.
pub const HELP: &str = "\
Exit status:
  0    success
  1    error: bad input (named), a file that cannot be read or written, a failed solve
  2    usage error: unknown flag, missing or malformed argument
  3    unhealthy scenes with `run --fail-on unhealthy` (the files are written)
  4    `verify`: an engine out of tolerance, or nothing compared (see --allow-nothing)
  130  interrupted (Ctrl-C); a run's finished chunks are kept for --resume";

/// The status of an error.
pub fn of_error(e: &ricochet::Error) -> ExitCode {
    match e {
        ricochet::Error::Interrupted { .. } => ExitCode::from(INTERRUPTED),
        _ => ExitCode::FAILURE,
    }
}
