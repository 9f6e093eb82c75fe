//! Scene templates refuse parameters that make no physical sense instead of running them
//! silently (a block starting inside the ground, a negative friction run as none, a one-point
//! grid dropping its end, a subnormal mass giving NaN rows): each is an error when the scenario
//! is read, naming the template and the parameter, and a drawn value is refused by the
//! template's own check, which names its scene.

use ricochet::ensemble::Scenario;
use ricochet::ensemble::design::{Design, Draws};
use ricochet::ensemble::sampling::{Distribution, Parameter};

/// A scenario of `scenes` scenes of `template` with the `[scene]` lines `lines`.
fn scenario(template: &str, lines: &str, scenes: usize) -> String {
    format!(
        "name = \"x\"\nscenes = {scenes}\nseed = 1\n[scene]\ntemplate = \"{template}\"\n{lines}\n[time]\nstep = 1e-3\nfinal = 0.01\n"
    )
}

/// The error reading one scene of `template` with `lines` (a panic if it was accepted).
fn refused(template: &str, lines: &str) -> String {
    match Scenario::from_toml(&scenario(template, lines, 1)) {
        Ok(_) => panic!("{template} with {lines:?} was accepted"),
        Err(e) => e.to_string(),
    }
}

/// Asserts that `template` with `lines` is refused by an error naming the template, the
/// parameter `key` and containing `reason`.
fn assert_refused(template: &str, lines: &str, key: &str, reason: &str) {
    let e = refused(template, lines);
    assert!(
        e.contains(template) && e.contains(&format!("`{key}`")) && e.contains(reason),
        "{template} with {lines:?}: expected `{key}` and {reason:?}, got: {e}"
    );
}

/// Asserts that `template` with `lines` is accepted.
fn assert_accepted(template: &str, lines: &str) {
    if let Err(e) = Scenario::from_toml(&scenario(template, lines, 1)) {
        panic!("{template} with {lines:?} was refused: {e}");
    }
}

/// The block rests on its bottom left corner: a tilt of 3 rad started its top left corner
/// 0.59 m inside the ground, and a negative one its bottom right corner.
#[test]
fn rocking_block_refuses_a_corner_below_the_ground() {
    for tilt in ["3.0", "-0.1", "1.6"] {
        assert_refused("rocking_block", &format!("tilt = {tilt}"), "tilt", "below the ground");
    }
    for tilt in ["0.0", "0.3", "1.5707963267948966"] {
        assert_accepted("rocking_block", &format!("tilt = {tilt}"));
    }
}

/// A frequency or a duration ≤ 0 made the ground pulse vanish without a word.
#[test]
fn rocking_block_refuses_a_pulse_that_never_acts() {
    for pulse in [
        "amplitude = 3.0\nfrequency = -2.0",
        "amplitude = 3.0\nfrequency = 0.0",
        "frequency = -1.0",
    ] {
        assert_refused("rocking_block", pulse, "frequency", "must be > 0");
    }
    for pulse in ["amplitude = 3.0\nduration = -0.5", "amplitude = 3.0\nduration = 0.0"] {
        assert_refused("rocking_block", pulse, "duration", "must be > 0");
    }
    assert_accepted("rocking_block", "amplitude = 3.0\nfrequency = 2.0\nduration = 0.25");
    assert_refused("rocking_block", "friction = -0.7", "friction", "must be ≥ 0");
}

/// A negative μ ran frictionless discs (the rough scene is built for μ > 0 only).
#[test]
fn disc_pile_refuses_a_negative_friction() {
    assert_refused("disc_pile", "friction = -0.1", "friction", "must be ≥ 0");
    assert_accepted("disc_pile", "friction = 0.3");
    assert_accepted("disc_pile", "friction = 0.0");
}

/// A μ drawn below 0 is refused by the template, naming `friction` and the scene with its
/// drawn value (it was run frictionless, which changed the scene's size, and the run said so
/// instead of naming the parameter).
#[test]
fn a_drawn_negative_friction_names_friction_and_its_scene() {
    for seed in 0..4 {
        let text = scenario("disc_pile", "discs = 2\nfriction = { uniform = [-0.5, 0.5] }", 64)
            .replace("seed = 1", &format!("seed = {seed}"));
        // Scene 0 is built when the scenario is read; the others when the run checks its draws.
        let e = match Scenario::from_toml(&text) {
            Err(e) => e,
            Ok(scenario) => (0..scenario.scenes)
                .find_map(|s| scenario.sample(s).err())
                .unwrap_or_else(|| panic!("seed {seed}: 64 draws of μ on [−0.5, 0.5] were all accepted")),
        }
        .to_string();
        assert!(
            e.contains("scene ")
                && e.contains("friction = -")
                && e.contains("disc_pile: `friction`")
                && e.contains("must be ≥ 0"),
            "seed {seed}: {e}"
        );
    }
}

/// An incline of 4 rad (gravity pulling the block off the line) and a negative μ ran.
#[test]
fn block_on_incline_refuses_an_incline_out_of_range_and_a_negative_friction() {
    for incline in ["4.0", "-0.2", "1.5707963267948966"] {
        assert_refused(
            "block_on_incline",
            &format!("incline = {incline}"),
            "incline",
            "[0, π/2)",
        );
    }
    assert_accepted("block_on_incline", "incline = 0.0");
    assert_accepted("block_on_incline", "incline = 1.5");
    assert_refused("block_on_incline", "friction = -0.1", "friction", "must be ≥ 0");
}

/// A negative spring stiffness c_φ (an indefinite K) and a negative μ ran.
#[test]
fn woodpecker_refuses_a_negative_spring_or_friction() {
    assert_refused("woodpecker", "spring = -0.0056", "spring", "must be ≥ 0");
    assert_refused("woodpecker", "friction = -0.3", "friction", "must be ≥ 0");
    assert_accepted("woodpecker", "spring = 0.0");
}

/// A negative distance put the object ball behind the cue ball; overlapping balls, a negative
/// drop or friction are refused naming the parameter.
#[test]
fn billiard_shot_refuses_an_object_ball_behind_or_inside_the_cue_ball() {
    assert_refused("billiard_shot", "distance = -0.5", "distance", "must be > 0");
    assert_refused(
        "billiard_shot",
        "distance = 0.03\noffset = 0.0",
        "distance",
        "overlapping",
    );
    assert_refused("billiard_shot", "drop = -0.001", "drop", "must be ≥ 0");
    assert_refused(
        "billiard_shot",
        "table_friction = -0.2",
        "table_friction",
        "must be ≥ 0",
    );
    assert_refused("billiard_shot", "ball_friction = -0.05", "ball_friction", "must be ≥ 0");
    assert_accepted("billiard_shot", "distance = 0.06\noffset = 0.0");
}

/// A one-point grid from a to b ≠ a silently dropped b; a one-point grid of a single value
/// is that value.
#[test]
fn a_one_point_grid_between_different_ends_is_refused() {
    for sweep in ["grid = [1.0, 2.0, 1]", "log_grid = [1.0, 2.0, 1]"] {
        let e = refused("bouncing_ball", &format!("height = {{ {sweep} }}"));
        assert!(
            e.contains("parameter `height`") && e.contains("one point") && e.contains("n ≥ 2 or a fixed value"),
            "{sweep}: {e}"
        );
    }
    assert_accepted("bouncing_ball", "height = { grid = [1.5, 1.5, 1] }");
    assert_accepted("bouncing_ball", "height = { log_grid = [1.5, 1.5, 1] }");
}

/// A sweep whose span overflows gave infinite or NaN values, which the template reported as
/// its own error (a non-finite velocity) instead of naming the sweep.
#[test]
fn a_sweep_whose_span_overflows_is_refused() {
    for (line, scenes) in [
        ("velocity = { grid = [-1e308, 1e308, 3] }", 3),
        ("velocity = { sobol = [-1e308, 1e308] }", 4),
        ("velocity = { lhs = [-1e308, 1e308] }", 4),
        ("height = { log_grid = [1e-300, 1e300, 3] }", 3),
    ] {
        let e = match Scenario::from_toml(&scenario("bouncing_ball", line, scenes)) {
            Ok(_) => panic!("{line} was accepted"),
            Err(e) => e.to_string(),
        };
        let key = if line.starts_with("height") {
            "height"
        } else {
            "velocity"
        };
        assert!(
            e.contains(&format!("parameter `{key}`")) && e.contains("flows"),
            "{line}: {e}"
        );
    }
    // The largest span that does not overflow is fine.
    Scenario::from_toml(&scenario(
        "bouncing_ball",
        "velocity = { grid = [-1e307, 1e307, 3] }",
        3,
    ))
    .unwrap();
}

/// A grid of 2³² points or more is refused with its limit, from a scenario file (it once
/// said "takes a whole number of points" of a whole number) and from code.
#[test]
fn a_grid_of_too_many_points_states_the_limit() {
    let e = Scenario::from_toml(&scenario("bouncing_ball", "height = { grid = [1.0, 2.0, 5e9] }", 3))
        .unwrap_err()
        .to_string();
    assert!(e.contains("height") && e.contains("2³² − 1"), "{e}");
    let limit = u32::MAX as usize;
    let too_many = Parameter::Drawn(Distribution::Grid(0.0, 1.0, limit + 1));
    let draws = |scenes| Draws {
        seed: 1,
        scenes,
        design: None,
    };
    let e = Design::new(std::iter::once(("height".to_string(), &too_many)), draws(limit + 1))
        .unwrap_err()
        .to_string();
    assert!(e.contains("parameter `height`") && e.contains("2³² − 1"), "{e}");
    let most = Parameter::Drawn(Distribution::Grid(0.0, 1.0, limit));
    let design = Design::new(std::iter::once(("height".to_string(), &most)), draws(limit)).unwrap();
    assert_eq!(design.grid_points(), limit);
}

/// A subnormal mass (1e-320) passed every check and gave NaN rows: every template refuses a
/// mass (or inertia, radius, modulus) that is not a positive normal number, naming it.
#[test]
fn subnormal_or_negative_masses_are_refused_by_name() {
    let positive = "positive normal number";
    for (template, key) in [
        ("bouncing_ball", "mass"),
        ("newtons_cradle", "mass"),
        ("column_of_beads", "mass"),
        ("disc_pile", "mass"),
        ("rocking_block", "mass"),
        ("spinning_ball", "mass"),
        ("billiard_shot", "mass"),
        ("block_on_incline", "mass"),
        ("impact_oscillator", "mass"),
        ("pendulum", "mass"),
        ("pendulum_hitting_wall", "mass"),
        ("chaplygin_sleigh", "mass"),
        ("chaplygin_sleigh", "inertia"),
        ("dumbbell", "mass0"),
        ("dumbbell", "mass1"),
        ("slider_crank", "pin_mass"),
        ("slider_crank", "slider_mass"),
        ("impacting_bar", "density"),
        ("cubic_resistor", "capacitance"),
    ] {
        for value in ["1e-320", "-1.0", "0.0"] {
            assert_refused(template, &format!("{key} = {value}"), key, positive);
        }
    }
    // The written-out system: M = [[1e-320]] passes Cholesky, but its inverse overflows.
    let e = refused("linear", "mass = [[1e-320]]\nh = [[1.0]]");
    assert!(e.contains("linear: `mass[0][0]`") && e.contains(positive), "{e}");
    // A radius so small that the inertia ⅖ m R² underflows, and a subnormal one.
    assert_refused(
        "spinning_ball",
        "radius = 1e-160\nheight = 0.5",
        "radius",
        "moment of inertia",
    );
    assert_refused("spinning_ball", "radius = 1e-320", "radius", positive);
    assert_refused("billiard_shot", "radius = 1e-320", "radius", positive);
    assert_refused("rocking_block", "width = 1e-320", "width", positive);
    assert_refused("cubic_resistor", "beta = 1e-320", "beta", positive);
}

/// Negative stiffnesses, dampings, lengths and starts inside a stop, across the templates.
#[test]
fn other_templates_refuse_negative_physics_by_name() {
    for (template, lines, key, reason) in [
        ("impact_oscillator", "stiffness = -1.0", "stiffness", "must be ≥ 0"),
        ("impact_oscillator", "damping = -0.1", "damping", "must be ≥ 0"),
        (
            "impact_oscillator",
            "position = 2.0\ngap = 1.0",
            "position",
            "beyond the stop",
        ),
        ("impacting_bar", "young = -210e9", "young", "positive normal"),
        ("impacting_bar", "section = 0.0", "section", "positive normal"),
        ("impacting_bar", "length = -1.0", "length", "positive normal"),
        ("impacting_bar", "position = -1e-3", "position", "inside the wall"),
        ("dumbbell", "length = -0.5", "length", "must be > 0"),
        ("dumbbell", "height = 0.05", "height", "inside the floor"),
        ("dumbbell", "radius = -0.1", "radius", "positive normal"),
        ("pendulum_hitting_wall", "angle = -0.5", "angle", "behind the wall"),
        ("slider_crank", "rod = 0.05", "rod", "longer than the crank"),
        ("slider_crank", "crank = -0.1", "crank", "positive normal"),
        ("slider_crank", "stop = 0.2", "stop", "beyond the stop"),
        ("chaplygin_sleigh", "arm = -0.5", "arm", "positive normal"),
        ("spinning_ball", "friction = -0.5", "friction", "must be ≥ 0"),
    ] {
        assert_refused(template, lines, key, reason);
    }
    assert_accepted(
        "impact_oscillator",
        "stiffness = 0.0\ndamping = 0.0\nposition = 1.0\ngap = 1.0",
    );
    assert_accepted("pendulum_hitting_wall", "angle = 0.0");
    assert_accepted("pendulum", "angle = -0.5");
}
