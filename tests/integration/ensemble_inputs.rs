//! Bad scenarios are clear errors naming the key, line, value or scene: mistaken values,
//! invalid draws, meaningless physics, relaxation, shard and chunk arithmetic, overflow.

use crate::common;

use common::engines::{ALL, BALLS, col, run};
use ricochet::ensemble::{self, Backend, RunOptions, Scenario, Shard};

/// A scenario file's errors name the file, whatever their kind: a bad number as well as a
/// bad key or draw.
#[test]
fn a_bad_scenario_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    for (from, to, what) in [
        ("step = 1e-3", "step = -1e-3", "time.step"),
        ("radius = 0.1", "radius = -0.1", "radius"),
        ("scenes = 2000", "scenes = 0", "scenes"),
    ] {
        let path = dir.path().join("bad_balls.toml");
        std::fs::write(&path, BALLS.replacen(from, to, 1)).unwrap();
        let e = Scenario::load(&path).unwrap_err().to_string();
        assert!(e.contains("bad_balls.toml") && e.contains(what), "{e}");
    }
}

#[test]
fn bad_scenarios_are_clear_errors() {
    let with = |from: &str, to: &str| Scenario::from_toml(&BALLS.replace(from, to)).unwrap_err().to_string();
    let e = with("radius = 0.1", "radius = 0.1\nradus = 2");
    assert!(
        e.contains("radus") && (e.contains("bouncing_ball") || e.contains("BouncingBall")),
        "{e}"
    );
    let e = with("{ uniform = [0.8, 0.95] }", "{ uniform = [0.95, 0.8] }");
    assert!(e.contains("restitution") && e.contains("a ≤ b"), "{e}");
    let e = with("{ uniform = [0.8, 0.95] }", "1.5");
    assert!(e.contains("restitution") && e.contains("1.5"), "{e}");
    let e = with("step = 1e-3", "step = -1e-3");
    assert!(e.contains("time.step") && e.contains("-0.001"), "{e}");
    let e = with("{ uniform = [1.0, 2.0] }", "{ gaussian = [1.0, 2.0] }");
    assert!(e.contains("height") || e.contains("TOML"), "{e}");
    let e = Scenario::from_toml(&BALLS.replace("bouncing_ball\"", "trampoline\""))
        .unwrap_err()
        .to_string();
    assert!(e.contains("trampoline"), "{e}");
    let linear = r#"
name = "x"
[scene]
template = "linear"
mass = [[1.0, 0.0], [0.0, 1.0]]
h = [[1.0]]
[time]
step = 1e-3
final = 1.0
"#;
    let e = Scenario::from_toml(linear).unwrap_err().to_string();
    assert!(e.contains("`h`") || e.contains("contact rows"), "{e}");
    let e = "1/1".parse::<Shard>().unwrap_err().to_string();
    assert!(e.contains("shard"), "{e}");
    // A step longer than the run (it ran to t = h).
    let e = with("final = ", "final = 0.0005 #");
    assert!(e.contains("longer than the run"), "{e}");
}

/// A draw that makes a scene invalid (a restitution drawn above 1) stops the run before any
/// chunk is stepped, naming the lowest such scene and its drawn values, whatever the chunking.
#[test]
fn an_invalid_draw_names_its_scene_before_stepping() {
    let with_seed = |seed: u64| {
        Scenario::from_toml(
            &BALLS
                .replace("{ uniform = [0.8, 0.95] }", "{ uniform = [0.5, 1.5] }")
                .replace("seed = 99", &format!("seed = {seed}")),
        )
    };
    // Scene 0 is built when the scenario is read: where it is the invalid one, so it says.
    let (bad, good): (Vec<_>, Vec<_>) = (0..20).map(with_seed).partition(|s| s.is_err());
    let Some(Err(e)) = bad.into_iter().next() else {
        panic!("no seed of 20 draws scene 0's restitution above 1");
    };
    assert!(e.to_string().contains("scene 0 (drawn:"), "{e}");
    let Some(Ok(scenario)) = good.into_iter().next() else {
        panic!("every seed of 20 draws scene 0's restitution above 1");
    };
    let mut messages = Vec::new();
    for chunk in [7, 1 << 16] {
        let options = RunOptions {
            backend: Backend::Cpu,
            chunk: Some(chunk),
            shard: ALL,
            ..Default::default()
        };
        let progress = ensemble::Progress::new();
        let Err(e) = ensemble::run(&scenario, &options, &progress) else {
            panic!("restitutions above 1 ran");
        };
        assert_eq!(progress.scene_steps(), 0, "a chunk was stepped before the error");
        let e = e.to_string();
        assert!(e.contains("scene ") && e.contains("restitution = 1."), "{e}");
        messages.push(e);
    }
    assert_eq!(messages[0], messages[1]);
}

/// Values that overflow are not reported as healthy: a ball thrown down at 1e160 m/s has an
/// infinite energy, and its row says `finite = 0` on the reference and the CPU lanes (it
/// said 1).
#[test]
fn an_overflowing_energy_is_not_finite() {
    let scenario = Scenario::from_toml(&BALLS.replace("radius = 0.1", "radius = 0.1\nvelocity = -1e160")).unwrap();
    let mut scenario = scenario;
    scenario.scenes = 4;
    for backend in [Backend::Reference, Backend::Cpu] {
        let run = run(&scenario, backend, 4, ALL);
        assert!(col(&run, "energy_initial").iter().all(|e| e.is_infinite()));
        assert!(col(&run, "finite").iter().all(|&f| f == 0.0), "{backend:?}");
    }
}

/// A relaxation ω outside (0, 2) is refused when the scenario is read (the reference said
/// "61 scenes became NaN or infinite" with ω = −1); the batched engines, which run PGS with
/// ω = 1, refuse another ω instead of ignoring it, and `auto` runs it on the reference.
#[test]
fn relaxation_is_checked_and_never_ignored() {
    let with = |omega: &str| Scenario::from_toml(&format!("{BALLS}[solver]\nomega = {omega}\n"));
    let Err(e) = with("-1.0") else {
        panic!("omega = -1 was accepted");
    };
    assert!(e.to_string().contains("omega"), "{e}");
    let mut scenario = with("1.5").unwrap();
    scenario.scenes = 4;
    for backend in [Backend::Cpu, Backend::Gpu] {
        let options = RunOptions {
            backend,
            chunk: None,
            shard: ALL,
            ..Default::default()
        };
        let Err(e) = ensemble::run(&scenario, &options, &ensemble::Progress::new()) else {
            panic!("{backend:?} ignored omega");
        };
        assert!(e.to_string().contains("omega"), "{backend:?}: {e}");
    }
    let auto = run(&scenario, Backend::Auto, 4, ALL);
    assert!(auto.engine.contains("reference"), "{}", auto.engine);
    assert!(auto.notice.is_some_and(|n| n.contains("omega")));
}

/// A mistake inside a `[scene]` value is named with its key, its line and what was expected
/// (each of these said "data did not match any variant of untagged enum Value" with the caret
/// on the `[scene]` line).
#[test]
fn scene_value_mistakes_name_the_key_and_line() {
    let height = "height = { uniform = [1.0, 2.0] }";
    assert!(BALLS.contains(height));
    for (value, expected) in [
        ("{ unifrom = [1.0, 2.0] }", "unknown distribution `unifrom`"),
        ("{ uniform = [1.0] }", "uniform = [a, b] takes two numbers"),
        ("\"1.5\"", "is a string"),
        (
            "{ normal = { mean = 1.0, sdt = 0.1 } }",
            "`sdt` is not one of its fields",
        ),
        ("{ normal = { mean = 1.0 } }", "`std` is missing"),
        (
            "{ truncated_normal = { mean = 1.0, std = \"x\", min = 0.0, max = 2.0 } }",
            "`std` must be a number",
        ),
        (
            "{ uniform = [1.0, 2.0], choice = [1.0] }",
            "got the keys [choice, uniform]",
        ),
        ("true", "got boolean"),
        ("{ choice = [] }", "at least one number"),
    ] {
        let text = BALLS.replace(height, &format!("height = {value}"));
        let Err(e) = Scenario::from_toml(&text) else {
            panic!("{value} was accepted");
        };
        let e = e.to_string();
        assert!(
            e.contains("parameter `height`") && e.contains(expected) && e.contains("line 7"),
            "{value}: {e}"
        );
    }
    // Vectors and matrices: an entry named by its index.
    let text = BALLS.replace(height, "height = [1.0, \"2\"]");
    let Err(e) = Scenario::from_toml(&text) else {
        panic!("a string entry was accepted");
    };
    assert!(e.to_string().contains("entry 1"), "{e}");
}

/// Meaningless physics is refused when the scenario is read, naming the parameter: negative
/// sizes, a ball or bead starting inside the floor, overlapping cradle balls, beads or discs, a
/// box narrower than its discs, a disc starting in a wall (each ran silently before).
#[test]
fn meaningless_physics_is_refused() {
    for (template, parameter, name) in [
        ("bouncing_ball", "radius = -0.1", "`radius`"),
        ("bouncing_ball", "height = 0.05", "`height`"),
        ("pendulum", "length = -1.0", "`length`"),
        ("pendulum_hitting_wall", "length = 0.0", "`length`"),
        ("newtons_cradle", "gap = -0.01", "`gap`"),
        ("column_of_beads", "spacing = 0.1", "`spacing`"),
        ("column_of_beads", "height = 0.05", "`height`"),
        ("disc_pile", "width = 0.15", "`width`"),
        ("disc_pile", "x0 = 0.6", "`x0`"),
        ("disc_pile", "radius = 0.2", "overlapping"),
        ("spinning_ball", "height = 0.05", "`height`"),
        ("rocking_block", "width = 0.0", "`width`"),
        ("billiard_shot", "radius = -0.02", "radius"),
    ] {
        let text = format!(
            "name = \"x\"\n[scene]\ntemplate = \"{template}\"\n{parameter}\n[time]\nstep = 1e-3\nfinal = 0.01\n"
        );
        match Scenario::from_toml(&text) {
            Ok(_) => panic!("{template} with {parameter} was accepted"),
            Err(e) => assert!(e.to_string().contains(name), "{template}, {parameter}: {e}"),
        }
    }
}

/// Shard and chunk arithmetic cannot overflow: the shards of usize::MAX scenes split it
/// exactly, a chunk of usize::MAX scenes runs every scene (it wrote 0 rows), and a chunk of 0
/// scenes is refused.
#[test]
fn shard_and_chunk_arithmetic_is_checked() {
    let half = Shard { index: 1, count: 2 }.range(usize::MAX);
    assert_eq!(half, usize::MAX / 2..usize::MAX);
    assert_eq!(Shard { index: 0, count: 3 }.range(usize::MAX).end, usize::MAX / 3);
    let scenario = Scenario::from_toml(BALLS).unwrap();
    let whole = run(&scenario, Backend::Cpu, 7, ALL);
    let huge = run(&scenario, Backend::Cpu, usize::MAX, ALL);
    assert_eq!(huge.summary.rows(), scenario.scenes);
    assert_eq!(huge.summary.values, whole.summary.values);
    let options = RunOptions {
        backend: Backend::Cpu,
        chunk: Some(0),
        shard: ALL,
        ..Default::default()
    };
    let Err(e) = ensemble::run(&scenario, &options, &ensemble::Progress::new()) else {
        panic!("a chunk of 0 scenes ran");
    };
    assert!(e.to_string().contains("chunk"), "{e}");
}
