//! The instruction set the lane groups run on, picked at run time: the binary is built for
//! any x86-64 (or any other target) and the stepper's hot loop is compiled a second time for
//! AVX2, which it takes when the CPU has it. Rust never contracts a·b + c into an FMA on its
//! own and every lane operation is IEEE, so both paths give the same bits (a test compares
//! them).
//!
//! AVX-512 is not compiled: measured on the development machine's AMD EPYC with 8 lanes, the
//! stepper ran slower with it than with AVX2 (balls: 1.8·10⁸ against 2.7·10⁸ scene-steps/s on
//! 2 threads; cradles 7.8·10⁷ against 8.6·10⁷), its masks going through k-registers. It was
//! not measured again with 16 lanes.

/// An instruction set this CPU has, for the stepper's lanes. Only [`Simd::detect`] and
/// [`Simd::available`] make one, so a `Simd` is always safe to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Simd(Isa);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Isa {
    /// The target's baseline (SSE2 on x86-64).
    Baseline,
    /// AVX2 (256-bit vectors).
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Simd {
    /// The widest instruction set this CPU has.
    pub fn detect() -> Self {
        *Self::available().last().unwrap_or(&Self(Isa::Baseline))
    }

    /// Every instruction set this CPU has, narrowest first (the baseline always).
    pub fn available() -> Vec<Self> {
        #[allow(unused_mut)]
        let mut isas = vec![Self(Isa::Baseline)];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                isas.push(Self(Isa::Avx2));
            }
        }
        isas
    }

    /// The instruction set (for the dispatch in `moreau_jean_pgs` and the large scene's
    /// `packed`).
    pub(crate) fn isa(self) -> Isa {
        self.0
    }

    /// `baseline` or `avx2`.
    pub fn name(self) -> &'static str {
        match self.0 {
            Isa::Baseline => "baseline",
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => "avx2",
        }
    }
}
