//! Physics checks against analytic solutions and conservation laws.

use ricochet::reference::Trajectory;
use ricochet::scenes::{bouncing_ball::BouncingBall, newtons_cradle::NewtonsCradle};

const G: f64 = 9.81;

/// Impact times (the start t_k of the steps with λ > 0) and apex heights (local maxima of
/// z) of a ball run.
fn impacts_and_apexes(trajectory: &Trajectory, h: f64) -> (Vec<f64>, Vec<f64>) {
    let s = &trajectory.samples;
    let impacts = s.iter().filter(|x| x.lambda[0] > 0.0).map(|x| x.t - h).collect();
    let apexes = (1..s.len() - 1)
        .filter(|&k| s[k].v[0] >= 0.0 && s[k + 1].v[0] < 0.0)
        .map(|k| s[k].q[0].max(s[k + 1].q[0]))
        .collect();
    (impacts, apexes)
}

/// Apex heights e^{2n} z₀ and impact times t₁ + Σ_{j<n} 2 eʲ v₁/g of the exact Newton
/// impact solution, t₁ = √(2 z₀/g), v₁ = g t₁. Moreau–Jean with θ = ½ is exact in free
/// flight (constant force). An impact is detected at the first t_k with
/// y_k + ½ h ẏ_k ≤ 0, i.e. within h/2 of the exact time, and each such shift carries over to
/// the later bounces: we allow (n+1)·h on the n-th impact time, and on its apex the height
/// travelled in that time, (n+1)·2 v₁ h, plus the sampling error g h²/8 of the apex.
#[test]
fn bouncing_ball_matches_the_analytic_newton_impact_solution() {
    for (e, z0, h) in [(0.9, 1.0, 1e-3), (0.7, 2.0, 5e-4), (0.5, 1.5, 1e-3)] {
        let ball = BouncingBall {
            restitution: e,
            height: z0,
            step: h,
            ..Default::default()
        };
        let mut trajectory = Trajectory::default();
        ball.simulation().unwrap().run(3.0, &mut trajectory).unwrap();
        let (impacts, apexes) = impacts_and_apexes(&trajectory, h);
        let t1 = (2.0 * z0 / G).sqrt();
        let v1 = G * t1;
        let bounces = impacts.len().min(apexes.len()).min(5);
        assert!(bounces >= 3, "e = {e}: only {bounces} bounces");
        let mut t_exact = t1;
        for n in 0..bounces {
            let apex = z0 * e.powi(2 * (n as i32 + 1));
            let slack = (n + 1) as f64;
            assert!(
                (impacts[n] - t_exact).abs() <= slack * h,
                "e = {e}: impact {n} at {} vs {t_exact}",
                impacts[n]
            );
            assert!(
                (apexes[n] - apex).abs() <= slack * 2.0 * v1 * h + G * h * h / 8.0,
                "e = {e}: apex {n} {} vs {apex}",
                apexes[n]
            );
            t_exact += 2.0 * e.powi(n as i32 + 1) * v1 / G;
        }
    }
}

/// With e ≤ 1 the energy never grows: over 10⁵ steps it stays ≤ E₀ (to rounding), and with
/// e = 1 it is conserved (θ = ½ is exact in free flight and an e = 1 impact keeps |v|).
#[test]
fn no_energy_gain_over_1e5_steps() {
    for e in [0.0, 0.5, 0.9, 1.0] {
        let mut sim = BouncingBall {
            restitution: e,
            ..Default::default()
        }
        .simulation()
        .unwrap();
        let e0 = sim.energy().unwrap();
        let mut max_energy = e0;
        let mut min_energy = e0;
        for _ in 0..100_000 {
            sim.step().unwrap();
            let energy = sim.energy().unwrap();
            max_energy = max_energy.max(energy);
            min_energy = min_energy.min(energy);
        }
        assert!(
            max_energy <= e0 * (1.0 + 1e-9),
            "e = {e}: energy grew from {e0} to {max_energy}"
        );
        if e == 1.0 {
            assert!(
                min_energy >= e0 * (1.0 - 1e-9),
                "e = 1: energy fell from {e0} to {min_energy}"
            );
        }
    }
}

/// A 5-ball cradle with e = 1 conserves momentum and energy, and hands the velocity of the
/// first ball to the last.
#[test]
fn newtons_cradle_hands_the_velocity_to_the_last_ball() {
    let cradle = NewtonsCradle::default();
    let (mut sim, balls) = cradle.simulation().unwrap();
    let (p0, e0) = (cradle.mass * cradle.velocity, sim.energy().unwrap());
    for _ in 0..1_000 {
        sim.step().unwrap();
        let v: Vec<f64> = balls.iter().map(|&b| sim.v(b)[0]).collect();
        let momentum: f64 = v.iter().map(|v| cradle.mass * v).sum();
        assert!((momentum - p0).abs() <= 1e-12, "momentum {momentum} vs {p0}");
        assert!(
            (sim.energy().unwrap() - e0).abs() <= 1e-12 * e0,
            "energy {} vs {e0}",
            sim.energy().unwrap()
        );
    }
    let v: Vec<f64> = balls.iter().map(|&b| sim.v(b)[0]).collect();
    for (i, &vi) in v.iter().enumerate() {
        let expected = if i + 1 == balls.len() { cradle.velocity } else { 0.0 };
        assert!(
            (vi - expected).abs() <= 1e-12,
            "ball {i}: v = {vi}, expected {expected}"
        );
    }
}

/// The impact oscillator with its stop out of reach is the forced undamped oscillator,
/// x(t) = A/(k − mω²)(cos ωt − cos ω_n t) from rest: θ = ½ is second order on it (the
/// harmonic F_ext enters as (1 − θ) F(t_k) + θ F(t_{k+1})), so halving h quarters the error.
#[test]
fn forced_oscillator_follows_its_exact_response_at_second_order() {
    use ricochet::scenes::impact_oscillator::ImpactOscillator;
    let error = |step: f64| {
        let oscillator = ImpactOscillator {
            gap: 100.0,
            step,
            ..Default::default()
        };
        let mut trajectory = Trajectory::default();
        oscillator.simulation().unwrap().run(20.0, &mut trajectory).unwrap();
        assert!(
            trajectory.samples.iter().all(|s| s.lambda[0] == 0.0),
            "the stop is out of reach"
        );
        trajectory
            .samples
            .iter()
            .map(|s| (s.q[0] - oscillator.free_response(s.t)).abs())
            .fold(0.0, f64::max)
    };
    let (coarse, fine) = (error(1e-3), error(5e-4));
    println!("max |x − x_exact| over 20 s: {coarse:.2e} (h = 1e-3), {fine:.2e} (h = 5e-4)");
    assert!(coarse < 1e-5, "{coarse}");
    assert!(
        fine < 0.3 * coarse && fine > 0.2 * coarse,
        "second order: {fine} vs {coarse}"
    );
}

/// Two equal spheres meet obliquely without gravity (SphereSphereR in 3-D, e = 1): momentum
/// is conserved to rounding, and the normal components of the velocities are exchanged while
/// the tangential ones are kept (the exact frictionless collision), up to the turn of the
/// normal within the impact step, at most |v| h / 2R (5e-4 rad here).
#[test]
fn oblique_collision_of_two_spheres_exchanges_the_normal_velocities() {
    use nalgebra::{DMatrix, DVector, Vector3};
    use ricochet::model::{DsId, LagrangianLinearTIDS, NewtonImpactNSL, Nsds, SphereSphereR};
    use ricochet::reference::{Integrator, TimeStepping};
    use ricochet::scheme::moreau_jean::MoreauJeanOSI;
    let (r, h) = (0.1, 1e-4);
    let sphere = |x: [f64; 3], v: [f64; 3]| {
        LagrangianLinearTIDS::new(
            DVector::from_column_slice(&x),
            DVector::from_column_slice(&v),
            DMatrix::identity(3, 3),
        )
        .unwrap()
    };
    let mut nsds = Nsds::new();
    // Sphere 1 rests; sphere 0 comes along x with an impact parameter b = 0.1 in y.
    let a = nsds.add("a", sphere([-0.5, 0.0, 0.0], [1.0, 0.0, 0.0]));
    let b = nsds.add("b", sphere([0.0, 0.1, 0.05], [0.0, 0.0, 0.0]));
    nsds.link(
        "contact",
        NewtonImpactNSL::new(1.0).unwrap(),
        SphereSphereR::new(3, [3, 3], 2.0 * r).unwrap(),
        &[a, b],
    )
    .unwrap();
    let mut sim = TimeStepping::new(nsds, Integrator::MoreauJean(MoreauJeanOSI::default()), 0.0, h).unwrap();
    let mut normal = None;
    for _ in 0..8000 {
        let before = (sim.q(DsId(0)), sim.q(DsId(1)));
        sim.step().unwrap();
        if normal.is_none() && sim.lambda()[0] > 0.0 {
            let d = &before.1 - &before.0;
            normal = Some(Vector3::new(d[0], d[1], d[2]).normalize());
        }
    }
    let n = normal.expect("the spheres collide");
    let (va, vb) = (sim.v(DsId(0)), sim.v(DsId(1)));
    let (va, vb) = (Vector3::new(va[0], va[1], va[2]), Vector3::new(vb[0], vb[1], vb[2]));
    let momentum = va + vb - Vector3::new(1.0, 0.0, 0.0);
    assert!(momentum.amax() < 1e-12, "momentum {momentum}");
    let v0 = Vector3::new(1.0, 0.0, 0.0);
    let (exact_a, exact_b) = (v0 - n * n.dot(&v0), n * n.dot(&v0));
    let error = (va - exact_a).amax().max((vb - exact_b).amax());
    println!("normal {:?}, velocity error {error:.1e}", n.as_slice());
    let turn = 1.0 * h / (2.0 * r);
    assert!(error < turn, "{error}");
    assert!(((va.norm_squared() + vb.norm_squared()) - 1.0).abs() < 2.0 * turn);
}
