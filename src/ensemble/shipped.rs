//! The scenarios shipped in `scenarios/`, compiled in: a program or a Python wheel installed
//! away from the repository still finds them by name (`ricochet.run("bouncing_balls")`).

/// (name, TOML text) of every file of `scenarios/`, by name.
pub const SHIPPED: &[(&str, &str)] = &[
    ("billiard_shots", include_str!("../../scenarios/billiard_shots.toml")),
    (
        "block_on_incline",
        include_str!("../../scenarios/block_on_incline.toml"),
    ),
    ("bouncing_balls", include_str!("../../scenarios/bouncing_balls.toml")),
    ("chute_3d", include_str!("../../scenarios/chute_3d.toml")),
    ("column_of_beads", include_str!("../../scenarios/column_of_beads.toml")),
    ("cubic_resistor", include_str!("../../scenarios/cubic_resistor.toml")),
    ("disc_pile", include_str!("../../scenarios/disc_pile.toml")),
    ("dumbbell", include_str!("../../scenarios/dumbbell.toml")),
    ("hopper_2d", include_str!("../../scenarios/hopper_2d.toml")),
    (
        "impact_oscillator",
        include_str!("../../scenarios/impact_oscillator.toml"),
    ),
    (
        "impact_oscillator_study",
        include_str!("../../scenarios/impact_oscillator_study.toml"),
    ),
    ("impacting_bar", include_str!("../../scenarios/impacting_bar.toml")),
    ("newtons_cradle", include_str!("../../scenarios/newtons_cradle.toml")),
    ("pendulum", include_str!("../../scenarios/pendulum.toml")),
    (
        "pendulum_hitting_wall",
        include_str!("../../scenarios/pendulum_hitting_wall.toml"),
    ),
    (
        "pendulum_hitting_wall_rattle",
        include_str!("../../scenarios/pendulum_hitting_wall_rattle.toml"),
    ),
    ("pile_3d", include_str!("../../scenarios/pile_3d.toml")),
    ("pyramid_2d", include_str!("../../scenarios/pyramid_2d.toml")),
    ("rocking_block", include_str!("../../scenarios/rocking_block.toml")),
    ("spinning_balls", include_str!("../../scenarios/spinning_balls.toml")),
    ("spring_stop", include_str!("../../scenarios/spring_stop.toml")),
    ("woodpecker", include_str!("../../scenarios/woodpecker.toml")),
];

/// The text of the shipped scenario `name` (a file stem of `scenarios/`).
pub fn text(name: &str) -> Option<&'static str> {
    SHIPPED.iter().find(|(n, _)| *n == name).map(|(_, text)| *text)
}

#[cfg(test)]
mod tests {
    /// The table is the directory: every file once, each text its file's.
    #[test]
    fn every_scenario_file_is_shipped() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
            .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
            .collect();
        files.sort();
        let names: Vec<&str> = super::SHIPPED.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, files);
        for (name, text) in super::SHIPPED {
            assert_eq!(
                *text,
                std::fs::read_to_string(dir.join(format!("{name}.toml"))).unwrap()
            );
        }
    }
}
