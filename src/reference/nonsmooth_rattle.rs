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
use super::state::SceneState;
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

/// The stacked outputs y, Jacobians J (over all coordinates) and ∂h/∂t of the interactions
/// `chosen` (indices) at (q, t).
fn rows(
    ts: &SceneState,
    chosen: &[usize],
    q: &DVector<f64>,
    t: f64,
) -> Result<(DVector<f64>, DMatrix<f64>, DVector<f64>)> {
    let interactions = ts.nsds.interactions();
    ts.stacked_rows(chosen.iter().map(|&i| &interactions[i]), q, t)
}

/// Per row of `chosen`: its restitution, `None` on an equality.
fn row_laws(ts: &SceneState, chosen: &[usize]) -> Vec<Option<f64>> {
    let interactions = ts.nsds.interactions();
    chosen
        .iter()
        .flat_map(|&i| std::iter::repeat_n(restitution(&interactions[i]), interactions[i].size()))
        .collect()
}

fn singular(what: &str) -> Error {
    Error::Singular { what: what.into() }
}

fn solve(lu: &LU<f64, Dyn, Dyn>, b: &DMatrix<f64>, what: &str) -> Result<DMatrix<f64>> {
    lu.solve(b).ok_or_else(|| singular(what))
}

fn step(ts: &mut SceneState, settings: &StepSettings, osi: NonsmoothRattleOSI) -> Result<StepReport> {
    let h = ts.h;
    let (t_n, t_next) = (ts.time(), ts.time_at(ts.k + 1));
    let context = format!(" at step {} (t = {t_next})", ts.k + 1);
    let (q_n, v_n) = (ts.q.clone(), ts.v.clone());
    let n = q_n.len();
    // The rows of the interactions that take part (a coordinate-vector constraint switched
    // off does not: its λ stays 0), stacked; rows are chosen one by one, as the batched
    // engines choose them. `global[r]` is row r's place in λ.
    let all: Vec<usize> = (ts.nsds.interactions().iter().enumerate())
        .filter(|(_, inter)| inter.relation.is_active())
        .map(|(i, _)| i)
        .collect();
    let offsets = ts.nsds.row_offsets();
    let global: Vec<usize> = all
        .iter()
        .flat_map(|&i| offsets[i]..offsets[i] + ts.nsds.interactions()[i].size())
        .collect();
    let laws = row_laws(ts, &all);
    let equality = |rows: &[usize]| rows.iter().map(|&r| laws[r].is_none()).collect::<Vec<_>>();
    let mut report = StepReport::default();

    // 1–2. ẏ⁻ at the start; the half kick M_n (v̄ − v_n) = (h/2) F(t_n, q_n, v̄), by Newton
    // with W½ = M_n − (h/2) ∂F/∂v (one iterate when F is affine in v).
    let (_, j_n, hdot_n) = rows(ts, &all, &q_n, t_n)?;
    let ydot_minus = &j_n * &v_n + hdot_n;
    let mut v_bar = v_n.clone();
    let mut iterations = 0;
    // 11. FSAL: where F does not depend on v, the last step's end kick evaluated M and F here.
    let mut last_end = (ts.fsal.take())
        .filter(|(k, _, _)| *k == ts.k)
        .map(|(_, mass, force)| Dynamics {
            mass,
            force,
            dq: DMatrix::zeros(n, n),
            dv: DMatrix::zeros(n, n),
        });
    let w_half = loop {
        let d = match last_end.take() {
            Some(d) => d,
            None => dynamics(ts, t_n, &q_n, &v_bar)?,
        };
        let residual = &d.mass * (&v_bar - &v_n) - &d.force * (h / 2.0);
        let w = (&d.mass - &d.dv * (h / 2.0)).lu();
        if iterations > 0 && residual.norm() <= settings.newton.tolerance {
            break w;
        }
        if iterations >= settings.newton.max_iterations.max(1) {
            if !settings.lenient {
                return Err(Error::NotConverged {
                    solver: "nonsmooth RATTLE's half kick (Newton on W½)".into(),
                    context,
                    iterations,
                    residual: residual.norm(),
                    tolerance: settings.newton.tolerance,
                });
            }
            report.missed_tolerance = true;
            break w;
        }
        v_bar -= w
            .solve(&residual)
            .ok_or_else(|| singular("RATTLE's half-kick matrix W½ = M − (h/2) ∂F/∂v"))?;
        iterations += 1;
        if d.dv.iter().all(|&x| x == 0.0) {
            // F independent of v: the kick is explicit, one solve is exact.
            break w;
        }
    };

    // 3–5. Drift, the stage-1 rows (equalities, and contacts with h_α(q̄) ≤ δ), and the
    // position-level problem by Newton–Josephy.
    let q_bar = &q_n + &v_bar * h;
    let y_bar = rows(ts, &all, &q_bar, t_next)?.0;
    let stage1: Vec<usize> = (0..global.len())
        .filter(|&r| laws[r].is_none() || y_bar[r] <= osi.candidate_margin)
        .collect();
    let equality1 = equality(&stage1);
    let j_n1 = j_n.select_rows(&stage1);
    let m1 = stage1.len();
    let shift = solve(&w_half, &j_n1.transpose(), "RATTLE's W½")?; // W½⁻¹ J_nᵀ
    let mut p1 = DVector::zeros(m1);
    let position = |p1: &DVector<f64>| &q_bar + &shift * p1 * h;
    if m1 > 0 {
        let (mut converged, mut last) = (false, f64::INFINITY);
        let passes = settings.newton.max_iterations.max(1);
        // Pass i checks the iterate P^i and, unless it converged or is the last, solves for
        // P^{i+1}: `passes` solves, each checked.
        for pass in 0..=passes {
            let q_i = position(&p1);
            let (y, j, _) = rows(ts, &all, &q_i, t_next)?;
            let (y, j) = (y.select_rows(&stage1), j.select_rows(&stage1));
            let residual = y
                .iter()
                .zip(p1.iter().zip(&equality1))
                .map(|(&y, (&p, &eq))| if eq || p > 0.0 { y.abs() } else { (-y).max(0.0) })
                .fold(0.0, f64::max);
            last = residual;
            if residual <= osi.position_tolerance {
                converged = true;
                break;
            }
            if pass == passes {
                break;
            }
            report.newton_iterations += 1;
            let a = &j * &shift;
            let vector = &y / h - &a * &p1;
            let (solution, lcp) = settings.solve(a, vector, equality1.clone(), &context)?;
            p1 = solution;
            report.lcp = Some(lcp);
        }
        if !converged {
            if !settings.lenient {
                return Err(Error::NotConverged {
                    solver: "nonsmooth RATTLE's stage 1 (position level)".into(),
                    context,
                    iterations: passes,
                    residual: last,
                    tolerance: osi.position_tolerance,
                });
            }
            report.missed_tolerance = true;
        }
        report.newton_residual = last;
    }

    // 6. The update, and the contacts stage 1 closed.
    let v_half = &v_bar + &shift * &p1;
    let q_next = &q_n + &v_half * h;
    let (y_next, j_next, hdot_next) = rows(ts, &all, &q_next, t_next)?;
    let stage2: Vec<usize> = (stage1.iter().enumerate())
        .filter(|&(k, &r)| laws[r].is_none() || p1[k] > 0.0 || y_next[r] <= osi.position_tolerance)
        .map(|(_, &r)| r)
        .collect();

    // 7. The free second kick, the stage-1 percussion taken back out.
    let d_next = dynamics(ts, t_next, &q_next, &v_half)?;
    let mass = d_next.mass.clone().lu();
    let kick = &d_next.force * (h / 2.0) - j_next.select_rows(&stage1).transpose() * &p1;
    let v_star = &v_half
        + mass
            .solve(&kick)
            .ok_or_else(|| singular("the mass matrix M(q_{n+1})"))?;

    // 8–9. Stage 2 at velocity level, Moreau–Jean's MLCP.
    let j2 = j_next.select_rows(&stage2);
    let m2 = stage2.len();
    let mut percussion = DVector::zeros(m2);
    if m2 > 0 {
        let minv_jt = solve(&mass, &j2.transpose(), "the mass matrix M(q_{n+1})")?;
        let mut vector = &j2 * &v_star + hdot_next.select_rows(&stage2);
        for (k, &r) in stage2.iter().enumerate() {
            if let Some(e) = laws[r] {
                vector[k] += e * ydot_minus[r];
            }
        }
        let (solution, lcp) = settings.solve(&j2 * &minv_jt, vector, equality(&stage2), &context)?;
        percussion = solution;
        report.lcp = Some(lcp);
        ts.v = &v_star + &minv_jt * &percussion;
    } else {
        ts.v = v_star;
    }
    report.newton_iterations = report.newton_iterations.max(1);
    let interactions = ts.nsds.interactions();
    report.active = (all.iter())
        .filter(|&&i| (stage2.iter()).any(|&r| (offsets[i]..offsets[i] + interactions[i].size()).contains(&global[r])))
        .count();

    // 10. Output: q, v, the total percussion as λ and p = J_{n+1}ᵀ P.
    let mut lambda = DVector::zeros(ts.lambda.len());
    for (k, &r) in stage2.iter().enumerate() {
        lambda[global[r]] = percussion[k];
    }
    ts.p = if m2 > 0 {
        j2.transpose() * &percussion
    } else {
        DVector::zeros(n)
    };
    ts.q = q_next;
    ts.lambda = lambda;
    if d_next.dv.iter().all(|&x| x == 0.0) {
        ts.fsal = Some((ts.k + 1, d_next.mass, d_next.force));
    }
    Ok(report)
}
