//! `Lanes<T, L>`: L values stepped in lockstep — the CPU's stand-in for the GPU's
//! invocations. The arithmetic is element-wise on fixed-size arrays, which the compiler turns
//! into SIMD instructions; branches become masks and selects.

use std::ops::{Add, Div, Mul, Neg, Sub};

use num_traits::Float;

/// Scenes stepped together in the lanes of one group of the batched stepper. 16 (four AVX2
/// registers of f64) was measured fastest: on balls (2 threads, AVX2) 4, 8, 16 and 32 lanes
/// stepped 2.5·10⁸, 2.6·10⁸, 4.0–4.4·10⁸ and 2.3·10⁸ scene-steps/s; cradles, bead columns and
/// dumbbells +10 to +35 % over 8; pendulums and disc piles equal.
pub const LANES: usize = 16;

/// `[f(0), …, f(L − 1)]` over an array of `init`: `std::array::from_fn` as a plain loop,
/// always inlined. `from_fn` was at times left out of line in the large stages: a call
/// compiled for the baseline instruction set, whose result went back through the stack. For
/// the lanes' hot paths.
#[inline(always)]
pub fn lanewise<T: Copy, const L: usize>(init: T, mut f: impl FnMut(usize) -> T) -> [T; L] {
    let mut out = [init; L];
    for (l, x) in out.iter_mut().enumerate() {
        *x = f(l);
    }
    out
}

/// One boolean per lane.
pub type Mask<const L: usize> = [bool; L];

/// L values of `T`, one per lane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lanes<T, const L: usize>(pub [T; L]);

impl<T: Float, const L: usize> Lanes<T, L> {
    /// `x` in every lane.
    #[inline(always)]
    pub fn splat(x: T) -> Self {
        Self([x; L])
    }

    /// Zero in every lane.
    #[inline(always)]
    pub fn zero() -> Self {
        Self::splat(T::zero())
    }

    /// The lane-wise maximum.
    #[inline(always)]
    pub fn max(self, other: Self) -> Self {
        Self(lanewise(T::zero(), |l| self.0[l].max(other.0[l])))
    }

    /// The lane-wise minimum.
    #[inline(always)]
    pub fn min(self, other: Self) -> Self {
        Self(lanewise(T::zero(), |l| self.0[l].min(other.0[l])))
    }

    /// The lane-wise absolute value.
    #[inline(always)]
    pub fn abs(self) -> Self {
        Self(lanewise(T::zero(), |l| self.0[l].abs()))
    }

    /// The lane-wise square root.
    #[inline(always)]
    pub fn sqrt(self) -> Self {
        Self(lanewise(T::zero(), |l| self.0[l].sqrt()))
    }

    /// `self ≤ other` per lane (false where either is NaN).
    #[inline(always)]
    pub fn le(self, other: Self) -> Mask<L> {
        lanewise(false, |l| self.0[l] <= other.0[l])
    }

    /// `self > other` per lane (false where either is NaN).
    #[inline(always)]
    pub fn gt(self, other: Self) -> Mask<L> {
        lanewise(false, |l| self.0[l] > other.0[l])
    }

    /// `if mask { a } else { b }` per lane.
    #[inline(always)]
    pub fn select(mask: Mask<L>, a: Self, b: Self) -> Self {
        Self(lanewise(T::zero(), |l| if mask[l] { a.0[l] } else { b.0[l] }))
    }
}

macro_rules! lane_wise {
    ($trait:ident, $method:ident, $op:tt) => {
        impl<T: Float, const L: usize> $trait for Lanes<T, L> {
            type Output = Self;
            #[inline(always)]
            fn $method(self, other: Self) -> Self {
                Self(lanewise(T::zero(), |l| self.0[l] $op other.0[l]))
            }
        }
    };
}
lane_wise!(Add, add, +);
lane_wise!(Sub, sub, -);
lane_wise!(Mul, mul, *);
lane_wise!(Div, div, /);

/// The lane-wise negation −x (exact: −(+0) = −0).
impl<T: Float, const L: usize> Neg for Lanes<T, L> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        Self(lanewise(T::zero(), |l| -self.0[l]))
    }
}

/// `a && b` per lane.
#[inline(always)]
pub fn and<const L: usize>(a: Mask<L>, b: Mask<L>) -> Mask<L> {
    lanewise(false, |l| a[l] & b[l])
}

/// Whether some lane is set (every lane read: no early exit, so that it stays in vectors).
#[inline(always)]
pub fn any<const L: usize>(mask: Mask<L>) -> bool {
    mask.iter().fold(0u8, |a, &b| a | u8::from(b)) != 0
}

/// Whether every lane is set (every lane read, as [`any`]).
#[inline(always)]
pub fn all<const L: usize>(mask: Mask<L>) -> bool {
    mask.iter().fold(1u8, |a, &b| a & u8::from(b)) != 0
}

/// `a && !b` per lane.
#[inline(always)]
pub fn and_not<const L: usize>(a: Mask<L>, b: Mask<L>) -> Mask<L> {
    lanewise(false, |l| a[l] & !b[l])
}
