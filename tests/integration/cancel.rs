//! A run cancelled from another thread ([`Progress::cancel`]) stops within a tick of steps
//! with [`Error::Interrupted`], keeps the chunks it finished, and a resumed run ends with the
//! rows of an uninterrupted one.

use ricochet::Error;
use ricochet::ensemble::{self, Backend, Progress, RunOptions, Scenario};

const BALLS: &str = r#"
name = "balls"
scenes = 40
seed = 5
[scene]
template = "bouncing_ball"
height = { uniform = [1.0, 2.0] }
restitution = { uniform = [0.8, 0.95] }
[time]
step = 1e-3
final = 20.0
"#;

/// Steps per scene.
const STEPS: u64 = 20_000;

fn options(backend: Backend, dir: &std::path::Path, resume: bool) -> RunOptions {
    RunOptions {
        backend,
        chunk: Some(10),
        checkpoints: Some(dir.to_path_buf()),
        resume,
        ..Default::default()
    }
}

#[test]
fn a_cancelled_run_keeps_its_finished_chunks_and_resumes_to_the_same_rows() {
    let scenario = Scenario::from_toml(BALLS).unwrap();
    assert_eq!(scenario.steps(), STEPS);
    for backend in [Backend::Cpu, Backend::Reference] {
        let dir = std::env::temp_dir().join(format!("ricochet-cancel-{backend:?}-{}", std::process::id()));
        std::fs::remove_dir_all(&dir).ok();
        std::fs::create_dir_all(&dir).unwrap();
        let progress = Progress::new();
        // Cancelled once the first chunk of 10 scenes is done and the second has begun.
        let outcome = std::thread::scope(|scope| {
            let progress = &progress;
            scope.spawn(move || {
                while progress.scene_steps() <= 10 * STEPS {
                    std::thread::yield_now();
                }
                progress.cancel();
            });
            ensemble::run(&scenario, &options(backend, &dir, false), progress)
        });
        let Err(Error::Interrupted { what }) = outcome else {
            panic!(
                "{backend:?}: expected an interruption, got {:?}",
                outcome.map(|r| r.summary.rows())
            );
        };
        assert!(what.contains("scenes were done"), "{what}");
        assert!(
            progress.scene_steps() < 40 * STEPS,
            "{backend:?}: stopped early ({} scene-steps)",
            progress.scene_steps()
        );
        // Resumed: the finished chunks are taken, the rest computed.
        let resumed = Progress::new();
        let mut run = ensemble::run(&scenario, &options(backend, &dir, true), &resumed).unwrap();
        // The run holds its directory until its files are written; let it go for the next.
        drop(run.lock.take());
        assert!(
            (10 * STEPS..40 * STEPS).contains(&resumed.resumed()),
            "{backend:?}: {} scene-steps taken from the interrupted run",
            resumed.resumed()
        );
        let fresh = ensemble::run(&scenario, &options(backend, &dir, false), &Progress::new()).unwrap();
        assert_eq!(run.summary.rows(), 40);
        assert_eq!(
            run.summary, fresh.summary,
            "{backend:?}: resumed rows differ from a fresh run's"
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}

#[test]
fn a_run_cancelled_before_it_starts_computes_nothing() {
    let scenario = Scenario::from_toml(BALLS).unwrap();
    for backend in [Backend::Cpu, Backend::Reference] {
        let progress = Progress::new();
        progress.cancel();
        let options = RunOptions {
            backend,
            ..Default::default()
        };
        match ensemble::run(&scenario, &options, &progress) {
            Err(Error::Interrupted { what }) => {
                assert!(what.contains("0 scenes were done; nothing was kept"), "{what}")
            }
            other => panic!(
                "{backend:?}: expected an interruption, got {:?}",
                other.map(|r| r.summary.rows())
            ),
        }
        if backend == Backend::Cpu {
            assert_eq!(progress.scene_steps(), 0, "the lanes took no step");
        }
    }
}
