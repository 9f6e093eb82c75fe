//! Ctrl-C during a run: the first SIGINT asks the run to stop where it keeps what it computed
//! ([`ricochet::ensemble::Progress::cancel`]: an ensemble's finished chunks, a large scene's
//! checkpoint at the step it reached), and `ricochet` exits with 130; a second one stops the
//! process at once, as SIGINT does by default.

use std::sync::atomic::{AtomicBool, Ordering};

/// Set by the handler; taken by the progress watcher ([`take`]).
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

#[cfg(unix)]
extern "C" fn on_interrupt(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::Relaxed);
    // SAFETY: signal(2) is async-signal-safe; the default action makes the next Ctrl-C stop
    // the process.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
    }
}

/// Catches the next SIGINT (on Unix; elsewhere Ctrl-C keeps its default action).
pub fn catch() {
    #[cfg(unix)]
    // SAFETY: the handler only stores to an atomic and calls signal(2), both
    // async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, on_interrupt as *const () as libc::sighandler_t);
    }
}

/// Gives SIGINT its default action back (the run is over: Ctrl-C stops the process).
pub fn release() {
    #[cfg(unix)]
    // SAFETY: restores the default action; no handler runs.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
    }
}

/// Whether a SIGINT came since the last call.
pub fn take() -> bool {
    INTERRUPTED.swap(false, Ordering::Relaxed)
}
