//! Nonlinear first-order systems and relations under Euler–Moreau's Newton loop (Siconos's
//! `EulerMoreauOSI` with `TimeStepping::newtonSolve`): Siconos's references (siconos-tutorials,
//! Apache-2.0, in ../shared/data/siconos/tutorials-ref) column by column to the accuracy an
//! independent implementation reached, a closed-form circuit, a linear relation written as a
//! nonlinear one, and the errors of bad input.

use crate::common;

use nalgebra::{DMatrix, DVector};
use ricochet::model::{DsId, FirstOrderNonLinearDS, FirstOrderNonLinearR, FirstOrderType2R, Jacobian, Nsds};
use ricochet::reference::{Integrator, TimeStepping};
use ricochet::scenes::cubic_resistor::CubicResistor;
use ricochet::scenes::filippov::Filippov;
use ricochet::scenes::nonlinear_switch::NonLinearSwitch;
use ricochet::scenes::optimal_control::OptimalControl;
use ricochet::scenes::step_system::{StepSystem, StepVariant};
use ricochet::scheme::EulerMoreauOSI;

fn reference(file: &str) -> Option<DMatrix<f64>> {
    let dir = common::siconos_data()?;
    Some(ricochet::io::siconos::read_ref(&dir.join("tutorials-ref").join(file)).expect("reference file parses"))
}

fn table(file: &str) -> Option<DMatrix<f64>> {
    let dir = common::siconos_data()?;
    Some(ricochet::io::siconos::read_table(&dir.join("tutorials-ref").join(file)).expect("reference file parses"))
}

fn vector(values: &[f64]) -> DVector<f64> {
    DVector::from_row_slice(values)
}

fn euler_moreau(nsds: Nsds, theta: f64, h: f64) -> TimeStepping {
    TimeStepping::new(
        nsds,
        Integrator::EulerMoreau(EulerMoreauOSI::new(theta).unwrap()),
        0.0,
        h,
    )
    .unwrap()
}

/// The largest error per column of `ours` against `reference` over `columns`, asserted
/// ≤ `tol[c]` (the column's tolerance), with the first row above it named.
fn compare(name: &str, reference: &DMatrix<f64>, ours: &[Vec<f64>], columns: &[(usize, f64)]) -> Vec<f64> {
    assert_eq!(ours.len(), reference.nrows(), "{name}: number of rows");
    let mut max = vec![0.0f64; columns.len()];
    let mut first = None;
    for (i, row) in ours.iter().enumerate() {
        for (c, &(j, tol)) in columns.iter().enumerate() {
            let err = (row[j] - reference[(i, j)]).abs();
            if err > tol && first.is_none() {
                first = Some(format!(
                    "row {i} column {j}: ours {:e}, reference {:e} (error {err:e} > {tol:e})",
                    row[j],
                    reference[(i, j)]
                ));
            }
            max[c] = max[c].max(err);
        }
    }
    let formatted: Vec<String> = max.iter().map(|e| format!("{e:.1e}")).collect();
    println!("{name}: max abs error per compared column [{}]", formatted.join(", "));
    if let Some(first) = first {
        panic!("{name}: {first}");
    }
    max
}

/// Siconos's Filippov_NL as its Python example writes it: a FirstOrderLinearDS (A = 0) under
/// a FirstOrderNonLinearR with h = C x and g = B λ given by constant Jacobians (D and K by
/// finite differences: zero), RelayNSL(2), θ = 0.5, h = 1e-3, Newton defaults. t, x, λ₀ to
/// 1e-12 (an independent implementation: 7e-15), and the Newton counts of Siconos's lagged
/// linearisation: h_α and g_α lag one step, λ is reset, so the 56 steps that start from
/// λ_k ≠ 0 take 2 iterations and the 44 others 1.
#[test]
fn filippov_nonlinear_relation() {
    let Some(reference) = table("Filippov_NL_py.ref") else {
        return;
    };
    let mut sim = Filippov::default().simulation().unwrap();
    let id = DsId(0);
    let mut ours = vec![vec![0.0, 3.0, 3.0, 0.0]];
    let mut counts = [0usize; 3];
    for _ in 1..reference.nrows() {
        // Step 1 starts from h_α = 0 (nothing evaluated yet): as if from λ ≠ 0.
        let restarted_from_nonzero = sim.steps() == 0 || sim.lambda().iter().any(|&l| l != 0.0);
        sim.step().unwrap();
        let iterations = sim.last_report().newton_iterations;
        assert_eq!(
            iterations,
            1 + usize::from(restarted_from_nonzero),
            "t = {}",
            sim.time()
        );
        counts[iterations] += 1;
        let x = sim.q(id);
        ours.push(vec![sim.time(), x[0], x[1], sim.lambda()[0]]);
    }
    assert_eq!(counts[1..], [44, 56], "steps of 1 and 2 Newton iterations");
    assert!(
        sim.last_report().newton_residual <= 1e-6,
        "the step's convergence report"
    );
    compare(
        "Filippov_NL (NonLinearR)",
        &reference,
        &ours,
        &[(0, 1e-15), (1, 1e-12), (2, 1e-12), (3, 1e-12)],
    );
}

/// Siconos's StepSystem programs (the gene network of `scenes::step_system`), 3000 rows:
/// columns t, x, λ₀..λ₃ (only λ₀ recorded by the reduced program) and
/// rhs = f(x_{k+1}) + r_{k+1} (row 0 prints row 1's rhs); x to 1e-13, λ to 2e-12, rhs to
/// 2e-11 (an independent implementation: 3e-14, 8e-13, 1.7e-11 — rhs is LCP rounding in the
/// sliding mode).
fn step_system(file: &str, variant: StepVariant) {
    let Some(reference) = reference(file) else {
        return;
    };
    let mut sim = StepSystem {
        variant,
        ..Default::default()
    }
    .simulation()
    .unwrap();
    let id = DsId(0);
    let recorded = if variant == StepVariant::Reduced { 1 } else { 4 };
    let row = |sim: &TimeStepping| {
        let x = sim.q(id);
        let rhs = StepSystem::f(&x) + sim.r(id);
        let mut row = vec![sim.time(), x[0], x[1]];
        row.extend((0..4).map(|i| if i < recorded { sim.lambda()[i] } else { 0.0 }));
        row.extend(rhs.iter());
        row
    };
    let mut ours = vec![row(&sim)];
    for _ in 1..reference.nrows() {
        sim.step().unwrap();
        ours.push(row(&sim));
    }
    let (first, second) = (ours[1][7], ours[1][8]);
    ours[0][7..].copy_from_slice(&[first, second]);
    compare(
        file,
        &reference,
        &ours,
        &[
            (0, 1e-15),
            (1, 1e-13),
            (2, 1e-13),
            (3, 2e-12),
            (4, 2e-12),
            (5, 2e-12),
            (6, 2e-12),
            (7, 2e-11),
            (8, 2e-11),
        ],
    );
}

/// `simu.1.6.ref`: thresholds as step functions, relay [0, 1].
#[test]
fn step_system_simu() {
    step_system("simu.1.6.ref", StepVariant::Step);
}

/// `sign.1.6.ref`: thresholds as sign functions, relay [−1, 1]. (With B by finite
/// differences instead of its closure, the loop stops at its tolerance 5e-4 on another path:
/// x moves by 1e-12 and λ by 7e-10.)
#[test]
fn step_system_sign() {
    step_system("sign.1.6.ref", StepVariant::Sign);
}

/// `simu-reduced.1.6.ref`: two thresholds in a relay of size 4, tolerance 1e-4.
#[test]
fn step_system_reduced() {
    step_system("simu-reduced.1.6.ref", StepVariant::Reduced);
}

/// Siconos's OptimalControl: a Pontryagin bang-bang problem, state (x₀, x₁) and costate
/// (x₂, x₃) of a FirstOrderNonLinearDS, under the one reference with a full NonLinearR —
/// x-dependent C and B, K ≠ 0, h nonlinear — and an LCP (enumeration), θ = 0.5, h = 2e-3,
/// 5000 steps, Newton tolerance 1.1e-11. Columns t, x, λ, y (Siconos's y: the loop's
/// linearised output, `newton_outputs`; row 0 prints λ = y = 0); x to 1e-9, λ to 5e-9, y to
/// 2e-11 (an independent implementation: 8e-10, 4.3e-9, 1.1e-11); the control switches
/// (λ₀: 0 → 2) once, at t = 4.152.
#[test]
fn optimal_control() {
    let Some(reference) = reference("OptimalControl.ref") else {
        return;
    };
    let mut sim = OptimalControl::default().simulation().unwrap();
    let id = DsId(0);
    let mut ours = vec![{
        let mut row = vec![0.0];
        row.extend(sim.q(id).iter());
        row.extend([0.0; 4]);
        row
    }];
    let mut switch = None;
    for _ in 1..reference.nrows() {
        sim.step().unwrap();
        let (x, lambda, y) = (sim.q(id), sim.lambda().clone(), sim.newton_outputs().unwrap().clone());
        if lambda[0] > 1.0 && switch.is_none() {
            switch = Some(sim.time());
        }
        let mut row = vec![sim.time()];
        row.extend(x.iter().chain(lambda.iter()).chain(y.iter()));
        ours.push(row);
    }
    assert!(
        (switch.unwrap() - 4.152).abs() < 1e-9,
        "the control switches at {switch:?}"
    );
    compare(
        "OptimalControl",
        &reference,
        &ours,
        &[
            (0, 1e-15),
            (1, 1e-9),
            (2, 1e-9),
            (3, 1e-9),
            (4, 1e-9),
            (5, 5e-9),
            (6, 5e-9),
            (7, 2e-11),
            (8, 2e-11),
        ],
    );
}

/// The discrete solution of the cubic-resistor circuit: λ_k the real root of
/// λ³ + h λ = s_k (0 when s_k ≤ 0), s_{k+1} = s_k − h λ_k, by Newton on the cubic.
fn cubic_resistor_backward_euler(h: f64, steps: usize) -> Vec<(f64, f64)> {
    let mut s: f64 = 1.0;
    let mut out = vec![(1.0 + s, 0.0)];
    for _ in 0..steps {
        let mut lambda: f64 = if s > 0.0 { s.cbrt() } else { 0.0 };
        if s > 0.0 {
            for _ in 0..100 {
                let step = (lambda.powi(3) + h * lambda - s) / (3.0 * lambda * lambda + h);
                lambda -= step;
                if step.abs() <= 1e-17 * lambda.abs().max(1e-300) {
                    break;
                }
            }
        }
        s -= h * lambda;
        out.push((1.0 + s, lambda));
    }
    out
}

/// A capacitor (C = 1, x₀ = 2 V) discharging into a 1 V source through an ideal diode and a
/// cubic resistor v = i³: ẋ = r, a FirstOrderType2R with y = λ³ + 1 − x (the diode's reverse
/// voltage, D = 3λ² → 0 as the current dies) and g = −λ, 0 ≤ λ ⟂ y ≥ 0. The exact solution
/// x = 1 + (1 − 2t/3)^{3/2}, λ = (1 − 2t/3)^{1/2} until the diode blocks at t = 1.5; f = 0
/// makes the scheme backward Euler on r, whose discrete solution (the real root of a cubic per
/// step) the loop matches at Newton tolerance 1e-12 to 1e-13 in x and 1e-11 in λ at every step
/// (an independent implementation: 5e-14, 5e-12), with the backward-Euler values at t = 0.5,
/// 1, 1.5 tabulated below, and an error against the exact solution that falls tenfold with h
/// (first order).
#[test]
fn cubic_resistor_and_diode() {
    let exact = |t: f64| CubicResistor::default().exact(t);
    let mut errors = Vec::new();
    for (h, table) in [
        (
            0.1,
            [
                (1.552477282917648, 0.8205495438407405),
                (1.207898340848016, 0.5924026707597567),
                (1.011429751645659, 0.2252573295876197),
            ],
        ),
        (
            0.01,
            [
                (1.545157412519111, 0.8169095513026186),
                (1.194031657687021, 0.5789275243416183),
                (1.000730121345128, 0.09004612224974452),
            ],
        ),
    ] {
        let scene = CubicResistor {
            step: h,
            ..Default::default()
        };
        assert_eq!(scene.blocking_time(), 1.5);
        let mut sim = scene.simulation().unwrap();
        let id = DsId(0);
        let steps = (2.0 / h).round() as usize;
        let discrete = cubic_resistor_backward_euler(h, steps);
        let (mut x_err, mut l_err) = (0.0f64, 0.0f64);
        for (k, &(x_discrete, lambda_discrete)) in discrete.iter().enumerate().skip(1) {
            sim.step().unwrap();
            let (x, lambda) = (sim.q(id)[0], sim.lambda()[0]);
            x_err = x_err.max((x - x_discrete).abs());
            l_err = l_err.max((lambda - lambda_discrete).abs());
            for (i, t) in [0.5, 1.0, 1.5].into_iter().enumerate() {
                if k == (t / h).round() as usize {
                    assert!((x - table[i].0).abs() <= 1e-12, "h = {h}, t = {t}: x = {x}");
                    assert!((lambda - table[i].1).abs() <= 1e-10, "h = {h}, t = {t}: λ = {lambda}");
                }
            }
            if k == (1.0 / h).round() as usize {
                errors.push((x - exact(1.0).0).abs());
            }
        }
        println!("cubic resistor, h = {h}: max error against the discrete solution x {x_err:.1e}, λ {l_err:.1e}");
        assert!(x_err <= 1e-13 && l_err <= 1e-11, "h = {h}: x {x_err:e}, λ {l_err:e}");
        assert!(
            (sim.q(id)[0] - 1.0).abs() < 1e-15 && sim.lambda()[0] == 0.0,
            "blocked at t = 2"
        );
    }
    let ratio = errors[0] / errors[1];
    println!(
        "cubic resistor: error at t = 1 {:.1e} and {:.1e}, ratio {ratio:.2}",
        errors[0], errors[1]
    );
    assert!((8.0..12.0).contains(&ratio), "first order: {errors:?}");
}

/// The diode bridge (Siconos's DiodeBridge) with its FirstOrderLinearTIR written as a
/// FirstOrderNonLinearR — h = C x + D λ + e, g = B λ and all four Jacobians as closures —
/// runs the Newton loop to the single pass's result: x, λ and y to 1e-12 over 2000 steps.
#[test]
fn linear_relation_written_as_nonlinear() {
    use ricochet::scenes::diode_bridge::{DiodeBridge, lc_oscillator};
    let scene = DiodeBridge::default();
    let linear_nsds = scene.nsds().unwrap();
    let op = linear_nsds.interactions()[0]
        .relation
        .first_order_operators(0.0, &DVector::zeros(0))
        .unwrap();
    let (c, d, b, e) = (op.c.clone(), op.d.clone(), op.b.clone(), op.e.clone());
    let (c2, d2, b2) = (c.clone(), d.clone(), b.clone());
    let relation = FirstOrderNonLinearR::new(move |_, x, l, _| &c * x + &d * l + &e, move |_, _, l, _| &b * l)
        .with_c(Jacobian::function(move |_, _, _, _| c2.clone()))
        .with_d(Jacobian::function(move |_, _, _, _| d2.clone()))
        .with_b(Jacobian::function(move |_, _, _, _| b2.clone()))
        .with_k(Jacobian::function(|_, _, _, _| DMatrix::zeros(2, 2)));
    let mut nsds = Nsds::new();
    let id = nsds.add(
        "LC oscillator",
        lc_oscillator(scene.inductance, scene.capacitance, scene.voltage).unwrap(),
    );
    nsds.link(
        "diode bridge",
        ricochet::model::ComplementarityConditionNSL::new(4).unwrap(),
        relation,
        &[id],
    )
    .unwrap();
    let mut linear = scene.simulation().unwrap();
    let mut nonlinear = euler_moreau(nsds, scene.theta, scene.step);
    let mut worst = [0.0f64; 3];
    for _ in 0..2000 {
        linear.step().unwrap();
        nonlinear.step().unwrap();
        let (a, b) = (linear.sample().unwrap(), nonlinear.sample().unwrap());
        for (w, (u, v)) in worst
            .iter_mut()
            .zip([(&a.q, &b.q), (&a.lambda, &b.lambda), (&a.y, &b.y)])
        {
            *w = w.max((u - v).amax());
        }
    }
    println!(
        "linear relation as nonlinear: max difference x {:.1e}, λ {:.1e}, y {:.1e}",
        worst[0], worst[1], worst[2]
    );
    assert!(worst.iter().all(|&w| w <= 1e-12), "{worst:?}");
}

/// The capacitor of [`cubic_resistor_and_diode`] with a relation built by `relation`.
fn capacitor_with(relation: FirstOrderNonLinearR) -> ricochet::Result<TimeStepping> {
    let capacitor = FirstOrderNonLinearDS::new(vector(&[2.0]), |_, _, _| DVector::zeros(1))?.with_z(vector(&[0.0]))?;
    let mut nsds = Nsds::new();
    let id = nsds.add("capacitor", capacitor);
    nsds.link(
        "diode and resistor",
        ricochet::model::ComplementarityConditionNSL::new(1)?,
        relation,
        &[id],
    )?;
    TimeStepping::new(nsds, Integrator::EulerMoreau(EulerMoreauOSI::new(0.5)?), 0.0, 0.1)
}

fn cubic_resistor() -> FirstOrderNonLinearR {
    FirstOrderType2R::new(|x, l| vector(&[l[0].powi(3) + 1.0 - x[0]]), |l| -l)
}

/// Bad input is an error that names the relation or system, the operator and the step:
/// Jacobians of the wrong shape (at link, and when a closure changes shape mid-run), h or f
/// returning NaN, a z of the wrong size, the full θ-γ variant on a nonlinear scene, and a
/// Newton loop that does not converge (or, lenient, a step flagged as missing it).
#[test]
fn bad_input_is_named() {
    let message = |r: ricochet::Result<TimeStepping>| match r {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    };
    let m = message(capacitor_with(cubic_resistor().with_c(DMatrix::zeros(2, 1))));
    assert!(
        m.contains("diode and resistor") && m.contains("C = ∇ₓh") && m.contains("FirstOrderType2R"),
        "{m}"
    );
    let m = message(capacitor_with(FirstOrderNonLinearR::new(
        |_, _, _, _| vector(&[0.0, 0.0]),
        |_, _, l, _| -l,
    )));
    assert!(m.contains("h(t, x, λ, z)") && m.contains("FirstOrderNonLinearR"), "{m}");

    let bad_later = cubic_resistor().with_d(Jacobian::function(|_, _, l, _| {
        if l[0] > 0.0 {
            DMatrix::zeros(1, 2)
        } else {
            DMatrix::zeros(1, 1)
        }
    }));
    let mut sim = capacitor_with(bad_later).unwrap();
    let error = sim.step().unwrap_err().to_string();
    assert!(
        error.contains("diode and resistor") && error.contains("D = ∇_λh") && error.contains("step 1"),
        "{error}"
    );
    assert_eq!(
        (sim.steps(), sim.q(DsId(0))[0]),
        (0, 2.0),
        "the failed step is not taken"
    );

    let nan = FirstOrderType2R::new(
        |x, l| vector(&[if x[0] < 1.9 { f64::NAN } else { l[0] + 1.0 - x[0] }]),
        |l| -l,
    );
    let mut sim = capacitor_with(nan).unwrap();
    let error = (0..5)
        .find_map(|_| sim.step().err())
        .expect("NaN is refused")
        .to_string();
    assert!(
        error.contains("diode and resistor") && error.contains("h(t, x, λ, z) at step"),
        "{error}"
    );

    let mut sim = capacitor_with(cubic_resistor()).unwrap();
    let error = sim.set_z(DsId(0), &vector(&[1.0, 2.0])).unwrap_err().to_string();
    assert!(error.contains("capacitor"), "{error}");
    sim.set_z(DsId(0), &vector(&[3.0])).unwrap();
    assert_eq!(sim.z(DsId(0)).unwrap(), vector(&[3.0]));

    let mut nsds = Nsds::new();
    let id = nsds.add(
        "capacitor",
        FirstOrderNonLinearDS::new(vector(&[2.0]), |_, _, _| DVector::zeros(1)).unwrap(),
    );
    nsds.link(
        "diode",
        ricochet::model::ComplementarityConditionNSL::new(1).unwrap(),
        cubic_resistor(),
        &[id],
    )
    .unwrap();
    let theta_gamma = EulerMoreauOSI::theta_gamma(0.5, 0.5).unwrap();
    let m = message(TimeStepping::new(nsds, Integrator::EulerMoreau(theta_gamma), 0.0, 0.1));
    assert!(m.contains("θ-γ"), "{m}");

    let mut sim = capacitor_with(cubic_resistor()).unwrap();
    sim.newton.tolerance = 1e-14;
    sim.newton.max_iterations = 2;
    let error = sim.step().unwrap_err().to_string();
    assert!(
        error.contains("Newton loop") && error.contains("diode and resistor") && error.contains("step 1"),
        "{error}"
    );
    sim.lenient = true;
    sim.step().unwrap();
    let report = sim.last_report();
    assert!(report.missed_tolerance && report.newton_iterations == 2 && report.newton_residual > 1e-14);
}

/// Siconos's NonLinearSwitch (IdealSwitch): a PWM buck stage whose switch and diode are
/// resistances chosen by complementarity between 1 mΩ and 1 kΩ through terms bilinear in λ — a
/// time-dependent h(t, x, λ) of 9 rows under MixedComplementarityConditionNSL(4, 5) (the
/// first 5 rows equalities), an MLCP solved by enumeration, x the inductor current
/// (FirstOrderNonLinearDS, f = 0), θ = 0.5, h = 0.1 µs, 2000 steps, Newton tolerance 1e-11,
/// 20 iterations, λ kept between steps. The reference prints 10 significant digits (no
/// header: k, x, λ₀..λ₅): every column to 1e-9 relative (absolute 1e-12 below 1e-3; an
/// independent implementation: 5e-10), the switch open in 1220 rows, and that implementation's
/// Newton counts (2 iterations in 1931 steps, at most 7).
#[test]
fn non_linear_switch() {
    let Some(reference) = table("NonLinearSwitch.ref") else {
        return;
    };
    let mut sim = NonLinearSwitch::default().simulation().unwrap();
    let id = DsId(0);
    let mut worst = [0.0f64; 8];
    let (mut open, mut iterations) = (0, vec![0usize; 21]);
    for i in 0..reference.nrows() {
        sim.step().unwrap();
        iterations[sim.last_report().newton_iterations] += 1;
        let l = sim.lambda();
        let ours = [sim.steps() as f64, sim.q(id)[0], l[0], l[1], l[2], l[3], l[4], l[5]];
        if i == 0 {
            assert!(
                (ours[1] - 0.01 / ((1.0 + 1e-6) * (1.0 + 5e-4) + 5e-7)).abs() < 1e-15,
                "step 1: x = {}",
                ours[1]
            );
        }
        open += usize::from(l[5] > 0.0);
        for (j, w) in worst.iter_mut().enumerate() {
            let expected = reference[(i, j)];
            let error = (ours[j] - expected).abs() / expected.abs().max(1e-3);
            assert!(
                error <= 1e-9,
                "row {i} column {j}: ours {}, reference {expected} (relative {error:e})",
                ours[j]
            );
            *w = w.max(error);
        }
    }
    let formatted: Vec<String> = worst.iter().map(|e| format!("{e:.1e}")).collect();
    println!(
        "NonLinearSwitch: max relative error per column [{}]; switch open in {open} rows",
        formatted.join(", ")
    );
    assert_eq!(open, 1220, "rows with the switch open (counted once, pinned)");
    println!("NonLinearSwitch: steps per Newton count {iterations:?}");
    assert_eq!(iterations[2], 1931, "steps of 2 iterations (counted once, pinned)");
    assert!(iterations[8..].iter().all(|&n| n == 0), "at most 7 iterations");
}

/// A first-order trajectory as CSV: the coordinates by name, λ, y and z per row, one row per
/// sample; a wrong number of names is an error.
#[test]
fn first_order_csv() {
    let mut pair = ricochet::scenes::relay_bi_simulation::RelayBiSimulation::default()
        .start()
        .unwrap();
    let mut trajectory = ricochet::reference::Trajectory::default();
    pair.process.run(0.001, &mut trajectory).unwrap();
    let mut out = Vec::new();
    let names = pair.process.nsds().coordinates();
    trajectory.write_first_order_csv(&mut out, &names).unwrap();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "t,x_0,x_1,z0,z1");
    assert_eq!(lines.len(), 1 + 11);
    assert_eq!(lines[11].split(',').count(), 5);
    let error = trajectory.write_first_order_csv(Vec::new(), &names[..1]).unwrap_err();
    assert!(
        error.to_string().contains("1 coordinate names for 2 coordinates"),
        "{error}"
    );
}

/// A Monte Carlo ensemble of the cubic-resistor circuit (`template = "cubic_resistor"`, a
/// nonlinear first-order scene): `auto` runs it on the reference engine (the batched ones
/// say why they do not); each diode blocks within 5 steps of the exact t* = 1.5 C β^{1/3};
/// every capacitor ends at the source (its rate ẋ, the `v_C_dot` column, at 0); the
/// summary's bits do not depend on the chunking, and the recorded trajectories (run in
/// segments, the Newton loop restarting its memory) end within 1e-9 of the summary's state.
#[test]
fn cubic_resistor_ensemble() {
    use ricochet::ensemble::{self, Backend, RunOptions, Scenario, Shard};
    let scenario = Scenario::from_toml(
        r#"
name = "circuits"
scenes = 6
seed = 3
[scene]
template = "cubic_resistor"
capacitance = { uniform = [0.5, 1.5] }
beta = { uniform = [0.5, 1.5] }
[time]
step = 1e-3
final = 2.5
[record]
trajectories = 2
stride = 250
[[observe]]
name = "blocks"
signal = "v_C"
reduce = "first_below"
threshold = 1.000001
"#,
    )
    .unwrap();
    let run = |backend, chunk| {
        let options = RunOptions {
            backend,
            chunk: Some(chunk),
            shard: Shard { index: 0, count: 1 },
            ..Default::default()
        };
        ensemble::run(&scenario, &options, &ensemble::Progress::new()).unwrap()
    };
    let auto = run(Backend::Auto, 6);
    assert!(auto.engine.starts_with("reference"), "{}", auto.engine);
    assert!(
        auto.notice.as_deref().unwrap_or("").contains("first-order"),
        "{:?}",
        auto.notice
    );
    let column = |name: &str| auto.summary.column(name).unwrap();
    let (c, beta, blocks) = (column("capacitance"), column("beta"), column("blocks"));
    for k in 0..6 {
        let exact = 1.5 * c[k] * beta[k].cbrt();
        assert!(
            (blocks[k] - exact).abs() <= 5e-3,
            "scene {k}: blocks at {}, exactly {exact}",
            blocks[k]
        );
    }
    assert!(
        column("v_C").iter().all(|v| (v - 1.0).abs() < 1e-6),
        "{:?}",
        column("v_C")
    );
    assert!(
        column("v_C_dot").iter().all(|v| v.abs() < 1e-3),
        "{:?}",
        column("v_C_dot")
    );
    assert!(column("converged").iter().all(|&x| x == 1.0));
    let chunked = run(Backend::Reference, 4);
    for name in ["v_C", "v_C_dot", "blocks"] {
        let (a, b) = (column(name), chunked.summary.column(name).unwrap());
        assert!(
            a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()),
            "{name}: {a:?} {b:?}"
        );
    }
    let (scene, v) = (
        auto.trajectories.column("scene").unwrap(),
        auto.trajectories.column("v_C").unwrap(),
    );
    let mut recorded = scene.clone();
    recorded.dedup();
    assert_eq!(recorded.len(), 2);
    for s in recorded {
        let last = scene.iter().rposition(|&x| x == s).unwrap();
        assert!((v[last] - column("v_C")[s as usize]).abs() < 1e-9, "scene {s}");
    }
}
