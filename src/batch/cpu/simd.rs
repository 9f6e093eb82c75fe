//! The instruction set the lane groups run on, picked at run time: the binary is built for
//! any x86-64 (or any other target) and the stepper's hot loop is compiled a second time for
//! AVX2 and a third for AVX-512 (f64 lanes), which it takes when the CPU has them. Rust never
//! contracts a·b + c into an FMA on its own and every lane operation is IEEE, so every path
//! gives the same bits (a test compares them).
//!
//! `RICOCHET_SIMD=baseline|avx2|avx512` picks one of those the CPU has instead (to measure
//! one path against another, or to keep a CPU on the path that is fastest there: §4.3 of
//! BENCHMARKS.md measured AVX-512 slower than AVX2 on an AMD EPYC with 8 lanes).

use crate::error::{Error, Result};

/// The variable that picks the instruction set ([`Simd::requested`]).
pub const SIMD_VAR: &str = "RICOCHET_SIMD";

/// An instruction set this CPU has, for the stepper's lanes. Only [`Simd::detect`],
/// [`Simd::requested`] and [`Simd::available`] make one, so a `Simd` is always safe to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Simd(Isa);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Isa {
    /// The target's baseline (SSE2 on x86-64).
    Baseline,
    /// AVX2 (256-bit vectors).
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// AVX-512 F, VL, BW and DQ, x86-64-v4's subsets (512-bit vectors, masks in
    /// k-registers).
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl Simd {
    /// The instruction set [`Simd::requested`] names, else the widest this CPU has.
    pub fn detect() -> Self {
        Self::requested().unwrap_or_else(|_| Self::widest())
    }

    /// The instruction set `RICOCHET_SIMD` names where it is set, else the widest this CPU
    /// has; an error naming the variable where it names none this CPU has.
    pub fn requested() -> Result<Self> {
        let Ok(name) = std::env::var(SIMD_VAR) else {
            return Ok(Self::widest());
        };
        let available = Self::available();
        available
            .iter()
            .copied()
            .find(|s| s.name() == name.trim())
            .ok_or_else(|| Error::Argument {
                what: format!("{SIMD_VAR}={name}"),
                reason: format!(
                    "this CPU runs the lanes on {} (name one, or unset it for the widest)",
                    available.iter().map(|s| s.name()).collect::<Vec<_>>().join(", ")
                ),
            })
    }

    /// The widest instruction set this CPU has.
    fn widest() -> Self {
        *Self::available().last().unwrap_or(&Self(Isa::Baseline))
    }

    /// Every instruction set this CPU has, narrowest first (the baseline always).
    pub fn available() -> Vec<Self> {
        #[allow(unused_mut)]
        let mut isas = vec![Self(Isa::Baseline)];
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            if has!("avx2") {
                isas.push(Self(Isa::Avx2));
                if has!("avx512f") && has!("avx512vl") && has!("avx512bw") && has!("avx512dq") {
                    isas.push(Self(Isa::Avx512));
                }
            }
        }
        isas
    }

    /// The instruction set (for the dispatch in `moreau_jean_pgs` and the large scene's
    /// `packed`).
    pub(crate) fn isa(self) -> Isa {
        self.0
    }

    /// `baseline`, `avx2` or `avx512`.
    pub fn name(self) -> &'static str {
        match self.0 {
            Isa::Baseline => "baseline",
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => "avx2",
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => "avx512",
        }
    }
}
