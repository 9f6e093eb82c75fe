//! The subcommands of the `ricochet` binary beyond `run`, and its progress display (modules of
//! the binary, not of the library).

pub mod check;
pub mod compare;
pub mod exit;
pub mod interrupt;
pub mod large;
pub mod logger;
pub mod plot;
pub mod progress;
pub mod run;
pub mod statistics;
