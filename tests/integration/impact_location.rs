//! Impacts located inside the step (`TimeStepping::locate_impacts`) against exact solutions:
//! the bouncing ball's impact times and apexes, energy at and between impacts, the impact
//! oscillator's impact times converging as h shrinks, Newton's cradle, and the refusals.

use ricochet::reference::{Integrator, LocatedImpact, TimeStepping};
use ricochet::scenes::{
    bouncing_ball::BouncingBall, impact_oscillator::ImpactOscillator, newtons_cradle::NewtonsCradle,
};

const G: f64 = 9.81;

/// Steps `sim` `steps` times and returns every located impact.
fn impacts_of(sim: &mut TimeStepping, steps: usize) -> Vec<LocatedImpact> {
    let mut impacts = Vec::new();
    for _ in 0..steps {
        sim.step().unwrap();
        impacts.extend_from_slice(sim.last_impacts());
    }
    impacts
}

/// The ball dropped from z₀ (y = z, the radius not subtracted) lands at t₁ = √(2 z₀/g) with
/// v₁ = g t₁, then at t_{n+1} = t_n + 2 eⁿ v₁/g, leaving with eⁿ v₁ and climbing to
/// e^{2n} z₀. Located, every impact of a flight longer than two steps is there to 1e-12
/// (relative), and so is every apex, read from the energy of the state at a step's end.
#[test]
fn the_ball_lands_and_climbs_exactly() {
    for (e, z0, h) in [(0.9, 1.0, 1e-3), (0.7, 2.0, 5e-4), (0.5, 1.5, 1e-3), (0.95, 0.5, 2e-3)] {
        let ball = BouncingBall {
            restitution: e,
            height: z0,
            step: h,
            ..Default::default()
        };
        let mut sim = ball.simulation().unwrap();
        sim.locate_impacts = true;
        let (t1, v1) = ((2.0 * z0 / G).sqrt(), (2.0 * z0 * G).sqrt());
        let mut apexes = Vec::new();
        let mut impacts = Vec::new();
        let mut before = sim.v(ricochet::model::DsId(0))[0];
        // Through the 12th impact.
        let last = t1 + (1..12).map(|n| 2.0 * e.powi(n) * v1 / G).sum::<f64>();
        for _ in 0..((last + 0.05) / h) as usize {
            sim.step().unwrap();
            impacts.extend_from_slice(sim.last_impacts());
            let (z, v) = (sim.q(ricochet::model::DsId(0))[0], sim.v(ricochet::model::DsId(0))[0]);
            if before > 0.0 && v <= 0.0 && sim.last_impacts().is_empty() {
                apexes.push(z + v * v / (2.0 * G));
            }
            before = v;
        }
        // Flights longer than two steps.
        let bounces = (0..)
            .take_while(|&n| 2.0 * e.powi(n) * v1 / G > 2.0 * h)
            .count()
            .min(12);
        assert!(
            impacts.len() >= bounces && bounces >= 5,
            "e = {e}: {} impacts",
            impacts.len()
        );
        let mut t_exact = t1;
        for (n, impact) in impacts.iter().take(bounces).enumerate() {
            let v_in = e.powi(n as i32) * v1;
            assert!(
                (impact.t - t_exact).abs() <= 1e-12 * t_exact,
                "e = {e}: impact {n} at {} vs {t_exact}",
                impact.t
            );
            assert!(
                (impact.ydot_before + v_in).abs() <= 1e-12 * v1,
                "e = {e}: impact {n} {impact:?}"
            );
            assert!(
                (impact.ydot_after - e * v_in).abs() <= 1e-12 * v1,
                "e = {e}: impact {n} {impact:?}"
            );
            assert!(((1.0 + e) * v_in - impact.lambda).abs() <= 1e-12 * v1, "{impact:?}");
            let apex = z0 * e.powi(2 * (n as i32 + 1));
            if n + 1 < bounces {
                assert!(
                    (apexes[n] - apex).abs() <= 1e-12 * z0,
                    "e = {e}: apex {n} {} vs {apex}",
                    apexes[n]
                );
            }
            t_exact += 2.0 * e.powi(n as i32 + 1) * v1 / G;
        }
    }
}

/// Through the accumulation point and on to rest, energy never grows (e ≤ 1), and an
/// elastic ball keeps it to 1e-10 over 10⁵ steps.
#[test]
fn energy_is_never_gained_and_kept_when_elastic() {
    for e in [0.0, 0.5, 0.9, 1.0] {
        let mut sim = BouncingBall {
            restitution: e,
            step: 1e-3,
            ..Default::default()
        }
        .simulation()
        .unwrap();
        sim.locate_impacts = true;
        let e0 = sim.energy().unwrap();
        let (mut most, mut least) = (e0, e0);
        let (mut located, mut deepest) = (0, 0.0f64);
        for _ in 0..100_000 {
            sim.step().unwrap();
            located += sim.last_impacts().len();
            deepest = deepest.min(sim.q(ricochet::model::DsId(0))[0]);
            let energy = sim.energy().unwrap();
            most = most.max(energy);
            least = least.min(energy);
        }
        assert!(most <= e0 * (1.0 + 1e-12), "e = {e}: energy grew from {e0} to {most}");
        // Never through the floor by more than the located impacts' tolerance (Moreau–Jean
        // alone sinks by up to g h²/2 ≈ 5e-6 m at each impact).
        println!("e = {e}: deepest z {deepest:e}");
        assert!(deepest >= -1e-10, "e = {e}: z reached {deepest}");
        if e == 1.0 {
            assert!(least >= e0 * (1.0 - 1e-10), "e = 1: energy fell from {e0} to {least}");
            // 100 s of bounces of 0.903 s.
            assert!(located >= 110, "{located} impacts located");
        }
        if e < 1.0 {
            // At rest on the floor at the end, within the scheme's penetration g h² of it.
            let (z, v) = (sim.q(ricochet::model::DsId(0))[0], sim.v(ricochet::model::DsId(0))[0]);
            assert!(z.abs() <= G * 1e-6 && v.abs() < 1e-9, "e = {e}: z = {z}, v = {v}");
        }
    }
}

/// The impact oscillator (a forced spring against a stop: no closed form) has impact times
/// converging at second order as h halves when located, measured against the located run at
/// h/32; Moreau–Jean's own impact times are late by up to h.
#[test]
fn the_impact_oscillator_impact_times_converge_at_second_order() {
    let times = |step: f64, locate: bool| -> Vec<f64> {
        let oscillator = ImpactOscillator {
            step,
            ..Default::default()
        };
        let mut sim = oscillator.simulation().unwrap();
        sim.locate_impacts = locate;
        let steps = (30.0 / step).round() as usize;
        if locate {
            impacts_of(&mut sim, steps).iter().map(|i| i.t).collect()
        } else {
            let mut t = Vec::new();
            let mut loaded = false;
            for _ in 0..steps {
                sim.step().unwrap();
                let now = sim.lambda()[0] > 0.0;
                if now && !loaded {
                    t.push(sim.time());
                }
                loaded = now;
            }
            t
        }
    };
    let h = 2e-3;
    let exact = times(h / 32.0, true);
    println!("impact times {exact:?}");
    assert!(exact.len() >= 3, "{} impacts", exact.len());
    let error = |t: &[f64]| {
        assert!(t.len() >= 3);
        (0..3).map(|i| (t[i] - exact[i]).abs()).fold(0.0, f64::max)
    };
    let (coarse, fine) = (error(&times(h, true)), error(&times(h / 2.0, true)));
    let plain = error(&times(h, false));
    println!("impact-time error: located {coarse:.2e} (h), {fine:.2e} (h/2); Moreau–Jean {plain:.2e} (h)");
    assert!(fine <= coarse / 3.5, "second order: {fine} vs {coarse}");
    assert!(coarse <= plain / 10.0, "located {coarse} vs Moreau–Jean {plain}");
}

/// The cradle's first ball meets the resting chain: its impact is located and solved with
/// the chain at once, so that e = 1 hands the whole velocity to the last ball, keeping
/// momentum and energy to rounding.
#[test]
fn newtons_cradle_is_solved_at_its_located_impact() {
    let cradle = NewtonsCradle::default();
    let (mut sim, balls) = cradle.simulation().unwrap();
    sim.locate_impacts = true;
    let (p0, e0) = (cradle.mass * cradle.velocity, sim.energy().unwrap());
    let impacts = impacts_of(&mut sim, 1_000);
    assert!(!impacts.is_empty());
    let v: Vec<f64> = balls.iter().map(|&b| sim.v(b)[0]).collect();
    let momentum: f64 = v.iter().map(|v| cradle.mass * v).sum();
    assert!((momentum - p0).abs() <= 1e-12, "momentum {momentum} vs {p0}");
    assert!((sim.energy().unwrap() - e0).abs() <= 1e-12 * e0);
    for (i, &vi) in v.iter().enumerate() {
        let expected = if i + 1 == balls.len() { cradle.velocity } else { 0.0 };
        assert!(
            (vi - expected).abs() <= 1e-12,
            "ball {i}: v = {vi}, expected {expected}"
        );
    }
}

/// What cannot locate impacts says so by name: nonsmooth RATTLE, and Baumgarte
/// stabilisation (whose β c/h would act over every sub-step).
#[test]
fn rattle_and_baumgarte_refuse_located_impacts_by_name() {
    let mut sim = BouncingBall::default().simulation().unwrap();
    sim.set_integrator(Integrator::NonsmoothRattle(Default::default()))
        .unwrap();
    sim.locate_impacts = true;
    let error = sim.step().unwrap_err().to_string();
    assert!(error.contains("RATTLE") && error.contains("moreau-jean"), "{error}");
    let mut sim = ricochet::scenes::pendulum::Pendulum {
        stabilization: ricochet::scheme::Stabilization::Baumgarte { beta: 0.2 },
        ..ricochet::scenes::pendulum::Pendulum::hitting_wall(0.8)
    }
    .simulation()
    .unwrap();
    sim.locate_impacts = true;
    let error = sim.step().unwrap_err().to_string();
    assert!(error.contains("Baumgarte"), "{error}");
    assert_eq!(sim.steps(), 0, "the refused step left the state");
}

/// `[time] locate_impacts` in an ensemble, on the reference stepper and on the CPU lanes (which
/// the automatic backend takes, saying why): `last_impact_time` is the accumulation time
/// t∞ = t₁ + 2 e v₁ / (g (1 − e)) of each ball, the events are at the exact impact times and
/// the `first_above`/`first_below` times fall inside the step; both engines agree to rounding;
/// the GPU kernel in f64 gives the lanes' bits (every summary column, every event) and
/// refuses the key in f32 by name.
#[test]
fn an_ensemble_locates_its_impacts_on_every_backend() {
    use ricochet::ensemble::{self, Backend, RunOptions, Scenario};
    let text = r#"
name = "located"
scenes = 24
seed = 5
[scene]
template = "bouncing_ball"
height = { uniform = [0.5, 2.0] }
restitution = { uniform = [0.5, 0.9] }
radius = 0.1
[time]
step = 1e-3
final = 12.0
locate_impacts = true
[events]
max = 8
[[observe]]
name = "first_impact"
signal = "lambda0"
reduce = "first_above"
threshold = 0.0
[[observe]]
name = "half_way"
signal = "y0"
reduce = "first_below"
threshold = 0.2
[[observe]]
name = "fast"
signal = "z_dot"
reduce = "first_below"
threshold = -2.0
"#;
    let scenario = Scenario::from_toml(text).unwrap();
    let run = |backend| {
        let options = RunOptions {
            backend,
            ..Default::default()
        };
        ensemble::run(&scenario, &options, &ensemble::Progress::new())
    };
    let auto = run(Backend::Auto).unwrap();
    assert!(
        auto.notice.as_deref().is_some_and(|n| n.contains("CPU backend")),
        "{:?}",
        auto.notice
    );
    #[cfg(feature = "gpu")]
    if super::common::gpu().is_some() {
        let gpu = run(Backend::Gpu).unwrap();
        let bits = |t: &ricochet::ensemble::Table, name: &str| -> Vec<u64> {
            t.column(name).unwrap().iter().map(|x| x.to_bits()).collect()
        };
        for name in &auto.summary.columns {
            assert_eq!(
                bits(&gpu.summary, name),
                bits(&auto.summary, name),
                "GPU vs CPU: {name}"
            );
        }
        for name in &auto.events.columns {
            assert_eq!(
                bits(&gpu.events, name),
                bits(&auto.events, name),
                "GPU vs CPU: events' {name}"
            );
        }
        let mut single = scenario.clone();
        single.solver.precision = ricochet::ensemble::scenario::PrecisionChoice::F32;
        let options = RunOptions {
            backend: Backend::Gpu,
            ..Default::default()
        };
        let Err(error) = ensemble::run(&single, &options, &ensemble::Progress::new()) else {
            panic!("the GPU located impacts in f32");
        };
        let error = error.to_string();
        assert!(error.contains("locate_impacts") && error.contains("f32"), "{error}");
    }
    let reference = run(Backend::Reference).unwrap();
    for name in [
        "impacts",
        "last_impact_time",
        "first_impact",
        "half_way",
        "fast",
        "z",
        "z_dot",
    ] {
        let (a, b) = (
            auto.summary.column(name).unwrap(),
            reference.summary.column(name).unwrap(),
        );
        for (s, (a, b)) in a.iter().zip(&b).enumerate() {
            assert!(
                (a - b).abs() <= 1e-9 * b.abs().max(1.0),
                "scene {s}: {name} {a} (cpu) vs {b} (reference)"
            );
        }
    }
    let (a, b) = (auto.events.column("t").unwrap(), reference.events.column("t").unwrap());
    assert_eq!(a.len(), b.len(), "events");
    assert!(a.iter().zip(&b).all(|(a, b)| (a - b).abs() <= 1e-9 * b), "event times");
    for located in [&auto, &reference] {
        let col = |name: &str| located.summary.column(name).unwrap();
        let (heights, restitutions, last) = (col("height"), col("restitution"), col("last_impact_time"));
        let (first_impact, half_way, fast) = (col("first_impact"), col("half_way"), col("fast"));
        let events = (
            located.events.column("scene").unwrap(),
            located.events.column("t").unwrap(),
        );
        for s in 0..heights.len() {
            let (d, e) = (heights[s] - 0.1, restitutions[s]);
            let (t1, v1) = ((2.0 * d / G).sqrt(), (2.0 * G * d).sqrt());
            let t_inf = t1 + 2.0 * e * v1 / (G * (1.0 - e));
            assert!((last[s] - t_inf).abs() < 1e-5, "scene {s}: {} vs t∞ = {t_inf}", last[s]);
            // first_above/first_below inside the step: the impulse at its located impact, the gap
            // on its Hermite interpolant (exact here), the speed on the chord (exact: linear).
            assert!(
                (first_impact[s] - t1).abs() < 1e-12,
                "scene {s}: first impact {}",
                first_impact[s]
            );
            let half = (2.0 * (d - 0.2) / G).sqrt();
            assert!(
                (half_way[s] - half).abs() < 1e-12,
                "scene {s}: y < 0.2 at {} vs {half}",
                half_way[s]
            );
            assert!(
                (fast[s] - 2.0 / G).abs() < 1e-12,
                "scene {s}: ż < −2 at {} vs {}",
                fast[s],
                2.0 / G
            );
            let times: Vec<f64> = (events.0.iter().zip(&events.1))
                .filter(|(scene, _)| **scene == s as f64)
                .map(|(_, t)| *t)
                .collect();
            // Every located impact is an event (8 kept per scene), in time order.
            assert_eq!(times.len(), 8, "scene {s}: {} events", times.len());
            assert!(times.windows(2).all(|w| w[0] < w[1]), "scene {s}: {times:?}");
            let mut exact = t1;
            for (n, t) in times.iter().take(5).enumerate() {
                assert!(
                    (t - exact).abs() < 1e-9 * exact,
                    "scene {s}: impact {n} at {t} vs {exact}"
                );
                exact += 2.0 * e.powi(n as i32 + 1) * v1 / G;
            }
        }
    }
}

/// With located impacts a `max`/`time_of_max` (and `min`/`time_of_min`) turns inside its
/// step on the signal's Hermite interpolant, where the flight is free: a ball thrown up from
/// height H at speed u peaks at t = u/g, H + u²/(2g) — to rounding on the reference stepper
/// and on the CPU lanes, where the step's samples miss it by up to h/2; its fall's least
/// upward speed is no turning point (ż has no rate), nor is the bottom of a bounce (a contact
/// acts there): those stay at the samples, as without location.
#[test]
fn the_apex_of_a_throw_is_found_inside_its_step() {
    use ricochet::ensemble::{self, Backend, RunOptions, Scenario};
    let text = |locate: bool| {
        format!(
            r#"
name = "throw"
scenes = 16
seed = 3
[scene]
template = "bouncing_ball"
height = {{ uniform = [0.5, 2.0] }}
velocity = {{ uniform = [1.0, 3.0] }}
restitution = 0.8
radius = 0.1
[time]
step = 1e-3
final = 1.5
locate_impacts = {locate}
[[observe]]
name = "apex"
signal = "z"
reduce = "max"
[[observe]]
name = "apex_time"
signal = "z"
reduce = "time_of_max"
[[observe]]
name = "lowest"
signal = "z"
reduce = "min"
"#
        )
    };
    let run = |locate: bool, backend| {
        let scenario = Scenario::from_toml(&text(locate)).unwrap();
        let options = RunOptions {
            backend,
            ..Default::default()
        };
        ensemble::run(&scenario, &options, &ensemble::Progress::new()).unwrap()
    };
    let plain = run(false, Backend::Cpu);
    let plain_time = plain.summary.column("apex_time").unwrap();
    #[cfg(feature = "gpu")]
    let gpu = super::common::gpu().map(|_| Backend::Gpu);
    #[cfg(not(feature = "gpu"))]
    let gpu = None;
    for backend in [Backend::Reference, Backend::Cpu].into_iter().chain(gpu) {
        let located = run(true, backend);
        let col = |name: &str| located.summary.column(name).unwrap();
        let (heights, speeds) = (col("height"), col("velocity"));
        let (apex, apex_time, lowest) = (col("apex"), col("apex_time"), col("lowest"));
        let mut missed = 0.0f64;
        for s in 0..heights.len() {
            let (top_time, top) = (speeds[s] / G, heights[s] + speeds[s] * speeds[s] / (2.0 * G));
            assert!(
                (apex_time[s] - top_time).abs() < 1e-12,
                "{backend:?} scene {s}: apex at {} vs {top_time}",
                apex_time[s]
            );
            assert!(
                (apex[s] - top).abs() < 1e-12,
                "{backend:?} scene {s}: apex {} vs {top}",
                apex[s]
            );
            // The ball's lowest centre is its radius, touched at an impact: no turning
            // point of free flight moved it below.
            assert!(lowest[s] >= 0.1 - 1e-12, "{backend:?} scene {s}: lowest {}", lowest[s]);
            missed = missed.max((plain_time[s] - top_time).abs());
        }
        assert!(
            missed > 1e-5,
            "the samples alone missed the apex by {missed:e} s at most"
        );
    }
}

/// K(k), the complete elliptic integral of the first kind, by the arithmetic–geometric mean:
/// K = π / (2 AGM(1, √(1 − k²))).
fn elliptic_k(k: f64) -> f64 {
    let (mut a, mut b) = (1.0f64, (1.0 - k * k).sqrt());
    // (Quadratic convergence: a few iterations reach rounding.)
    for _ in 0..16 {
        (a, b) = (0.5 * (a + b), (a * b).sqrt());
    }
    std::f64::consts::PI / (2.0 * a)
}

/// The pendulum (L = 1 m, released at rest from the horizontal) hits a wall at the bottom of
/// its swing: it arrives at T(θ₀)/4 = √(L/g) K(sin(θ₀/2)), leaves with e times its speed,
/// swings up to θ₁ = acos(1 − e²(1 − cos θ₀)) and is back after T(θ₁)/2, and so on. Between
/// impacts the constrained motion is Moreau–Jean's, first order (README, "Choosing an
/// integrator"), so located impact times are first-order too — but smoothly so: halving h
/// halves their error, and the Richardson extrapolation 2 t(h/2) − t(h) is ten times closer
/// to the elliptic times than t(h/2). Moreau–Jean's own impact times, late by a fraction of h
/// that varies from impact to impact, have no such expansion.
#[test]
fn the_pendulum_hits_the_wall_at_the_elliptic_times() {
    use ricochet::scenes::pendulum::Pendulum;
    let e = 0.8;
    let period = |theta: f64| 4.0 * (1.0 / G).sqrt() * elliptic_k((theta / 2.0).sin());
    let mut exact = vec![period(std::f64::consts::FRAC_PI_2) / 4.0];
    let mut cos = 0.0f64;
    for _ in 0..3 {
        cos = 1.0 - e * e * (1.0 - cos);
        exact.push(exact.last().unwrap() + period(cos.acos()) / 2.0);
    }
    let times = |step: f64| -> Vec<f64> {
        let mut sim = Pendulum {
            step,
            ..Pendulum::hitting_wall(e)
        }
        .simulation()
        .unwrap();
        sim.locate_impacts = true;
        let mut times = Vec::new();
        while sim.time() < exact[3] + 0.1 {
            sim.step().unwrap();
            times.extend(sim.last_impacts().iter().map(|i| i.t));
        }
        assert_eq!(times.len(), 4, "h = {step}: {times:?}");
        times
    };
    let error = |t: &[f64]| t.iter().zip(&exact).map(|(t, x)| (t - x).abs()).fold(0.0, f64::max);
    let (coarse, fine) = (times(1e-3), times(5e-4));
    let extrapolated: Vec<f64> = coarse.iter().zip(&fine).map(|(c, f)| 2.0 * f - c).collect();
    let (coarse, fine, extrapolated) = (error(&coarse), error(&fine), error(&extrapolated));
    println!("pendulum impact times: {coarse:.2e} (h = 1e-3), {fine:.2e} (h/2), extrapolated {extrapolated:.2e}");
    assert!(
        fine <= 0.55 * coarse && fine >= 0.45 * coarse,
        "first order: {fine} vs {coarse}"
    );
    assert!(extrapolated <= 0.1 * fine, "smooth in h: {extrapolated} vs {fine}");
}

/// A stiff, damped scene of several dofs (two masses of a non-diagonal M coupled by springs
/// and dampers, each against its own stop, gravity pulling them down) has each located
/// sub-step of length τ built from W(τ) = M + θτC + θ²τ²K: on the CPU lanes as on the
/// reference stepper (the same impacts, times and states to 1e-9), and on the GPU kernel in
/// f64 with the lanes' bits. A scene whose W(τ) the lanes cannot invert without pivoting (a K
/// that is not symmetric) is refused by name on the CPU backend, and the automatic backend
/// takes the reference stepper for it, saying why.
#[test]
fn stiff_scenes_locate_their_impacts_on_every_backend() {
    use ricochet::ensemble::{self, Backend, RunOptions, Scenario, open_engine};
    let text = |stiffness: &str| {
        format!(
            r#"
name = "two_masses"
scenes = 6
seed = 3
[scene]
template = "linear"
mass = [[1.0, 0.2], [0.2, 2.0]]
stiffness = {stiffness}
damping = [[0.3, -0.1], [-0.1, 0.2]]
fext = [-9.81, -19.62]
q0 = [{{ uniform = [0.05, 0.3] }}, 0.4]
v0 = [0.0, {{ uniform = [-1.0, 1.0] }}]
h = [[1.0, 0.0], [0.0, 1.0]]
b = [0.0, 0.1]
e = [{{ uniform = [0.5, 0.9] }}, 0.7]
[time]
step = 1e-3
final = 3.0
locate_impacts = true
[events]
max = 64
"#
        )
    };
    let scenario = Scenario::from_toml(&text("[[400.0, -150.0], [-150.0, 300.0]]")).unwrap();
    let run = |scenario: &Scenario, backend| {
        let options = RunOptions {
            backend,
            ..Default::default()
        };
        ensemble::run(scenario, &options, &ensemble::Progress::new()).unwrap()
    };
    let cpu = run(&scenario, Backend::Cpu);
    let reference = run(&scenario, Backend::Reference);
    let impacts = cpu.summary.column("impacts").unwrap();
    assert!(impacts.iter().all(|&k| k >= 5.0), "impacts {impacts:?}");
    assert_eq!(impacts, reference.summary.column("impacts").unwrap());
    for name in ["last_impact_time", "q0", "q1", "v0", "v1"] {
        let (a, b) = (
            cpu.summary.column(name).unwrap(),
            reference.summary.column(name).unwrap(),
        );
        for (s, (a, b)) in a.iter().zip(&b).enumerate() {
            assert!(
                (a - b).abs() <= 1e-9 * b.abs().max(1.0),
                "scene {s}: {name} {a} (cpu) vs {b} (reference)"
            );
        }
    }
    let (a, b) = (cpu.events.column("t").unwrap(), reference.events.column("t").unwrap());
    assert_eq!(a.len(), b.len(), "events");
    assert!(a.iter().zip(&b).all(|(a, b)| (a - b).abs() <= 1e-9), "event times");
    #[cfg(feature = "gpu")]
    if super::common::gpu().is_some() {
        let gpu = run(&scenario, Backend::Gpu);
        let bits = |t: &ricochet::ensemble::Table| t.values.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&gpu.summary), bits(&cpu.summary), "GPU vs CPU: summary");
        assert_eq!(bits(&gpu.events), bits(&cpu.events), "GPU vs CPU: events");
    }
    let skew = Scenario::from_toml(&text("[[400.0, -150.0], [-100.0, 300.0]]")).unwrap();
    let Err(error) = open_engine(Backend::Cpu, &skew) else {
        panic!("the CPU lanes took a scene whose W(τ) they cannot invert without pivoting");
    };
    let error = error.to_string();
    assert!(error.contains("symmetric") && error.contains("scene 0"), "{error}");
    let (engine, notice) = open_engine(Backend::Auto, &skew).unwrap();
    assert_eq!(engine.name(), "reference");
    assert!(notice.is_some_and(|n| n.contains("symmetric")));
}

/// Nonlinear rows located on the CPU lanes: the rocking block (lever rows: each corner's gap
/// and Coulomb friction, e = 0) under its drawn ground pulses, 16 scenes over 3 s. Every block
/// topples or stands as on the reference stepper, topples at its time to 1e-9 s, and where
/// its corners touch down a few times (at most 20 located impacts) with the same impacts at
/// the same times. (A block standing on both corners chatters, hundreds of impacts whose
/// count follows rounding; the lanes' sine and cosine are the kernel's, not the reference's.)
/// A contact at rest, its gap within its rounding floor of 0, is held by the scheme's test:
/// when it was opened instead, a corner at y = +3e-18 was left out of the trial and each
/// engine sent the block rocking its own way (impacts 5 against 8, 20 against 453). The GPU
/// kernel gives the lanes' bits (`the_gpu_locates_every_shipped_scenario_as_the_cpu_lanes`).
#[test]
fn nonlinear_rows_locate_their_impacts_on_the_lanes_as_on_the_reference() {
    use ricochet::ensemble::{self, Backend, RunOptions};
    let mut scenario = super::common::engines::shipped("rocking_block.toml");
    scenario.scenes = 16;
    scenario.record.trajectories = 0;
    scenario.time.locate_impacts = true;
    let run = |backend| {
        let options = RunOptions {
            backend,
            ..Default::default()
        };
        ensemble::run(&scenario, &options, &ensemble::Progress::new()).unwrap()
    };
    let (cpu, reference) = (run(Backend::Cpu), run(Backend::Reference));
    let column = |run: &ensemble::EnsembleRun, name: &str| run.summary.column(name).unwrap();
    let toppled = column(&cpu, "toppled");
    assert_eq!(toppled, column(&reference, "toppled"));
    let fallen = toppled.iter().filter(|&&t| t == 1.0).count();
    assert!((4..=12).contains(&fallen), "{fallen} of 16 toppled");
    let close = |name: &str, s: usize| {
        let (a, b) = (column(&cpu, name)[s], column(&reference, name)[s]);
        assert!(
            (a - b).abs() <= 1e-9 || a.is_nan() && b.is_nan(),
            "scene {s}: {name} {a} (cpu) vs {b} (reference)"
        );
    };
    let mut few = 0;
    for s in 0..16 {
        close("toppled_at", s);
        let impacts = column(&reference, "impacts")[s];
        if impacts <= 20.0 {
            few += 1;
            assert_eq!(column(&cpu, "impacts")[s], impacts, "scene {s}: impacts");
            close("last_impact_time", s);
        }
    }
    assert!(few >= 6, "{few} scenes with at most 20 impacts");
}

/// The CPU lanes' located steps give the same bits whatever the grouping of the scenes: a
/// run of 40 balls and the runs of its halves agree bit for bit (state, counters, impact
/// times); and the GPU kernel in f64, one scene per invocation, gives the same bits.
#[test]
fn located_impacts_on_the_cpu_lanes_do_not_depend_on_the_grouping() {
    use ricochet::batch::observe::NOTHING;
    use ricochet::engine::{CpuEngine, Engine, Job, Scene};
    use ricochet::scenes::dropped_ball::DroppedBall;
    use ricochet::scheme::{LagrangianIntegrator, MoreauJeanOSI, Stabilization};
    let balls: Vec<DroppedBall> = (0..40)
        .map(|i| DroppedBall {
            height: 0.5 + 0.037 * f64::from(i),
            restitution: 0.5 + 0.011 * f64::from(i),
            ..DroppedBall::default()
        })
        .collect();
    let progress = ricochet::batch::Progress::new();
    let run = |scenes: &[DroppedBall], first: usize, engine: Option<&dyn Engine>| {
        let job = Job {
            scenes: scenes.iter().map(|b| b as &dyn Scene).collect(),
            first_scene: first,
            step: 1e-3,
            osi: MoreauJeanOSI::default(),
            integrator: LagrangianIntegrator::MoreauJean,
            locate_impacts: true,
            stabilization: Stabilization::None,
            solver: ricochet::numerics::SolverKind::Pgs,
            tolerance: None,
            max_iterations: 200,
            omega: None,
            start: None,
            steps: 4000,
            recording: &NOTHING,
            progress: &progress,
        };
        match engine {
            Some(engine) => engine.run(&job).unwrap(),
            None => CpuEngine::new().run(&job).unwrap(),
        }
    };
    let whole = run(&balls, 0, None);
    let (a, b) = (run(&balls[..13], 0, None), run(&balls[13..], 13, None));
    assert_eq!(whole.state, [a.state, b.state].concat());
    assert_eq!(whole.counters, [a.counters, b.counters].concat());
    let bits = |t: &[f64]| t.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(
        bits(&whole.impact_times),
        bits(&[a.impact_times, b.impact_times].concat())
    );
    #[cfg(feature = "gpu")]
    if let Some(ctx) = super::common::gpu() {
        let engine = ricochet::engine::GpuEngine::new(ctx.clone(), Some(ricochet::batch::gpu::Precision::F64)).unwrap();
        let gpu = run(&balls, 0, Some(&engine));
        assert_eq!(bits(&gpu.state), bits(&whole.state), "GPU vs CPU: state");
        assert_eq!(gpu.counters, whole.counters, "GPU vs CPU: counters");
        assert_eq!(bits(&gpu.extremes), bits(&whole.extremes), "GPU vs CPU: extremes");
        assert_eq!(
            bits(&gpu.impact_times),
            bits(&whole.impact_times),
            "GPU vs CPU: impact times"
        );
    }
    // Each ball has come to rest by t = 4 s at its accumulation time t∞.
    for (s, ball) in balls.iter().enumerate() {
        let (d, e) = (ball.height - ball.radius, ball.restitution);
        let (t1, v1) = ((2.0 * d / G).sqrt(), (2.0 * G * d).sqrt());
        let t_inf = t1 + 2.0 * e * v1 / (G * (1.0 - e));
        if t_inf < 3.9 {
            assert!(
                (whole.impact_times[s] - t_inf).abs() < 1e-5,
                "ball {s}: {} vs {t_inf}",
                whole.impact_times[s]
            );
        }
    }
}

/// Every shipped scenario the CPU lanes locate (linear scenes: the ball, Newton's cradle, the
/// column of beads, friction in 2-D and 3-D, the impact oscillator and the spring's stop,
/// whose sub-steps build their own W(τ)), cut to
/// 16 scenes and 4000 steps and run with `locate_impacts`: the GPU kernel in f64 gives the lanes' bits in
/// every summary column and every event. (A scenario one of whose steps takes more loop
/// iterations than lavapipe's limiter allows an invocation — the column of beads' last
/// collapse, some hundred located impacts in one step — is run to 3/4 of its final time until
/// it fits: a hardware GPU has no such limit.)
#[cfg(feature = "gpu")]
#[test]
fn the_gpu_locates_every_shipped_scenario_as_the_cpu_lanes() {
    use ricochet::ensemble::{self, Backend, RunOptions};
    if super::common::gpu().is_none() {
        return;
    }
    let mut located = Vec::new();
    for (path, batched) in super::common::shipped_scenarios() {
        let mut scenario = ricochet::ensemble::Scenario::load(&path).unwrap();
        if !batched || scenario.time.integrator != ricochet::scheme::LagrangianIntegrator::MoreauJean {
            continue;
        }
        scenario.scenes = 16;
        scenario.time.locate_impacts = true;
        // (At most 4000 steps: the impact oscillators run for minutes of their forcing.)
        scenario.time.final_time = scenario.time.final_time.min(4000.0 * scenario.time.step);
        // (The impacting bar with 5 nodes, the disc pile with 2 discs: lavapipe compiles the
        // located kernel of 20 nodes in about 8 minutes, the same code.)
        super::common::lean_for_lavapipe(&mut scenario);
        if ensemble::open_engine(Backend::Cpu, &scenario).is_err() {
            continue;
        }
        let run = |scenario: &ricochet::ensemble::Scenario, backend| {
            let options = RunOptions {
                backend,
                ..Default::default()
            };
            ensemble::run(scenario, &options, &ensemble::Progress::new())
        };
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let gpu = loop {
            match run(&scenario, Backend::Gpu) {
                Ok(gpu) => break gpu,
                Err(e) if e.to_string().contains("loop limiter") && scenario.time.final_time > 0.1 => {
                    // (Refused naming the scene and the step it could not take.)
                    let message = e.to_string();
                    assert!(
                        message.contains("scene ") && message.contains("its step from t = "),
                        "{name}: {message}"
                    );
                    scenario.time.final_time *= 0.75;
                    println!(
                        "{name}: past lavapipe's loop limiter, run to {} s",
                        scenario.time.final_time
                    );
                }
                Err(e) => panic!("{name}: {e}"),
            }
        };
        let cpu = run(&scenario, Backend::Cpu).unwrap();
        let bits = |t: &ricochet::ensemble::Table| t.values.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(gpu.summary.columns, cpu.summary.columns, "{name}");
        assert_eq!(bits(&gpu.summary), bits(&cpu.summary), "{name}: summary");
        assert_eq!(bits(&gpu.events), bits(&cpu.events), "{name}: events");
        let impacts = cpu.summary.column("impacts").unwrap_or_default().iter().sum::<f64>();
        println!("{name}: {impacts} located impacts, GPU = CPU bits");
        located.push(name);
    }
    for name in [
        "bouncing_balls.toml",
        "block_on_incline.toml",
        "newtons_cradle.toml",
        "spinning_balls.toml",
        "impact_oscillator.toml",
        "spring_stop.toml",
    ] {
        assert!(located.iter().any(|n| n == name), "{name} not located: {located:?}");
    }
}
