//! Scenes, walls and checks the large-scene tests share: lattices and pours of discs and
//! spheres, a pyramid, boxes, and the contact problem assembled densely (W = H M⁻¹ Hᵀ,
//! written independently of the engine's H) with a sequential NSGS on it.

use nalgebra::{DMatrix, DVector};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use ricochet::contact::lanes::Lanes;
use ricochet::contact::local::{friction_2d, friction_3d};
use ricochet::large_scene::narrow_phase::world_impulse;
use ricochet::large_scene::{Bodies, ContactSolver, Dimension, LargeScene, StepReport, Wall};
use ricochet::model::NewtonImpactFrictionNSL;

pub const G: f64 = 9.81;

pub fn law(e: f64, mu: f64, d: Dimension) -> NewtonImpactFrictionNSL {
    NewtonImpactFrictionNSL::new(e, 0.0, mu, d.rows()).unwrap()
}

/// `count` bodies of radii U(r/2, r) at random centres in a cube (square) of side `side`,
/// possibly overlapping (for the broad phase only).
pub fn scattered(d: Dimension, count: usize, side: f64, r: f64, seed: u64) -> Bodies {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let axes = d.rows();
    let x = (0..count)
        .map(|_| std::array::from_fn(|k| if k < axes { rng.random::<f64>() * side } else { 0.0 }))
        .collect();
    let radius = (0..count).map(|_| r * (0.5 + 0.5 * rng.random::<f64>())).collect();
    Bodies::new(d, x, radius, vec![1.0; count]).unwrap()
}

/// H over 6 velocities per body (v, ω) and M⁻¹ = diag(1/m, 1/(k m R²)) of the active
/// contacts, from their frames: u_N = n·(v_j − v_i), u_T = t·(v_j − v_i) − R_j (n × t)·ω_j −
/// R_i (n × t)·ω_i — written here independently of the engine's H.
pub fn jacobian(scene: &LargeScene) -> (DMatrix<f64>, DVector<f64>) {
    let b = &scene.bodies;
    let (n, d) = (b.len(), b.dimension.rows());
    let active: Vec<_> = scene.contacts().iter().filter(|c| c.active).collect();
    let mut h = DMatrix::zeros(active.len() * d, 6 * n);
    for (k, c) in active.iter().enumerate() {
        let normal = c.frame[0];
        for a in 0..d {
            let row = k * d + a;
            let axis = c.frame[a];
            let lever = [
                normal[1] * axis[2] - normal[2] * axis[1],
                normal[2] * axis[0] - normal[0] * axis[2],
                normal[0] * axis[1] - normal[1] * axis[0],
            ];
            let (i, j) = (c.pair.i as usize, c.pair.j as usize);
            for x in 0..3 {
                h[(row, 6 * i + x)] = -axis[x];
                if a > 0 {
                    h[(row, 6 * i + 3 + x)] = -b.radius[i] * lever[x];
                }
                if j < n {
                    h[(row, 6 * j + x)] = axis[x];
                    if a > 0 {
                        h[(row, 6 * j + 3 + x)] = -b.radius[j] * lever[x];
                    }
                }
            }
        }
    }
    let mut inverse_mass = DVector::zeros(6 * n);
    for k in 0..n {
        let inertia = b.dimension.inertia_factor() * b.mass[k] * b.radius[k] * b.radius[k];
        for x in 0..3 {
            inverse_mass[6 * k + x] = 1.0 / b.mass[k];
            inverse_mass[6 * k + 3 + x] = 1.0 / inertia;
        }
    }
    (h, inverse_mass)
}

/// W = H M⁻¹ Hᵀ and q = H v_free + ê of the active contacts ([`jacobian`]), and their μ.
pub fn assembled(
    scene: &LargeScene,
    v_free: &[[f64; 3]],
    omega: &[[f64; 3]],
) -> (DMatrix<f64>, DVector<f64>, DVector<f64>) {
    let d = scene.bodies.dimension.rows();
    let active: Vec<_> = scene.contacts().iter().filter(|c| c.active).collect();
    let (h, inverse_mass) = jacobian(scene);
    let mut q = DVector::zeros(active.len() * d);
    let mut mu = DVector::zeros(active.len());
    for (k, c) in active.iter().enumerate() {
        mu[k] = c.law.mu();
        for a in 0..d {
            q[k * d + a] = c.target[a];
        }
    }
    let velocity = DVector::from_iterator(
        inverse_mass.len(),
        v_free.iter().zip(omega).flat_map(|(v, w)| v.iter().chain(w).copied()),
    );
    q += &h * velocity;
    let w = &h * DMatrix::from_diagonal(&inverse_mass) * h.transpose();
    (w, q, mu)
}

/// The split blocks of Tonge et al.'s mass splitting, W̃_cc = Σ_b n_b H_cb M_b⁻¹ H_cbᵀ (n_b
/// the active contacts of body b): the diagonal blocks of H N M⁻¹ Hᵀ, N = diag(n_b).
pub fn split_blocks(scene: &LargeScene) -> Vec<DMatrix<f64>> {
    let d = scene.bodies.dimension.rows();
    let (h, inverse_mass) = jacobian(scene);
    let mut counts = vec![0.0; scene.bodies.len()];
    for c in scene.contacts().iter().filter(|c| c.active) {
        counts[c.pair.i as usize] += 1.0;
        if let Some(n) = counts.get_mut(c.pair.j as usize) {
            *n += 1.0;
        }
    }
    let split = DVector::from_fn(inverse_mass.len(), |k, _| counts[k / 6] * inverse_mass[k]);
    let w = &h * DMatrix::from_diagonal(&split) * h.transpose();
    (0..h.nrows() / d)
        .map(|c| w.view((c * d, c * d), (d, d)).into_owned())
        .collect()
}

/// The exact solution of u = B x + local, K ∋ x ⟂ û ∈ K* for one contact's d × d block B
/// (from x = `r` in 3-D), by the shared local solves.
fn local_dense(d: usize, block: impl Fn(usize, usize) -> f64, local: [f64; 3], r: [f64; 3], mu: f64) -> [f64; 3] {
    let one = |x: f64| Lanes::<f64, 1>([x]);
    let block = |a: usize, b: usize| one(block(a, b));
    if d == 2 {
        let [n, t] = friction_2d(
            [[block(0, 0), block(0, 1)], [block(1, 0), block(1, 1)]],
            [one(local[0]), one(local[1])],
            one(mu),
        );
        [n.0[0], t.0[0], 0.0]
    } else {
        friction_3d(
            std::array::from_fn(|a| std::array::from_fn(|b| block(a, b))),
            local.map(one),
            r.map(one),
            one(mu),
        )
        .map(|x| x.0[0])
    }
}

/// Sequential NSGS on the assembled problem in the contacts' order, from r = 0, `sweeps`
/// sweeps: contact c solves u_c = W_cc r_c + q̃_c, q̃_c = q_c + Σ_{e≠c} W_ce r_e, with the
/// shared local solves.
pub fn assembled_nsgs(d: usize, w: &DMatrix<f64>, q: &DVector<f64>, mu: &DVector<f64>, sweeps: usize) -> DVector<f64> {
    let mut r = DVector::zeros(q.len());
    for _ in 0..sweeps {
        for c in 0..mu.len() {
            let rows = c * d..(c + 1) * d;
            let mut local = [0.0; 3];
            for (a, la) in local.iter_mut().enumerate().take(d) {
                let row = c * d + a;
                *la = q[row]
                    + (0..q.len())
                        .filter(|k| !rows.contains(k))
                        .map(|k| w[(row, k)] * r[k])
                        .sum::<f64>();
            }
            let lam = std::array::from_fn(|a| if a < d { r[c * d + a] } else { 0.0 });
            let x = local_dense(d, |a, b| w[(c * d + a, c * d + b)], local, lam, mu[c]);
            for a in 0..d {
                r[c * d + a] = x[a];
            }
        }
    }
    r
}

/// Jacobi with mass splitting on the assembled problem, from r = 0, `sweeps` sweeps: every
/// contact at once solves u_c = W̃_cc r_c + q̃_c with q̃_c = q_c + (W r)_c − W̃_cc r_c, r the
/// last sweep's, W̃_cc its split block ([`split_blocks`]).
pub fn assembled_split_jacobi(
    d: usize,
    (w, split): (&DMatrix<f64>, &[DMatrix<f64>]),
    q: &DVector<f64>,
    mu: &DVector<f64>,
    sweeps: usize,
) -> DVector<f64> {
    let mut r = DVector::zeros(q.len());
    for _ in 0..sweeps {
        let wr = w * &r;
        let mut next = r.clone();
        for c in 0..mu.len() {
            let rc = DVector::from_fn(d, |a, _| r[c * d + a]);
            let own = &split[c] * &rc;
            let local = std::array::from_fn(|a| {
                if a < d {
                    q[c * d + a] + wr[c * d + a] - own[a]
                } else {
                    0.0
                }
            });
            let lam = std::array::from_fn(|a| if a < d { rc[a] } else { 0.0 });
            let x = local_dense(d, |a, b| split[c][(a, b)], local, lam, mu[c]);
            for a in 0..d {
                next[c * d + a] = x[a];
            }
        }
        r = next;
    }
    r
}

/// A triangle of `rows` rows of equal discs (radius r, mass 1) resting on the floor y = 0,
/// each row in the grooves of the one below. Neighbours are placed 10⁻¹¹ closer than
/// touching, so that rounding leaves no touching contact with a positive gap (inactive at
/// rest by Moreau–Jean's activation g + γ h u_N ≤ 0).
pub fn pyramid(rows: usize, r: f64) -> Bodies {
    let s = r * (1.0 - 1e-11);
    let mut x = Vec::new();
    for row in 0..rows {
        for k in 0..rows - row {
            let cx = s * (2 * k + 1 + row) as f64;
            let cy = s + row as f64 * 3f64.sqrt() * s;
            x.push([cx, cy, 0.0]);
        }
    }
    let n = x.len();
    Bodies::new(Dimension::Two, x, vec![r; n], vec![1.0; n]).unwrap()
}

pub fn floor(axis: usize, law: NewtonImpactFrictionNSL) -> Wall {
    let mut normal = [0.0; 3];
    normal[axis] = 1.0;
    Wall::plane([0.0; 3], normal, law).unwrap()
}

/// A box [0, side]^d open at the top (gravity along −y in 2-D, −z in 3-D).
pub fn open_box(d: Dimension, side: f64, law: NewtonImpactFrictionNSL) -> Vec<Wall> {
    let up = d.rows() - 1;
    let mut walls = vec![floor(up, law)];
    for axis in 0..up {
        let mut n = [0.0; 3];
        n[axis] = 1.0;
        walls.push(Wall::plane([0.0; 3], n, law).unwrap());
        n[axis] = -1.0;
        let mut p = [0.0; 3];
        p[axis] = side;
        walls.push(Wall::plane(p, n, law).unwrap());
    }
    walls
}

/// Bodies on a jittered lattice inside the box, not touching, above the floor: a pile to be
/// poured.
pub fn poured(d: Dimension, per_side: usize, layers: usize, r: f64, seed: u64) -> Bodies {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let pitch = 2.2 * r;
    let mut x = Vec::new();
    let up = d.rows() - 1;
    let across = if d == Dimension::Two { 1 } else { per_side };
    for layer in 0..layers {
        for a in 0..per_side {
            for b in 0..across {
                let mut c = [0.0; 3];
                c[0] = pitch * (a as f64 + 0.5) + 0.05 * r * rng.random::<f64>();
                if d == Dimension::Three {
                    c[1] = pitch * (b as f64 + 0.5) + 0.05 * r * rng.random::<f64>();
                }
                c[up] = pitch * (layer as f64 + 0.5) + r;
                x.push(c);
            }
        }
    }
    let n = x.len();
    let radius = (0..n).map(|_| r * (0.8 + 0.2 * rng.random::<f64>())).collect();
    let mut bodies = Bodies::new(d, x, radius, vec![1.0; n]).unwrap();
    for v in &mut bodies.v {
        v[0] = 0.2 * (rng.random::<f64>() - 0.5);
    }
    bodies
}

pub fn gravity(d: Dimension) -> [f64; 3] {
    let mut g = [0.0; 3];
    g[d.rows() - 1] = -G;
    g
}

/// Σ over wall contacts of the impulse they give their body (−P, P the wall's).
pub fn wall_impulse(scene: &LargeScene) -> [f64; 3] {
    let n = scene.bodies.len() as u32;
    let mut sum = [0.0; 3];
    for c in scene.contacts().iter().filter(|c| c.pair.j >= n) {
        let p = world_impulse(c);
        for k in 0..3 {
            sum[k] -= p[k];
        }
    }
    sum
}

/// The floor and two side walls holding a pyramid's bottom row (of `rows` discs of radius r).
pub fn pyramid_box(rows: usize, r: f64, law: NewtonImpactFrictionNSL) -> Vec<Wall> {
    let width = 2.0 * r * rows as f64 * (1.0 - 1e-11);
    vec![
        Wall::plane([0.0; 3], [0.0, 1.0, 0.0], law).unwrap(),
        Wall::plane([0.0; 3], [1.0, 0.0, 0.0], law).unwrap(),
        Wall::plane([width, 0.0, 0.0], [-1.0, 0.0, 0.0], law).unwrap(),
    ]
}

/// Bits of the state, to compare runs.
pub fn state_bits(scene: &LargeScene) -> Vec<u64> {
    let b = &scene.bodies;
    b.x.iter()
        .chain(&b.v)
        .chain(&b.omega)
        .flatten()
        .chain(&b.angle)
        .map(|x| x.to_bits())
        .collect()
}

/// A pour of [`poured`] bodies (radius 0.01 m, `per_side`ᵈ⁻¹ × `layers`, drawn from `seed`)
/// in an [`open_box`] 2.2 radii per body wide, every contact under `law`, h = 10⁻³ s.
pub fn pour_in_box(
    d: Dimension,
    (per_side, layers): (usize, usize),
    seed: u64,
    law: NewtonImpactFrictionNSL,
) -> LargeScene {
    let r = 0.01;
    let side = 2.2 * r * per_side as f64;
    LargeScene::new(
        poured(d, per_side, layers, r, seed),
        open_box(d, side, law),
        law,
        gravity(d),
        1e-3,
    )
    .unwrap()
}

/// `steps` steps of `scene` solved by `solver` in a rayon pool of `threads` threads: each
/// step's total (kinetic + potential) energy after it and its report.
pub fn steps_in_pool(
    scene: &mut LargeScene,
    threads: usize,
    steps: usize,
    solver: &mut dyn ContactSolver,
) -> Vec<(f64, StepReport)> {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(|| {
        (0..steps)
            .map(|_| {
                let report = scene.step_on(solver).unwrap();
                (
                    scene.bodies.kinetic_energy() + scene.bodies.potential_energy(scene.gravity),
                    report,
                )
            })
            .collect()
    })
}

/// The pyramid of 105 discs (14 rows, R = 0.05 m), its bottom row between two walls, on a
/// floor, μ = 0.5 and e = 0 everywhere, h = 10⁻³ s, solved to 10⁻¹⁰ (the sweep cap is the
/// caller's).
pub fn resting_pyramid() -> LargeScene {
    let (d, r) = (Dimension::Two, 0.05);
    let law = law(0.0, 0.5, d);
    let mut scene = LargeScene::new(pyramid(14, r), pyramid_box(14, r, law), law, gravity(d), 1e-3).unwrap();
    scene.solver.tolerance = 1e-10;
    scene
}

/// Steps `scene` until, past `after` seconds, its kinetic energy is below 10⁻⁹ J, or until
/// `until` seconds.
pub fn settle(scene: &mut LargeScene, after: f64, until: f64) {
    while scene.time < until {
        scene.step().unwrap();
        if scene.time > after && scene.bodies.kinetic_energy() < 1e-9 {
            break;
        }
    }
}

/// A pour in a box (walls μ = 0.4, grains μ = 0.3, restitution `e`), `steps` steps, each
/// solved by `solver` to `tolerance` (at most 300 sweeps); the reports of every step.
pub fn pour_on(
    d: Dimension,
    steps: usize,
    e: f64,
    tolerance: f64,
    solver: &mut dyn ContactSolver,
) -> (LargeScene, Vec<StepReport>) {
    let (per_side, layers) = if d == Dimension::Two { (24, 8) } else { (6, 4) };
    let r = 0.01;
    let side = 2.2 * r * per_side as f64;
    let mut scene = LargeScene::new(
        poured(d, per_side, layers, r, 5),
        open_box(d, side, law(e, 0.4, d)),
        law(e, 0.3, d),
        gravity(d),
        1e-3,
    )
    .unwrap();
    scene.solver.tolerance = tolerance;
    scene.solver.max_sweeps = 300;
    let reports = (0..steps).map(|_| scene.step_on(solver).unwrap()).collect();
    (scene, reports)
}

/// The largest difference of two scenes' body centres (m).
pub fn largest_difference(a: &LargeScene, b: &LargeScene) -> f64 {
    a.bodies
        .x
        .iter()
        .zip(&b.bodies.x)
        .flat_map(|(p, q)| (0..3).map(move |k| (p[k] - q[k]).abs()))
        .fold(0.0, f64::max)
}
