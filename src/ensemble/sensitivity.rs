//! First-order and total Sobol indices of every output of a Saltelli design
//! ([`super::design`], `design = "saltelli"`): `sensitivity.json`.
//!
//! With f_A, f_B and f_ABᵢ an output at the N base points' rows A_j, B_j and AB_i,j (A_j with
//! coordinate i from B_j), and f̄ and V the mean and variance of the 2N values f_A, f_B:
//!
//! - S_i = (1/N) Σ_j (f_B − f̄)(f_ABᵢ − f_A) / V — the first-order index, the share of the
//!   variance that parameter i explains alone (Saltelli et al., Comput. Phys. Commun.
//!   181:259, 2010, Table 2 (b), on the centred output as SALib centres it: the same
//!   expectation, a smaller variance when the mean is far from 0);
//! - S_Ti = (1/2N) Σ_j (f_A − f_ABᵢ)² / V — the total index, its share with every
//!   interaction it takes part in (Jansen, Comput. Phys. Commun. 117:35, 1999; Table 2 (f)
//!   of Saltelli 2010).
//!
//! These are SALib's `sobol.analyze` estimators. Their 95 % intervals are percentile
//! bootstrap intervals: [`BOOTSTRAP`] resamples of the N base points with replacement (each
//! resample drawn from its own stream of the scenario's seed, so the same on any thread
//! count). A base point with a non-finite output is left out of that output's indices;
//! outputs that do not vary are left out.

use std::collections::BTreeMap;

use rand::RngExt;
use rayon::prelude::*;
use serde::Serialize;

use super::sampling::scene_rng;
use super::stats::quantile;
use super::table::Table;

/// Bootstrap resamples behind each interval.
pub const BOOTSTRAP: usize = 500;

/// The first stream of the bootstrap's resamples (far from the scenes' streams 0…N).
const BOOTSTRAP_STREAM: u64 = 1 << 62;

/// The Sobol indices of one parameter for one output.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Indices {
    /// First-order index S_i.
    #[serde(rename = "S1")]
    pub s1: f64,
    /// Its 95 % bootstrap interval.
    #[serde(rename = "S1_ci95")]
    pub s1_ci95: [f64; 2],
    /// Total index S_Ti.
    #[serde(rename = "ST")]
    pub st: f64,
    /// Its 95 % bootstrap interval.
    #[serde(rename = "ST_ci95")]
    pub st_ci95: [f64; 2],
}

/// Output column → parameter → its indices (`sensitivity.json`).
pub type Sensitivity = BTreeMap<String, BTreeMap<String, Indices>>;

/// The indices of every output column of `summary` (not `scene`, not a parameter), a run
/// of a Saltelli design of the `parameters` (in the design's order) with `seed`; `None`
/// without parameters (a run of no Saltelli design). Only the whole groups of d + 2 scenes in
/// the table count (a shard may hold part of one).
pub fn of(summary: &Table, parameters: &[String], seed: u64) -> Option<Sensitivity> {
    if parameters.is_empty() {
        return None;
    }
    let d = parameters.len();
    let scene = summary.column("scene").unwrap_or_default();
    let group = d + 2;
    // The first row of each whole group: scenes j (d + 2) … j (d + 2) + d + 1 in a row.
    let starts: Vec<usize> = (0..scene.len())
        .filter(|&r| {
            let s = scene[r] as usize;
            s.is_multiple_of(group) && scene.get(r + d + 1) == Some(&((s + d + 1) as f64))
        })
        .collect();
    let outputs: Vec<&String> = summary
        .columns
        .iter()
        .filter(|c| *c != "scene" && !parameters.contains(c))
        .collect();
    let sensitivity = outputs
        .par_iter()
        .filter_map(|&name| {
            let column = summary.column(name)?;
            let f: Vec<f64> = starts
                .iter()
                .flat_map(|&r| column[r..r + group].iter().copied())
                .collect();
            let indices = indices(&f, d, seed)?;
            Some((name.clone(), parameters.iter().cloned().zip(indices).collect()))
        })
        .collect();
    Some(sensitivity)
}

/// The indices of the d parameters from an output `f` in the design's order (groups of
/// d + 2: f_A, f_AB₁ … f_ABd, f_B), with bootstrap intervals drawn from `seed`; `None` where
/// the output does not vary over the groups whose values are all finite (or fewer than two).
pub fn indices(f: &[f64], d: usize, seed: u64) -> Option<Vec<Indices>> {
    let groups: Vec<&[f64]> = f
        .chunks_exact(d + 2)
        .filter(|g| g.iter().all(|v| v.is_finite()))
        .collect();
    let n = groups.len();
    let all: Vec<usize> = (0..n).collect();
    let estimate = estimator(&groups, d, &all)?;
    let resamples: Vec<Vec<[f64; 2]>> = (0..BOOTSTRAP as u64)
        .into_par_iter()
        .filter_map(|r| {
            let mut rng = scene_rng(seed, BOOTSTRAP_STREAM + r);
            let picked: Vec<usize> = (0..n).map(|_| rng.random_range(0..n)).collect();
            estimator(&groups, d, &picked)
        })
        .collect();
    let interval = |i: usize, k: usize| {
        let mut x: Vec<f64> = resamples.iter().map(|e| e[i][k]).collect();
        x.sort_by(f64::total_cmp);
        [quantile(&x, 0.025), quantile(&x, 0.975)]
    };
    Some(
        (0..d)
            .map(|i| Indices {
                s1: estimate[i][0],
                s1_ci95: interval(i, 0),
                st: estimate[i][1],
                st_ci95: interval(i, 1),
            })
            .collect(),
    )
}

/// [S_i, S_Ti] for each parameter over the groups `picked` (a base point may be picked more
/// than once); `None` when V = 0.
fn estimator(groups: &[&[f64]], d: usize, picked: &[usize]) -> Option<Vec<[f64; 2]>> {
    let n = picked.len() as f64;
    if picked.len() < 2 {
        return None;
    }
    let (a, b) = (|g: &[f64]| g[0], |g: &[f64]| g[d + 1]);
    let mean = picked.iter().map(|&j| a(groups[j]) + b(groups[j])).sum::<f64>() / (2.0 * n);
    let variance = picked
        .iter()
        .map(|&j| (a(groups[j]) - mean).powi(2) + (b(groups[j]) - mean).powi(2))
        .sum::<f64>()
        / (2.0 * n);
    if variance <= 0.0 || !variance.is_finite() {
        return None;
    }
    Some(
        (0..d)
            .map(|i| {
                let (mut first, mut total) = (0.0, 0.0);
                for &j in picked {
                    let g = groups[j];
                    let ab = g[i + 1];
                    first += (b(g) - mean) * (ab - a(g));
                    total += (a(g) - ab).powi(2);
                }
                [first / n / variance, total / (2.0 * n) / variance]
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// f = x₀ + 2 x₁ on independent uniforms: V = 1/12 + 4/12, S = ST = (1/5, 4/5) exactly
    /// for an additive function; a constant output has no indices.
    #[test]
    fn an_additive_function_splits_its_variance() {
        let d = 2;
        let mut rng = scene_rng(3, 0);
        let mut f = Vec::new();
        for _ in 0..20_000 {
            let a: [f64; 2] = [rng.random(), rng.random()];
            let b: [f64; 2] = [rng.random(), rng.random()];
            let g = |x: [f64; 2]| x[0] + 2.0 * x[1];
            f.extend([g(a), g([b[0], a[1]]), g([a[0], b[1]]), g(b)]);
        }
        let indices = indices(&f, d, 1).unwrap();
        for (i, exact) in [0.2, 0.8].into_iter().enumerate() {
            let x = &indices[i];
            assert!((x.s1 - exact).abs() < 0.03 && (x.st - exact).abs() < 0.03, "{i}: {x:?}");
            assert!(x.s1_ci95[0] < x.s1 && x.s1 < x.s1_ci95[1], "{x:?}");
            assert!(x.st_ci95[0] <= x.st && x.st <= x.st_ci95[1], "{x:?}");
        }
        assert_eq!(super::indices(&[1.0; 40], d, 1), None);
    }
}
