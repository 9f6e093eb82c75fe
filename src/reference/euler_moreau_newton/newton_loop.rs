//! The stages of one iteration of Euler–Moreau's Newton loop (the equations are in the
//! [parent module](super)'s documentation), on the loop's state.

use nalgebra::{DMatrix, DVector, Dyn, LU};

use super::super::integrator::{StepReport, StepSettings};
use super::super::state::{NewtonMemory, SceneState};
use super::{Rows, fields, input, linearise, mass_and_jacobian, output, rows};
use crate::error::{Error, Result};
use crate::model::relation::first_order_nonlinear::{At, Linearisation};

/// The point (t, x, λ, z) a relation is evaluated at.
fn point<'a>(t: f64, x: &'a DVector<f64>, lambda: &'a DVector<f64>, z: &'a DVector<f64>) -> At<'a> {
    At { t, x, lambda, z }
}

/// The linearisation at (t_{k+1}, x^α, λ^α): W = M − hθ∇ₓf − hK factorised, B, and each
/// interaction's C, D, B, K with Σ g_α over the systems.
pub(super) struct Linearised {
    w: LU<f64, Dyn, Dyn>,
    b: DMatrix<f64>,
    lins: Vec<Linearisation>,
    g_sum: DVector<f64>,
}

/// What the loop leaves: x_{k+1}, r, λ and the memory for the next step.
pub(super) type Finished = (DVector<f64>, DVector<f64>, DVector<f64>, NewtonMemory);

/// One step's Newton loop, its state at iterate α named as in the module documentation;
/// each method is one stage of an iteration, in the order [`super::step`] calls them.
pub(super) struct NewtonLoop<'a> {
    ts: &'a SceneState,
    layout: Vec<Rows>,
    pub(super) context: String,
    h: f64,
    theta: f64,
    t_next: f64,
    memory: NewtonMemory,
    mass: DMatrix<f64>,
    x_k: DVector<f64>,
    x: DVector<f64>,
    lambda: DVector<f64>,
    y: DVector<f64>,
    r: DVector<f64>,
    f: DVector<f64>,
    r_free: DVector<f64>,
    rho_y: DVector<f64>,
    dx: DVector<f64>,
    c: DMatrix<f64>,
    d: DMatrix<f64>,
    m_osns: DMatrix<f64>,
    y_old: DVector<f64>,
    lambda_old: DVector<f64>,
}

impl<'a> NewtonLoop<'a> {
    /// The loop at x⁰ = x_k, λ⁰ (0 with `reset_lambda`, else the last step's), with y, R_free
    /// and ρ_y = y − h_α there.
    pub(super) fn start(ts: &'a SceneState, settings: &StepSettings, theta: f64) -> Result<Self> {
        let (h, t_next) = (ts.h, ts.time_at(ts.k + 1));
        let context = format!(" at step {} (t = {t_next})", ts.k + 1);
        let (n, m) = (ts.q.len(), ts.lambda.len());
        let layout = rows(ts);
        let memory = match ts.memory.newton() {
            Some(memory) => memory.clone(),
            None => NewtonMemory {
                h_alpha: DVector::zeros(m),
                g_alpha: layout.iter().map(|r| DVector::zeros(r.idx.len())).collect(),
                y: DVector::zeros(m),
                f_k: fields(ts, ts.time(), &ts.q, " at t0")?,
            },
        };
        let x_k = ts.q.clone();
        let lambda = if settings.newton.reset_lambda {
            DVector::zeros(m)
        } else {
            ts.lambda.clone()
        };
        let mut newton = Self {
            ts,
            layout,
            context,
            h,
            theta,
            t_next,
            memory,
            mass: DMatrix::zeros(n, n),
            x: x_k.clone(),
            x_k,
            y: DVector::zeros(m),
            r: DVector::zeros(n),
            r_free: DVector::zeros(n),
            rho_y: DVector::zeros(m),
            f: DVector::zeros(n),
            dx: DVector::zeros(n),
            c: DMatrix::zeros(m, n),
            d: DMatrix::zeros(m, m),
            m_osns: DMatrix::zeros(m, m),
            y_old: DVector::zeros(0),
            lambda_old: DVector::zeros(0),
            lambda,
        };
        // (In Siconos's order: the outputs, then M and f at x_k.)
        newton.y = newton.outputs(&newton.x_k, &newton.lambda)?;
        newton.mass = mass_and_jacobian(ts, t_next, &newton.x_k, &newton.context)?.0;
        newton.f = fields(ts, t_next, &newton.x_k, &newton.context)?;
        newton.r_free = newton.residual_free(&newton.x_k);
        newton.rho_y = &newton.y - &newton.memory.h_alpha;
        (newton.y_old, newton.lambda_old) = (newton.y.clone(), newton.lambda.clone());
        Ok(newton)
    }

    /// An interaction's x and λ entries.
    fn entries(rows: &Rows, x: &DVector<f64>, lambda: &DVector<f64>) -> (DVector<f64>, DVector<f64>) {
        (
            SceneState::gather(&rows.idx, x),
            lambda.rows(rows.offset, rows.size).into_owned(),
        )
    }

    /// y = h(t_{k+1}, x, λ) of every interaction.
    fn outputs(&self, x: &DVector<f64>, lambda: &DVector<f64>) -> Result<DVector<f64>> {
        let mut y = DVector::zeros(lambda.len());
        for (inter, rows) in self.ts.nsds.interactions().iter().zip(&self.layout) {
            let (xi, li) = Self::entries(rows, x, lambda);
            let yi = output(inter, point(self.t_next, &xi, &li, &rows.z), &self.context)?;
            y.rows_mut(rows.offset, rows.size).copy_from(&yi);
        }
        Ok(y)
    }

    /// R_free(x) = M (x − x_k) − hθ f − h(1−θ) f_k, with f the last f evaluated.
    fn residual_free(&self, x: &DVector<f64>) -> DVector<f64> {
        let (h, theta) = (self.h, self.theta);
        &self.mass * (x - &self.x_k) - &self.f * (h * theta) - &self.memory.f_k * (h * (1.0 - theta))
    }

    fn singular(&self) -> Error {
        Error::Singular {
            what: format!("Euler–Moreau iteration matrix W = M − hθ∇ₓf − hK{}", self.context),
        }
    }

    /// The linearisation at (t_{k+1}, x^α, λ^α) ([`Linearised`]), C and D into the loop.
    pub(super) fn linearise(&mut self) -> Result<Linearised> {
        let (ts, (n, m)) = (self.ts, (self.x.len(), self.lambda.len()));
        let (_, a) = mass_and_jacobian(ts, self.t_next, &self.x, &self.context)?;
        let (mut b, mut k) = (DMatrix::zeros(n, m), DMatrix::zeros(n, n));
        let (mut lins, mut g_sum) = (Vec::new(), DVector::zeros(n));
        self.c.fill(0.0);
        self.d.fill(0.0);
        let interactions = ts.nsds.interactions();
        for ((inter, rows), g_alpha) in interactions.iter().zip(&self.layout).zip(&self.memory.g_alpha) {
            let (xi, li) = Self::entries(rows, &self.x, &self.lambda);
            let l = linearise(inter, point(self.t_next, &xi, &li, &rows.z), &self.context)?;
            let (o, s) = (rows.offset, rows.size);
            self.d.view_mut((o, o), (s, s)).copy_from(&l.d);
            for (col, &i) in rows.idx.iter().enumerate() {
                self.c.view_mut((o, i), (s, 1)).copy_from(&l.c.column(col));
                b.view_mut((i, o), (1, s)).copy_from(&l.b.row(col));
                g_sum[i] += g_alpha[col];
                for (col2, &j) in rows.idx.iter().enumerate() {
                    k[(i, j)] += l.k[(col, col2)];
                }
            }
            lins.push(l);
        }
        let w = (&self.mass - a * (self.h * self.theta) - &k * self.h).lu();
        Ok(Linearised { w, b, lins, g_sum })
    }

    /// x_free = x − W⁻¹ R_free, Δx = x_free + h W⁻¹ (Σ g_α − B λ^α) − x, and the problem's
    /// matrix D + h C W⁻¹ B; returns x_free and W⁻¹B.
    pub(super) fn free_state(&mut self, lin: &Linearised) -> Result<(DVector<f64>, DMatrix<f64>)> {
        let w = &lin.w;
        let x_free = &self.x - w.solve(&self.r_free).ok_or_else(|| self.singular())?;
        let x_p = &x_free
            + w.solve(&(&lin.g_sum - &lin.b * &self.lambda))
                .ok_or_else(|| self.singular())?
                * self.h;
        self.dx = x_p - &self.x;
        (self.y_old, self.lambda_old) = (self.y.clone(), self.lambda.clone());
        let w_inv_b = w.solve(&lin.b).ok_or_else(|| self.singular())?;
        self.m_osns = &self.d + &self.c * &w_inv_b * self.h;
        Ok((x_free, w_inv_b))
    }

    /// The one-step problem w = M_osns λ + h_α − D λ^α + C Δx under each row's law: λ^{α+1}.
    pub(super) fn solve_problem(&mut self, settings: &StepSettings, report: &mut StepReport) -> Result<()> {
        if self.lambda.is_empty() {
            return Ok(());
        }
        let q = &self.memory.h_alpha - &self.d * &self.lambda_old + &self.c * &self.dx;
        let (solution, lcp) = settings.solve_rows(&self.ts.nsds, self.m_osns.clone(), q, &self.context)?;
        self.lambda = solution;
        report.lcp = Some(lcp);
        Ok(())
    }

    /// The input: g_α linearised, g_α += B (λ − λ^α) + K Δx + h K W⁻¹ B λ, summed into r;
    /// then g_α = g(t_{k+1}, x^α, λ^{α+1}).
    pub(super) fn update_input(&mut self, lin: &Linearised, w_inv_b: &DMatrix<f64>) -> Result<()> {
        let (ts, h) = (self.ts, self.h);
        self.r.fill(0.0);
        let interactions = ts.nsds.interactions().iter().zip(&self.layout).zip(&lin.lins);
        for (((inter, rows), l), g_alpha) in interactions.zip(&mut self.memory.g_alpha) {
            let (o, s) = (rows.offset, rows.size);
            let delta = self.lambda.rows(o, s) - self.lambda_old.rows(o, s);
            // K̂ λ = h K W⁻¹ B λ from this interaction's own block (Siconos's computeKhat).
            let own = w_inv_b.columns(o, s) * self.lambda.rows(o, s) * h;
            *g_alpha += &l.b * delta
                + &l.k * SceneState::gather(&rows.idx, &self.dx)
                + &l.k * SceneState::gather(&rows.idx, &own);
            for (col, &i) in rows.idx.iter().enumerate() {
                self.r[i] += g_alpha[col];
            }
            let (xi, li) = Self::entries(rows, &self.x, &self.lambda);
            *g_alpha = input(inter, point(self.t_next, &xi, &li, &rows.z), &self.context)?;
        }
        Ok(())
    }

    /// x^{α+1} = x_free + h W⁻¹ r and, unless this is the last iteration, y = w and
    /// h_α = h(t_{k+1}, x^{α+1}, λ).
    pub(super) fn update_state(&mut self, lin: &Linearised, x_free: DVector<f64>, last: bool) -> Result<()> {
        self.x = x_free + lin.w.solve(&self.r).ok_or_else(|| self.singular())? * self.h;
        if !last {
            self.y = self.problem_output();
            self.memory.h_alpha = self.outputs(&self.x, &self.lambda)?;
        }
        Ok(())
    }

    /// y = w, the problem's output at the iterate.
    fn problem_output(&self) -> DVector<f64> {
        &self.y_old - &self.rho_y - &self.d * &self.lambda_old + &self.c * &self.dx + &self.m_osns * &self.lambda
    }

    /// The three residuals, ‖R_free − h r‖ per system, ‖y − h_α‖ and ‖r − g_α‖ per
    /// interaction: the largest, named.
    pub(super) fn residuals(&mut self) -> Result<(f64, String)> {
        let ts = self.ts;
        self.f = fields(ts, self.t_next, &self.x, &self.context)?;
        self.r_free = self.residual_free(&self.x);
        let residual = &self.r_free - &self.r * self.h;
        self.rho_y = &self.y - &self.memory.h_alpha;
        let mut worst = (0.0, String::new());
        let mut note = |value: f64, what: &dyn Fn() -> String| {
            if value > worst.0 || value.is_nan() {
                worst = (value, what());
            }
        };
        for (i, (name, ds)) in ts.nsds.systems().enumerate() {
            let value = residual.rows(ts.offsets()[i], ds.dimension()).norm();
            note(value, &|| format!("‖R‖ of system `{name}`"));
        }
        let interactions = ts.nsds.interactions().iter().zip(&self.layout);
        for ((inter, rows), g_alpha) in interactions.zip(&self.memory.g_alpha) {
            note(self.rho_y.rows(rows.offset, rows.size).norm(), &|| {
                format!("‖y − h‖ of interaction `{}`", inter.name)
            });
            note((SceneState::gather(&rows.idx, &self.r) - g_alpha).norm(), &|| {
                format!("‖r − g‖ of interaction `{}`", inter.name)
            });
        }
        Ok(worst)
    }

    /// The loop's end: y written once more with the last residual (as Siconos does), h_α at
    /// the result, f_k = the last f; the new x, r, λ and the memory.
    pub(super) fn finish(mut self) -> Result<Finished> {
        self.memory.y = self.problem_output();
        self.memory.h_alpha = self.outputs(&self.x, &self.lambda)?;
        self.memory.f_k = self.f;
        Ok((self.x, self.r, self.lambda, self.memory))
    }
}
