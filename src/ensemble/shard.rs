//! A slice of an ensemble's scenes, run apart and merged afterwards.

use std::ops::Range;

use crate::error::{Error, Result};

/// Shard i of n: scenes ⌊N i / n⌋ .. ⌊N (i+1) / n⌋.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// i (from 0).
    pub index: usize,
    /// n.
    pub count: usize,
}

impl Shard {
    /// The scenes of this shard out of `scenes`.
    pub fn range(&self, scenes: usize) -> Range<usize> {
        // In 128 bits: N i fits there for any N and i (in usize it overflowed for large N).
        let at = |i: usize| (scenes as u128 * i as u128 / self.count as u128) as usize;
        at(self.index)..at(self.index + 1)
    }
}

impl std::str::FromStr for Shard {
    type Err = Error;
    /// `i/n` with i < n, or `auto`: the task of the array job this process runs in
    /// ([`Shard::of_array_job`] on the environment).
    fn from_str(s: &str) -> Result<Self> {
        if s.trim() == "auto" {
            return Self::of_array_job(|name| std::env::var(name).ok());
        }
        let parsed = s
            .split_once('/')
            .and_then(|(i, n)| Some((i.trim().parse().ok()?, n.trim().parse().ok()?)));
        match parsed {
            Some((index, count)) if index < count => Ok(Self { index, count }),
            _ => Err(Error::Scenario {
                what: format!("shard `{s}`"),
                reason: "expected i/n with 0 ≤ i < n, e.g. 0/4, or auto (a Slurm or SGE array task)".into(),
            }),
        }
    }
}

impl Shard {
    /// The shard of an array job's task, from the scheduler's variables (`var` reads one):
    /// Slurm's `SLURM_ARRAY_TASK_ID`, `_MIN`, `_STEP` (default 1) and `_COUNT` — shard
    /// (ID − MIN) / STEP of COUNT —, else Grid Engine's `SGE_TASK_ID`, `_FIRST`, `_LAST` and
    /// `_STEPSIZE` — shard (ID − FIRST) / STEPSIZE of (LAST − FIRST) / STEPSIZE + 1. Other
    /// schedulers: pass `--shard i/n` from their own variables.
    pub fn of_array_job(var: impl Fn(&str) -> Option<String>) -> Result<Self> {
        let number = |name: &str| -> Result<Option<usize>> {
            var(name)
                .map(|text| {
                    text.trim().parse().map_err(|_| Error::Scenario {
                        what: format!("shard auto: {name}={text}"),
                        reason: "is not a whole number".into(),
                    })
                })
                .transpose()
        };
        let required = |name: &str| -> Result<usize> {
            number(name)?.ok_or_else(|| Error::Scenario {
                what: format!("shard auto: {name}"),
                reason: "is not set (is this an array job's task?)".into(),
            })
        };
        let (id, first, step, count, scheduler) = if var("SLURM_ARRAY_TASK_ID").is_some() {
            let id = required("SLURM_ARRAY_TASK_ID")?;
            let first = required("SLURM_ARRAY_TASK_MIN")?;
            let step = number("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1);
            (id, first, step, required("SLURM_ARRAY_TASK_COUNT")?, "SLURM_ARRAY_TASK")
        } else if var("SGE_TASK_ID").is_some_and(|v| v.trim() != "undefined") {
            let id = required("SGE_TASK_ID")?;
            let first = required("SGE_TASK_FIRST")?;
            let step = number("SGE_TASK_STEPSIZE")?.unwrap_or(1);
            let last = required("SGE_TASK_LAST")?;
            let count = last.checked_sub(first).map(|span| span / step.max(1) + 1).unwrap_or(0);
            (id, first, step, count, "SGE_TASK")
        } else {
            return Err(Error::Scenario {
                what: "shard auto".into(),
                reason: "neither SLURM_ARRAY_TASK_ID nor SGE_TASK_ID is set: run it as an array job's task, or pass --shard i/n".into(),
            });
        };
        let offset = id.checked_sub(first).filter(|o| step > 0 && o % step == 0);
        match offset.map(|o| o / step) {
            Some(index) if index < count => Ok(Self { index, count }),
            _ => Err(Error::Scenario {
                what: format!("shard auto: {scheduler}_ID={id}"),
                reason: format!("is not one of the {count} tasks from {first} in steps of {step}"),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Shard;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
    }

    #[test]
    fn array_tasks_name_their_shard() {
        let slurm = [
            ("SLURM_ARRAY_TASK_ID", "9"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_STEP", "4"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ];
        assert_eq!(Shard::of_array_job(env(&slurm)).unwrap(), Shard { index: 2, count: 3 });
        let slurm = [
            ("SLURM_ARRAY_TASK_ID", "0"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_COUNT", "8"),
        ];
        assert_eq!(Shard::of_array_job(env(&slurm)).unwrap(), Shard { index: 0, count: 8 });
        let sge = [
            ("SGE_TASK_ID", "5"),
            ("SGE_TASK_FIRST", "1"),
            ("SGE_TASK_LAST", "8"),
            ("SGE_TASK_STEPSIZE", "1"),
        ];
        assert_eq!(Shard::of_array_job(env(&sge)).unwrap(), Shard { index: 4, count: 8 });
    }

    #[test]
    fn a_task_outside_its_array_is_refused_by_name() {
        for pairs in [
            &[
                ("SLURM_ARRAY_TASK_ID", "7"),
                ("SLURM_ARRAY_TASK_MIN", "0"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
            ][..],
            &[
                ("SLURM_ARRAY_TASK_ID", "x"),
                ("SLURM_ARRAY_TASK_MIN", "0"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
            ],
            &[("SLURM_ARRAY_TASK_ID", "2"), ("SLURM_ARRAY_TASK_COUNT", "4")],
            &[("SGE_TASK_ID", "undefined")],
            &[],
        ] {
            let e = Shard::of_array_job(env(pairs)).unwrap_err().to_string();
            assert!(e.contains("shard auto"), "{e}");
        }
    }
}
