//! Exact physics with Coulomb friction on the reference engine: the block on an incline
//! (sticking or sliding with the exact piecewise-constant acceleration), a spinning ball
//! landing on a rough floor (the rigid-body impulse), a rocking block (Housner's ratio), the
//! Coulomb cone at every step, and no energy gained.

use nalgebra::{DMatrix, DVector};
use ricochet::model::{LagrangianLinearTIDS, LagrangianLinearTIR, LagrangianScleronomousR, NewtonImpactFrictionNSL, Nsds};
use ricochet::reference::{Integrator, TimeStepping};
use ricochet::scenes::block_on_incline::BlockOnIncline;
use ricochet::scheme::moreau_jean::MoreauJeanOSI;

/// ‖λ_T‖ ≤ μ λ_N (to rounding) for every contact of size `d` in `lambda`.
fn in_cone(lambda: &DVector<f64>, d: usize, mu: f64) -> bool {
    lambda.as_slice().chunks(d).all(|r| {
        let t = r[1..].iter().map(|x| x * x).sum::<f64>().sqrt();
        r[0] >= 0.0 && t <= mu * r[0] * (1.0 + 1e-12) + 1e-15
    })
}

#[test]
fn block_on_incline_sticks_or_slides_exactly() {
    for (incline, friction, velocity) in [
        (0.5, 0.3, 2.0),  // slides up, stops, slides back down
        (0.2, 0.5, 2.0),  // slides up, stops, sticks (tan α ≤ μ)
        (0.5, 0.3, -1.0), // slides down, accelerating
        (0.2, 0.5, -1.0), // slides down, decelerating, sticks
        (0.0, 0.4, 1.0),  // horizontal: decelerates at μ g, sticks
        (0.3, 0.0, 1.0),  // frictionless
    ] {
        let block = BlockOnIncline {
            incline,
            friction,
            velocity,
            ..Default::default()
        };
        let (t, _) = block.frame();
        let mut sim = block.simulation().unwrap();
        let h = block.step;
        let g = block.gravity;
        let along = |x: &DVector<f64>| t[0] * x[0] + t[1] * x[1];
        let mut max = (0.0f64, 0.0f64);
        for _ in 0..2000 {
            sim.step().unwrap();
            let s = sim.sample().unwrap();
            let (s_exact, v_exact) = block.exact(s.t);
            // Within one step's error: the velocity by one step of the largest acceleration,
            // the position by one step of the largest speed.
            let (dv, ds) = ((along(&s.v) - v_exact).abs(), (along(&s.q) - s_exact).abs());
            max = (max.0.max(dv), max.1.max(ds));
            assert!(dv <= 1.5 * g * (1.0 + friction) * h, "{incline} {friction} {velocity}: t = {} v error {dv}", s.t);
            assert!(ds <= 2.0 * (velocity.abs() + g * s.t) * h, "{incline} {friction} {velocity}: t = {} s error {ds}", s.t);
            assert!(in_cone(&s.lambda, 2, friction), "{incline} {friction} {velocity}: λ = {}", s.lambda);
        }
        let sticks = incline.tan() <= friction;
        let v_end = along(&sim.sample().unwrap().v);
        if sticks {
            assert!(v_end.abs() < 1e-12, "{incline} {friction} {velocity}: sticks, v = {v_end}");
        }
        println!("incline {incline} μ {friction} v₀ {velocity}: max |Δv| {:.2e}, max |Δs| {:.2e}", max.0, max.1);
    }
}

/// A solid sphere (q = (x, y, z, φ_x, φ_y, φ_z), v = (v, ω), M = diag(m, m, m, I, I, I),
/// I = ⅖ m R²) above the floor z = 0: one 3-D friction contact whose rows are the normal and
/// the contact point's velocity (v_x − R ω_y, v_y + R ω_x).
fn sphere(radius: f64, q0: [f64; 6], v0: [f64; 6], e_n: f64, mu: f64) -> TimeStepping {
    let (m, inertia) = (1.0, 0.4 * radius * radius);
    let mass = DMatrix::from_diagonal(&DVector::from_vec(vec![m, m, m, inertia, inertia, inertia]));
    let ball = LagrangianLinearTIDS::new(DVector::from_column_slice(&q0), DVector::from_column_slice(&v0), mass)
        .unwrap()
        .with_fext(DVector::from_vec(vec![0.0, 0.0, -9.81 * m, 0.0, 0.0, 0.0]))
        .unwrap();
    let mut nsds = Nsds::new();
    let ball = nsds.add("ball", ball);
    #[rustfmt::skip]
    let rows = DMatrix::from_row_slice(3, 6, &[
        0.0, 0.0, 1.0, 0.0, 0.0, 0.0,
        1.0, 0.0, 0.0, 0.0, -radius, 0.0,
        0.0, 1.0, 0.0, radius, 0.0, 0.0,
    ]);
    let floor = LagrangianLinearTIR::with_offset(rows, DVector::from_vec(vec![-radius, 0.0, 0.0])).unwrap();
    let law = NewtonImpactFrictionNSL::new(e_n, 0.0, mu, 3).unwrap();
    nsds.link("floor", law, floor, &[ball]).unwrap();
    TimeStepping::new(nsds, Integrator::MoreauJean(MoreauJeanOSI::default()), 0.0, 1e-3).unwrap()
}

/// A ball with backspin landing on a floor with large μ and e_T = 0: its contact sticks, and
/// (with ω counted so that the contact point slides at v_t + R ω, here ω = −ω_y)
/// v_t⁺ = (5/7) v_t⁻ − (2/7) R ω⁻ and v_t⁺ + R ω⁺ = 0; the normal velocity is reversed by e_N.
#[test]
fn spinning_ball_lands_with_the_rigid_body_impulse() {
    let radius = 0.1;
    for (vx, omega, e_n) in [(1.0, 20.0, 0.8), (2.0, -5.0, 0.5), (-1.0, 40.0, 0.0)] {
        let mut sim = sphere(radius, [0.0, 0.0, 0.5, 0.0, 0.0, 0.0], [vx, 0.0, 0.0, 0.0, -omega, 0.0], e_n, 10.0);
        let mut before = sim.sample().unwrap();
        let after = loop {
            sim.step().unwrap();
            let s = sim.sample().unwrap();
            if s.lambda[0] > 0.0 {
                break s;
            }
            before = s;
        };
        let (vt, w) = (before.v[0], -before.v[4]);
        let (vt_after, w_after) = (after.v[0], -after.v[4]);
        assert!((vt_after - (5.0 / 7.0 * vt - 2.0 / 7.0 * radius * w)).abs() < 1e-12, "v_t⁺ = {vt_after}");
        assert!((vt_after + radius * w_after).abs() < 1e-12, "rolling: {}", vt_after + radius * w_after);
        assert!((after.v[2] + e_n * before.v[2]).abs() < 1e-12, "v_z⁺ = {}", after.v[2]);
        assert!(after.v[1].abs() < 1e-15 && after.v[3].abs() < 1e-15, "no sideways motion");
    }
}

/// With friction and e ≤ 1 no energy is gained (½ vᵀMv + m g z never exceeds its initial
/// value): 10⁵ steps of a spinning ball bouncing to rest and rolling, on a floor that lets it
/// slide (μ = 0.2) or not. (Single steps may gain a little: an impact step activated on the
/// predicted gap moves the ball with the mean of the velocities before and after, as
/// Moreau–Jean does without friction too.)
#[test]
fn friction_gains_no_energy() {
    for (mu, e_n) in [(0.2, 0.9), (10.0, 1.0), (0.05, 0.0), (0.0, 0.9)] {
        let mut sim = sphere(0.1, [0.0, 0.0, 0.3, 0.0, 0.0, 0.0], [1.0, 0.5, 0.0, 3.0, -30.0, 1.0], e_n, mu);
        let e0 = sim.energy().unwrap();
        let (mut last, mut max_gain) = (e0, 0.0f64);
        for k in 0..100_000 {
            sim.step().unwrap();
            let e = sim.energy().unwrap();
            assert!(e <= e0 * (1.0 + 1e-12), "μ {mu} e {e_n}: step {k} has {e} > {e0}");
            assert!(in_cone(sim.lambda(), 3, mu), "μ {mu}: λ = {}", sim.lambda());
            max_gain = max_gain.max(e - last);
            last = e;
        }
        assert!(last < e0, "μ {mu} e {e_n}: it dissipates");
        println!("μ {mu} e_N {e_n}: E₀ {e0:.6}, E(100 s) {last:.6}, largest gain in one step {max_gain:.2e}");
    }
}
