//! Euler–Moreau's Newton loop for nonlinear first-order scenes (a [`FirstOrderNonLinearDS`]
//! or a [`FirstOrderNonLinearR`] anywhere), exactly as Siconos's `EulerMoreauOSI` and
//! `TimeStepping::newtonSolve` run it (Siconos's legacy `kernel/src/simulationTools/`
//! `EulerMoreauOSI.cpp`, `TimeStepping.cpp`, `LinearOSNS.cpp`). The step solves
//! ```text
//!   M (x_{k+1} − x_k) = hθ f(t_{k+1}, x_{k+1}) + h(1−θ) f_k + h r_{k+1},
//!   y = h(x_{k+1}, λ),  r = g(x_{k+1}, λ),  NSLaw(y, λ)
//! ```
//! by linearising around the iterate (x^α, λ^α): with R_free(x) = M(x − x_k) − hθ f(t_{k+1}, x)
//! − h(1−θ) f_k, W = M − hθ∇ₓf − hK, and the memory h_α, g_α of the last evaluations,
//! ```text
//!   x_free = x − W⁻¹ R_free(x),   Δx = x_free + h W⁻¹ (g_α − B λ^α) − x
//!   problem: w = (D + h C W⁻¹ B) λ + h_α − D λ^α + C Δx     (LCP, relay or MLCP rows)
//!   g_α   += B (λ − λ^α) + K Δx + h K W⁻¹ B λ,   r = Σ g_α,   then g_α = g(t_{k+1}, x^α, λ)
//!   x^{α+1} = x_free + h W⁻¹ r
//!   y = w,  h_α = h(t_{k+1}, x^{α+1}, λ)
//! ```
//! until ‖R_free − h r‖₂, ‖y − h_α‖₂ and ‖r − g_α‖₂ (per system and interaction) are all
//! ≤ the tolerance (absolute; default 1e-6, 50 iterations). Siconos's quirks are kept on
//! purpose — each changes the references: h_α and g_α carry over from the last step into the
//! first iteration, g_α is evaluated at x^α (not x^{α+1}), K is counted both in W and in r,
//! y is written once more after the loop with the last residual, and f_k is the last f
//! evaluated (f(t_{k+1}, x_{k+1}) from the check). Linear relations in such a scene are the
//! nonlinear relation h = C x + D λ + e, g = B λ, K = 0.
//!
//! [`FirstOrderNonLinearDS`]: crate::model::FirstOrderNonLinearDS
//! [`FirstOrderNonLinearR`]: crate::model::FirstOrderNonLinearR

use nalgebra::{DMatrix, DVector};

use super::integrator::{StepReport, StepSettings};
use super::state::{NewtonMemory, SceneState};
use crate::error::{Error, Result};
use crate::model::relation::first_order_nonlinear::{At, Linearisation};
use crate::model::{DsId, DynamicalSystem, Interaction, Nsds, Relation};
use crate::scheme::EulerMoreauOSI;
use crate::validate;

/// Whether a scene needs the Newton loop: a nonlinear first-order system or relation.
pub(crate) fn needs_newton(nsds: &Nsds) -> bool {
    nsds.systems()
        .any(|(_, ds)| matches!(ds, DynamicalSystem::FirstOrderNonLinearDS(_)))
        || nsds
            .interactions()
            .iter()
            .any(|i| matches!(i.relation, Relation::FirstOrderNonLinearR(_)))
}

/// One interaction's place in the global vectors.
struct Rows {
    offset: usize,
    size: usize,
    idx: Vec<usize>,
    z: DVector<f64>,
}

fn rows(ts: &SceneState) -> Vec<Rows> {
    (ts.nsds.interactions().iter().zip(ts.nsds.row_offsets()))
        .map(|(inter, offset)| Rows {
            offset,
            size: inter.size(),
            idx: ts.indices(inter),
            z: ts.z_of(inter),
        })
        .collect()
}

/// y = h(t, x, λ, z) of an interaction (C x + D λ + e for a linear relation).
pub(crate) fn output(inter: &Interaction, at: At, context: &str) -> Result<DVector<f64>> {
    let y = match &inter.relation {
        Relation::FirstOrderNonLinearR(r) => r.h(at),
        relation => {
            let op = relation.first_order_operators(at.t, at.z)?;
            &op.c * at.x + &op.d * at.lambda + &op.e
        }
    };
    checked_vector(
        &format!("interaction `{}`: h(t, x, λ, z){context}", inter.name),
        y,
        inter.size(),
    )
}

/// r = g(t, x, λ, z) of an interaction (B λ for a linear relation).
fn input(inter: &Interaction, at: At, context: &str) -> Result<DVector<f64>> {
    let r = match &inter.relation {
        Relation::FirstOrderNonLinearR(r) => r.g(at),
        relation => &relation.first_order_operators(at.t, at.z)?.b * at.lambda,
    };
    checked_vector(
        &format!("interaction `{}`: g(t, x, λ, z){context}", inter.name),
        r,
        at.x.len(),
    )
}

/// C, D, B, K of an interaction at `at` (K = 0 for a linear relation).
fn linearise(inter: &Interaction, at: At, context: &str) -> Result<Linearisation> {
    let (m, n) = (inter.size(), at.x.len());
    let what = format!("interaction `{}`{context}", inter.name);
    match &inter.relation {
        Relation::FirstOrderNonLinearR(r) => {
            let l = r.linearise(at, m, n);
            r.check_linearisation(&format!("{what} ({})", r.kind), &l, m, n)?;
            Ok(l)
        }
        relation => {
            let op = relation.first_order_operators(at.t, at.z)?;
            op.check(&what, m, n)?;
            Ok(Linearisation {
                c: op.c,
                d: op.d,
                b: op.b,
                k: DMatrix::zeros(n, n),
            })
        }
    }
}

fn checked_vector(what: &str, v: DVector<f64>, len: usize) -> Result<DVector<f64>> {
    validate::vector(what, &v, len)?;
    validate::finite_vector(what, &v)?;
    Ok(v)
}

/// The stacked vector field f(t, x) of the scene's systems (A x + b(t, z) for a linear one).
fn fields(ts: &SceneState, t: f64, x: &DVector<f64>, context: &str) -> Result<DVector<f64>> {
    let mut f = DVector::zeros(x.len());
    for (i, (name, ds)) in ts.nsds.systems().enumerate() {
        let (o, d) = (ts.offsets()[i], ds.dimension());
        let xi = x.rows(o, d).into_owned();
        let fi = match ds {
            DynamicalSystem::FirstOrderLinearDS(ds) => &ds.a * &xi + ds.b_at(t, &ds.z),
            DynamicalSystem::FirstOrderNonLinearDS(ds) => ds.f(t, &xi, &ds.z),
            _ => return Err(lagrangian(name)),
        };
        let fi = checked_vector(&format!("system `{name}`: f(t, x, z){context}"), fi, d)?;
        f.rows_mut(o, d).copy_from(&fi);
    }
    Ok(f)
}

/// Block-diagonal M and ∇ₓf(t, x) of the scene's systems.
fn mass_and_jacobian(ts: &SceneState, t: f64, x: &DVector<f64>, context: &str) -> Result<(DMatrix<f64>, DMatrix<f64>)> {
    let mass = ts.block_diagonal(|i, _, d| match ts.nsds.system(DsId(i)) {
        DynamicalSystem::FirstOrderNonLinearDS(ds) => Ok(ds.mass()),
        _ => Ok(DMatrix::identity(d, d)),
    })?;
    let jacobian = ts.block_diagonal(|i, o, d| {
        let name = ts.nsds.system_name(DsId(i));
        let a = match ts.nsds.system(DsId(i)) {
            DynamicalSystem::FirstOrderLinearDS(ds) => ds.a.clone(),
            DynamicalSystem::FirstOrderNonLinearDS(ds) => ds.jacobian(t, &x.rows(o, d).into_owned(), &ds.z),
            _ => return Err(lagrangian(name)),
        };
        let what = format!("system `{name}`: ∇ₓf(t, x, z){context}");
        validate::matrix(&what, &a, d, d)?;
        validate::finite_matrix(&what, &a)?;
        Ok(a)
    })?;
    Ok((mass, jacobian))
}

fn lagrangian(name: &str) -> Error {
    Error::Unsupported {
        what: format!("dynamical system `{name}`"),
        reason: "Euler–Moreau integrates first-order systems".into(),
    }
}

/// One Newton-loop step of `ts` (see the [module](self) documentation).
pub(super) fn step(ts: &mut SceneState, settings: &StepSettings, osi: EulerMoreauOSI) -> Result<StepReport> {
    let (h, theta) = (ts.h, osi.theta);
    let t_next = ts.time_at(ts.k + 1);
    let context = format!(" at step {} (t = {t_next})", ts.k + 1);
    let (n, m) = (ts.q.len(), ts.lambda.len());
    let layout = rows(ts);
    let mut memory = match &ts.newton {
        Some(memory) => memory.clone(),
        None => NewtonMemory {
            h_alpha: DVector::zeros(m),
            g_alpha: layout.iter().map(|r| DVector::zeros(r.idx.len())).collect(),
            y: DVector::zeros(m),
            f_k: fields(ts, ts.time(), &ts.q, " at t0")?,
        },
    };
    let interactions = ts.nsds.interactions();
    let at = |rows: &'_ Rows, x: &'_ DVector<f64>, lambda: &'_ DVector<f64>| {
        (
            SceneState::gather(&rows.idx, x),
            lambda.rows(rows.offset, rows.size).into_owned(),
        )
    };
    fn point<'a>(t: f64, x: &'a DVector<f64>, lambda: &'a DVector<f64>, z: &'a DVector<f64>) -> At<'a> {
        At { t, x, lambda, z }
    }
    let outputs = |x: &DVector<f64>, lambda: &DVector<f64>| -> Result<DVector<f64>> {
        let mut y = DVector::zeros(m);
        for (inter, rows) in interactions.iter().zip(&layout) {
            let (xi, li) = at(rows, x, lambda);
            let yi = output(inter, point(t_next, &xi, &li, &rows.z), &context)?;
            y.rows_mut(rows.offset, rows.size).copy_from(&yi);
        }
        Ok(y)
    };
    let singular = || Error::Singular {
        what: format!("Euler–Moreau iteration matrix W = M − hθ∇ₓf − hK{context}"),
    };

    let x_k = ts.q.clone();
    let mut lambda = if settings.newton.reset_lambda {
        DVector::zeros(m)
    } else {
        ts.lambda.clone()
    };
    let mut y = outputs(&x_k, &lambda)?;
    let residual_free = |mass: &DMatrix<f64>, x: &DVector<f64>, f: &DVector<f64>, f_k: &DVector<f64>| {
        mass * (x - &x_k) - f * (h * theta) - f_k * (h * (1.0 - theta))
    };
    let (mass, _) = mass_and_jacobian(ts, t_next, &x_k, &context)?;
    let mut f = fields(ts, t_next, &x_k, &context)?;
    let mut r_free = residual_free(&mass, &x_k, &f, &memory.f_k);
    let mut rho_y = &y - &memory.h_alpha;

    let max_iterations = settings.newton.max_iterations.max(1);
    let mut x = x_k.clone();
    let mut r = DVector::zeros(n);
    let mut report = StepReport {
        active: interactions.len(),
        ..Default::default()
    };
    let (mut y_old, mut lambda_old) = (y.clone(), lambda.clone());
    let (mut dx, mut c, mut d, mut m_osns) = (
        DVector::zeros(n),
        DMatrix::zeros(m, n),
        DMatrix::zeros(m, m),
        DMatrix::zeros(m, m),
    );
    let (mut converged, mut worst) = (false, (f64::INFINITY, String::new()));
    for alpha in 0..max_iterations {
        report.newton_iterations = alpha + 1;
        // The linearisation at (t_{k+1}, x^α, λ^α).
        let (_, a) = mass_and_jacobian(ts, t_next, &x, &context)?;
        let (mut b, mut k) = (DMatrix::zeros(n, m), DMatrix::zeros(n, n));
        let (mut lins, mut g_sum) = (Vec::new(), DVector::zeros(n));
        c.fill(0.0);
        d.fill(0.0);
        for ((inter, rows), g_alpha) in interactions.iter().zip(&layout).zip(&memory.g_alpha) {
            let (xi, li) = at(rows, &x, &lambda);
            let l = linearise(inter, point(t_next, &xi, &li, &rows.z), &context)?;
            let (o, s) = (rows.offset, rows.size);
            d.view_mut((o, o), (s, s)).copy_from(&l.d);
            for (col, &i) in rows.idx.iter().enumerate() {
                c.view_mut((o, i), (s, 1)).copy_from(&l.c.column(col));
                b.view_mut((i, o), (1, s)).copy_from(&l.b.row(col));
                g_sum[i] += g_alpha[col];
                for (col2, &j) in rows.idx.iter().enumerate() {
                    k[(i, j)] += l.k[(col, col2)];
                }
            }
            lins.push(l);
        }
        let w = (&mass - a * (h * theta) - &k * h).lu();
        let x_free = &x - w.solve(&r_free).ok_or_else(singular)?;
        let x_p = &x_free + w.solve(&(g_sum - &b * &lambda)).ok_or_else(singular)? * h;
        dx = x_p - &x;
        (y_old, lambda_old) = (y.clone(), lambda.clone());
        let w_inv_b = w.solve(&b).ok_or_else(singular)?;
        m_osns = &d + &c * &w_inv_b * h;
        if m > 0 {
            let q = &memory.h_alpha - &d * &lambda_old + &c * &dx;
            let (solution, lcp) = settings.solve_rows(&ts.nsds, m_osns.clone(), q, &context)?;
            lambda = solution;
            report.lcp = Some(lcp);
        }

        // The input: g_α linearised, summed into r, then g at (x^α, λ^{α+1}).
        r.fill(0.0);
        for (((inter, rows), l), g_alpha) in interactions.iter().zip(&layout).zip(&lins).zip(&mut memory.g_alpha) {
            let (o, s) = (rows.offset, rows.size);
            let delta = lambda.rows(o, s) - lambda_old.rows(o, s);
            // K̂ λ = h K W⁻¹ B λ from this interaction's own block (Siconos's computeKhat).
            let own = w_inv_b.columns(o, s) * lambda.rows(o, s) * h;
            *g_alpha +=
                &l.b * delta + &l.k * SceneState::gather(&rows.idx, &dx) + &l.k * SceneState::gather(&rows.idx, &own);
            for (col, &i) in rows.idx.iter().enumerate() {
                r[i] += g_alpha[col];
            }
            let (xi, li) = at(rows, &x, &lambda);
            *g_alpha = input(inter, point(t_next, &xi, &li, &rows.z), &context)?;
        }
        x = &x_free + w.solve(&r).ok_or_else(singular)? * h;
        if alpha + 1 < max_iterations {
            y = &y_old - &rho_y - &d * &lambda_old + &c * &dx + &m_osns * &lambda;
            memory.h_alpha = outputs(&x, &lambda)?;
        }

        // The three residuals.
        f = fields(ts, t_next, &x, &context)?;
        r_free = residual_free(&mass, &x, &f, &memory.f_k);
        let residual = &r_free - &r * h;
        rho_y = &y - &memory.h_alpha;
        worst = (0.0, String::new());
        let mut note = |value: f64, what: &dyn Fn() -> String| {
            if value > worst.0 || value.is_nan() {
                worst = (value, what());
            }
        };
        for (i, (name, ds)) in ts.nsds.systems().enumerate() {
            let value = residual.rows(ts.offsets()[i], ds.dimension()).norm();
            note(value, &|| format!("‖R‖ of system `{name}`"));
        }
        for ((inter, rows), g_alpha) in interactions.iter().zip(&layout).zip(&memory.g_alpha) {
            note(rho_y.rows(rows.offset, rows.size).norm(), &|| {
                format!("‖y − h‖ of interaction `{}`", inter.name)
            });
            note((SceneState::gather(&rows.idx, &r) - g_alpha).norm(), &|| {
                format!("‖r − g‖ of interaction `{}`", inter.name)
            });
        }
        converged = worst.0 <= settings.newton.tolerance;
        if converged {
            break;
        }
    }
    if !converged {
        if !settings.lenient {
            return Err(Error::NotConverged {
                solver: format!("Euler–Moreau's Newton loop (largest residual: {})", worst.1),
                context,
                iterations: report.newton_iterations,
                residual: worst.0,
                tolerance: settings.newton.tolerance,
            });
        }
        report.missed_tolerance = true;
    }
    report.newton_residual = worst.0;
    // Siconos writes y once more after the loop, with the last residual.
    memory.y = &y_old - &rho_y - &d * &lambda_old + &c * &dx + &m_osns * &lambda;
    memory.h_alpha = outputs(&x, &lambda)?;
    memory.f_k = f;
    ts.q = x;
    ts.p = r;
    ts.lambda = lambda;
    ts.newton = Some(memory);
    Ok(report)
}
