//! Extreme but valid inputs give the reference's result on every engine, never a healthy row
//! of a contact lost (the hostile run of issue 28): a friction coefficient of 10¹² held a
//! block 1 m inside its incline, and a ball thrown at 10¹⁵⁴ m/s passed through the floor,
//! both reported converged. The batched engines took λ = 0 on the MLCP error alone, which
//! reads "within" there: De Saxcé's ŵ_N = w_N + μ‖w_T‖ for a huge μ, and ‖q‖² overflowing for
//! a huge q. They now sweep at least once where a row is active, as Siconos's solvers do.

use ricochet::ensemble::{self, Backend, RunOptions, Scenario};

/// A one-scene scenario of `template` with `parameters`, over `steps` steps of 1 ms.
fn scenario(template: &str, parameters: &str, steps: usize) -> Scenario {
    let final_time = steps as f64 * 1e-3;
    Scenario::from_toml(&format!(
        "name = \"extreme\"\nscenes = 1\n[scene]\ntemplate = \"{template}\"\n{parameters}\n\
         [time]\nstep = 1e-3\nfinal = {final_time}\n[record]\ntrajectories = 0\n"
    ))
    .unwrap()
}

/// The summary row of `scenario` on `backend`, by column.
fn row(scenario: &Scenario, backend: Backend) -> Vec<(String, f64)> {
    let options = RunOptions {
        backend,
        ..Default::default()
    };
    let run = ensemble::run(scenario, &options, &ensemble::Progress::new()).unwrap();
    let summary = &run.summary;
    summary
        .columns
        .iter()
        .cloned()
        .zip(summary.row(0).iter().copied())
        .collect()
}

fn value(row: &[(String, f64)], column: &str) -> f64 {
    row.iter().find(|(name, _)| name == column).unwrap().1
}

/// The engines this machine has besides the reference.
fn batched() -> Vec<Backend> {
    #[allow(unused_mut)]
    let mut backends = vec![Backend::Cpu];
    #[cfg(feature = "gpu")]
    if crate::common::gpu().is_some() {
        backends.push(Backend::Gpu);
    }
    backends
}

/// `block_on_incline` with μ from 1 to 10¹⁵⁰ sticks where it lands on every engine: the
/// final state and the health columns are the reference's (no penetration, one impact).
#[test]
fn a_huge_friction_coefficient_sticks_on_every_engine() {
    for mu in ["1.0", "1e10", "1e12", "1e50", "1e150"] {
        let scenario = scenario("block_on_incline", &format!("friction = {mu}"), 200);
        let reference = row(&scenario, Backend::Reference);
        assert_eq!(value(&reference, "max_penetration"), 0.0, "μ = {mu}");
        assert_eq!(value(&reference, "s_dot"), 0.0, "μ = {mu}: stuck");
        for backend in batched() {
            let got = row(&scenario, backend);
            for column in ["s", "d", "s_dot", "d_dot", "max_penetration", "impacts", "converged"] {
                let (a, b) = (value(&got, column), value(&reference, column));
                assert!(
                    (a - b).abs() <= 1e-12 * (1.0 + b.abs()),
                    "μ = {mu}, {backend}: {column} = {a}, the reference's {b}"
                );
            }
        }
    }
}

/// A ball thrown down at 10¹⁵⁴ m/s (its q² overflows) bounces off the floor on every engine,
/// as on the reference: z_dot = e·10¹⁵⁴ upwards after the impact.
#[test]
fn a_ball_thrown_at_1e154_bounces_on_every_engine() {
    let scenario = scenario("bouncing_ball", "velocity = -1e154\nheight = 1.0", 5);
    let reference = row(&scenario, Backend::Reference);
    assert!(value(&reference, "z_dot") > 0.8e154, "{reference:?}");
    for backend in batched() {
        let got = row(&scenario, backend);
        for column in ["z", "z_dot", "impacts", "max_penetration"] {
            let (a, b) = (value(&got, column), value(&reference, column));
            assert!(
                (a - b).abs() <= 1e-12 * b.abs().max(1.0),
                "{backend}: {column} = {a:e}, the reference's {b:e}"
            );
        }
    }
}

/// A drawn μ in Painlevé's regime for a rocking block's corners (W_NN − μ|W_NT| ≤ 0) is refused
/// by the batched engines naming the scene that drew it and μ in a few digits (it was printed
/// as a 301-digit number, with no scene).
#[test]
fn a_painleve_friction_names_its_scene_and_value() {
    let scenario = Scenario::from_toml(
        "name = \"painleve\"\nscenes = 16\n[scene]\ntemplate = \"rocking_block\"\n\
         friction = { choice = [0.5, 1e300] }\n[time]\nstep = 1e-3\nfinal = 0.005\n",
    )
    .unwrap();
    let drawn: Vec<usize> = (0..16)
        .filter(|&s| scenario.sample(s).unwrap().drawn[0] > 1.0)
        .collect();
    assert!(!drawn.is_empty(), "some scene draws μ = 1e300");
    let options = RunOptions {
        backend: Backend::Cpu,
        ..Default::default()
    };
    let e = ensemble::run(&scenario, &options, &ensemble::Progress::new())
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(
        drawn.iter().any(|s| e.contains(&format!("scene {s}: "))) && e.contains("μ = 1e300") && e.contains("Painlevé"),
        "{e}"
    );
}
