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
use super::state::{SceneState, SchemeMemory};
use crate::error::{Error, Result};
use crate::model::relation::first_order_nonlinear::{At, Linearisation};
use crate::model::{DsId, DynamicalSystem, Interaction, Nsds, Relation};
use crate::scheme::EulerMoreauOSI;
use crate::validate;

mod newton_loop;
use newton_loop::NewtonLoop;

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

/// One Newton-loop step of `ts` (see the [module](self) documentation), stage by stage.
pub(super) fn step(ts: &mut SceneState, settings: &StepSettings, osi: EulerMoreauOSI) -> Result<StepReport> {
    let mut newton = NewtonLoop::start(ts, settings, osi.theta)?;
    let max_iterations = settings.newton.max_iterations.max(1);
    let mut report = StepReport {
        active: ts.nsds.interactions().len(),
        ..Default::default()
    };
    let (mut converged, mut worst) = (false, (f64::INFINITY, String::new()));
    for alpha in 0..max_iterations {
        report.newton_iterations = alpha + 1;
        let lin = newton.linearise()?;
        let (x_free, w_inv_b) = newton.free_state(&lin)?;
        newton.solve_problem(settings, &mut report)?;
        newton.update_input(&lin, &w_inv_b)?;
        newton.update_state(&lin, x_free, alpha + 1 == max_iterations)?;
        worst = newton.residuals()?;
        converged = worst.0 <= settings.newton.tolerance;
        if converged {
            break;
        }
    }
    if !converged {
        if !settings.lenient {
            return Err(Error::NotConverged {
                solver: format!("Euler–Moreau's Newton loop (largest residual: {})", worst.1),
                context: newton.context,
                iterations: report.newton_iterations,
                residual: worst.0,
                tolerance: settings.newton.tolerance,
            });
        }
        report.missed_tolerance = true;
    }
    report.newton_residual = worst.0;
    let (x, r, lambda, memory) = newton.finish()?;
    ts.q = x;
    ts.p = r;
    ts.lambda = lambda;
    ts.memory = SchemeMemory::Newton(memory);
    Ok(report)
}
