//! Three-vectors as `[T; 3]`, each operation in one fixed order (the kernels' `dot3`,
//! `cross3`, `unit`, `ortho_tangent`), so that a twin and its kernel round alike.

use num_traits::Float;

/// a·b summed in order, (a₀b₀ + a₁b₁) + a₂b₂ (the kernel's `dot3`).
#[inline(always)]
pub fn dot<T: Float>(a: [T; 3], b: [T; 3]) -> T {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// d / ‖d‖ (zero when d is).
#[inline(always)]
pub fn unit<T: Float>(d: [T; 3]) -> [T; 3] {
    let norm = dot(d, d).sqrt();
    if norm > T::zero() {
        d.map(|x| x / norm)
    } else {
        [T::zero(); 3]
    }
}

/// u × w.
#[inline(always)]
pub fn cross<T: Float>(u: [T; 3], w: [T; 3]) -> [T; 3] {
    [
        u[1] * w[2] - u[2] * w[1],
        u[2] * w[0] - u[0] * w[2],
        u[0] * w[1] - u[1] * w[0],
    ]
}

/// Tangent k (0 or 1) of the frame of a unit normal n, as `model::ortho_base_from_vector`
/// (Siconos's
/// `orthoBaseFromVector`; Frisvad, JGT 16, 2012, as revised by Duff et al., JCGT 6(1), 2017;
/// the kernel's `ortho_tangent`).
#[inline(always)]
pub fn ortho_tangent<T: Float>(n: [T; 3], k: usize) -> [T; 3] {
    let one = T::one();
    let s = if n[2] >= T::zero() { one } else { -one };
    let a = -one / (s + n[2]);
    let b = n[0] * n[1] * a;
    if k == 0 {
        [one + s * n[0] * n[0] * a, s * b, -(s * n[0])]
    } else {
        [b, s + n[1] * n[1] * a, -n[1]]
    }
}
