//! The discrete state z (Siconos's Z) of Lagrangian systems: passed to every closure of a
//! `LagrangianDS` (M(q, z), F_int(q, v, t, z), F_ext(t, z)) and to the F z term of
//! `LagrangianLinearTIR`, changed between steps by `TimeStepping::set_z`, recorded in the
//! samples — each checked against the same system written without z.

use nalgebra::{DMatrix, DVector};
use ricochet::engine::Scene;
use ricochet::model::{DsId, Force, LagrangianDS, LagrangianLinearTIDS, LagrangianLinearTIR, NewtonImpactNSL, Nsds};
use ricochet::reference::{Integrator, TimeStepping};
use ricochet::scheme::MoreauJeanOSI;

fn one(x: f64) -> DVector<f64> {
    DVector::from_element(1, x)
}

fn moreau_jean(nsds: Nsds, h: f64) -> TimeStepping {
    TimeStepping::new(nsds, Integrator::MoreauJean(MoreauJeanOSI::default()), 0.0, h).unwrap()
}

/// An oscillator m q̈ + k q = 0 whose mass and stiffness are its z = (k, m): M(q, z) = z₁,
/// F_int(q, v, t, z) = z₀ q with ∂/∂q = z₀. It runs as the `LagrangianLinearTIDS` with the same
/// k and m to 1e-12; after `set_z` to a stiffer spring mid-run, as that TIDS restarted from the
/// state reached with the new k; z is recorded in the samples.
#[test]
fn mass_and_force_read_z() {
    let (k, m, k2, h) = (4.0, 2.0, 9.0, 1e-3);
    let oscillator = LagrangianDS::with_mass_fn(one(1.0), one(0.0), |_| DMatrix::identity(1, 1))
        .unwrap()
        .with_z(DVector::from_vec(vec![k, m]))
        .unwrap()
        .with_mass_z_fn(|_, z| DMatrix::from_element(1, 1, z[1]))
        .unwrap()
        .with_fint(
            Force::with_z(|q, _, _, z| q * z[0]).with_jacobian_q_z(|_, _, _, z| DMatrix::from_element(1, 1, z[0])),
        )
        .unwrap();
    let tids = |k: f64, q: f64, v: f64| {
        LagrangianLinearTIDS::new(one(q), one(v), DMatrix::from_element(1, 1, m))
            .unwrap()
            .with_stiffness(DMatrix::from_element(1, 1, k))
            .unwrap()
    };
    let mut nsds = Nsds::new();
    let id = nsds.add("oscillator", oscillator);
    let mut with_z = moreau_jean(nsds, h);
    let mut nsds = Nsds::new();
    nsds.add("oscillator", tids(k, 1.0, 0.0));
    let mut linear = moreau_jean(nsds, h);
    for _ in 0..500 {
        with_z.step().unwrap();
        linear.step().unwrap();
    }
    let gap = (with_z.q(id) - linear.q(id)).amax() + (with_z.v(id) - linear.v(id)).amax();
    assert!(gap <= 1e-12, "before the switch: {gap:e}");
    with_z.set_z(id, &DVector::from_vec(vec![k2, m])).unwrap();
    assert_eq!(with_z.z(id).unwrap(), DVector::from_vec(vec![k2, m]));
    let mut nsds = Nsds::new();
    nsds.add("oscillator", tids(k2, with_z.q(id)[0], with_z.v(id)[0]));
    let mut switched = moreau_jean(nsds, h);
    for _ in 0..500 {
        with_z.step().unwrap();
        switched.step().unwrap();
    }
    let gap = (with_z.q(id) - switched.q(id)).amax() + (with_z.v(id) - switched.v(id)).amax();
    assert!(gap <= 1e-12, "after the switch: {gap:e}");
    assert_eq!(
        with_z.sample().unwrap().z,
        DVector::from_vec(vec![k2, m]),
        "z is recorded"
    );
}

/// A mass pushed by a held control force F_ext(t, z) = z, changed every 10 steps: with θ = ½
/// its velocity is v_{k+1} = v_k + h z / m exactly (to rounding) at every step.
#[test]
fn external_force_reads_z() {
    let (m, h) = (2.0, 1e-2);
    let cart = LagrangianDS::new(one(0.0), one(0.0), DMatrix::from_element(1, 1, m))
        .unwrap()
        .with_z(one(0.0))
        .unwrap()
        .with_fext_z_fn(|_, z| z.clone())
        .unwrap();
    let mut nsds = Nsds::new();
    let id = nsds.add("cart", cart);
    let mut sim = moreau_jean(nsds, h);
    let mut v = 0.0;
    for k in 0..100 {
        let control = ((k / 10) as f64).sin();
        if k % 10 == 0 {
            sim.set_z(id, &one(control)).unwrap();
        }
        sim.step().unwrap();
        v += h * control / m;
        assert!((sim.v(id)[0] - v).abs() <= 1e-14, "step {k}: {} vs {v}", sim.v(id)[0]);
    }
}

/// A ball bouncing on a floor whose height is the ball's z: y = q − R + F z with F = [−1]
/// gives the bits of y = q − R − z₀ written as the offset b, on the reference stepper and in
/// the batched engines' operators (which take F z at the z the scene was built with).
#[test]
fn linear_relation_f_z() {
    let (radius, floor) = (0.1, 0.25);
    let scene = |relation: LagrangianLinearTIR| {
        let ball = LagrangianDS::new(one(1.0), one(0.0), DMatrix::identity(1, 1))
            .unwrap()
            .with_fext(one(-9.81))
            .unwrap()
            .with_z(one(floor))
            .unwrap();
        let mut nsds = Nsds::new();
        let id = nsds.add("ball", ball);
        nsds.link("floor", NewtonImpactNSL::new(0.8).unwrap(), relation, &[id])
            .unwrap();
        nsds
    };
    let h = DMatrix::identity(1, 1);
    let with_f = scene(
        LagrangianLinearTIR::with_offset(h.clone(), one(-radius))
            .unwrap()
            .with_f(DMatrix::from_element(1, 1, -1.0))
            .unwrap(),
    );
    let with_b = scene(LagrangianLinearTIR::with_offset(h, one(-radius - floor)).unwrap());
    let (mut a, mut b) = (moreau_jean(with_f.clone(), 1e-3), moreau_jean(with_b.clone(), 1e-3));
    let mut impacts = 0;
    for _ in 0..2000 {
        a.step().unwrap();
        b.step().unwrap();
        let (sa, sb) = (a.sample().unwrap(), b.sample().unwrap());
        assert_eq!((sa.q, sa.v, sa.y, sa.lambda.clone()), (sb.q, sb.v, sb.y, sb.lambda));
        impacts += usize::from(sa.lambda[0] > 0.0);
    }
    assert!(impacts > 0, "the ball reaches the floor");
    assert!(a.q(DsId(0))[0] > radius + floor - 1e-3, "it rests on the raised floor");
    let operators = |nsds: &Nsds| {
        nsds.linear(1e-3, 0.5, ricochet::reference::Stabilization::None)
            .unwrap()
    };
    assert_eq!(operators(&with_f), operators(&with_b));

    let wrong = LagrangianLinearTIR::new(DMatrix::identity(1, 1))
        .unwrap()
        .with_f(DMatrix::zeros(1, 3))
        .unwrap();
    let ball = LagrangianDS::new(one(1.0), one(0.0), DMatrix::identity(1, 1)).unwrap();
    let mut nsds = Nsds::new();
    let id = nsds.add("ball", ball);
    let error = nsds
        .link("floor", NewtonImpactNSL::new(0.8).unwrap(), wrong, &[id])
        .unwrap_err()
        .to_string();
    assert!(error.contains("F") && error.contains("floor"), "{error}");
}

/// A scleronomous relation reading z, h(q, z) = q − R − z₀ (the floor's height, raised by
/// `set_z` while the ball falls), runs as the linear relation with F z = −z₀ under the same `set_z`: the
/// ball's state within 1e-12 at every step (the nonlinear relation takes the Newton path).
#[test]
fn scleronomous_relation_reads_z() {
    use ricochet::model::LagrangianScleronomousR;
    let radius = 0.1;
    let run = |relation: ricochet::model::Relation| {
        let ball = LagrangianDS::new(one(1.0), one(0.0), DMatrix::identity(1, 1))
            .unwrap()
            .with_fext(one(-9.81))
            .unwrap()
            .with_z(one(0.0))
            .unwrap();
        let mut nsds = Nsds::new();
        let id = nsds.add("ball", ball);
        nsds.link("floor", NewtonImpactNSL::new(0.5).unwrap(), relation, &[id])
            .unwrap();
        let mut sim = moreau_jean(nsds, 1e-3);
        let mut states = Vec::new();
        for k in 0..3000 {
            if k == 200 {
                sim.set_z(id, &one(0.3)).unwrap();
            }
            sim.step().unwrap();
            states.push((sim.q(id)[0], sim.v(id)[0]));
        }
        states
    };
    let nonlinear = run(LagrangianScleronomousR::with_z(
        move |q, z| one(q[0] - radius - z[0]),
        |_, _| DMatrix::identity(1, 1),
    )
    .into());
    let linear = run(LagrangianLinearTIR::with_offset(DMatrix::identity(1, 1), one(-radius))
        .unwrap()
        .with_f(DMatrix::from_element(1, 1, -1.0))
        .unwrap()
        .into());
    for (k, (a, b)) in nonlinear.iter().zip(&linear).enumerate() {
        assert!(
            (a.0 - b.0).abs() <= 1e-12 && (a.1 - b.1).abs() <= 1e-12,
            "step {k}: {a:?} vs {b:?}"
        );
    }
    let last = nonlinear.last().unwrap();
    assert!(
        last.0 > radius + 0.3 - 1e-2,
        "the ball is on the raised floor: {last:?}"
    );
}
