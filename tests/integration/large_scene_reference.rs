//! The large-scene engine against the dense reference stepper on the same scene
//! (`LargeScene::nsds`: every pair of bodies a Siconos `DiskDiskR` or `SphereLDSSphereLDSR`,
//! every body–wall pair a linear relation; W assembled, NSGS per step): pours of discs and
//! spheres, with and without friction and restitution, stay within the solvers' tolerance.

use crate::common;

use ricochet::large_scene::reference::REFERENCE_BODIES;
use ricochet::large_scene::{Dimension, LargeScene};
use ricochet::model::DsId;

use common::large::*;

/// A pour of `per_side`ᵈ⁻¹ × `layers` bodies in an open box, law (e, μ), solved to 10⁻¹⁰.
fn small_pour(d: Dimension, layers: usize, e: f64, mu: f64) -> LargeScene {
    let per_side = if d == Dimension::Two { 6 } else { 3 };
    let mut scene = pour_in_box(d, (per_side, layers), 11, law(e, mu, d));
    scene.solver.tolerance = 1e-10;
    scene.solver.max_sweeps = 10_000;
    scene
}

/// 200 steps of a pour on both: every 20 steps, each body's centre and velocity on the
/// engine and on the reference agree to within 10⁻⁹ m and 10⁻⁶ m/s (measured: printed). The
/// frictionless pours are four layers deep (the velocity of a frictionless step is unique);
/// with friction a dense pile's step can have several solutions — the 2-D pour of four layers
/// at μ = 0.4 meets one at step 192, where both solvers reach 10⁻¹⁰ on different ones — so the
/// frictional pours are one layer: bodies sliding, rolling and colliding on the floor.
#[test]
fn the_engine_is_the_reference_on_small_pours() {
    for d in [Dimension::Two, Dimension::Three] {
        for (layers, e, mu) in [(4, 0.0, 0.0), (4, 0.5, 0.0), (1, 0.0, 0.4), (1, 0.5, 0.4)] {
            let mut scene = small_pour(d, layers, e, mu);
            let mut reference = scene.reference().unwrap();
            let (mut worst_x, mut worst_v, mut active) = (0.0f64, 0.0f64, 0);
            for step in 1..=200 {
                let report = scene.step().unwrap();
                reference.step().unwrap();
                active = active.max(report.active);
                if step % 20 != 0 {
                    continue;
                }
                let b = &scene.bodies;
                for k in 0..b.len() {
                    let (q, v) = (reference.q(DsId(k)), reference.v(DsId(k)));
                    for a in 0..d.rows() {
                        worst_x = worst_x.max((q[a] - b.x[k][a]).abs());
                        worst_v = worst_v.max((v[a] - b.v[k][a]).abs());
                    }
                }
            }
            eprintln!(
                "{d:?} {layers} layers, e = {e} μ = {mu}: {active} contacts at most, |Δx| ≤ {worst_x:e} m, |Δv| ≤ {worst_v:e} m/s"
            );
            assert!(active >= 3 * layers, "{d:?}: a pour that tests little");
            assert!(
                worst_x <= 1e-9 && worst_v <= 1e-6,
                "{d:?} e = {e} μ = {mu}: Δx {worst_x:e}, Δv {worst_v:e}"
            );
        }
    }
}

/// Scenes the reference cannot take are refused by name: too many bodies, a segment wall.
#[test]
fn the_reference_refuses_what_it_cannot_take() {
    let d = Dimension::Two;
    let mut big = pour_in_box(d, (20, 11), 1, law(0.0, 0.3, d));
    assert!(big.bodies.len() > REFERENCE_BODIES);
    let e = big.nsds().err().unwrap().to_string();
    assert!(e.contains("220 bodies") && e.contains("up to 200"), "{e}");
    big.walls = ricochet::large_scene::Wall::polyline(&[[0.0, 1.0], [0.0, 0.0], [0.5, 0.0]], law(0.0, 0.3, d)).unwrap();
    big.bodies = poured(d, 3, 2, 0.01, 1);
    let e = big.nsds().err().unwrap().to_string();
    assert!(e.contains("segment"), "{e}");
}
