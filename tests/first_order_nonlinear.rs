//! Nonlinear first-order systems and relations under Euler–Moreau's Newton loop
//! (FIRST-ORDER-NOTES §1.3): Siconos's references (siconos-tutorials, Apache-2.0, in
//! ../shared/data/siconos/tutorials-ref) column by column to the accuracy the notes measured
//! for an independent implementation, a closed-form circuit, a linear relation written as a
//! nonlinear one, and the errors of bad input.

mod common;

use nalgebra::{DMatrix, DVector};
use ricochet::model::{
    FirstOrderLinearDS, FirstOrderNonLinearDS, FirstOrderNonLinearR, FirstOrderType2R, Jacobian, Nsds, RelayNSL,
};
use ricochet::numerics::SolverKind;
use ricochet::reference::{Integrator, TimeStepping};
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
/// 1e-12 (the notes: 7e-15), and the Newton counts of the notes' first quirk: h_α and g_α lag
/// one step, λ is reset, so the 56 steps that start from λ_k ≠ 0 take 2 iterations and the 44
/// others 1.
#[test]
fn filippov_nonlinear_relation() {
    let Some(reference) = table("Filippov_NL_py.ref") else {
        return;
    };
    let system = FirstOrderLinearDS::new(vector(&[3.0, 3.0]), DMatrix::zeros(2, 2)).unwrap();
    let alpha = 0.01;
    let b = DMatrix::from_row_slice(2, 2, &[alpha, 1.0 - alpha, -(1.0 - alpha), alpha]) * 500.0;
    let c = DMatrix::<f64>::identity(2, 2);
    let (b_g, c_h) = (b.clone(), c.clone());
    let relation = FirstOrderNonLinearR::new(move |_, x, _, _| &c_h * x, move |_, _, l, _| &b_g * l)
        .with_c(c)
        .with_b(b);
    let mut nsds = Nsds::new();
    let id = nsds.add("system", system);
    nsds.link("relay", RelayNSL::new(2).unwrap(), relation, &[id]).unwrap();
    let mut sim = euler_moreau(nsds, 0.5, 1e-3);
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
    compare(
        "Filippov_NL (NonLinearR)",
        &reference,
        &ours,
        &[(0, 1e-15), (1, 1e-12), (2, 1e-12), (3, 1e-12)],
    );
}

/// The gene network of Siconos's StepSystem: ẋ = f(x) + r, f = (−4.5 x₀, −1.5 x₁)
/// (FirstOrderNonLinearDS, ∇f given), x₀ = (1, 6), a FirstOrderType2R with y = h(x) and a
/// bilinear g(λ) under a relay, θ = 0.5, h = 1e-3, 3000 rows; columns t, x, λ₀..λ₃ and
/// rhs = f(x_{k+1}) + r_{k+1} (row 0 prints row 1's rhs).
fn step_system(
    name: &str,
    file: &str,
    relation: FirstOrderNonLinearR,
    bounds: (f64, f64),
    (tolerance, max_iterations): (f64, usize),
    recorded: usize,
) {
    let Some(reference) = reference(file) else {
        return;
    };
    let f = |x: &DVector<f64>| vector(&[-4.5 * x[0], -1.5 * x[1]]);
    let system = FirstOrderNonLinearDS::new(vector(&[1.0, 6.0]), move |_, x, _| f(x))
        .unwrap()
        .with_jacobian(|_, _, _| DMatrix::from_diagonal(&vector(&[-4.5, -1.5])))
        .unwrap();
    let mut nsds = Nsds::new();
    let id = nsds.add("genes", system);
    nsds.link(
        "switches",
        RelayNSL::with_bounds(4, bounds.0, bounds.1).unwrap(),
        relation,
        &[id],
    )
    .unwrap();
    let mut sim = euler_moreau(nsds, 0.5, 1e-3);
    sim.solver = SolverKind::Lemke;
    sim.newton.tolerance = tolerance;
    sim.newton.max_iterations = max_iterations;
    sim.newton.reset_lambda = false;
    let row = |sim: &TimeStepping| {
        let x = sim.q(id);
        let rhs = f(&x) + sim.r(id);
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
        name,
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

/// `simu.1.6.ref`: y = (4 − x₀, 4 − x₁, 8 − x₀, 8 − x₁), g = (40 (1 − λ₂) λ₁, 40 λ₀ (1 − λ₃)),
/// relay [0, 1] (λ_i the step function of a threshold), Newton tolerance 5e-4, 20 iterations;
/// x to 1e-13, λ to 2e-12, rhs to 2e-11 (the notes: 3e-14, 8e-13, 1.7e-11).
#[test]
fn step_system_simu() {
    let relation = FirstOrderType2R::new(
        |x, _| vector(&[4.0 - x[0], 4.0 - x[1], 8.0 - x[0], 8.0 - x[1]]),
        |l| vector(&[40.0 * (1.0 - l[2]) * l[1], 40.0 * l[0] * (1.0 - l[3])]),
    )
    .with_c(-DMatrix::from_row_slice(
        4,
        2,
        &[1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0],
    ))
    .with_d(DMatrix::zeros(4, 4))
    .with_b(Jacobian::function(|_, _, l, _| {
        DMatrix::from_row_slice(
            2,
            4,
            &[
                0.0,
                40.0 * (1.0 - l[2]),
                -40.0 * l[1],
                0.0,
                40.0 * (1.0 - l[3]),
                0.0,
                0.0,
                -40.0 * l[0],
            ],
        )
    }));
    step_system(
        "StepSystem simu.1.6",
        "simu.1.6.ref",
        relation,
        (0.0, 1.0),
        (5e-4, 20),
        4,
    );
}

/// `sign.1.6.ref`: y = (x₀ − 4, x₁ − 4, x₀ − 8, x₁ − 8), g = (10 (1 + λ₂)(1 − λ₁),
/// 10 (1 − λ₀)(1 + λ₃)), relay [−1, 1] (a sign function), tolerance 5e-4, 20 iterations.
/// (With B by finite differences instead, the loop stops at the tolerance on another path:
/// x moves by 1e-12 and λ by 7e-10.)
#[test]
fn step_system_sign() {
    let relation = FirstOrderType2R::new(
        |x, _| vector(&[x[0] - 4.0, x[1] - 4.0, x[0] - 8.0, x[1] - 8.0]),
        |l| vector(&[10.0 * (1.0 + l[2]) * (1.0 - l[1]), 10.0 * (1.0 - l[0]) * (1.0 + l[3])]),
    )
    .with_c(DMatrix::from_row_slice(4, 2, &[1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0]))
    .with_d(DMatrix::zeros(4, 4))
    .with_b(Jacobian::function(|_, _, l, _| {
        DMatrix::from_row_slice(
            2,
            4,
            &[
                0.0,
                -10.0 * (1.0 + l[2]),
                10.0 * (1.0 - l[1]),
                0.0,
                -10.0 * (1.0 + l[3]),
                0.0,
                0.0,
                10.0 * (1.0 - l[0]),
            ],
        )
    }));
    step_system(
        "StepSystem sign.1.6",
        "sign.1.6.ref",
        relation,
        (-1.0, 1.0),
        (5e-4, 20),
        4,
    );
}

/// `simu-reduced.1.6.ref`: y = (8 − x₀, 8 − x₁, 0, 0) in a relay [0, 1] of size 4,
/// g = (40 (1 − λ₀), 40 (1 − λ₁)), tolerance 1e-4, 200 iterations; only λ₀ is recorded.
#[test]
fn step_system_reduced() {
    let relation = FirstOrderType2R::new(
        |x, _| vector(&[8.0 - x[0], 8.0 - x[1], 0.0, 0.0]),
        |l| vector(&[40.0 * (1.0 - l[0]), 40.0 * (1.0 - l[1])]),
    )
    .with_c(-DMatrix::from_row_slice(
        4,
        2,
        &[1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
    ))
    .with_d(DMatrix::zeros(4, 4))
    .with_b(DMatrix::from_row_slice(
        2,
        4,
        &[-40.0, 0.0, 0.0, 0.0, 0.0, -40.0, 0.0, 0.0],
    ));
    step_system(
        "StepSystem simu-reduced.1.6",
        "simu-reduced.1.6.ref",
        relation,
        (0.0, 1.0),
        (1e-4, 200),
        1,
    );
}
