//! The nonlinear and time-dependent model types against equivalent or exact solutions.

use nalgebra::{DMatrix, DVector};
use ricochet::model::{
    Force, LagrangianDS, LagrangianLinearTIDS, LagrangianLinearTIR, LagrangianRheonomousR, NewtonImpactNSL, Nsds,
    Relation,
};
use ricochet::reference::{Integrator, TimeStepping, Trajectory};
use ricochet::scenes::diode_bridge::DiodeBridge;
use ricochet::scheme::moreau_jean::MoreauJeanOSI;

fn mj(nsds: Nsds, h: f64) -> TimeStepping {
    TimeStepping::new(nsds, Integrator::MoreauJean(MoreauJeanOSI::default()), 0.0, h).unwrap()
}

/// A mass on a spring bouncing on a floor, as a LagrangianLinearTIDS and as a LagrangianDS
/// whose F_int = K q comes as a closure (Jacobian by finite differences) or with its
/// Jacobian: the Newton loop must land on the same trajectory.
#[test]
fn lagrangian_ds_matches_the_linear_tids() {
    let (k, m, g) = (50.0, 2.0, 9.81);
    let q0 = DVector::from_vec(vec![0.3]);
    let v0 = DVector::from_vec(vec![0.0]);
    let mass = DMatrix::from_element(1, 1, m);
    let floor =
        || LagrangianLinearTIR::with_offset(DMatrix::from_element(1, 1, 1.0), DVector::from_element(1, 0.1)).unwrap();
    let fext = DVector::from_element(1, -m * g);
    let run = |ds: ricochet::model::DynamicalSystem| {
        let mut nsds = Nsds::new();
        let id = nsds.add("mass", ds);
        nsds.link("floor", NewtonImpactNSL::new(0.8).unwrap(), floor(), &[id])
            .unwrap();
        let mut trajectory = Trajectory::default();
        mj(nsds, 1e-3).run(2.0, &mut trajectory).unwrap();
        trajectory.column(|s| s.q[0])
    };
    let linear = run(LagrangianLinearTIDS::new(q0.clone(), v0.clone(), mass.clone())
        .unwrap()
        .with_stiffness(DMatrix::from_element(1, 1, k))
        .unwrap()
        .with_fext(fext.clone())
        .unwrap()
        .into());
    let spring = || Force::new(move |q, _v, _t| q * k);
    let by_differences = run(LagrangianDS::new(q0.clone(), v0.clone(), mass.clone())
        .unwrap()
        .with_fint(spring())
        .unwrap()
        .with_fext(fext.clone())
        .unwrap()
        .into());
    let with_jacobian = run(LagrangianDS::new(q0, v0, mass)
        .unwrap()
        .with_fint(
            spring()
                .with_jacobian_q(move |_, _, _| DMatrix::from_element(1, 1, k))
                .with_jacobian_v(|_, _, _| DMatrix::zeros(1, 1)),
        )
        .unwrap()
        .with_fext(fext)
        .unwrap()
        .into());
    assert!(linear.iter().any(|&z| z < 0.1 + 1e-3), "the mass reaches the floor");
    for other in [&by_differences, &with_jacobian] {
        let err = linear.iter().zip(other).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        assert!(err < 1e-6, "max deviation {err:e}");
    }
}

/// A ball dropped on a floor rising at speed u (y = z − u t, ∂h/∂t = −u) with e = 0 ends up
/// riding the floor: v = u and y = 0 within one step's travel.
#[test]
fn rheonomous_floor_carries_the_ball() {
    let u = 0.5;
    let mut nsds = Nsds::new();
    let ball = LagrangianLinearTIDS::new(DVector::from_vec(vec![0.2]), DVector::zeros(1), DMatrix::identity(1, 1))
        .unwrap()
        .with_fext(DVector::from_element(1, -9.81))
        .unwrap();
    let id = nsds.add("ball", ball);
    let floor = LagrangianRheonomousR::new(
        move |q, t| DVector::from_element(1, q[0] - u * t),
        |_, _| DMatrix::from_element(1, 1, 1.0),
        move |_, _| DVector::from_element(1, -u),
    );
    nsds.link("moving floor", NewtonImpactNSL::new(0.0).unwrap(), floor, &[id])
        .unwrap();
    let h = 1e-3;
    let mut sim = mj(nsds, h);
    let mut trajectory = Trajectory::default();
    sim.run(1.0, &mut trajectory).unwrap();
    let last = trajectory.samples.last().unwrap();
    assert!((last.v[0] - u).abs() < 1e-9, "v = {}", last.v[0]);
    assert!(
        (last.q[0] - u * last.t).abs() < 9.81 * h,
        "gap {}",
        last.q[0] - u * last.t
    );
    assert!(last.lambda[0] > 0.0, "the floor pushes");
}

/// FirstOrderLinearR with constant operators reproduces FirstOrderLinearTIR.
#[test]
fn first_order_linear_r_matches_the_tir() {
    let bridge = DiodeBridge::default();
    let run = |nsds: Nsds| {
        let integrator = Integrator::EulerMoreau(ricochet::scheme::euler_moreau::EulerMoreauOSI::default());
        let mut trajectory = Trajectory::default();
        TimeStepping::new(nsds, integrator, 0.0, bridge.step)
            .unwrap()
            .run(1e-3, &mut trajectory)
            .unwrap();
        trajectory.column(|s| s.q[0])
    };
    let reference = run(bridge.nsds().unwrap());
    let nsds = bridge.nsds().unwrap();
    let Relation::FirstOrderLinearTIR(tir) = &nsds.interactions()[0].relation else {
        panic!("a TIR")
    };
    let operators = ricochet::model::FirstOrderLinearR::new({
        let tir = tir.clone();
        move |_t| tir.operators().clone()
    })
    .unwrap();
    let mut time_dependent = Nsds::new();
    let (_, lc) = nsds.systems().next().unwrap();
    let lc = match lc {
        ricochet::model::DynamicalSystem::FirstOrderLinearDS(ds) => ds.clone(),
        _ => unreachable!(),
    };
    let id = time_dependent.add("LC", lc);
    time_dependent
        .link(
            "bridge",
            ricochet::model::ComplementarityConditionNSL::new(4).unwrap(),
            operators,
            &[id],
        )
        .unwrap();
    assert_eq!(run(time_dependent), reference);
}

/// Siconos's `LagrangianLinearDiagonalDS`: two uncoupled damped oscillators
/// mᵢ q̈ + cᵢ q̇ + kᵢ q = 0 follow their exact solutions (θ = ½ is second order: 1e-5 at
/// h = 1e-3 over 3 s), and bad diagonals are refused naming the system and the entry.
#[test]
fn diagonal_systems_are_uncoupled_damped_oscillators() {
    use ricochet::model::LagrangianLinearDiagonalDS;
    let (m, k, c) = ([2.0, 0.5], [8.0, 3.0], [0.4, 0.1]);
    let ds = LagrangianLinearDiagonalDS::with_mass(
        DVector::from_vec(vec![1.0, -0.5]),
        DVector::zeros(2),
        DVector::from_row_slice(&k),
        DVector::from_row_slice(&c),
        DVector::from_row_slice(&m),
    )
    .unwrap();
    assert_eq!(ds.ndof(), 2);
    let mut nsds = Nsds::new();
    nsds.add("oscillators", ds);
    let mut trajectory = Trajectory::default();
    mj(nsds, 1e-3).run(3.0, &mut trajectory).unwrap();
    for (i, q0) in [1.0, -0.5].into_iter().enumerate() {
        // Underdamped: q = e^{−ζωt} (q₀ cos ω_d t + ζω q₀/ω_d sin ω_d t).
        let omega = (k[i] / m[i]).sqrt();
        let zeta = c[i] / (2.0 * (k[i] * m[i]).sqrt());
        let wd = omega * (1.0 - zeta * zeta).sqrt();
        let exact =
            |t: f64| (-zeta * omega * t).exp() * (q0 * (wd * t).cos() + zeta * omega * q0 / wd * (wd * t).sin());
        let worst = trajectory
            .samples
            .iter()
            .map(|s| (s.q[i] - exact(s.t)).abs())
            .fold(0.0, f64::max);
        assert!(worst < 1e-5, "oscillator {i}: {worst:e}");
    }
    let unit = LagrangianLinearDiagonalDS::new(
        DVector::zeros(2),
        DVector::zeros(2),
        DVector::zeros(2),
        DVector::zeros(2),
    );
    assert!(unit.is_ok(), "unit masses by default");
    let bad = |stiffness: Vec<f64>, mass: Vec<f64>| {
        LagrangianLinearDiagonalDS::with_mass(
            DVector::zeros(2),
            DVector::zeros(2),
            DVector::from_vec(stiffness),
            DVector::zeros(2),
            DVector::from_vec(mass),
        )
        .err()
        .unwrap()
        .to_string()
    };
    let e = bad(vec![1.0, 1.0], vec![1.0, 0.0]);
    assert!(
        e.contains("LagrangianLinearDiagonalDS: mass m[1]") && e.contains("positive"),
        "{e}"
    );
    let e = bad(vec![1.0], vec![1.0, 1.0]);
    assert!(e.contains("stiffness diagonal") && e.contains("dimension"), "{e}");
    let e = bad(vec![1.0, f64::NAN], vec![1.0, 1.0]);
    assert!(e.contains("stiffness diagonal"), "{e}");
}

/// The full θ-γ Euler–Moreau with γ = 1 imposes the relation at x_{k+1}: the plain scheme,
/// value for value; γ outside [0, 1] is refused.
#[test]
fn theta_gamma_with_gamma_one_is_the_plain_scheme() {
    use ricochet::scheme::EulerMoreauOSI;
    let scene = DiodeBridge::default();
    let run = |osi: EulerMoreauOSI| {
        let mut sim = TimeStepping::new(scene.nsds().unwrap(), Integrator::EulerMoreau(osi), 0.0, scene.step).unwrap();
        let mut trajectory = Trajectory::default();
        sim.run(2e-4, &mut trajectory).unwrap();
        trajectory
            .samples
            .iter()
            .flat_map(|s| s.q.iter().chain(s.lambda.iter()).copied().collect::<Vec<_>>())
            .collect::<Vec<f64>>()
    };
    let plain = run(EulerMoreauOSI::new(0.5).unwrap());
    assert_eq!(run(EulerMoreauOSI::theta_gamma(0.5, 1.0).unwrap()), plain);
    assert_ne!(
        run(EulerMoreauOSI::theta_gamma(0.5, 0.5).unwrap()),
        plain,
        "γ = ½ is another scheme"
    );
    for gamma in [-0.1, 1.5, f64::NAN] {
        let e = EulerMoreauOSI::theta_gamma(0.5, gamma).unwrap_err().to_string();
        assert!(e.contains("EulerMoreauOSI γ"), "{e}");
    }
    let bad = EulerMoreauOSI {
        relation_gamma: Some(2.0),
        ..Default::default()
    };
    let e = TimeStepping::new(scene.nsds().unwrap(), Integrator::EulerMoreau(bad), 0.0, scene.step)
        .err()
        .map(|e| e.to_string());
    assert!(e.is_some_and(|e| e.contains("γ")), "checked when the stepper is built");
}

/// A relay (RelayNSL) takes a first-order relation; its bounds must be finite and ordered.
#[test]
fn relays_are_for_first_order_relations() {
    use ricochet::model::RelayNSL;
    let mut nsds = Nsds::new();
    let ball = nsds.add(
        "ball",
        LagrangianLinearTIDS::new(
            DVector::from_element(1, 1.0),
            DVector::zeros(1),
            DMatrix::identity(1, 1),
        )
        .unwrap(),
    );
    let floor = LagrangianLinearTIR::new(DMatrix::identity(1, 1)).unwrap();
    let e = nsds
        .link("floor", RelayNSL::new(1).unwrap(), floor, &[ball])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("interaction `floor`") && e.contains("first-order relation"),
        "{e}"
    );
    for (lb, ub) in [(1.0, 1.0), (0.0, f64::NAN), (f64::NEG_INFINITY, 0.0)] {
        assert!(RelayNSL::with_bounds(1, lb, ub).is_err(), "[{lb}, {ub}]");
    }
    assert_eq!(RelayNSL::with_bounds(2, 0.0, 1.0).unwrap().bounds(), (0.0, 1.0));
}

/// `set_state` of a first-order scene takes x alone (it used to ask for (x, v) with v empty,
/// and panicked on that).
#[test]
fn first_order_state_is_x_alone() {
    let scene = DiodeBridge::default();
    let mut sim = TimeStepping::new(
        scene.nsds().unwrap(),
        Integrator::EulerMoreau(ricochet::scheme::EulerMoreauOSI::new(0.5).unwrap()),
        0.0,
        scene.step,
    )
    .unwrap();
    sim.set_state(&[5.0, 0.0]).unwrap();
    assert_eq!(sim.sample().unwrap().q.as_slice(), &[5.0, 0.0]);
    let e = sim.set_state(&[5.0, 0.0, 0.0, 0.0]).unwrap_err().to_string();
    assert!(e.contains("set_state: x") && e.contains("expected 2"), "{e}");
}

/// Z of a first-order system: b(t, z) is checked at (0, z) when built; `set_z` keeps the size
/// and refuses non-finite values, naming the system; a Lagrangian system has no z yet.
#[test]
fn discrete_state_z_is_checked() {
    use ricochet::model::{DsId, FirstOrderLinearDS};
    let e = FirstOrderLinearDS::new(DVector::zeros(2), DMatrix::zeros(2, 2))
        .unwrap()
        .with_z(DVector::zeros(1))
        .unwrap()
        .with_b_fn(|_, z| DVector::from_element(3, z[0]))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("b(0, z)") && e.contains("dimension"), "{e}");
    let ds = FirstOrderLinearDS::new(DVector::zeros(1), DMatrix::zeros(1, 1))
        .unwrap()
        .with_z(DVector::from_element(1, 2.0))
        .unwrap()
        .with_b_fn(|_, z| DVector::from_element(1, z[0]))
        .unwrap();
    let mut nsds = Nsds::new();
    let id = nsds.add("integrator", ds);
    let osi = ricochet::scheme::EulerMoreauOSI::new(1.0).unwrap();
    let mut sim = TimeStepping::new(nsds, Integrator::EulerMoreau(osi), 0.0, 0.1).unwrap();
    sim.step().unwrap();
    assert!((sim.q(id)[0] - 0.2).abs() < 1e-15, "x' = z = 2 for 0.1 s");
    sim.set_z(id, &DVector::from_element(1, -1.0)).unwrap();
    sim.step().unwrap();
    assert!((sim.q(id)[0] - 0.1).abs() < 1e-15, "then x' = −1");
    assert_eq!(sim.z(id).unwrap()[0], -1.0);
    let e = sim.set_z(id, &DVector::zeros(2)).unwrap_err().to_string();
    assert!(
        e.contains("set_z: system `integrator`") && e.contains("dimension"),
        "{e}"
    );
    let e = sim
        .set_z(id, &DVector::from_element(1, f64::NAN))
        .unwrap_err()
        .to_string();
    assert!(e.contains("set_z: system `integrator`"), "{e}");
    let mut nsds = Nsds::new();
    let ball = nsds.add(
        "ball",
        LagrangianLinearTIDS::new(DVector::zeros(1), DVector::zeros(1), DMatrix::identity(1, 1)).unwrap(),
    );
    let mut sim = mj(nsds, 1e-3);
    assert_eq!(ball, DsId(0));
    let e = sim.set_z(ball, &DVector::zeros(0)).unwrap_err().to_string();
    assert!(e.contains("system `ball`") && e.contains("first-order"), "{e}");
}

/// The F z term of a FirstOrderLinearTIR (and of a FirstOrderLinearR): y = C x + D λ + F z + e
/// runs as the offset e + F z (a diode whose threshold is a discrete state), and F must have
/// one column per entry of the linked systems' z.
#[test]
fn f_z_is_an_offset_from_the_discrete_state() {
    use ricochet::model::{ComplementarityConditionNSL, FirstOrderLinearDS, FirstOrderLinearTIR};
    let scene = |z: Option<f64>, e: f64| {
        let mut ds = FirstOrderLinearDS::new(
            DVector::from_vec(vec![2.0, 0.0]),
            DMatrix::from_row_slice(2, 2, &[0.0, -1.0, 1.0, 0.0]),
        )
        .unwrap();
        if z.is_some() {
            ds = ds.with_z(DVector::from_element(1, 0.25)).unwrap();
        }
        let mut relation = FirstOrderLinearTIR::new(
            DMatrix::from_row_slice(1, 2, &[1.0, 0.0]),
            DMatrix::from_element(1, 1, 0.1),
            DMatrix::from_row_slice(2, 1, &[1.0, 0.0]),
            DVector::from_element(1, e),
        )
        .unwrap();
        if let Some(f) = z {
            relation = relation.with_f(DMatrix::from_element(1, 1, f)).unwrap();
        }
        let mut nsds = Nsds::new();
        let id = nsds.add("circuit", ds);
        nsds.link("diode", ComplementarityConditionNSL::new(1).unwrap(), relation, &[id])
            .map(|_| nsds)
    };
    let run = |nsds: Nsds| {
        let osi = ricochet::scheme::EulerMoreauOSI::new(0.5).unwrap();
        let mut sim = TimeStepping::new(nsds, Integrator::EulerMoreau(osi), 0.0, 1e-2).unwrap();
        let mut trajectory = Trajectory::default();
        sim.run(10.0, &mut trajectory).unwrap();
        trajectory
    };
    // F z = 4 × 0.25 = 1: the same as e = 1 (and the diode acts: λ > 0 somewhere).
    let with_f = run(scene(Some(4.0), 0.0).unwrap());
    let with_e = run(scene(None, 1.0).unwrap());
    assert!(with_e.samples.iter().any(|s| s.lambda[0] > 0.0));
    for (a, b) in with_f.samples.iter().zip(&with_e.samples) {
        assert_eq!(
            (a.q.clone(), a.lambda.clone(), a.y.clone()),
            (b.q.clone(), b.lambda.clone(), b.y.clone())
        );
    }
    // The same F on a FirstOrderLinearR (operators given at each t).
    let mut time_dependent = scene(Some(4.0), 0.0).unwrap();
    let operators = time_dependent.interactions()[0]
        .relation
        .first_order_operators(0.0, &DVector::zeros(1))
        .unwrap();
    let ds = time_dependent.system(ricochet::model::DsId(0)).clone();
    time_dependent = Nsds::new();
    let id = time_dependent.add("circuit", ds);
    let relation = ricochet::model::FirstOrderLinearR::new(move |_| operators.clone())
        .unwrap()
        .with_f(DMatrix::from_element(1, 1, 4.0))
        .unwrap();
    time_dependent
        .link("diode", ComplementarityConditionNSL::new(1).unwrap(), relation, &[id])
        .unwrap();
    let with_r = run(time_dependent);
    for (a, b) in with_r.samples.iter().zip(&with_e.samples) {
        assert_eq!((&a.q, &a.lambda, &a.y), (&b.q, &b.lambda, &b.y));
    }
    let wrong = FirstOrderLinearTIR::new(
        DMatrix::from_row_slice(1, 2, &[1.0, 0.0]),
        DMatrix::zeros(1, 1),
        DMatrix::zeros(2, 1),
        DVector::zeros(1),
    )
    .unwrap()
    .with_f(DMatrix::zeros(1, 3))
    .unwrap();
    let mut nsds = Nsds::new();
    let id = nsds.add(
        "circuit",
        FirstOrderLinearDS::new(DVector::zeros(2), DMatrix::zeros(2, 2))
            .unwrap()
            .with_z(DVector::zeros(1))
            .unwrap(),
    );
    let e = nsds
        .link("diode", ComplementarityConditionNSL::new(1).unwrap(), wrong, &[id])
        .unwrap_err()
        .to_string();
    assert!(e.contains("interaction `diode`") && e.contains("F"), "{e}");
}

/// Setting the integrator drops what the old one kept: Moreau–Jean's W = M + hθ C + h²θ² K
/// of a linear scene depends on θ, so a step after a switch to another θ equals a fresh
/// run's step from the same state (the old θ's cached W was reused before).
#[test]
fn a_new_integrator_does_not_reuse_the_old_iteration_matrix() {
    let oscillator = || {
        let mut nsds = Nsds::new();
        let ds = LagrangianLinearTIDS::new(
            DVector::from_element(1, 1.0),
            DVector::zeros(1),
            DMatrix::identity(1, 1),
        )
        .unwrap()
        .with_stiffness(DMatrix::from_element(1, 1, 100.0))
        .unwrap()
        .with_damping(DMatrix::from_element(1, 1, 0.5))
        .unwrap();
        nsds.add("oscillator", ds);
        nsds
    };
    let theta = |t: f64| Integrator::MoreauJean(MoreauJeanOSI::new(t, 0.5).unwrap());
    let h = 0.05;
    let mut switched = TimeStepping::new(oscillator(), theta(0.5), 0.0, h).unwrap();
    for _ in 0..3 {
        switched.step().unwrap();
    }
    let state = switched.sample().unwrap();
    switched.set_integrator(theta(1.0)).unwrap();
    switched.step().unwrap();
    let mut fresh = TimeStepping::new(oscillator(), theta(1.0), 0.0, h).unwrap();
    let qv: Vec<f64> = state.q.iter().chain(state.v.iter()).copied().collect();
    fresh.set_state(&qv).unwrap();
    fresh.step().unwrap();
    let (a, b) = (switched.sample().unwrap(), fresh.sample().unwrap());
    assert_eq!((a.q, a.v), (b.q, b.v), "a step after the switch is θ = 1's");
}
