//! One nonsmooth RATTLE step of a Lagrangian scene on the CPU, in f64: [`NonsmoothRattleOSI`]
//! as a [`OneStepIntegrator`] (the formulas are in [`crate::scheme::nonsmooth_rattle`]).
//!
//! Each interaction is an equality (`EqualityConditionNSL`, position level) or a contact
//! (`NewtonImpactNSL` with its e, `ComplementarityConditionNSL` as e = 0); its rows enter the
//! stages one by one (a row of a contact is a candidate when its own h_α(q̄) ≤ δ), as in the
//! batched engines.

use nalgebra::{DMatrix, DVector, Dyn, LU};

use super::integrator::{OneStepIntegrator, StepReport, StepSettings};
use super::moreau_jean::{Dynamics, dynamics};
use super::state::{SceneState, SchemeMemory};
use crate::error::{Error, Result};
use crate::model::{DynamicalSystem, Interaction, NonSmoothLaw};
use crate::scheme::NonsmoothRattleOSI;

impl OneStepIntegrator for NonsmoothRattleOSI {
    fn check(&self, state: &SceneState) -> Result<()> {
        self.checked()?;
        if let Some((name, _)) = state.nsds.systems().find(|(_, ds)| !ds.is_lagrangian()) {
            return Err(Error::Unsupported {
                what: format!("dynamical system `{name}`"),
                reason: "nonsmooth RATTLE integrates Lagrangian systems".into(),
            });
        }
        for (name, ds) in state.nsds.systems() {
            if let DynamicalSystem::LagrangianLinearTIDS(ds) = ds {
                NonsmoothRattleOSI::check_stability(&ds.mass, &ds.stiffness, state.h, &format!("system `{name}`"))?;
            }
        }
        for inter in state.nsds.interactions() {
            let supported = matches!(
                inter.law,
                NonSmoothLaw::NewtonImpact(_)
                    | NonSmoothLaw::ComplementarityCondition(_)
                    | NonSmoothLaw::EqualityCondition(_)
            ) && !inter.relation.is_compliant()
                && !inter.relation.is_velocity_level();
            if !supported {
                return Err(Error::Unsupported {
                    what: format!("interaction `{}`", inter.name),
                    reason: "nonsmooth RATTLE takes position-level equalities and Newton-impact or complementarity contacts (no friction, compliance, relay or velocity-level constraint yet)".into(),
                });
            }
        }
        Ok(())
    }

    fn step(&self, state: &mut SceneState, settings: &StepSettings) -> Result<StepReport> {
        step(state, settings, *self)
    }
}

/// The restitution of a contact (0 for a complementarity condition); `None` for an equality.
fn restitution(inter: &Interaction) -> Option<f64> {
    match inter.law {
        NonSmoothLaw::NewtonImpact(law) => Some(law.e()),
        NonSmoothLaw::EqualityCondition(_) => None,
        _ => Some(0.0),
    }
}

/// A matrix LU-factorised.
type Factorised = LU<f64, Dyn, Dyn>;

fn singular(what: &str) -> Error {
    Error::Singular { what: what.into() }
}

fn solve(lu: &Factorised, b: &DMatrix<f64>, what: &str) -> Result<DMatrix<f64>> {
    lu.solve(b).ok_or_else(|| singular(what))
}

/// The rows a step works with, chosen one by one as the batched engines choose them: those
/// of the interactions that take part (a coordinate-vector constraint switched off does not:
/// its λ stays 0), stacked.
struct Rows {
    /// The interactions that take part (indices).
    all: Vec<usize>,
    /// Each interaction's first row in λ.
    offsets: Vec<usize>,
    /// `global[r]`: row r's place in λ.
    global: Vec<usize>,
    /// Per row, its restitution; `None` on an equality.
    laws: Vec<Option<f64>>,
}

impl Rows {
    fn of(ts: &SceneState) -> Self {
        let interactions = ts.nsds.interactions();
        let all: Vec<usize> = (interactions.iter().enumerate())
            .filter(|(_, inter)| inter.relation.is_active())
            .map(|(i, _)| i)
            .collect();
        let offsets = ts.nsds.row_offsets();
        let global = all
            .iter()
            .flat_map(|&i| offsets[i]..offsets[i] + interactions[i].size())
            .collect();
        let laws = all
            .iter()
            .flat_map(|&i| std::iter::repeat_n(restitution(&interactions[i]), interactions[i].size()))
            .collect();
        Self {
            all,
            offsets,
            global,
            laws,
        }
    }

    /// The stacked outputs y, Jacobians J (over all coordinates) and ∂h/∂t at (q, t).
    fn at(&self, ts: &SceneState, q: &DVector<f64>, t: f64) -> Result<(DVector<f64>, DMatrix<f64>, DVector<f64>)> {
        let interactions = ts.nsds.interactions();
        ts.stacked_rows(self.all.iter().map(|&i| &interactions[i]), q, t)
    }

    /// Whether each of `rows` is an equality.
    fn equality(&self, rows: &[usize]) -> Vec<bool> {
        rows.iter().map(|&r| self.laws[r].is_none()).collect()
    }
}

/// What a step reports its failures with: where it is, its settings, its report.
struct Step<'a> {
    settings: &'a StepSettings,
    osi: NonsmoothRattleOSI,
    context: String,
    report: StepReport,
}

impl Step<'_> {
    /// A missed tolerance: an error, or with lenient settings a flag in the report.
    fn missed(&mut self, solver: &str, (iterations, residual, tolerance): (usize, f64, f64)) -> Result<()> {
        if !self.settings.lenient {
            return Err(Error::NotConverged {
                solver: solver.into(),
                context: self.context.clone(),
                iterations,
                residual,
                tolerance,
            });
        }
        self.report.missed_tolerance = true;
        Ok(())
    }
}

/// One step, stage by stage, with the names of the batched engine's
/// ([`RATTLE_STAGES`](crate::batch::cpu::moreau_jean_pgs::RATTLE_STAGES)); the numbers are
/// those of the scheme's steps in [`crate::scheme::nonsmooth_rattle`].
fn step(ts: &mut SceneState, settings: &StepSettings, osi: NonsmoothRattleOSI) -> Result<StepReport> {
    let h = ts.h;
    let (t_n, t_next) = (ts.time(), ts.time_at(ts.k + 1));
    let mut step = Step {
        settings,
        osi,
        context: format!(" at step {} (t = {t_next})", ts.k + 1),
        report: StepReport::default(),
    };
    let rows = Rows::of(ts);
    // 1. ẏ⁻ at the start.
    let (_, j_n, hdot_n) = rows.at(ts, &ts.q, t_n)?;
    let ydot_minus = &j_n * &ts.v + hdot_n;
    let (v_bar, w_half) = half_kick(ts, &mut step)?;
    // 3–5. The drift, stage 1's rows and its position-level problem.
    let q_bar = &ts.q + &v_bar * h;
    let stage1 = stage1_rows(ts, &rows, &q_bar, &step)?;
    let shift = solve(&w_half, &j_n.select_rows(&stage1).transpose(), "RATTLE's W½")?; // W½⁻¹ J_nᵀ
    let p1 = stage1_solve(ts, (&rows, &stage1), (&q_bar, &shift), &mut step)?;
    // 6. The update, and the contacts stage 1 closed.
    let v_half = &v_bar + &shift * &p1;
    let q_next = &ts.q + &v_half * h;
    let (y_next, j_next, hdot_next) = rows.at(ts, &q_next, t_next)?;
    let stage2 = stage1_update(&rows, (&stage1, &p1), &y_next, &step);
    let (v_star, d_next, mass) = end_kick(ts, (&q_next, &v_half), (&j_next.select_rows(&stage1), &p1))?;
    let j2 = j_next.select_rows(&stage2);
    let (v_next, percussion) = stage2_solve(
        (&rows, &stage2),
        (&j2, &hdot_next, &ydot_minus),
        (&mass, v_star),
        &mut step,
    )?;
    step.report.newton_iterations = step.report.newton_iterations.max(1);
    commit(
        ts,
        (&rows, &stage2),
        (q_next, v_next, &j2, percussion),
        d_next,
        &mut step.report,
    );
    Ok(step.report)
}

/// Step 2: the half kick M_n (v̄ − v_n) = (h/2) F(t_n, q_n, v̄), by Newton with
/// W½ = M_n − (h/2) ∂F/∂v (one iterate when F is affine in v): v̄ and W½ factorised.
/// Batched twin: `half_kick`.
fn half_kick(ts: &mut SceneState, step: &mut Step<'_>) -> Result<(DVector<f64>, Factorised)> {
    let (h, n, t_n) = (ts.h, ts.q.len(), ts.time());
    // 11. FSAL: where F does not depend on v, the last step's end kick evaluated M and F here.
    let mut last_end = match std::mem::take(&mut ts.memory) {
        SchemeMemory::Fsal(k, mass, force) if k == ts.k => Some(Dynamics {
            mass,
            force,
            dq: DMatrix::zeros(n, n),
            dv: DMatrix::zeros(n, n),
        }),
        _ => None,
    };
    let ts = &*ts;
    let (q_n, v_n) = (&ts.q, &ts.v);
    let mut v_bar = v_n.clone();
    let mut iterations = 0;
    let newton = step.settings.newton;
    loop {
        let d = match last_end.take() {
            Some(d) => d,
            None => dynamics(ts, t_n, q_n, &v_bar)?,
        };
        let residual = &d.mass * (&v_bar - v_n) - &d.force * (h / 2.0);
        let w = (&d.mass - &d.dv * (h / 2.0)).lu();
        if iterations > 0 && residual.norm() <= newton.tolerance {
            return Ok((v_bar, w));
        }
        if iterations >= newton.max_iterations.max(1) {
            step.missed(
                "nonsmooth RATTLE's half kick (Newton on W½)",
                (iterations, residual.norm(), newton.tolerance),
            )?;
            return Ok((v_bar, w));
        }
        v_bar -= w
            .solve(&residual)
            .ok_or_else(|| singular("RATTLE's half-kick matrix W½ = M − (h/2) ∂F/∂v"))?;
        iterations += 1;
        if d.dv.iter().all(|&x| x == 0.0) {
            // F independent of v: the kick is explicit, one solve is exact.
            return Ok((v_bar, w));
        }
    }
}

/// Step 3–4: stage 1's rows at the drift q̄ = q_n + h v̄: the equalities, and the contacts with
/// h_α(q̄) ≤ δ. Batched twin: `stage1_rows`.
fn stage1_rows(ts: &SceneState, rows: &Rows, q_bar: &DVector<f64>, step: &Step<'_>) -> Result<Vec<usize>> {
    let y_bar = rows.at(ts, q_bar, ts.time_at(ts.k + 1))?.0;
    Ok((0..rows.global.len())
        .filter(|&r| rows.laws[r].is_none() || y_bar[r] <= step.osi.candidate_margin)
        .collect())
}

/// Step 5: stage 1's position-level problem by Newton–Josephy from P⁰ = 0, q^i = q̄ + h W½⁻¹J_nᵀ P^i
/// (`shift` = W½⁻¹J_nᵀ): pass i checks the iterate P^i (|y| on equalities and pushed rows,
/// max(−y, 0) on the others, within the position tolerance) and, unless it converged or is
/// the last, solves the MLCP of A = J(q^i) W½⁻¹J_nᵀ, y/h − A P^i for P^{i+1}: P¹ of the step.
/// Batched twins: `stage1_residual` and `stage1_solve`.
fn stage1_solve(
    ts: &SceneState,
    (rows, stage1): (&Rows, &[usize]),
    (q_bar, shift): (&DVector<f64>, &DMatrix<f64>),
    step: &mut Step<'_>,
) -> Result<DVector<f64>> {
    let (h, t_next) = (ts.h, ts.time_at(ts.k + 1));
    let mut p1 = DVector::zeros(stage1.len());
    if stage1.is_empty() {
        return Ok(p1);
    }
    let equality1 = rows.equality(stage1);
    let (mut converged, mut last) = (false, f64::INFINITY);
    let passes = step.settings.newton.max_iterations.max(1);
    for pass in 0..=passes {
        let q_i = q_bar + shift * &p1 * h;
        let (y, j, _) = rows.at(ts, &q_i, t_next)?;
        let (y, j) = (y.select_rows(stage1), j.select_rows(stage1));
        let residual = y
            .iter()
            .zip(p1.iter().zip(&equality1))
            .map(|(&y, (&p, &eq))| if eq || p > 0.0 { y.abs() } else { (-y).max(0.0) })
            .fold(0.0, f64::max);
        last = residual;
        if residual <= step.osi.position_tolerance {
            converged = true;
            break;
        }
        if pass == passes {
            break;
        }
        step.report.newton_iterations += 1;
        let a = &j * shift;
        let vector = &y / h - &a * &p1;
        let (solution, lcp) = step.settings.solve(a, vector, equality1.clone(), &step.context)?;
        p1 = solution;
        step.report.lcp = Some(lcp);
    }
    if !converged {
        let tolerance = step.osi.position_tolerance;
        step.missed("nonsmooth RATTLE's stage 1 (position level)", (passes, last, tolerance))?;
    }
    step.report.newton_residual = last;
    Ok(p1)
}

/// Step 6: the rows stage 2 takes: the equalities, and the rows of stage 1 with P¹ > 0 or
/// y(q_{n+1}) within the position tolerance. Batched twin: `stage1_update`.
fn stage1_update(
    rows: &Rows,
    (stage1, p1): (&[usize], &DVector<f64>),
    y_next: &DVector<f64>,
    step: &Step<'_>,
) -> Vec<usize> {
    (stage1.iter().enumerate())
        .filter(|&(k, &r)| rows.laws[r].is_none() || p1[k] > 0.0 || y_next[r] <= step.osi.position_tolerance)
        .map(|(_, &r)| r)
        .collect()
}

/// Step 7: the free second kick v* = v½ + M(q_{n+1})⁻¹ ((h/2) F(t_{n+1}, q_{n+1}, v½) − J₁ᵀ P¹),
/// the stage-1 percussion taken back out (`j1`: stage 1's rows of J(q_{n+1})): v*, the
/// dynamics there and M(q_{n+1}) factorised. Batched twin: `end_kick`.
fn end_kick(
    ts: &SceneState,
    (q_next, v_half): (&DVector<f64>, &DVector<f64>),
    (j1, p1): (&DMatrix<f64>, &DVector<f64>),
) -> Result<(DVector<f64>, Dynamics, Factorised)> {
    let d_next = dynamics(ts, ts.time_at(ts.k + 1), q_next, v_half)?;
    let mass = d_next.mass.clone().lu();
    let kick = &d_next.force * (ts.h / 2.0) - j1.transpose() * p1;
    let v_star = v_half
        + mass
            .solve(&kick)
            .ok_or_else(|| singular("the mass matrix M(q_{n+1})"))?;
    Ok((v_star, d_next, mass))
}

/// Step 8–9: stage 2 at velocity level, Moreau–Jean's MLCP on the rows `stage2` (`j2` their rows
/// of J(q_{n+1})): matrix J₂ M⁻¹ J₂ᵀ, vector J₂ v* + ∂h/∂t + e ẏ⁻ on contacts; v_{n+1} =
/// v* + M⁻¹J₂ᵀ P and the percussion P. Batched twin: `stage2_solve`.
fn stage2_solve(
    (rows, stage2): (&Rows, &[usize]),
    (j2, hdot_next, ydot_minus): (&DMatrix<f64>, &DVector<f64>, &DVector<f64>),
    (mass, v_star): (&Factorised, DVector<f64>),
    step: &mut Step<'_>,
) -> Result<(DVector<f64>, DVector<f64>)> {
    if stage2.is_empty() {
        return Ok((v_star, DVector::zeros(0)));
    }
    let minv_jt = solve(mass, &j2.transpose(), "the mass matrix M(q_{n+1})")?;
    let mut vector = j2 * &v_star + hdot_next.select_rows(stage2);
    for (k, &r) in stage2.iter().enumerate() {
        if let Some(e) = rows.laws[r] {
            vector[k] += e * ydot_minus[r];
        }
    }
    let (solution, lcp) = step
        .settings
        .solve(j2 * &minv_jt, vector, rows.equality(stage2), &step.context)?;
    step.report.lcp = Some(lcp);
    Ok((&v_star + &minv_jt * &solution, solution))
}

/// Step 10–11: the step's result: q_{n+1}, v_{n+1}, the total percussion as λ, p = J₂ᵀ P, the
/// interactions active in stage 2, and M, F at the new state for the next half kick where
/// F does not depend on v.
fn commit(
    ts: &mut SceneState,
    (rows, stage2): (&Rows, &[usize]),
    (q_next, v_next, j2, percussion): (DVector<f64>, DVector<f64>, &DMatrix<f64>, DVector<f64>),
    d_next: Dynamics,
    report: &mut StepReport,
) {
    let interactions = ts.nsds.interactions();
    let (offsets, global) = (&rows.offsets, &rows.global);
    report.active = (rows.all.iter())
        .filter(|&&i| (stage2.iter()).any(|&r| (offsets[i]..offsets[i] + interactions[i].size()).contains(&global[r])))
        .count();
    let mut lambda = DVector::zeros(ts.lambda.len());
    for (k, &r) in stage2.iter().enumerate() {
        lambda[global[r]] = percussion[k];
    }
    ts.p = if stage2.is_empty() {
        DVector::zeros(ts.q.len())
    } else {
        j2.transpose() * &percussion
    };
    ts.q = q_next;
    ts.v = v_next;
    ts.lambda = lambda;
    if d_next.dv.iter().all(|&x| x == 0.0) {
        ts.memory = SchemeMemory::Fsal(ts.k + 1, d_next.mass, d_next.force);
    }
}
