//! The Coulomb cone K = {‖r_T‖ ≤ μ r_N} of one contact (2-D: one tangent, 3-D: two): its
//! projection and the contact's natural-map error.

/// Siconos's `projectionOnCone`: with N_T = ‖r_T‖,
/// ```text
///     μ N_T ≤ −r_N     →  r = 0                                  (the polar cone)
///     N_T ≤ μ r_N      →  r unchanged                            (inside K)
///     otherwise        →  r_N ← (μ N_T + r_N)/(μ² + 1),  r_T ← μ r_N r_T / N_T
/// ```
/// (in 2-D N_T = |r_T|, so r_T ← μ r_N sign r_T).
pub fn project(r: &mut [f64], mu: f64) {
    let (normal, tangent) = r.split_first_mut().expect("a contact has a normal component");
    let nt = tangent.iter().map(|t| t * t).sum::<f64>().sqrt();
    if mu * nt <= -*normal {
        *normal = 0.0;
        tangent.fill(0.0);
    } else if nt > mu * *normal {
        *normal = (mu * nt + *normal) / (mu * mu + 1.0);
        let scale = mu * *normal / nt;
        tangent.iter_mut().for_each(|t| *t *= scale);
    }
}

/// ‖r_T‖ − μ r_N: how far r lies outside the cone K (≤ 0 inside it).
pub fn violation(r: &[f64], mu: f64) -> f64 {
    let tangent = if r.len() == 2 {
        r[1].abs()
    } else {
        r[1..].iter().map(|t| t * t).sum::<f64>().sqrt()
    };
    tangent - mu * r[0]
}

/// The squared natural-map error of one contact: ‖r − P_K(r − û)‖² with
/// û = u + (μ ‖u_T‖, 0, 0) (Siconos's `fc3d_unitary_compute_and_add_error`).
pub fn natural_map_error(r: &[f64], u: &[f64], mu: f64) -> f64 {
    let mut t = [0.0; 3];
    let d = r.len();
    let ut = u[1..].iter().map(|x| x * x).sum::<f64>().sqrt();
    t[0] = r[0] - (u[0] + mu * ut);
    for k in 1..d {
        t[k] = r[k] - u[k];
    }
    project(&mut t[..d], mu);
    (0..d).map(|k| (r[k] - t[k]).powi(2)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn projection_onto_the_cone() {
        let mu = 0.5;
        // Inside: unchanged.
        let mut r = [1.0, 0.3, -0.2];
        project(&mut r, mu);
        assert_eq!(r, [1.0, 0.3, -0.2]);
        // In the polar cone: 0.
        let mut r = [-1.0, 0.1, 0.0];
        project(&mut r, mu);
        assert_eq!(r, [0.0, 0.0, 0.0]);
        // Outside both: onto the boundary, and the step is normal to it.
        let mut r = [1.0, 3.0, 4.0];
        project(&mut r, mu);
        let nt = (r[1] * r[1] + r[2] * r[2]).sqrt();
        assert!((nt - mu * r[0]).abs() < 1e-15);
        assert!((r[0] - (mu * 5.0 + 1.0) / 1.25).abs() < 1e-15);
        let step = [1.0 - r[0], 3.0 - r[1], 4.0 - r[2]];
        // The step is orthogonal to the cone's generator through r: (1, μ t̂) with t̂ = (0.6, 0.8).
        let generator = [1.0, mu * 0.6, mu * 0.8];
        let dot: f64 = step.iter().zip(generator).map(|(a, b)| a * b).sum();
        assert!(dot.abs() < 1e-14, "{dot}");
        // 2-D.
        let mut r = [1.0, -2.0];
        project(&mut r, mu);
        assert!((r[1] + mu * r[0]).abs() < 1e-15);
    }

    #[test]
    fn natural_map_is_zero_at_solutions() {
        let mu = 0.3;
        // Sticking: u = 0, r inside.
        assert_eq!(natural_map_error(&[1.0, 0.1, 0.1], &[0.0, 0.0, 0.0], mu), 0.0);
        // Sliding: r_T = −μ r_N u_T/‖u_T‖, u_N = 0.
        let r = [2.0, -0.6 * 0.6, -0.6 * 0.8];
        assert!(natural_map_error(&r, &[0.0, 0.6, 0.8], mu) < 1e-30);
        // Separating: r = 0, u_N > 0.
        assert_eq!(natural_map_error(&[0.0, 0.0, 0.0], &[1.0, 5.0, 0.0], mu), 0.0);
        // Not a solution: sliding with the friction along the motion.
        assert!(natural_map_error(&[2.0, 0.6, 0.0], &[0.0, 1.0, 0.0], mu) > 0.1);
    }
}
