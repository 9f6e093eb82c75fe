//! Exact physics with Coulomb friction on the reference engine: the block on an incline
//! (sticking or sliding with the exact piecewise-constant acceleration), a spinning ball
//! landing on a rough floor (the rigid-body impulse), a rocking block (Housner's ratio), the
//! Coulomb cone at every step, and no energy gained.

use crate::common;

use nalgebra::{DMatrix, DVector};
use ricochet::batch::cpu::moreau_jean_pgs::{BatchState, run};
use ricochet::batch::{BatchOptions, LinearScene, RowKind, SceneBatch};
use ricochet::model::{EqualityConditionNSL, LagrangianLinearTIDS, LagrangianLinearTIR, NewtonImpactFrictionNSL, Nsds};
use ricochet::reference::{Integrator, TimeStepping};
use ricochet::scenes::block_on_incline::BlockOnIncline;
use ricochet::scenes::disc_pile::DiscPile;
use ricochet::scenes::rocking_block::RockingBlock;
use ricochet::scenes::spinning_ball::SpinningBall;
use ricochet::scenes::woodpecker::Woodpecker;
use ricochet::scheme::Stabilization;
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
        let mut sim = block.simulation().unwrap();
        let h = block.step;
        let g = block.gravity;
        let along = |x: &DVector<f64>| x[0];
        let mut max = (0.0f64, 0.0f64);
        for _ in 0..2000 {
            sim.step().unwrap();
            let s = sim.sample().unwrap();
            let (s_exact, v_exact) = block.exact(s.t);
            // Within one step's error: the velocity by one step of the largest acceleration,
            // the position by one step of the largest speed.
            let (dv, ds) = ((along(&s.v) - v_exact).abs(), (along(&s.q) - s_exact).abs());
            max = (max.0.max(dv), max.1.max(ds));
            assert!(
                dv <= 1.5 * g * (1.0 + friction) * h,
                "{incline} {friction} {velocity}: t = {} v error {dv}",
                s.t
            );
            assert!(
                ds <= 2.0 * (velocity.abs() + g * s.t) * h,
                "{incline} {friction} {velocity}: t = {} s error {ds}",
                s.t
            );
            assert!(
                in_cone(&s.lambda, 2, friction),
                "{incline} {friction} {velocity}: λ = {}",
                s.lambda
            );
        }
        let sticks = incline.tan() <= friction;
        let v_end = along(&sim.sample().unwrap().v);
        if sticks {
            assert!(
                v_end.abs() < 1e-12,
                "{incline} {friction} {velocity}: sticks, v = {v_end}"
            );
        }
        println!(
            "incline {incline} μ {friction} v₀ {velocity}: max |Δv| {:.2e}, max |Δs| {:.2e}",
            max.0, max.1
        );
    }
}

/// The spinning ball (R, initial height, v, ω, e_N, μ; e_T = 0).
fn sphere(radius: f64, q0: [f64; 6], v0: [f64; 6], e_n: f64, mu: f64) -> TimeStepping {
    SpinningBall {
        radius,
        height: q0[2],
        velocity: [v0[0], v0[1], v0[2]],
        spin: [v0[3], v0[4], v0[5]],
        restitution: e_n,
        friction: mu,
        ..Default::default()
    }
    .simulation()
    .unwrap()
}

/// A ball with backspin landing on a floor with large μ and e_T = 0: its contact sticks, and
/// (with ω counted so that the contact point slides at v_t + R ω, here ω = −ω_y)
/// v_t⁺ = (5/7) v_t⁻ − (2/7) R ω⁻ and v_t⁺ + R ω⁺ = 0; the normal velocity is reversed by e_N.
#[test]
fn spinning_ball_lands_with_the_rigid_body_impulse() {
    let radius = 0.1;
    for (vx, omega, e_n) in [(1.0, 20.0, 0.8), (2.0, -5.0, 0.5), (-1.0, 40.0, 0.0)] {
        let mut sim = sphere(
            radius,
            [0.0, 0.0, 0.5, 0.0, 0.0, 0.0],
            [vx, 0.0, 0.0, 0.0, -omega, 0.0],
            e_n,
            10.0,
        );
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
        assert!(
            (vt_after - (5.0 / 7.0 * vt - 2.0 / 7.0 * radius * w)).abs() < 1e-12,
            "v_t⁺ = {vt_after}"
        );
        assert!(
            (vt_after + radius * w_after).abs() < 1e-12,
            "rolling: {}",
            vt_after + radius * w_after
        );
        assert!((after.v[2] + e_n * before.v[2]).abs() < 1e-12, "v_z⁺ = {}", after.v[2]);
        assert!(
            after.v[1].abs() < 1e-15 && after.v[3].abs() < 1e-15,
            "no sideways motion"
        );
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
        let mut sim = sphere(
            0.1,
            [0.0, 0.0, 0.3, 0.0, 0.0, 0.0],
            [1.0, 0.5, 0.0, 3.0, -30.0, 1.0],
            e_n,
            mu,
        );
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

/// A block rocking on its left corner falls back onto the right one: with e_N = 0 and no
/// sliding the impact multiplies the angular velocity by Housner's ratio 1 − (3/2) sin² α_b
/// (to the step's gravity impulse), the new corner sticks and the old one lifts.
#[test]
fn rocking_block_loses_housners_ratio_at_each_impact() {
    for (width, height) in [(0.2, 0.6), (0.3, 0.45), (0.1, 1.0)] {
        let block = RockingBlock {
            width,
            height,
            step: 1e-5,
            ..Default::default()
        };
        let block = RockingBlock {
            tilt: 0.5 * block.slenderness(),
            ..block
        };
        let mut sim = block.simulation().unwrap();
        let mut before = sim.sample().unwrap();
        let after = loop {
            sim.step().unwrap();
            let s = sim.sample().unwrap();
            assert!(in_cone(&s.lambda, 2, block.friction));
            if s.lambda[2] > 0.0 {
                break s;
            }
            before = s;
        };
        let ratio = after.v[2] / before.v[2];
        assert!(
            (ratio - block.housner_ratio()).abs() < 1e-3,
            "{width}×{height}: ω⁺/ω⁻ = {ratio}, Housner {}",
            block.housner_ratio()
        );
        // Rotating about the right corner: its velocity is zero (to the Newton loop's
        // tolerance: ẏ is G(q_{k+1}) v_{k+1}), the left corner rises.
        let right = after.ydot.rows(2, 2);
        assert!(right.norm() < 1e-5 * before.v.norm(), "right corner moves: {right}");
        assert!(after.ydot[0] > 0.0 && after.lambda[0] == 0.0, "left corner lifts");
        println!(
            "{width}×{height}: ω⁺/ω⁻ = {ratio:.6}, Housner {:.6}",
            block.housner_ratio()
        );
    }
}

/// Two balls joined by a rigid rod (two equality rows) stand on the floor, the lower one in
/// friction contact, launched sideways: the step's problem mixes the equalities with the
/// friction contact (block NSGS). The pair slides as one body under the whole weight,
/// decelerating at μ g until it sticks, the rod held.
#[test]
fn rod_and_friction_contact_in_one_problem() {
    let (m0, m1, radius, length, mu, g, v0, h) = (1.0, 2.0, 0.1, 0.5, 0.3, 9.81, 1.5, 1e-3);
    let ball = |x: f64, z: f64, m: f64| {
        LagrangianLinearTIDS::new(
            DVector::from_vec(vec![x, z]),
            DVector::from_vec(vec![v0, 0.0]),
            DMatrix::identity(2, 2) * m,
        )
        .unwrap()
        .with_fext(DVector::from_vec(vec![0.0, -m * g]))
        .unwrap()
    };
    let mut nsds = Nsds::new();
    let lower = nsds.add("lower", ball(0.0, radius, m0));
    let upper = nsds.add("upper", ball(0.0, radius + length, m1));
    #[rustfmt::skip]
    let rod = LagrangianLinearTIR::with_offset(
        DMatrix::from_row_slice(2, 4, &[-1.0, 0.0, 1.0, 0.0, 0.0, -1.0, 0.0, 1.0]),
        DVector::from_vec(vec![0.0, -length]),
    )
    .unwrap();
    nsds.link("rod", EqualityConditionNSL::new(2).unwrap(), rod, &[lower, upper])
        .unwrap();
    let floor = LagrangianLinearTIR::with_offset(
        DMatrix::from_row_slice(2, 2, &[0.0, 1.0, 1.0, 0.0]),
        DVector::from_vec(vec![-radius, 0.0]),
    )
    .unwrap();
    nsds.link(
        "floor",
        NewtonImpactFrictionNSL::new(0.0, 0.0, mu, 2).unwrap(),
        floor,
        &[lower],
    )
    .unwrap();
    let mut sim = TimeStepping::new(nsds, Integrator::MoreauJean(MoreauJeanOSI::default()), 0.0, h).unwrap();
    let mut normal = 0.0;
    for _ in 0..1000 {
        sim.step().unwrap();
        let s = sim.sample().unwrap();
        let exact = (v0 - mu * g * s.t).max(0.0);
        assert!(
            (s.v[0] - exact).abs() <= 1.5 * mu * g * h,
            "t = {}: v = {} vs {exact}",
            s.t,
            s.v[0]
        );
        assert!(
            (s.v[2] - s.v[0]).abs() < 1e-12 && (s.v[3] - s.v[1]).abs() < 1e-12,
            "the rod holds"
        );
        assert!((s.q[3] - s.q[1] - length).abs() < 1e-12 && (s.q[2] - s.q[0]).abs() < 1e-12);
        assert!(
            (s.q[1] - radius).abs() <= 1.01 * g * h * h,
            "on the floor: {}",
            s.q[1] - radius
        );
        // λ: rod (2 rows), then the floor contact (normal, tangent).
        assert!(in_cone(&s.lambda.rows(2, 2).into_owned(), 2, mu));
        // The floor carries both balls: Σ λ_N = (m₀ + m₁) g t, to one step's impulse (the
        // contact may sit out a step when round-off puts the ball a hair above the floor; the
        // next step's impulse makes up for it).
        normal += s.lambda[2];
        assert!(
            (normal - (m0 + m1) * g * s.t).abs() <= (m0 + m1) * g * h * (1.0 + 1e-9),
            "t = {}: Σλ_N = {normal}",
            s.t
        );
    }
}

/// A disc launched sideways without spin on a rough floor slides, spins up and ends rolling
/// at 2/3 of its speed (I = ½ m R²: m v_x − (I/R) ω is conserved by the friction impulses), to
/// rounding, whatever μ.
#[test]
fn sliding_disc_ends_rolling_at_two_thirds() {
    for mu in [0.1, 0.5, 2.0] {
        let mut pile = DiscPile::column(1, 0.0);
        pile.centres[0] = [0.2, pile.radius];
        pile.velocities[0] = [1.5, 0.0];
        pile.friction = mu;
        pile.restitution = 0.0;
        // Room to roll.
        pile.width = 10.0;
        let mut sim = pile.simulation().unwrap();
        for _ in 0..1000 {
            sim.step().unwrap();
            assert!(in_cone(sim.lambda(), 2, mu));
        }
        let s = sim.sample().unwrap();
        assert!((s.v[0] - 1.0).abs() < 1e-12, "μ {mu}: v = {}", s.v[0]);
        assert!((s.v[0] + pile.radius * s.v[2]).abs() < 1e-12, "μ {mu}: rolling");
    }
}

/// A pile of rough rotating discs falls into its box: energy never above its start (and most
/// of it gone after 4 s), every contact in its cone, the discs in the box. (Rough discs may
/// keep rolling on the floor: nothing resists rolling.)
#[test]
fn rough_disc_pile_settles() {
    let mut pile = DiscPile::column(4, 0.05);
    pile.friction = 0.4;
    let mut sim = pile.simulation().unwrap();
    let e0 = sim.energy().unwrap();
    for _ in 0..4000 {
        sim.step().unwrap();
        assert!(sim.energy().unwrap() <= e0 * (1.0 + 1e-12));
        assert!(in_cone(sim.lambda(), 2, 0.4));
    }
    let s = sim.sample().unwrap();
    let potential_drop = e0 - sim.energy().unwrap();
    assert!(potential_drop > 0.5 * e0, "E₀ {e0}, E {}", sim.energy().unwrap());
    for i in 0..4 {
        assert!(
            s.q[3 * i + 1] > 0.09 && s.q[3 * i] > 0.09 && s.q[3 * i] < 0.91,
            "disc {i} in the box"
        );
    }
}

/// The batched CPU lanes reproduce Siconos's Woodpecker.ref (friction contacts solved inside
/// the PGS sweep by the dense NSGS's 2-D case analysis; one contact active at a time), one
/// step per run, as the reference stepper does.
#[test]
fn cpu_lanes_reproduce_the_woodpecker() {
    let Some(dir) = common::siconos_data() else {
        return;
    };
    let reference = ricochet::io::siconos::read_ref(&dir.join("tutorials-ref/Woodpecker.ref")).unwrap();
    let woodpecker = Woodpecker::default();
    let scene = LinearScene::from_nsds(&woodpecker.nsds().unwrap(), woodpecker.step, 0.5, Stabilization::None).unwrap();
    let mut batch = SceneBatch::new(woodpecker.step, MoreauJeanOSI::default()).unwrap();
    batch.push(&scene).unwrap();
    let options = BatchOptions::for_precision(true);
    let mut state = BatchState::<f64>::new(&batch);
    let mut worst = 0.0f64;
    for row in 1..reference.nrows() {
        run(&batch, &batch.operators, &mut state, 1, &options);
        let (q, v) = (&state.state[..3], &state.state[3..6]);
        for k in 0..3 {
            worst = worst
                .max((q[k] - reference[(row, 1 + 2 * k)]).abs())
                .max((v[k] - reference[(row, 2 + 2 * k)]).abs());
        }
    }
    println!("CPU lanes vs Woodpecker.ref: max |Δ| = {worst:e}");
    assert!(worst <= 1e-9, "{worst:e}");
}

/// The batched engines refuse what they cannot solve, naming it: a friction layout that is not
/// (normal, tangents), and a contact in Painlevé's regime (W_NN − μ|W_NT| ≤ 0).
#[test]
fn batched_friction_refuses_malformed_and_painleve_contacts() {
    let block = BlockOnIncline::default();
    let scene = LinearScene::from_nsds(&block.nsds().unwrap(), 1e-3, 0.5, Stabilization::None).unwrap();
    let mut batch = SceneBatch::new(1e-3, MoreauJeanOSI::default()).unwrap();
    batch.push(&scene).unwrap();
    assert_eq!(scene.rows, [RowKind::Normal2d, RowKind::Tangent]);
    type Break = fn(&mut LinearScene);
    let malformed: [(Break, &str); 5] = [
        // The tangent row lost, a lone tangent, a 3-D contact short of rows, a tangent
        // with another μ, a μ on a frictionless contact.
        (|s| s.rows[1] = RowKind::Contact, "row 1"),
        (|s| s.rows[0] = RowKind::Tangent, "row 0"),
        (|s| s.rows[0] = RowKind::Normal3d, "row 0"),
        (|s| s.mu[1] = 0.1, "row 1"),
        (|s| s.rows = vec![RowKind::Contact; 2], "row 0"),
    ];
    for (break_it, row) in malformed {
        let mut wrong = scene.clone();
        break_it(&mut wrong);
        let error = batch.push(&wrong).unwrap_err();
        assert!(error.to_string().contains(&format!("layout at {row}")), "{error}");
    }
    assert_eq!(batch.len(), 1, "a refused scene is not pushed");
    // A lever that couples the normal and tangent rows strongly: y_N = z + 2 x, y_T = x, with μ
    // large enough that W_NN − μ |W_NT| < 0.
    let mut nsds = Nsds::new();
    let body = nsds.add(
        "body",
        LagrangianLinearTIDS::new(
            DVector::from_vec(vec![0.0, 0.0]),
            DVector::zeros(2),
            DMatrix::identity(2, 2),
        )
        .unwrap(),
    );
    let rows = LagrangianLinearTIR::new(DMatrix::from_row_slice(2, 2, &[2.0, 1.0, 1.0, 0.0])).unwrap();
    nsds.link(
        "lever",
        NewtonImpactFrictionNSL::new(0.0, 0.0, 3.0, 2).unwrap(),
        rows,
        &[body],
    )
    .unwrap();
    let error = LinearScene::from_nsds(&nsds, 1e-3, 0.5, Stabilization::None).unwrap_err();
    assert!(
        error.to_string().contains("`lever`") && error.to_string().contains("Painlevé"),
        "{error}"
    );
}

/// Every engine records each scene's worst cone violation ‖λ_T‖ − μ λ_N (the third of the
/// `EXTREMES`): on blocks launched up inclines, which slide (λ_T = −μ λ_N exactly, the 2-D
/// slide case) and then stick or slide back, it is exactly 0 on the CPU lanes and the
/// reference; on frictionless balls nothing is recorded (f64::MIN), so the summary's
/// `cone_violation` is 0 there.
#[test]
fn engines_record_the_worst_cone_violation() {
    use ricochet::batch::layout::EXTREMES;
    use ricochet::engine::{CpuEngine, Engine, ReferenceEngine};
    use ricochet::ensemble::Scenario;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    for (file, expected) in [("block_on_incline.toml", 0.0), ("bouncing_balls.toml", f64::MIN)] {
        let scenario = Scenario::load(dir.join(file)).unwrap();
        let sampled: Vec<_> = (0..8).map(|i| scenario.sample(i).unwrap()).collect();
        let job = ricochet::ensemble::job(&scenario, &sampled, None, 400, &ricochet::batch::observe::NOTHING);
        let engines: [Box<dyn Engine>; 2] = [Box::new(CpuEngine::new()), Box::new(ReferenceEngine)];
        for engine in engines {
            let outcome = engine.run(&job).unwrap();
            for s in 0..sampled.len() {
                let cone = outcome.extremes[EXTREMES * s + 2];
                assert_eq!(cone, expected, "{file} on {}: scene {s}", engine.describe());
            }
        }
    }
}

/// Two spheres with spin collide obliquely in 3-D, their contact a `SphereLDSSphereLDSR`
/// (normal and the two tangents of Siconos's frame, the rows re-evaluated per Newton iterate)
/// under Coulomb friction: the impulses are equal and opposite, so the total momentum holds
/// to rounding; no energy is gained (e ≤ 1); the impulse stays in its cone; the CPU lanes give
/// the reference's final states to 1e-9 and the GPU kernel in f64 the lanes' bits.
#[test]
fn rough_spheres_collide_on_every_engine() {
    use ricochet::model::SphereLDSSphereLDSR;
    use ricochet::numerics::friction::FrictionOptions;
    let (h, steps, radius, m) = (1e-3, 400u32, 0.1, 1.0);
    let inertia = 0.4 * m * radius * radius;
    let mass = DMatrix::from_diagonal(&DVector::from_vec(vec![m, m, m, inertia, inertia, inertia]));
    let scene = |s: usize| -> Nsds {
        let f = s as f64;
        let ball = |x: [f64; 3], v: [f64; 3], w: [f64; 3]| {
            LagrangianLinearTIDS::new(
                DVector::from_vec(vec![x[0], x[1], x[2], 0.0, 0.0, 0.0]),
                DVector::from_vec(vec![v[0], v[1], v[2], w[0], w[1], w[2]]),
                mass.clone(),
            )
            .unwrap()
        };
        let mut nsds = Nsds::new();
        let a = nsds.add("a", ball([0.0; 3], [1.0, 0.0, 0.0], [0.0, 10.0 - 4.0 * f, 5.0]));
        let b = nsds.add(
            "b",
            ball([0.4, 0.03 * f, 0.05 - 0.02 * f], [-1.0, 0.1, 0.0], [3.0 * f, -2.0, 0.0]),
        );
        let law = NewtonImpactFrictionNSL::new(0.3 + 0.1 * f, 0.0, 0.2 + 0.15 * f, 3).unwrap();
        let contact = SphereLDSSphereLDSR::new([6, 6], [radius, radius]).unwrap();
        nsds.link("contact", law, contact, &[a, b]).unwrap();
        nsds
    };
    let scenes: Vec<Nsds> = (0..6).map(scene).collect();
    let energy = |v: &[f64]| -> f64 {
        (0..2)
            .map(|b| {
                let w = &v[6 * b..6 * b + 6];
                0.5 * m * (w[0] * w[0] + w[1] * w[1] + w[2] * w[2])
                    + 0.5 * inertia * (w[3] * w[3] + w[4] * w[4] + w[5] * w[5])
            })
            .sum()
    };
    // The reference, checked on its own.
    let mut finals = Vec::new();
    for (s, nsds) in scenes.iter().enumerate() {
        let mut sim =
            TimeStepping::new(nsds.clone(), Integrator::MoreauJean(MoreauJeanOSI::default()), 0.0, h).unwrap();
        sim.friction_options = FrictionOptions {
            tolerance: 1e-12,
            max_iterations: 1000,
            ..FrictionOptions::default()
        };
        let start = sim.sample().unwrap();
        let momentum = |v: &DVector<f64>| [v[0] + v[6], v[1] + v[7], v[2] + v[8]].map(|x| m * x);
        let (p0, e0) = (momentum(&start.v), energy(start.v.as_slice()));
        let mut hit = false;
        for _ in 0..steps {
            sim.step().unwrap();
            let sample = sim.sample().unwrap();
            assert!(
                in_cone(&sample.lambda, 3, 0.2 + 0.15 * s as f64),
                "scene {s}: out of the cone"
            );
            hit |= sample.lambda[0] > 0.0;
            let p = momentum(&sample.v);
            for k in 0..3 {
                assert!((p[k] - p0[k]).abs() < 1e-13, "scene {s}: momentum {p:?} vs {p0:?}");
            }
            assert!(
                energy(sample.v.as_slice()) <= e0 * (1.0 + 1e-12),
                "scene {s}: energy gained"
            );
        }
        assert!(hit, "scene {s}: the spheres collide");
        let end = sim.sample().unwrap();
        finals.push(end.q.iter().chain(end.v.iter()).copied().collect::<Vec<f64>>());
    }
    // The CPU lanes against it.
    let (batch, options, state) = on_the_lanes(&scenes, h, steps);
    assert!(
        state.counters.iter().all(|c| c.healthy()),
        "lanes: {:?}",
        state.counters
    );
    let worst = finals
        .iter()
        .flatten()
        .zip(&state.state)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    println!("rough spheres: lanes vs reference {worst:.1e}");
    assert!(worst < 1e-9, "lanes vs reference: {worst:e}");
    gpu_f64_gives_the_lanes_bits(&batch, steps, &options, &state.state);
}

/// `scenes` batched (Moreau–Jean, θ = ½) and run `steps` steps of `h` on the CPU lanes in f64:
/// the batch, its options and the lanes' final state, for the GPU comparison.
fn on_the_lanes(scenes: &[Nsds], h: f64, steps: u32) -> (SceneBatch, BatchOptions, BatchState<f64>) {
    let mut batch = SceneBatch::new(h, MoreauJeanOSI::default()).unwrap();
    for nsds in scenes {
        batch
            .push(&LinearScene::from_nsds(nsds, h, 0.5, Stabilization::None).unwrap())
            .unwrap();
    }
    let options = BatchOptions::for_precision(true);
    let mut state = BatchState::<f64>::new(&batch);
    run(&batch, &batch.operators, &mut state, steps, &options);
    (batch, options, state)
}

/// The GPU kernel in f64 runs `batch` to the lanes' final `state`, bit for bit (where there is
/// an adapter).
#[cfg(feature = "gpu")]
fn gpu_f64_gives_the_lanes_bits(batch: &SceneBatch, steps: u32, options: &BatchOptions, state: &[f64]) {
    if let Some(ctx) = common::gpu() {
        let gpu =
            ricochet::batch::gpu::run_batch(ctx, batch, ricochet::batch::gpu::Precision::F64, steps, options).unwrap();
        let bits = |x: &[f64]| x.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&gpu.state), bits(state), "GPU f64 vs lanes");
    }
}

#[cfg(not(feature = "gpu"))]
fn gpu_f64_gives_the_lanes_bits(_: &SceneBatch, _: u32, _: &BatchOptions, _: &[f64]) {}

/// Balls launched sideways without spin on a rough floor in 3-D (one `NewtonImpactFrictionNSL`
/// contact of size 3, resting from the start): each slides, spins up and ends rolling — the
/// friction impulses conserve m v_x + (I_y/R) ω_y and m v_y − (I_x/R) ω_x, and rolling is
/// v_x = R ω_y, v_y = −R ω_x, so v ends at v₀/(1 + I/(m R²)) per axis: 5/7 of v₀ for a solid
/// ball, whatever μ and the direction. On the CPU lanes a sliding contact of an isotropic
/// block is solved exactly (its sliding direction): every step's solve takes one sweep, and
/// the lanes give the reference's states. A ball with an anisotropic inertia (I_x = 3 I_y:
/// W_TT not a multiple of the identity, the sliding direction found by iterates and projected
/// steps) converges in every step to the same end; its positions may differ from the
/// reference's by one step's drift where its slip ends one step apart (a slip of 1e-12 at a
/// step's end, within the solvers' tolerance). The GPU kernel in f64 gives the lanes' bits.
#[test]
fn sliding_balls_end_rolling_on_every_engine() {
    let (h, steps, radius, m) = (1e-3, 600u32, 0.1, 1.0);
    let inertia = 0.4 * m * radius * radius;
    // (μ, v_x, v_y, I_x / I_y).
    let cases = [
        (0.1, 1.0, 0.0, 1.0),
        (0.3, 0.6, -0.8, 1.0),
        (0.05, -0.3, 0.4, 1.0),
        (0.2, 0.7, 0.5, 3.0),
    ];
    let scene = |&(mu, vx, vy, stretch): &(f64, f64, f64, f64)| -> Nsds {
        let mut nsds = Nsds::new();
        let law = NewtonImpactFrictionNSL::new(0.0, 0.0, mu, 3).unwrap();
        let inertias = [stretch * inertia, inertia, inertia];
        common::ball_on_rough_floor(
            &mut nsds,
            "ball",
            (radius, m, inertias),
            ([0.0, 0.0, radius], [vx, vy]),
            law,
        );
        nsds
    };
    let scenes: Vec<Nsds> = cases.iter().map(scene).collect();
    let mut finals = Vec::new();
    for nsds in &scenes {
        // NSGS to its default tolerance 1e-12.
        let mut sim =
            TimeStepping::new(nsds.clone(), Integrator::MoreauJean(MoreauJeanOSI::default()), 0.0, h).unwrap();
        for _ in 0..steps {
            sim.step().unwrap();
        }
        let end = sim.sample().unwrap();
        finals.push(end.q.iter().chain(end.v.iter()).copied().collect::<Vec<f64>>());
    }
    let (batch, options, state) = on_the_lanes(&scenes, h, steps);
    for (s, ((&(mu, vx, vy, stretch), counters), reference)) in
        cases.iter().zip(&state.counters).zip(&finals).enumerate()
    {
        assert!(counters.healthy(), "scene {s}: {counters:?}");
        let lanes = &state.state[12 * s..12 * s + 12];
        for (name, end) in [("reference", &reference[..]), ("lanes", lanes)] {
            let v = &end[6..];
            let expected = [vx / 1.4, vy / (1.0 + 0.4 * stretch)];
            assert!(
                (v[0] - expected[0]).abs() < 1e-9 && (v[1] - expected[1]).abs() < 1e-9,
                "scene {s} on the {name}: v = {v:?}, expected {expected:?}"
            );
            assert!(
                (v[0] - radius * v[4]).abs() < 1e-9 && (v[1] + radius * v[3]).abs() < 1e-9,
                "scene {s} (μ = {mu}) on the {name} does not roll: {v:?}"
            );
        }
        let gap = |from: usize| {
            reference[from..]
                .iter()
                .zip(&lanes[from..])
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max)
        };
        if stretch == 1.0 {
            assert!(gap(0) < 1e-12, "scene {s}: lanes vs reference {:e}", gap(0));
            assert!(
                counters.max_iterations == 1,
                "scene {s}: {} sweeps",
                counters.max_iterations
            );
        } else {
            assert!(gap(6) < 1e-12, "scene {s}: lanes' v vs reference's {:e}", gap(6));
            assert!(gap(0) < 1e-5, "scene {s}: lanes vs reference {:e}", gap(0));
        }
    }
    gpu_f64_gives_the_lanes_bits(&batch, steps, &options, &state.state);
}

/// Billiard shots without friction between the balls: their impulses act through the centres
/// and the table's friction on a ball conserves m v_x + (I/R) ω_y and m v_y − (I/R) ω_x, so the
/// sum of these over both balls holds to rounding through drop, slide, roll and collision, for
/// any table friction, follow, draw or side spin, on the reference, the CPU lanes and (bits)
/// the GPU; the object ball is hit and leaves on the side of its offset (straight on for a
/// full hit); no energy is gained; lanes and reference agree to 1e-9.
#[test]
fn billiard_shots_conserve_the_rolling_momentum_on_every_engine() {
    use ricochet::scenes::billiard_shot::BilliardShot;
    let shots: Vec<BilliardShot> = [
        (0.0, 0.0, 0.0, 0.2),
        (60.0, 15.0, 0.02, 0.3),
        (-30.0, -8.0, -0.035, 0.1),
    ]
    .iter()
    .map(|&(follow, english, offset, table_friction)| BilliardShot {
        follow,
        english,
        offset,
        table_friction,
        ball_friction: 0.0,
        ..BilliardShot::default()
    })
    .collect();
    let (h, steps) = (shots[0].step, 800u32);
    // Σ over the balls of m v_h + (I/R) (ω_y, −ω_x), from v = (v_cue, ω_cue, v_object, ω_object).
    let rolling_momentum = |shot: &BilliardShot, v: &[f64]| -> [f64; 2] {
        let (m, r) = (shot.mass, shot.radius);
        let spin = 0.4 * m * r;
        let ball = |w: &[f64]| [m * w[0] + spin * w[4], m * w[1] - spin * w[3]];
        let (a, b) = (ball(&v[..6]), ball(&v[6..]));
        [a[0] + b[0], a[1] + b[1]]
    };
    let mut finals = Vec::new();
    for shot in &shots {
        let mut sim = shot.simulation().unwrap();
        let start = rolling_momentum(shot, sim.sample().unwrap().v.as_slice());
        let energy = |sim: &TimeStepping| sim.energy().unwrap();
        let e0 = energy(&sim);
        for _ in 0..steps {
            sim.step().unwrap();
            let v = sim.sample().unwrap().v;
            let k = rolling_momentum(shot, v.as_slice());
            assert!(
                (k[0] - start[0]).abs() < 1e-12 && (k[1] - start[1]).abs() < 1e-12,
                "{shot:?}: {k:?} vs {start:?}"
            );
            assert!(energy(&sim) <= e0 + 1e-12, "{shot:?}: energy gained");
        }
        let end = sim.sample().unwrap();
        // The object ball moves off on the side of its offset.
        assert!(end.v[6] > 0.1, "{shot:?}: the object ball was not hit: {:?}", end.v);
        if shot.offset == 0.0 {
            assert!(end.v[7].abs() < 1e-9, "{shot:?}: a full hit goes straight: {:?}", end.v);
        } else {
            assert!(end.v[7] * shot.offset > 0.0, "{shot:?}: {:?}", end.v);
        }
        finals.push((end.q.iter().chain(end.v.iter()).copied().collect::<Vec<f64>>(), start));
    }
    let nsds: Vec<Nsds> = shots.iter().map(|shot| shot.nsds().unwrap()).collect();
    let (batch, options, state) = on_the_lanes(&nsds, h, steps);
    for (s, (shot, (reference, start))) in shots.iter().zip(&finals).enumerate() {
        assert!(state.counters[s].healthy(), "shot {s}: {:?}", state.counters[s]);
        let lanes = &state.state[24 * s..24 * s + 24];
        let k = rolling_momentum(shot, &lanes[12..]);
        assert!(
            (k[0] - start[0]).abs() < 1e-12 && (k[1] - start[1]).abs() < 1e-12,
            "shot {s} on the lanes: {k:?} vs {start:?}"
        );
        let worst = reference
            .iter()
            .zip(lanes)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(worst < 1e-9, "shot {s}: lanes vs reference {worst:e}");
    }
    gpu_f64_gives_the_lanes_bits(&batch, steps, &options, &state.state);
}
