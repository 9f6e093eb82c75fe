//! Sweeps: grids are exactly the cartesian product, Sobol and Latin-hypercube draws are
//! reproducible, stratified and the same in every shard, and bad sweeps are refused.

use ricochet::ensemble::{self, Backend, RunOptions, Scenario, Shard};

fn scenario(scenes: usize, seed: u64, parameters: &str) -> Scenario {
    Scenario::from_toml(&format!(
        "name = \"sweep\"\nscenes = {scenes}\nseed = {seed}\n[scene]\ntemplate = \"bouncing_ball\"\n{parameters}\n\
         [time]\nstep = 1e-3\nfinal = 0.2\n[record]\ntrajectories = 0\n"
    ))
    .unwrap()
}

/// The drawn values of every scene, by name.
fn draws(scenario: &Scenario) -> (Vec<String>, Vec<Vec<f64>>) {
    let names = scenario.drawn_names().unwrap();
    let values = (0..scenario.scenes)
        .map(|s| scenario.sample(s).unwrap().drawn)
        .collect();
    (names, values)
}

#[test]
fn grids_are_the_cartesian_product_repeated() {
    let sweep = scenario(
        24,
        3,
        "height = { grid = [1.0, 2.0, 4] }\nrestitution = { log_grid = [0.25, 1.0, 3] }\nradius = { uniform = [0.05, 0.1] }",
    );
    let (names, values) = draws(&sweep);
    assert_eq!(names, ["radius", "height", "restitution"], "the template's order");
    let heights = [1.0, 4.0 / 3.0, 5.0 / 3.0, 2.0];
    let restitutions = [0.25, 0.5, 1.0];
    for (s, row) in values.iter().enumerate() {
        // Alphabetical: height, then restitution varying fastest; two passes.
        let point = s % 12;
        assert!(
            (row[1] - heights[point / 3]).abs() <= 1e-15,
            "scene {s}: height {}",
            row[1]
        );
        assert!(
            (row[2] - restitutions[point % 3]).abs() <= 1e-15,
            "scene {s}: e {}",
            row[2]
        );
        assert!(
            (0.05..0.1).contains(&row[0]),
            "scene {s}: the random parameter is drawn"
        );
    }
    // The grid's ends are exact, and each pass draws the random parameter afresh.
    assert_eq!((values[11][1], values[11][2]), (2.0, 1.0));
    assert!(values[..12].iter().zip(&values[12..]).all(|(a, b)| a[0] != b[0]));
    // A one-point grid is its value where both ends are it (one between different ends
    // would drop b: refused, tests/integration/scene_parameters.rs).
    let (_, single) = draws(&scenario(2, 3, "height = { grid = [1.5, 1.5, 1] }"));
    assert_eq!(single, [[1.5], [1.5]]);
}

#[test]
fn sobol_and_latin_hypercube_draws_are_stratified_and_reproducible() {
    let text = "height = { sobol = [1.0, 2.0] }\nrestitution = { lhs = [0.5, 0.9] }\nradius = { sobol = [0.05, 0.1] }";
    let sweep = scenario(64, 11, text);
    let (_, values) = draws(&sweep);
    assert_eq!(
        draws(&scenario(64, 11, text)).1,
        values,
        "the same seed, the same draws"
    );
    assert_ne!(
        draws(&scenario(64, 12, text)).1,
        values,
        "another seed, another replica"
    );
    let unit = |x: f64, (a, b): (f64, f64)| (x - a) / (b - a);
    for (column, range) in [(1, (1.0, 2.0)), (2, (0.5, 0.9)), (0, (0.05, 0.1))] {
        // 64 points: exactly one in each of the 64 strata of [a, b), for both Sobol
        // dimensions (a (0, m, 1)-net in each, kept by the digital shift) and the hypercube.
        let mut strata = vec![0; 64];
        for row in &values {
            let u = unit(row[column], range);
            assert!((0.0..1.0).contains(&u), "column {column}: {u}");
            strata[(u * 64.0) as usize] += 1;
        }
        assert!(strata.iter().all(|&c| c == 1), "column {column}: {strata:?}");
    }
    // The hypercube's strata depend on N, and are those of the whole ensemble in every shard.
    let full = ensemble::run(
        &sweep,
        &RunOptions {
            backend: Backend::Cpu,
            ..Default::default()
        },
        &ensemble::Progress::new(),
    )
    .unwrap();
    for index in 0..3 {
        let shard = Shard { index, count: 3 };
        let part = ensemble::run(
            &sweep,
            &RunOptions {
                backend: Backend::Cpu,
                shard,
                chunk: Some(5),
                ..Default::default()
            },
            &ensemble::Progress::new(),
        )
        .unwrap();
        for name in ["height", "restitution", "radius", "z", "z_dot"] {
            let whole = full.summary.column(name).unwrap();
            assert_eq!(
                part.summary.column(name).unwrap(),
                whole[shard.range(64)],
                "{name}, shard {index}"
            );
        }
    }
}

#[test]
fn bad_sweeps_are_refused() {
    let fails = |scenes: usize, parameters: &str| {
        Scenario::from_toml(&format!(
            "name = \"s\"\nscenes = {scenes}\n[scene]\ntemplate = \"bouncing_ball\"\n{parameters}\n[time]\nstep = 1e-3\nfinal = 0.2\n"
        ))
        .unwrap_err()
        .to_string()
    };
    for (scenes, parameters, expected) in [
        (
            7,
            "height = { grid = [1.0, 2.0, 3] }\nrestitution = { grid = [0.5, 0.9, 2] }",
            "not a whole number of passes over the grid's 6 points",
        ),
        (4, "height = { grid = [1.0, 2.0, 0] }", "whole number of points n ≥ 1"),
        (4, "height = { grid = [1.0, 2.0, 2.5] }", "whole number of points n ≥ 1"),
        (4, "height = { grid = [1.0, 2.0] }", "grid = [a, b, n] takes"),
        (
            4,
            "height = { log_grid = [-1.0, 2.0, 3] }",
            "`height`: log_grid = [a, b, n] needs a, b > 0",
        ),
        (
            4,
            "height = { sobol = [2.0, 1.0] }",
            "`height`: sobol = [a, b] and lhs = [a, b] need finite a ≤ b",
        ),
        (4, "height = { lhs = [1.0] }", "lhs = [a, b] takes two numbers"),
    ] {
        let e = fails(scenes, parameters);
        assert!(e.contains(expected), "{parameters}: {e}");
    }
}

/// A sweep that changes a scene's size (a disc pile is frictionless — 2 dof per disc — at
/// μ = 0, rough — 3 — above) is refused before anything is stepped, naming the scene: the
/// summary's columns and the engines' records are laid out for one size.
#[test]
fn a_sweep_that_changes_the_size_is_refused() {
    let scenario = Scenario::from_toml(
        "name = \"piles\"\nscenes = 2\n[scene]\ntemplate = \"disc_pile\"\ndiscs = 2\nfriction = { grid = [0.0, 0.5, 2] }\n\
         [time]\nstep = 1e-3\nfinal = 0.01\n[[observe]]\nname = \"top\"\nsignal = \"q1\"\nreduce = \"max\"\n",
    )
    .unwrap();
    for backend in [Backend::Cpu, Backend::Reference] {
        let options = RunOptions {
            backend,
            ..Default::default()
        };
        let progress = ensemble::Progress::new();
        let e = ensemble::run(&scenario, &options, &progress).err().unwrap().to_string();
        assert_eq!(progress.scene_steps(), 0, "stepped");
        assert!(
            e.contains("scene 1 (drawn: friction = 0.5)") && e.contains("6 degrees of freedom (x_0, z_0, theta_0, x_1, z_1, theta_1) where scene 0 has 4 (x_0, z_0, x_1, z_1)"),
            "{e}"
        );
    }
}
