//! Each CPU LCP solver on each of Siconos's LCP test problems it solves
//! (../shared/data/siconos/numerics-lcp, or $RICOCHET_SICONOS_DATA).

use std::path::PathBuf;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use nalgebra::DVector;
use ricochet::io::siconos::read_lcp;
use ricochet::numerics::{SolverKind, SolverOptions, solve_lcp};

fn lcp(c: &mut Criterion) {
    let dir = std::env::var_os("RICOCHET_SICONOS_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/siconos"))
        .join("numerics-lcp");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("SKIPPED: no LCP data at {} (set RICOCHET_SICONOS_DATA)", dir.display());
        return;
    };
    let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.sort();
    let options = SolverOptions {
        tolerance: 1e-10,
        max_iterations: 20_000,
        ..Default::default()
    };
    let mut group = c.benchmark_group("lcp");
    for file in files {
        let problem = read_lcp(&file).unwrap();
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        for kind in [
            SolverKind::Lemke,
            SolverKind::Pgs,
            SolverKind::Jacobi,
            SolverKind::Enumerative,
        ] {
            let mut z = DVector::zeros(problem.size());
            // Only time the runs that solve the problem.
            if !solve_lcp(kind, &problem, &mut z, &options).is_ok_and(|r| r.converged) {
                continue;
            }
            group.bench_with_input(BenchmarkId::new(kind.name(), &name), &problem, |b, p| {
                b.iter(|| solve_lcp(kind, p, &mut z, &options).unwrap())
            });
        }
    }
    group.finish();
}

criterion_group!(benches, lcp);
criterion_main!(benches);
