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
