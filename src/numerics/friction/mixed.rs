//! Friction contacts beside frictionless contacts and equalities in one problem, solved by
//! NSGS over blocks of rows. With the rows grouped in blocks b,
//! ```text
//!     w = W λ + q,   equality block:        w_b = 0, λ_b free
//!                    complementarity row:   0 ≤ λ_b ⟂ w_b ≥ 0
//!                    friction contact:      the Coulomb cone's law of [`super`] on (λ_b, w_b)
//! ```
//! Each sweep solves every block exactly with the others fixed, in order — an equality block
//! by its own linear system W_bb λ_b = −q̃_b, a complementarity row by λ_b = max(0, −q̃_b/W_bb),
//! a 2-D friction contact by the dense NSGS's case analysis, a 3-D one by the hybrid
//! Alart–Curnier solver — which for equalities and complementarity rows alone is block PGS.
//! The error is the natural map of every block (|w_b| on equalities) over
//! max(‖q‖, ‖λ‖, ‖w‖); sweeps stop as FC NSGS's do (light error, full final check).

use nalgebra::{DMatrix, DVector, Matrix3, Vector3};

use super::local::LocalProblem;
use super::nsgs2d::{block_at, dense_local};
use super::{FrictionOptions, LightWithFullFinal, Velocities, cone};
use crate::error::{Error, Result};
use crate::numerics::SolverReport;
use crate::validate;

/// One block of rows of a [`MixedFrictionProblem`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Block {
    /// `rows` equality rows: w = 0, λ free.
    Equality(usize),
    /// One complementarity row: 0 ≤ λ ⟂ w ≥ 0.
    Complementarity,
    /// A friction contact of `dimension` rows (normal, tangents) with coefficient `mu`.
    Friction {
        /// 2 or 3.
        dimension: usize,
        /// μ ≥ 0.
        mu: f64,
    },
}

impl Block {
    /// Its number of rows.
    pub fn rows(&self) -> usize {
        match *self {
            Self::Equality(rows) => rows,
            Self::Complementarity => 1,
            Self::Friction { dimension, .. } => dimension,
        }
    }
}

/// w = W λ + q with each block of rows under its law.
#[derive(Clone, Debug, PartialEq)]
pub struct MixedFrictionProblem {
    /// W, n × n.
    pub w: DMatrix<f64>,
    /// q, n.
    pub q: DVector<f64>,
    /// The blocks, in row order; their rows add up to n.
    pub blocks: Vec<Block>,
}

impl MixedFrictionProblem {
    /// Builds the problem, checking shapes, finiteness, the blocks' sizes and μ ≥ 0.
    pub fn new(w: DMatrix<f64>, q: DVector<f64>, blocks: Vec<Block>) -> Result<Self> {
        let problem = Self { w, q, blocks };
        problem.check()?;
        Ok(problem)
    }

    /// The checks of [`new`](Self::new) (the fields are public).
    fn check(&self) -> Result<()> {
        let (w, q, blocks) = (&self.w, &self.q, &self.blocks);
        let n = q.len();
        validate::vector("mixed friction problem: q", q, n)?;
        validate::matrix("mixed friction problem: W", w, n, n)?;
        for block in blocks {
            match *block {
                Block::Equality(0) => validate::scalar("equality block", 0.0, false, "needs at least one row")?,
                Block::Friction { dimension, mu } => {
                    validate::scalar(
                        "friction block dimension",
                        dimension as f64,
                        dimension == 2 || dimension == 3,
                        "must be 2 or 3",
                    )?;
                    validate::scalar("friction block μ", mu, mu >= 0.0, "must be ≥ 0")?;
                }
                _ => {}
            }
        }
        let rows: usize = blocks.iter().map(Block::rows).sum();
        if rows != n {
            return Err(Error::Dimension {
                what: "mixed friction problem: rows of the blocks".into(),
                expected: n.to_string(),
                got: rows.to_string(),
            });
        }
        Ok(())
    }

    /// The first row of each block.
    fn starts(&self) -> Vec<usize> {
        self.blocks
            .iter()
            .scan(0, |at, block| {
                let start = *at;
                *at += block.rows();
                Some(start)
            })
            .collect()
    }

    /// The error of `lambda` (see the module docs).
    pub fn error(&self, lambda: &DVector<f64>) -> f64 {
        let w = &self.w * lambda + &self.q;
        let sum: f64 = self
            .blocks
            .iter()
            .zip(self.starts())
            .map(|(block, start)| {
                let (l, u) = (
                    &lambda.as_slice()[start..][..block.rows()],
                    &w.as_slice()[start..][..block.rows()],
                );
                match *block {
                    Block::Equality(_) => u.iter().map(|x| x * x).sum(),
                    Block::Complementarity => (l[0] - (l[0] - u[0]).max(0.0)).powi(2),
                    Block::Friction { mu, .. } => cone::natural_map_error(l, u, mu),
                }
            })
            .sum();
        let scale = self.q.norm().max(lambda.norm()).max(w.norm());
        if scale > f64::EPSILON {
            sum.sqrt() / scale
        } else {
            sum.sqrt()
        }
    }

    /// Solves the problem by block NSGS from `lambda` (read as the start), at most
    /// `options.max_iterations` sweeps to `options.tolerance`. Non-convergence (a tiny slip
    /// denominator of a 2-D contact included) is data; a singular equality block, a diagonal
    /// W_bb ≤ 0 of a complementarity row or a contact's normal, or a 2-D contact's block with
    /// det < ε is an error, as is a `lambda` of the wrong length.
    pub fn solve(&self, lambda: &mut DVector<f64>, options: &FrictionOptions) -> Result<SolverReport> {
        self.check()?;
        validate::vector("mixed friction problem: start λ", lambda, self.q.len())?;
        let starts = self.starts();
        // The equality blocks' factorisations, once.
        let mut factors = Vec::with_capacity(self.blocks.len());
        for (block, &start) in self.blocks.iter().zip(&starts) {
            let size = block.rows();
            let diagonal = self.w.view((start, start), (size, size)).into_owned();
            let singular = diagonal[(0, 0)] <= 0.0
                || matches!(block, Block::Friction { dimension: 2, .. })
                    && diagonal[(0, 0)] * diagonal[(1, 1)] < diagonal[(0, 1)] * diagonal[(1, 0)] + f64::EPSILON;
            let factor = match block {
                Block::Equality(_) => Some(diagonal.lu()),
                _ => None,
            };
            let singular = factor.as_ref().map_or(singular, |lu| !lu.is_invertible());
            factors.push(factor);
            if singular {
                return Err(Error::Singular {
                    what: format!(
                        "diagonal block of rows {start}..{} of the mixed friction problem",
                        start + size
                    ),
                });
            }
        }
        let mut rho = vec![1.0; self.blocks.len()];
        let mut tiny = false;
        let mut velocities = Velocities::new(&self.w, &self.q, lambda);
        let tolerance = options.tolerance;
        let mut stopping = LightWithFullFinal::new(tolerance);
        let report = |lambda: &DVector<f64>, iterations, tiny: bool| {
            let residual = self.error(lambda);
            SolverReport {
                converged: residual <= tolerance && !tiny && lambda.iter().all(|x| x.is_finite()),
                iterations,
                residual,
            }
        };
        for iteration in 1..=options.max_iterations {
            let mut change = 0.0;
            for (b, (block, &start)) in self.blocks.iter().zip(&starts).enumerate() {
                let size = block.rows();
                let local = velocities.local_q(&self.w, start, size, lambda);
                let new: Vec<f64> = match *block {
                    Block::Equality(_) => {
                        let lu = factors[b].as_ref().expect("factorised above");
                        lu.solve(&-&local)
                            .expect("invertible, checked above")
                            .as_slice()
                            .to_vec()
                    }
                    Block::Complementarity => vec![(-local[0] / self.w[(start, start)]).max(0.0)],
                    Block::Friction { dimension: 2, mu } => {
                        let (r, _, slip_denominator_tiny) =
                            dense_local(block_at(&self.w, start), [local[0], local[1]], mu);
                        tiny |= slip_denominator_tiny;
                        r.to_vec()
                    }
                    Block::Friction { mu, .. } => {
                        let problem = LocalProblem {
                            w: Matrix3::from_fn(|i, j| self.w[(start + i, start + j)]),
                            q: Vector3::from_column_slice(local.as_slice()),
                            mu,
                        };
                        let mut r = Vector3::from_column_slice(&lambda.as_slice()[start..start + 3]);
                        problem.solve(&mut r, &mut rho[b]);
                        r.as_slice().to_vec()
                    }
                };
                let delta: Vec<f64> = new
                    .iter()
                    .zip(&lambda.as_slice()[start..])
                    .map(|(n, o)| n - o)
                    .collect();
                change += delta.iter().map(|d| d * d).sum::<f64>();
                velocities.update(&self.w, start, &delta);
                lambda.rows_mut(start, size).copy_from_slice(&new);
            }
            if stopping.stop(change, lambda, || self.error(lambda)) {
                return Ok(report(lambda, iteration, tiny));
            }
        }
        Ok(report(lambda, options.max_iterations, tiny))
    }
}
