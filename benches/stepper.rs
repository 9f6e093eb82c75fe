//! One Moreau–Jean step of the f64 reference stepper: the bouncing ball and the column of
//! ten beads (all contacts linked, mid-fall at t = 1 s).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ricochet::reference::Trajectory;
use ricochet::scenes::{bouncing_ball::BouncingBall, column_of_beads::ColumnOfBeads};

fn bouncing_ball(c: &mut Criterion) {
    let mut group = c.benchmark_group("reference_step");
    group.throughput(Throughput::Elements(1));
    let mut sim = BouncingBall::default().simulation().unwrap();
    group.bench_function("bouncing_ball", |b| {
        b.iter(|| {
            if sim.time() > 9.0 {
                sim = BouncingBall::default().simulation().unwrap();
            }
            sim.step().unwrap()
        })
    });
    let mut column = ColumnOfBeads::default().simulation().unwrap();
    column.run(1.0, &mut Trajectory::default()).unwrap();
    group.bench_function("column_of_beads_10", |b| b.iter(|| column.step().unwrap()));
    group.finish();
}

criterion_group!(benches, bouncing_ball);
criterion_main!(benches);
