//! Sizes that cannot fit are refused when the scenario is loaded, with the estimate, before
//! anything is built or stepped.

use ricochet::ensemble::Scenario;

#[cfg(target_os = "linux")]
#[test]
fn a_scene_larger_than_the_machine_is_refused_at_load() {
    for (template, size) in [
        ("column_of_beads", "beads = 1000000"),
        ("newtons_cradle", "balls = 1000000"),
        ("disc_pile", "discs = 100000"),
        ("impacting_bar", "nodes = 1000000"),
    ] {
        let start = std::time::Instant::now();
        let e = Scenario::from_toml(&format!(
            "name = \"big\"\n[scene]\ntemplate = \"{template}\"\n{size}\n[time]\nstep = 1e-3\nfinal = 0.01\n"
        ))
        .unwrap_err()
        .to_string();
        let name = size.split(' ').next().unwrap();
        assert!(
            e.contains(&format!("`{name}`"))
                && (e.contains("TB") || e.contains("PB"))
                && e.contains("this machine has"),
            "{e}"
        );
        assert!(
            start.elapsed().as_secs_f64() < 1.0,
            "{template}: refused before building"
        );
    }
    // A size that fits is taken.
    let ok = Scenario::from_toml(
        "name = \"cradle\"\n[scene]\ntemplate = \"newtons_cradle\"\nballs = 50\n[time]\nstep = 1e-3\nfinal = 0.01\n",
    );
    assert!(ok.is_ok());
}
