//! Pinned bits, as Box2D pins its determinism: the summary of a fixed small ensemble of every
//! shipped scenario, on the CPU lanes and on the reference stepper, hashes to a committed
//! value. A change that moves one bit of one result fails here; if the change is meant (a
//! new column, a deliberate change of the arithmetic), say why in the commit and paste the
//! new table this test prints.
//!
//! (The GPU kernel in f64 is pinned to the CPU lanes bit for bit, on lavapipe, by
//! `gpu_vs_cpu.rs`'s `gpu_f64_and_the_cpu_lanes_give_the_same_bits`, rather than here: its
//! bits are the adapter's.)

use ricochet::ensemble::{self, Backend, RunOptions, Scenario, Shard};

/// (scenario, backend, FNV-1a 64 of its summary.csv) for 16 scenes and at most 0.5 s.
const PINNED: &[(&str, &str, u64)] = &[
    ("billiard_shots", "cpu", 0x4251b4fc700c28d8),
    ("billiard_shots", "reference", 0x0b3ab4b4680d4e15),
    ("block_on_incline", "cpu", 0x5a027d6367529c01),
    ("block_on_incline", "reference", 0xcab04f48df8234c7),
    ("bouncing_balls", "cpu", 0x1fa269369efb0854),
    ("bouncing_balls", "reference", 0x1fa269369efb0854),
    ("column_of_beads", "cpu", 0x4df270a61557843a),
    ("column_of_beads", "reference", 0x86fa5d11da9fc1c5),
    ("disc_pile", "cpu", 0x7103b268ec8b5517),
    ("disc_pile", "reference", 0xcd52c470f1a69a02),
    ("dumbbell", "cpu", 0x0183b8c508df3383),
    ("dumbbell", "reference", 0xb626a74cef22297c),
    ("impact_oscillator", "cpu", 0x3bff4ce348e7521b),
    ("impact_oscillator", "reference", 0xfce190d8bfe73207),
    ("impact_oscillator_study", "cpu", 0x5880141d7040f5a7),
    ("impact_oscillator_study", "reference", 0xefe8ce50d7623f6b),
    ("impacting_bar", "cpu", 0x75bbfdc0daea5854),
    ("impacting_bar", "reference", 0x4b76274b343cb93d),
    ("newtons_cradle", "cpu", 0x918f833ab03ff19d),
    ("newtons_cradle", "reference", 0x4d2f790ab6fc7947),
    ("pendulum", "cpu", 0x12fa8b2ac064f5b6),
    ("pendulum", "reference", 0x78ca4fec72a85012),
    ("pendulum_hitting_wall", "cpu", 0x4dd92a26ee10f309),
    ("pendulum_hitting_wall", "reference", 0xb0d828e3b7c58bad),
    ("rocking_block", "cpu", 0x4ae12274b6564f69),
    ("rocking_block", "reference", 0xfba0f28a4a2aec84),
    ("spinning_balls", "cpu", 0xfddfdef5523928c0),
    ("spinning_balls", "reference", 0x7fc7459322842884),
    ("spring_stop", "cpu", 0x3a60d7d5a19b7ad1),
    ("spring_stop", "reference", 0x88f0479f1954e2bc),
    ("woodpecker", "cpu", 0xd842a7ef670c89d3),
    ("woodpecker", "reference", 0xd03095dbc3b44074),
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
        scenario.time.final_time = scenario.time.final_time.min(0.5);
        scenario.strobe = None;
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        for (backend, label) in [(Backend::Cpu, "cpu"), (Backend::Reference, "reference")] {
            // The first 16 scenes (of the whole ensemble: its sweeps stay valid).
            let shard = Shard {
                index: 0,
                count: scenario.scenes / 16,
            };
            assert_eq!(shard.range(scenario.scenes), 0..16, "{name}");
            let options = RunOptions {
                backend,
                shard,
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
