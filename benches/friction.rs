//! Each friction-contact solver on each of Siconos's FC test problems it solves at 1e-5 (the
//! tolerance of Siconos's test collections; ../shared/data/siconos/numerics-fc, or
//! $RICOCHET_SICONOS_DATA). Criterion times one solve from r = 0; divide by the number of
//! contacts for FCLIB's "time per contact" (BENCHMARKS.md).

use std::path::PathBuf;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use nalgebra::DVector;
use ricochet::io::siconos::read_friction;
use ricochet::numerics::friction::{FrictionOptions, FrictionSolver, solve_friction};

fn friction(c: &mut Criterion) {
    let dir = std::env::var_os("RICOCHET_SICONOS_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/siconos"))
        .join("numerics-fc");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("SKIPPED: no FC data at {} (set RICOCHET_SICONOS_DATA)", dir.display());
        return;
    };
    let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.sort();
    let options = FrictionOptions {
        tolerance: 1e-5,
        max_iterations: 20_000,
        ..Default::default()
    };
    let mut group = c.benchmark_group("friction");
    group.sample_size(10);
    for file in files {
        let problem = read_friction(&file).unwrap();
        let name = format!(
            "{} ({} contacts)",
            file.file_stem().unwrap().to_string_lossy(),
            problem.contacts()
        );
        let solvers: &[FrictionSolver] = if problem.dimension == 2 {
            &[
                FrictionSolver::Nsgs,
                FrictionSolver::NsgsDense,
                FrictionSolver::FixedPoint,
                FrictionSolver::Lemke,
            ]
        } else {
            &[FrictionSolver::Nsgs, FrictionSolver::FixedPoint]
        };
        for &solver in solvers {
            // Lemke's dense tableau on the 2 001-row LCP of the granular file takes a minute.
            if solver == FrictionSolver::Lemke && problem.contacts() > 100 {
                continue;
            }
            let mut r = DVector::zeros(problem.q.len());
            // Only time the runs that solve the problem.
            if !solve_friction(solver, &problem, &mut r, &options).is_ok_and(|report| report.converged) {
                continue;
            }
            group.bench_with_input(BenchmarkId::new(solver.name(), &name), &problem, |b, p| {
                b.iter(|| solve_friction(solver, p, &mut r, &options).unwrap())
            });
        }
    }
    group.finish();
}

criterion_group!(benches, friction);
criterion_main!(benches);
