//! Pinned bits, as Box2D pins its determinism: the summary of a fixed small ensemble of every
//! shipped scenario, on the CPU lanes and on the reference stepper, hashes to a committed
//! value. A change that moves one bit of one result fails here; if the change is meant (a
//! new column, a deliberate change of the arithmetic), say why in the commit and paste the
//! new table this test prints.
//!
//! (The GPU kernel in f64 is pinned to the CPU lanes bit for bit, on lavapipe, by
//! `gpu_vs_cpu.rs`'s `gpu_f64_and_the_cpu_lanes_give_the_same_bits`, rather than here: its
//! bits are the adapter's.)

use crate::common;

use ricochet::ensemble::fingerprint::fnv1a_64;
use ricochet::ensemble::{self, Backend, RunOptions, Scenario, Shard};

/// (scenario, backend, FNV-1a 64 of its summary.csv) for 16 scenes and at most 0.5 s.
const PINNED: &[(&str, &str, u64)] = &[
    ("billiard_shots", "cpu", 0x8a99bb420357939c),
    ("billiard_shots", "reference", 0xecae01b3e4e28b65),
    ("block_on_incline", "cpu", 0xb47d511312183517),
    ("block_on_incline", "reference", 0x808b25c9a7713b01),
    ("bouncing_balls", "cpu", 0x9dfb0dcdc5b6d88f),
    ("bouncing_balls", "reference", 0x9dfb0dcdc5b6d88f),
    ("column_of_beads", "cpu", 0x7c3add3919dd6036),
    ("column_of_beads", "reference", 0x1c58ecffa302e1d9),
    ("cubic_resistor", "reference", 0x7b651114c9aa9330),
    ("disc_pile", "cpu", 0x70b335b3363dabaf),
    ("disc_pile", "reference", 0x9ada9d3336f0603a),
    ("dumbbell", "cpu", 0x9c7c2a0fb6b296ff),
    ("dumbbell", "reference", 0xb102f467bfb3184a),
    ("impact_oscillator", "cpu", 0x30a1fdc949ce5810),
    ("impact_oscillator", "reference", 0x4877895d03f9eef6),
    ("impact_oscillator_study", "cpu", 0x2a31a45cd3f3714c),
    ("impact_oscillator_study", "reference", 0xc8a9d3fc048ee54a),
    ("impacting_bar", "cpu", 0x8a90bbc5c1097266),
    ("impacting_bar", "reference", 0x39f86e0ef55ccb27),
    ("newtons_cradle", "cpu", 0x67c44fb473199a81),
    ("newtons_cradle", "reference", 0x43579bf732f42914),
    ("pendulum", "cpu", 0xd0aec88c0f1fe598),
    ("pendulum", "reference", 0x3beef909abe8300c),
    ("pendulum_hitting_wall", "cpu", 0x54fa5e9042d8a547),
    ("pendulum_hitting_wall", "reference", 0xce97f020a6d60a1f),
    ("pendulum_hitting_wall_rattle", "cpu", 0x8c78e1e93453d7e8),
    ("pendulum_hitting_wall_rattle", "reference", 0xdca2331c34eb5dda),
    ("rocking_block", "cpu", 0xc9c81630eab23c0b),
    ("rocking_block", "reference", 0xa64df1246fb8e610),
    ("spinning_balls", "cpu", 0x40a28c805353c81a),
    ("spinning_balls", "reference", 0x3e31e4da400b8f4e),
    ("spring_stop", "cpu", 0x3a60d7d5a19b7ad1),
    ("spring_stop", "reference", 0x88f0479f1954e2bc),
    ("woodpecker", "cpu", 0x8ae1b81b8d49a70c),
    ("woodpecker", "reference", 0x08d2f84e223b2d16),
];

#[test]
fn summaries_hash_to_their_pinned_values() {
    let mut actual = Vec::new();
    for (path, batched) in &common::shipped_scenarios() {
        let mut scenario = Scenario::load(path).unwrap();
        scenario.time.final_time = scenario.time.final_time.min(0.5);
        scenario.strobe = None;
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        for (backend, label) in [(Backend::Cpu, "cpu"), (Backend::Reference, "reference")] {
            if backend == Backend::Cpu && !batched {
                continue;
            }
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
            let run = ensemble::run(&scenario, &options, &ensemble::Progress::new()).unwrap();
            let mut csv = Vec::new();
            run.summary.write_csv(&mut csv).unwrap();
            actual.push((name.clone(), label, fnv1a_64(&csv)));
        }
    }
    let table: String = actual
        .iter()
        .map(|(name, backend, hash)| format!("    (\"{name}\", \"{backend}\", {hash:#018x}),\n"))
        .collect();
    let pinned: Vec<(String, &str, u64)> = PINNED.iter().map(|&(n, b, h)| (n.to_string(), b, h)).collect();
    assert_eq!(actual, pinned, "summaries moved; if meant, the new table is:\n{table}");
}
