//! The instruction set the lane groups run on, picked at run time: the binary is built for
//! any x86-64 (or any other target) and the stepper's hot loop is compiled a second and a
//! third time for AVX2 and AVX-512, which it takes when the CPU has them. Rust never contracts
//! a·b + c into an FMA on its own and every lane operation is IEEE, so all paths give the same
//! bits (a test compares them).

/// An instruction set this CPU has, for the stepper's lanes. Only [`Simd::detect`] and
/// [`Simd::available`] make one, so a `Simd` is always safe to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Simd(pub(super) Isa);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Isa {
    /// The target's baseline (SSE2 on x86-64).
    Baseline,
    /// AVX2 (256-bit vectors).
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// AVX-512 F/VL/DQ (512-bit vectors).
    #[cfg(target_arch = "x86_64")]
    Avx512,
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
            if std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512vl")
                && std::arch::is_x86_feature_detected!("avx512dq")
            {
                isas.push(Self(Isa::Avx512));
            }
        }
        isas
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
