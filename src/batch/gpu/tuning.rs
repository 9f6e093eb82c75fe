//! How the scene-parallel kernel is launched on an adapter: invocations per workgroup and
//! steps per dispatch. Neither changes a result (each invocation steps its own scenes, and a
//! dispatch continues from the state the last one left): they only set how the device's
//! cores are filled and how long one dispatch runs.
//!
//! An adapter's launch is the one `ricochet tune` chose for it by a short timed probe
//! (`ensemble::tune`), kept in a small cache file keyed by adapter and driver, else the
//! default; `RICOCHET_GPU_TUNING=workgroup=128,steps=250` overrides either (a key left out
//! keeps its value).

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The environment variable that overrides the launch.
pub const TUNING_VAR: &str = "RICOCHET_GPU_TUNING";

/// The environment variable naming the cache's folder (default `$XDG_CACHE_HOME/ricochet`,
/// else `~/.cache/ricochet`).
pub const CACHE_VAR: &str = "RICOCHET_CACHE_DIR";

/// The workgroup sizes a probe tries (each a multiple of every vendor's SIMD width: 32 on
/// NVIDIA, 32 or 64 on AMD, 8 to 32 on Intel and Apple).
pub const WORKGROUP_SIZES: [u32; 4] = [32, 64, 128, 256];

/// Steps per dispatch unless tuned.
pub const DEFAULT_STEPS_PER_DISPATCH: u32 = 1000;

/// One launch of the scene-parallel kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tuning {
    /// Invocations per workgroup (one scene each at a time).
    pub workgroup_size: u32,
    /// Steps each invocation runs per dispatch (the time loop is inside the kernel). On a CPU
    /// adapter the loop budget of lavapipe's limiter may lower it
    /// ([`CPU_ADAPTER_LOOP_BUDGET`](super::moreau_jean_pgs::CPU_ADAPTER_LOOP_BUDGET)).
    pub steps_per_dispatch: u32,
}

impl Default for Tuning {
    /// 64 invocations per workgroup, 1000 steps per dispatch.
    fn default() -> Self {
        Self {
            workgroup_size: 64,
            steps_per_dispatch: DEFAULT_STEPS_PER_DISPATCH,
        }
    }
}

impl std::fmt::Display for Tuning {
    /// `workgroup=64,steps=1000`: the form [`Tuning::parse`] reads.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "workgroup={},steps={}", self.workgroup_size, self.steps_per_dispatch)
    }
}

impl Tuning {
    /// Reads `workgroup=W,steps=S` (either key, in any order) over `self`; `what` names the
    /// text's source in errors.
    pub fn parse(self, text: &str, what: &str) -> Result<Self> {
        let bad = |reason: String| Error::Argument {
            what: format!("{what}={text}"),
            reason,
        };
        let mut tuning = self;
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (key, value) = item
                .split_once('=')
                .ok_or_else(|| bad(format!("`{item}` is not key=value (keys: workgroup, steps)")))?;
            let value: u32 = value
                .trim()
                .parse()
                .map_err(|_| bad(format!("`{}` is not a whole number", value.trim())))?;
            match key.trim() {
                "workgroup" => tuning.workgroup_size = value,
                "steps" => tuning.steps_per_dispatch = value,
                other => return Err(bad(format!("unknown key `{other}` (keys: workgroup, steps)"))),
            }
        }
        if tuning.workgroup_size == 0 || tuning.steps_per_dispatch == 0 {
            return Err(bad("workgroup and steps must be at least 1".into()));
        }
        Ok(tuning)
    }

    /// The launch of the adapter `key` ([`GpuContext::key`](super::GpuContext::key)): the cached one or the default,
    /// overridden by [`TUNING_VAR`] where it is set.
    pub fn for_adapter(key: &str) -> Result<Self> {
        let base = Self::cached(key).unwrap_or_default();
        match std::env::var(TUNING_VAR) {
            Ok(text) => base.parse(&text, TUNING_VAR),
            Err(_) => Ok(base),
        }
    }

    /// The cache file: one line per adapter, its key, a tab and its launch
    /// (`workgroup=W,steps=S`); `None` without a folder for it.
    pub fn cache_file() -> Option<PathBuf> {
        let folder = match std::env::var_os(CACHE_VAR) {
            Some(dir) => PathBuf::from(dir),
            None => std::env::var_os("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))?
                .join("ricochet"),
        };
        Some(folder.join("gpu-tuning.tsv"))
    }

    /// The launch cached for the adapter `key`, if any.
    pub fn cached(key: &str) -> Option<Self> {
        Self::cached_in(&Self::cache_file()?, key)
    }

    /// The launch `file` keeps for `key` (a line that does not read is left out).
    pub(crate) fn cached_in(file: &Path, key: &str) -> Option<Self> {
        let text = std::fs::read_to_string(file).ok()?;
        text.lines()
            .filter_map(|line| line.split_once('\t'))
            .find(|(k, _)| *k == key)
            .and_then(|(_, launch)| Self::default().parse(launch, "cache").ok())
    }

    /// The most invocations per workgroup a device with `limits` takes.
    pub fn largest_workgroup(limits: &wgpu::Limits) -> u32 {
        limits
            .max_compute_workgroup_size_x
            .min(limits.max_compute_invocations_per_workgroup)
    }

    /// Refuses a workgroup larger than the device takes.
    pub fn check(&self, limits: &wgpu::Limits) -> Result<()> {
        let most = Self::largest_workgroup(limits);
        if self.workgroup_size > most {
            return Err(Error::Argument {
                what: format!("{TUNING_VAR}: workgroup={}", self.workgroup_size),
                reason: format!("the adapter takes at most {most} invocations per workgroup"),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Tuning;

    #[test]
    fn parses_either_key_over_the_default() {
        let base = Tuning::default();
        let both = base.parse("workgroup=128, steps=250", "T").unwrap();
        assert_eq!((both.workgroup_size, both.steps_per_dispatch), (128, 250));
        let one = base.parse("steps=10", "T").unwrap();
        assert_eq!((one.workgroup_size, one.steps_per_dispatch), (64, 10));
        assert_eq!(base.parse(&both.to_string(), "T").unwrap(), both);
    }

    #[test]
    fn refuses_what_it_cannot_use() {
        for text in ["workgroup", "workgroup=x", "lanes=4", "steps=0", "workgroup=-1"] {
            let e = Tuning::default().parse(text, "RICOCHET_GPU_TUNING").unwrap_err();
            assert!(e.to_string().contains("RICOCHET_GPU_TUNING="), "{e}");
        }
    }
}
