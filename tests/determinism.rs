//! Pinned bits, as Box2D pins its determinism: the summary of a fixed small ensemble of every
//! shipped scenario, on the CPU lanes and on the reference stepper, hashes to a committed
//! value. A change that moves one bit of one result fails here; if the change is meant (a
//! new column, a deliberate change of the arithmetic), say why in the commit and paste the
//! new table this test prints.
//!
//! (The GPU kernel in f64 is pinned to the CPU lanes bit for bit, on lavapipe, by
//! `gpu_vs_cpu.rs`'s `gpu_f64_and_the_cpu_lanes_give_the_same_bits`, rather than here: its
//! bits are the adapter's.)

use ricochet::ensemble::{self, Backend, RunOptions, Scenario};

/// (scenario, backend, FNV-1a 64 of its summary.csv) for 16 scenes and at most 0.5 s.
const PINNED: &[(&str, &str, u64)] = &[
    ("block_on_incline", "cpu", 0x13f35a9e8cd933c6),
    ("block_on_incline", "reference", 0x23d6123b423c534e),
    ("bouncing_balls", "cpu", 0xf19f3e8bae714bf4),
    ("bouncing_balls", "reference", 0xf19f3e8bae714bf4),
    ("column_of_beads", "cpu", 0xa24181390b359c5d),
    ("column_of_beads", "reference", 0x8a0d5ff81aabfcf8),
    ("disc_pile", "cpu", 0x56f625a36d5cdf2c),
    ("disc_pile", "reference", 0x06863e79b8448f37),
    ("dumbbell", "cpu", 0x9a21f04c2839367c),
    ("dumbbell", "reference", 0xaa07bfbcd9817cf9),
    ("impact_oscillator", "cpu", 0x7a2811687a777dac),
    ("impact_oscillator", "reference", 0xed875ced1b334b02),
    ("impacting_bar", "cpu", 0x546715fdc53dd455),
    ("impacting_bar", "reference", 0x8eadffba26fdf444),
    ("newtons_cradle", "cpu", 0x1ecade13d4cc50d2),
    ("newtons_cradle", "reference", 0x134c7c12897774e8),
    ("pendulum", "cpu", 0x4edb7da26abb8d73),
    ("pendulum", "reference", 0x47b05196d39ffb7d),
    ("pendulum_hitting_wall", "cpu", 0x47de90fd3066fef0),
    ("pendulum_hitting_wall", "reference", 0x8e1b7d29f1209dae),
    ("rocking_block", "cpu", 0x53bb441e0f5e8700),
    ("rocking_block", "reference", 0xc2ce37b531776fee),
    ("spinning_balls", "cpu", 0xbfa5ce07500b06b4),
    ("spinning_balls", "reference", 0x0ecd877512dff4c9),
    ("spring_stop", "cpu", 0x3a9841a2582dc766),
    ("spring_stop", "reference", 0xb378eb5178f162f7),
];

/// FNV-1a, 64 bits.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[test]
fn summaries_hash_to_their_pinned_values() {
    let mut paths: Vec<_> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    let mut actual = Vec::new();
    for path in &paths {
        let mut scenario = Scenario::load(path).unwrap();
        scenario.scenes = 16;
        scenario.time.final_time = scenario.time.final_time.min(0.5);
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        for (backend, label) in [(Backend::Cpu, "cpu"), (Backend::Reference, "reference")] {
            let options = RunOptions {
                backend,
                ..Default::default()
            };
            let run = ensemble::run(&scenario, &options, &mut |_| {}).unwrap();
            let mut csv = Vec::new();
            run.summary.write_csv(&mut csv).unwrap();
            actual.push((name.clone(), label, fnv1a(&csv)));
        }
    }
    let table: String = actual
        .iter()
        .map(|(name, backend, hash)| format!("    (\"{name}\", \"{backend}\", {hash:#018x}),\n"))
        .collect();
    let pinned: Vec<(String, &str, u64)> = PINNED.iter().map(|&(n, b, h)| (n.to_string(), b, h)).collect();
    assert_eq!(actual, pinned, "summaries moved; if meant, the new table is:\n{table}");
}
