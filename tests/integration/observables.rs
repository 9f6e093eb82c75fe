//! `[[observe]]` on every engine: observables against the exact bouncing ball and against
//! identities of the scheme, equal across engines (the GPU kernel in f64 to the CPU lanes'
//! bits), and bad declarations refused with the observable named.

use crate::common;

use ricochet::ensemble::scenario::PrecisionChoice;
use ricochet::ensemble::{self, Backend, EnsembleRun, RunOptions, Scenario};

const G: f64 = 9.81;
const R: f64 = 0.1;
const H: f64 = 1e-3;

const BALLS: &str = r#"
name = "observed balls"
scenes = 64
seed = 5
[scene]
template = "bouncing_ball"
height = { uniform = [1.0, 2.0] }
restitution = { uniform = [0.5, 0.95] }
[time]
step = 1e-3
final = 1.5
[record]
trajectories = 0
[[observe]]
name = "first_up"
signal = "v0"
reduce = "first_above"
threshold = 0.0
[[observe]]
name = "v_min"
signal = "v0"
reduce = "min"
[[observe]]
name = "t_v_min"
signal = "v0"
reduce = "time_of_min"
[[observe]]
name = "rise"
signal = "z_dot"
reduce = "integral"
[[observe]]
name = "v_mean"
signal = "v0"
reduce = "mean"
[[observe]]
name = "z_final"
signal = "q0"
reduce = "final"
[[observe]]
name = "z_max"
signal = "z"
reduce = "max"
[[observe]]
name = "gap_min"
signal = "y0"
reduce = "min"
[[observe]]
name = "closing"
signal = "ydot0"
reduce = "first_below"
threshold = -1.0
[[observe]]
name = "impulse"
signal = "lambda0"
reduce = "max"
[[observe]]
name = "t_impulse"
signal = "lambda0"
reduce = "time_of_max"
"#;

/// Every column the scenario above observes.
const OBSERVED: [&str; 11] = [
    "first_up",
    "v_min",
    "t_v_min",
    "rise",
    "v_mean",
    "z_final",
    "z_max",
    "gap_min",
    "closing",
    "impulse",
    "t_impulse",
];

use common::engines::{col, run_in as run};

/// The observables of dropped balls against the exact fall, and the scheme's identities:
/// the first upward velocity comes at most two steps after the exact first impact
/// t₁ = √(2(z₀ − R)/g), one step after the lowest velocity, which is −√(2 g (z₀ − R)) within
/// g h; the integral of v is z(T) − z(0) (θ = ½ moves q by the trapezoid of v); the mean is
/// it over T; `final` of q is the final state; the largest impulse comes at the impact, and
/// the fastest closing passes −1 m/s at the exact free-fall time of that speed (within a step).
fn check_balls(run: &EnsembleRun, label: &str) {
    let z0 = col(run, "height");
    let t_final = 1.5;
    for (s, &z) in z0.iter().enumerate() {
        let at = |name: &str| col(run, name)[s];
        let fall = z - R;
        let t1 = (2.0 * fall / G).sqrt();
        let v1 = (2.0 * G * fall).sqrt();
        let first_up = at("first_up");
        assert!(
            first_up >= t1 && first_up <= t1 + 2.0 * H + 1e-12,
            "{label} scene {s}: first up at {first_up}, impact at {t1}"
        );
        assert!(
            (at("t_v_min") - (first_up - H)).abs() < 1e-12,
            "{label} scene {s}: v_min one step before"
        );
        assert!(
            (at("v_min") + v1).abs() <= G * H,
            "{label} scene {s}: v_min {} vs −{v1}",
            at("v_min")
        );
        assert!(
            (at("rise") - (at("z") - z0[s])).abs() < 1e-12,
            "{label} scene {s}: ∫v = Δz"
        );
        assert!(
            (at("v_mean") - at("rise") / t_final).abs() < 1e-12,
            "{label} scene {s}: mean"
        );
        assert_eq!(at("z_final"), at("z"), "{label} scene {s}: final = the final state");
        assert_eq!(
            at("z_max"),
            z0[s],
            "{label} scene {s}: dropped from rest, highest at t = 0"
        );
        assert!(
            at("gap_min") > -v1 * H && at("gap_min") < v1 * H,
            "{label} scene {s}: gap"
        );
        let closing = 1.0 / G;
        assert!(
            (at("closing") - closing).abs() <= H + 1e-12,
            "{label} scene {s}: ẏ < −1 at {}",
            at("closing")
        );
        assert!(
            (at("t_impulse") - first_up).abs() < 1e-12,
            "{label} scene {s}: impulse at the impact"
        );
        assert!(at("impulse") > 0.0, "{label} scene {s}");
    }
}

#[test]
fn ball_observables_match_the_exact_fall_on_every_engine() {
    let scenario = Scenario::from_toml(BALLS).unwrap();
    let cpu = run(&scenario, Backend::Cpu, PrecisionChoice::Auto);
    check_balls(&cpu, "CPU");
    let reference = run(&scenario, Backend::Reference, PrecisionChoice::Auto);
    check_balls(&reference, "reference");
    for name in OBSERVED {
        let (a, b) = (col(&cpu, name), col(&reference, name));
        let worst = a.iter().zip(&b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
        assert!(worst <= 1e-12, "reference vs CPU, {name}: {worst:e}");
    }
    if common::gpu().is_some() {
        let f64_gpu = run(&scenario, Backend::Gpu, PrecisionChoice::F64);
        for name in OBSERVED {
            let same = col(&f64_gpu, name)
                .iter()
                .zip(col(&cpu, name))
                .all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same, "GPU f64 vs CPU lanes, {name}: not the same bits");
        }
        let f32_gpu = run(&scenario, Backend::Gpu, PrecisionChoice::F32);
        for (name, tolerance) in [("first_up", 2.0 * H), ("v_min", 1e-4), ("z_max", 1e-6)] {
            let worst = (col(&f32_gpu, name).iter().zip(col(&cpu, name)))
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            assert!(worst <= tolerance, "GPU f32, {name}: {worst:e}");
        }
    }
}

/// "Did it topple, and when": the rocking block's angle first beyond ±1 rad (nonlinear lever
/// rows, friction) is a time exactly for the blocks whose final angle is toppled (±π/2), and
/// the largest swing bounds the final angle; the same on the reference, the CPU lanes (1e-9)
/// and the GPU kernel in f64 (the lanes' bits).
#[test]
fn toppling_times_on_every_engine() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/rocking_block.toml")).unwrap();
    let mut scenario = Scenario::from_toml(&format!(
        "{text}\n[[observe]]\nname = \"toppled_right\"\nsignal = \"q2\"\nreduce = \"first_below\"\nthreshold = -1.0\n\
         [[observe]]\nname = \"toppled_left\"\nsignal = \"q2\"\nreduce = \"first_above\"\nthreshold = 1.0\n\
         [[observe]]\nname = \"swing\"\nsignal = \"q2\"\nreduce = \"max\"\n\
         [[observe]]\nname = \"gap\"\nsignal = \"y0\"\nreduce = \"max\"\n\
         [[observe]]\nname = \"fell\"\nsignal = \"q1\"\nreduce = \"ever_below\"\nthreshold = 0.2\n"
    ))
    .unwrap();
    scenario.scenes = 16;
    scenario.record.trajectories = 0;
    scenario.time.final_time = 2.0;
    let cpu = run(&scenario, Backend::Cpu, PrecisionChoice::Auto);
    let (angle, right, left, swing) = (
        col(&cpu, "theta"),
        col(&cpu, "toppled_right"),
        col(&cpu, "toppled_left"),
        col(&cpu, "swing"),
    );
    let mut toppled = 0;
    for s in 0..angle.len() {
        let fallen = (angle[s].abs() - std::f64::consts::FRAC_PI_2).abs() < 0.02;
        let time = if right[s].is_nan() { left[s] } else { right[s] };
        assert_eq!(
            fallen,
            time.is_finite(),
            "scene {s}: θ = {}, toppling time {time}",
            angle[s]
        );
        assert!(
            !(right[s].is_finite() && left[s].is_finite()),
            "scene {s}: toppled both ways"
        );
        assert!(swing[s] >= angle[s], "scene {s}");
        // The scenario's own answer and this test's flag say the same.
        assert_eq!(
            col(&cpu, "toppled")[s],
            f64::from(u8::from(fallen)),
            "scene {s}: toppled"
        );
        assert_eq!(col(&cpu, "fell")[s], f64::from(u8::from(fallen)), "scene {s}: fell");
        toppled += usize::from(fallen);
    }
    assert!(toppled > 0 && toppled < angle.len(), "{toppled} toppled");
    let observed = [
        "toppled_right",
        "toppled_left",
        "swing",
        "gap",
        "fell",
        "toppled",
        "toppled_at",
    ];
    let reference = run(&scenario, Backend::Reference, PrecisionChoice::Auto);
    for name in observed {
        for (a, b) in col(&reference, name).iter().zip(col(&cpu, name)) {
            assert!(
                a.is_nan() && b.is_nan() || (a - b).abs() <= 1e-9,
                "reference vs CPU, {name}: {a} {b}"
            );
        }
    }
    if common::gpu().is_some() {
        let gpu = run(&scenario, Backend::Gpu, PrecisionChoice::F64);
        for name in observed {
            let same = (col(&gpu, name).iter().zip(col(&cpu, name))).all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same, "GPU f64 vs CPU lanes, {name}");
        }
    }
}

/// The energy is observed on the reference engine (and `auto` goes there, saying why); the
/// batched engines refuse it rather than report nothing. A dropped ball's energy, observed at
/// every step, never grows and loses (1 − e²) of the fall at the impact.
#[test]
fn energy_is_observed_on_the_reference_and_refused_by_the_batched_engines() {
    let text = format!(
        "{}\n[[observe]]\nname = \"e_max\"\nsignal = \"energy\"\nreduce = \"max\"\n\
         [[observe]]\nname = \"e_final\"\nsignal = \"energy\"\nreduce = \"final\"\n",
        BALLS.replace("scenes = 64", "scenes = 8")
    );
    let scenario = Scenario::from_toml(&text).unwrap();
    let options = RunOptions {
        backend: Backend::Cpu,
        ..Default::default()
    };
    let e = ensemble::run(&scenario, &options, &ensemble::Progress::new())
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("energy") && e.contains("reference backend"), "{e}");
    let auto = ensemble::run(&scenario, &RunOptions::default(), &ensemble::Progress::new()).unwrap();
    assert!(
        auto.notice.as_deref().is_some_and(|n| n.contains("energy")),
        "{:?}",
        auto.notice
    );
    let (initial, change, e_max, e_final) = (
        col(&auto, "energy_initial"),
        col(&auto, "energy_change"),
        col(&auto, "e_max"),
        col(&auto, "e_final"),
    );
    for s in 0..initial.len() {
        assert!(
            (e_max[s] - initial[s]).abs() <= 1e-12 * initial[s],
            "scene {s}: the energy grew"
        );
        assert!(
            (e_final[s] - (initial[s] + change[s])).abs() <= 1e-12 * initial[s],
            "scene {s}"
        );
    }
}

#[test]
fn bad_observables_are_refused_with_their_name() {
    let with = |table: &str| Scenario::from_toml(&format!("{BALLS}\n[[observe]]\n{table}\n"));
    for (table, expected) in [
        (
            "name = \"a\"\nsignal = \"q1\"\nreduce = \"max\"",
            "`a`: signal `q1`: the scenes have 1",
        ),
        (
            "name = \"a\"\nsignal = \"theta\"\nreduce = \"max\"",
            "`a`: signal `theta`: expected a coordinate (z)",
        ),
        (
            "name = \"a\"\nsignal = \"q0\"\nreduce = \"first_above\"",
            "`a`: first_above, first_below, ever_above and ever_below need",
        ),
        (
            "name = \"a\"\nsignal = \"q0\"\nreduce = \"ever_below\"",
            "`a`: first_above, first_below, ever_above and ever_below need",
        ),
        (
            "name = \"a\"\nsignal = \"q0\"\nreduce = \"max\"\nthreshold = 1",
            "`a`: only first_above",
        ),
        (
            "name = \"rise\"\nsignal = \"q0\"\nreduce = \"max\"",
            "`rise`: the name is taken",
        ),
        (
            "name = \"height\"\nsignal = \"q0\"\nreduce = \"max\"",
            "`height`: the name is taken",
        ),
        ("name = \"2x\"\nsignal = \"q0\"\nreduce = \"max\"", "`2x`: a name is"),
        (
            "name = \"a\"\nsignal = \"q0\"\nreduce = \"biggest\"",
            "unknown variant `biggest`",
        ),
        (
            "name = \"a\"\nsignal = \"q0\"\nreduce = \"max\"\nwindow = 2",
            "unknown field `window`",
        ),
    ] {
        let e = with(table).unwrap_err().to_string();
        assert!(e.contains(expected), "{table}: {e}");
    }
    // A column of the summary is taken too: refused before anything is stepped.
    let scenario = with("name = \"impacts\"\nsignal = \"q0\"\nreduce = \"max\"").unwrap();
    let e = ensemble::run(&scenario, &RunOptions::default(), &ensemble::Progress::new())
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("`impacts`: the name is taken"), "{e}");
}

/// A forced damped oscillator whose stop is out of reach, m ẍ + c ẋ + k x = A cos ω t:
/// once the transient e^{−ct/2m} has died out, its stroboscopic samples every forcing period
/// T = 2π/ω are the exact steady state x = X cos(ωt − δ), X = A/√((k − mω²)² + (cω)²),
/// tan δ = cω/(k − mω²), at t = kT (to the trapezoidal rule's O((ωh)²) phase error); the same
/// on every engine (the GPU kernel in f64: the lanes' bits).
#[test]
fn stroboscopic_samples_are_the_forced_steady_state_on_every_engine() {
    let omega = std::f64::consts::PI / 4.0;
    let scenario = Scenario::from_toml(&format!(
        "name = \"poincare\"\nscenes = 3\nseed = 2\n[scene]\ntemplate = \"impact_oscillator\"\n\
         damping = 0.4\namplitude = {{ uniform = [0.5, 1.5] }}\nfrequency = {omega:e}\ngap = 100.0\n\
         [time]\nstep = 1e-3\nfinal = 120.0\n[strobe]\nevery = 8.0\nfrom = 80.0\n[record]\ntrajectories = 0\n"
    ))
    .unwrap();
    let (k, c, m) = (1.0, 0.4, 1.0);
    let detuning = k - m * omega * omega;
    let delta = (c * omega).atan2(detuning);
    let check = |run: &EnsembleRun, label: &str| {
        let amplitudes = col(run, "amplitude");
        let strobe = &run.strobe;
        assert_eq!(strobe.rows(), 3 * 6, "{label}: samples at 80, 88, … 120 s");
        let (scene, t, x, v) = (
            strobe.column("scene").unwrap(),
            strobe.column("t").unwrap(),
            strobe.column("x").unwrap(),
            strobe.column("x_dot").unwrap(),
        );
        for i in 0..strobe.rows() {
            let a = amplitudes[scene[i] as usize];
            let amplitude = a / (detuning * detuning + (c * omega).powi(2)).sqrt();
            let (exact_x, exact_v) = (
                amplitude * (omega * t[i] - delta).cos(),
                -amplitude * omega * (omega * t[i] - delta).sin(),
            );
            assert_eq!(t[i], 80.0 + 8.0 * (i % 6) as f64, "{label}");
            assert!(
                (x[i] - exact_x).abs() <= 2e-6 * a,
                "{label} row {i}: x {} vs {exact_x}",
                x[i]
            );
            assert!(
                (v[i] - exact_v).abs() <= 2e-6 * a,
                "{label} row {i}: v {} vs {exact_v}",
                v[i]
            );
        }
    };
    let cpu = run(&scenario, Backend::Cpu, PrecisionChoice::Auto);
    check(&cpu, "CPU");
    let reference = run(&scenario, Backend::Reference, PrecisionChoice::Auto);
    check(&reference, "reference");
    for name in ["x", "x_dot"] {
        let (a, b) = (cpu.strobe.column(name).unwrap(), reference.strobe.column(name).unwrap());
        let worst = a.iter().zip(&b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
        assert!(worst <= 1e-12, "reference vs CPU, {name}: {worst:e}");
    }
    if common::gpu().is_some() {
        let gpu = run(&scenario, Backend::Gpu, PrecisionChoice::F64);
        assert_eq!(gpu.strobe.column("x"), cpu.strobe.column("x"), "GPU f64 vs CPU lanes");
        assert_eq!(
            gpu.strobe.column("x_dot"),
            cpu.strobe.column("x_dot"),
            "GPU f64 vs CPU lanes"
        );
    }
}

#[test]
fn stroboscopic_times_must_be_steps_of_the_run() {
    let with = |strobe: &str| {
        Scenario::from_toml(&BALLS.replace("[record]", &format!("[strobe]\n{strobe}\n[record]")))
            .unwrap_err()
            .to_string()
    };
    let e = with("every = 0.0015");
    assert!(
        e.contains("strobe.every") && e.contains("not a whole number of steps"),
        "{e}"
    );
    let e = with("every = 0.1\nfrom = 2.0");
    assert!(e.contains("within the run"), "{e}");
    let e = with("every = 0.0");
    assert!(e.contains("every = 0 must be > 0"), "{e}");
    let e = with("every = 0.1\nphase = 1");
    assert!(e.contains("unknown field `phase`"), "{e}");
}

/// The exact impacts of a ball dropped from rest at z₀ (radius R): times t₁ = √(2(z₀ − R)/g),
/// t_{k+1} = t_k + 2 eᵏ v₁/g (the first 50: they accumulate at a finite time, Zeno).
fn impact_times(z0: f64, e: f64, until: f64) -> Vec<f64> {
    let v1 = (2.0 * G * (z0 - R)).sqrt();
    let (mut t, mut speed, mut times) = (v1 / G, v1, Vec::new());
    while t <= until && times.len() < 50 {
        times.push(t);
        speed *= e;
        t += 2.0 * speed / G;
    }
    times
}

/// Impact events of dropped balls: the k-th (from 0) at the exact impact time within 2k + 2
/// steps (an event's time is the end of the step carrying its impulse),
/// ẏ after = −e ẏ before (Newton's law, to rounding), the impulse m (ẏ after − ẏ before)
/// within m g h, at most `max` kept and the rest counted in `events_dropped`; the same rows on
/// the reference and the CPU lanes (to 1e-12) and, on the GPU in f64, the lanes' bits.
#[test]
fn impact_events_match_the_exact_bounces_on_every_engine() {
    let scenario = Scenario::from_toml(
        &BALLS
            .replace("final = 1.5", "final = 3.0")
            .replace("[record]", "[events]\nmax = 3\n[record]"),
    )
    .unwrap();
    let check = |run: &EnsembleRun, label: &str| {
        let (z0, e, impacts, dropped) = (
            col(run, "height"),
            col(run, "restitution"),
            col(run, "impacts"),
            col(run, "events_dropped"),
        );
        let events = &run.events;
        let column = |name: &str| events.column(name).unwrap();
        let (scene, t, row, before, after, impulse) = (
            column("scene"),
            column("t"),
            column("row"),
            column("ydot_before"),
            column("ydot_after"),
            column("impulse"),
        );
        let mut some_dropped = false;
        for s in 0..z0.len() {
            let rows: Vec<usize> = (0..events.rows()).filter(|&i| scene[i] == s as f64).collect();
            assert_eq!(rows.len() as f64, impacts[s].min(3.0), "{label} scene {s}: events kept");
            assert_eq!(dropped[s], (impacts[s] - 3.0).max(0.0), "{label} scene {s}: dropped");
            some_dropped |= dropped[s] > 0.0;
            let exact = impact_times(z0[s], e[s], 3.0);
            for (k, &i) in rows.iter().enumerate() {
                // Kept at the end of the step whose impulse it is: the first within 2 steps, each
                // later one within two more (the discrete bounces drift by up to a step each).
                let bound = (2 * k + 2) as f64 * H + 1e-12;
                assert!(
                    (t[i] - exact[k]).abs() <= bound,
                    "{label} scene {s} impact {k}: {} vs {}",
                    t[i],
                    exact[k]
                );
                assert_eq!(row[i], 0.0);
                assert!(
                    (after[i] + e[s] * before[i]).abs() <= 1e-12 * before[i].abs(),
                    "{label} scene {s}: e"
                );
                let mass = 1.0;
                assert!(
                    (impulse[i] - mass * (after[i] - before[i])).abs() <= mass * G * H * 1.000001,
                    "{label} scene {s}: impulse"
                );
            }
        }
        assert!(some_dropped, "{label}: the limit was reached somewhere");
    };
    let cpu = run(&scenario, Backend::Cpu, PrecisionChoice::Auto);
    check(&cpu, "CPU");
    let reference = run(&scenario, Backend::Reference, PrecisionChoice::Auto);
    check(&reference, "reference");
    assert_eq!(reference.events.rows(), cpu.events.rows());
    for name in ["t", "ydot_before", "ydot_after", "impulse"] {
        let (a, b) = (cpu.events.column(name).unwrap(), reference.events.column(name).unwrap());
        let worst = a.iter().zip(&b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
        assert!(worst <= 1e-12, "reference vs CPU, {name}: {worst:e}");
    }
    if common::gpu().is_some() {
        let gpu = run(&scenario, Backend::Gpu, PrecisionChoice::F64);
        assert_eq!(gpu.events, cpu.events, "GPU f64 vs CPU lanes");
        let f32_gpu = run(&scenario, Backend::Gpu, PrecisionChoice::F32);
        check_f32_events(&f32_gpu, &cpu);
    }
}

/// In f32 the events are those of f64 to f32 rounding: the same count per scene (far from a
/// tie) and times within two steps.
fn check_f32_events(f32_run: &EnsembleRun, cpu: &EnsembleRun) {
    assert_eq!(f32_run.events.rows(), cpu.events.rows(), "GPU f32: events");
    let (a, b) = (f32_run.events.column("t").unwrap(), cpu.events.column("t").unwrap());
    assert!(
        a.iter().zip(&b).all(|(x, y)| (x - y).abs() <= 2.0 * H + 1e-9),
        "GPU f32: event times"
    );
}

/// Your own system as an ensemble: scenes built by code (here the dropped ball's `Nsds`, with
/// its restitution drawn from the scene's stream) run on every engine with the observables,
/// giving what the `bouncing_ball` template gives for the same draws; a builder that names
/// its values differently from one scene to another is refused, naming the scene.
#[test]
fn custom_scenes_run_like_templates_on_every_engine() {
    use rand::RngExt;
    use ricochet::engine::Scene;
    use ricochet::ensemble::scenario::TimeSettings;
    use ricochet::scenes::dropped_ball::DroppedBall;
    let build = |_: usize, rng: &mut rand_chacha::ChaCha8Rng| -> ricochet::Result<ricochet::ensemble::custom::Built> {
        let height = 1.0 + rng.random::<f64>();
        let ball = DroppedBall::new(1.0, R, height, 0.0, 0.9, G)?;
        Ok((Box::new(ball.nsds()?), vec![("height".to_string(), height)]))
    };
    let mut custom = Scenario::custom("custom balls", (64, 5), TimeSettings::new(H, 1.5), build).unwrap();
    let template = Scenario::from_toml(
        BALLS
            .replace("restitution = { uniform = [0.5, 0.95] }", "restitution = 0.9")
            .as_str(),
    )
    .unwrap();
    custom.observe = template.observe.clone();
    let expected = run(&template, Backend::Cpu, PrecisionChoice::Auto);
    for backend in [Backend::Cpu, Backend::Reference] {
        let got = run(&custom, backend, PrecisionChoice::Auto);
        for name in OBSERVED.iter().chain(&["height", "impacts", "z", "z_dot"]) {
            let (a, b) = (col(&got, name), col(&expected, name));
            let worst = a.iter().zip(&b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
            assert!(worst <= 1e-12, "{backend:?} {name}: {worst:e}");
        }
    }
    let odd = Scenario::custom("odd", (8, 5), TimeSettings::new(H, 0.1), |s, _| {
        let ball = DroppedBall::new(1.0, R, 1.0, 0.0, 0.9, G)?;
        Ok((
            Box::new(ball) as Box<dyn Scene>,
            vec![(if s == 5 { "b" } else { "a" }.to_string(), 1.0)],
        ))
    })
    .unwrap();
    let e = ensemble::run(
        &odd,
        &RunOptions {
            backend: Backend::Cpu,
            ..Default::default()
        },
        &ensemble::Progress::new(),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(e.contains("scene 5 (built by your code)"), "{e}");
}

/// A job of no steps still samples the observers at t₀ on every engine (the GPU used to
/// dispatch nothing): `final` of q0 is the initial height, `max` of λ is 0.
#[test]
fn a_job_of_no_steps_samples_t0_on_every_engine() {
    use ricochet::engine::{CpuEngine, Engine, ReferenceEngine};
    let scenario = Scenario::from_toml(&BALLS.replace("scenes = 64", "scenes = 4")).unwrap();
    let recording = scenario.recording().unwrap();
    let sampled: Vec<_> = (0..4).map(|s| scenario.sample(s).unwrap()).collect();
    let job = ensemble::job(&scenario, &sampled, None, 0, &recording);
    let cpu = CpuEngine::new().run(&job).unwrap().observed;
    assert_eq!(ReferenceEngine.run(&job).unwrap().observed, cpu);
    let z_final = OBSERVED.iter().position(|&n| n == "z_final").unwrap();
    for (s, scene) in sampled.iter().enumerate() {
        let slots = &cpu[recording.len(1, 1) * s + 4 * z_final..];
        assert_eq!(slots[0], scene.drawn[0], "scene {s}: the height at t₀");
    }
    if common::gpu().is_some() {
        let ctx = ricochet::batch::gpu::GpuContext::new().unwrap();
        let gpu = ricochet::engine::GpuEngine::new(ctx, Some(ricochet::batch::gpu::Precision::F64)).unwrap();
        assert_eq!(gpu.run(&job).unwrap().observed, cpu, "GPU f64");
    }
}

/// A scene whose coordinate names would clash with the tables' columns (`t`), with another
/// coordinate's velocity (`x`, `x_dot`) or with a signal (`y0`) is refused, naming the
/// coordinate.
#[test]
fn coordinates_that_clash_are_refused() {
    use ricochet::ensemble::scenario::TimeSettings;
    use ricochet::model::{LagrangianLinearTIDS, Nsds};
    for (names, expected) in [
        (vec!["t"], "coordinate 0, `t`"),
        (vec!["x", "x_dot"], "coordinate 0, `x`"),
        (vec!["y0"], "coordinate 0, `y0`: the name reads as another signal"),
    ] {
        let build =
            move |_: usize, _: &mut rand_chacha::ChaCha8Rng| -> ricochet::Result<ricochet::ensemble::custom::Built> {
                let mut nsds = Nsds::new();
                for _ in &names {
                    let ds = LagrangianLinearTIDS::new(
                        nalgebra::DVector::from_element(1, 1.0),
                        nalgebra::DVector::from_element(1, 0.0),
                        nalgebra::DMatrix::identity(1, 1),
                    )?;
                    nsds.add("body", ds);
                }
                nsds.name_coordinates(names.clone())?;
                Ok((Box::new(nsds), Vec::new()))
            };
        let scenario = Scenario::custom("clash", (2, 1), TimeSettings::new(H, 0.01), build).unwrap();
        let e = ensemble::run(&scenario, &RunOptions::default(), &ensemble::Progress::new())
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains(expected), "{e}");
    }
}

/// A run probes its scenario once: scene 0 is built for the run's plan (sizes, coordinates,
/// drawn names, columns, units), for the engine's choice, for the chunk size, with the
/// draws checked up front, and for its chunk — not once more for each thing asked of it
/// (the chunk loop, the summary and the units of the files each rebuilt it before the plan:
/// 21 builds).
#[test]
fn a_run_builds_scene_zero_once_per_use() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use rand::RngExt;
    use ricochet::engine::Scene;
    use ricochet::ensemble::output::RunInfo;
    use ricochet::ensemble::scenario::TimeSettings;
    use ricochet::scenes::dropped_ball::DroppedBall;
    let builds = Arc::new(AtomicUsize::new(0));
    let counted = builds.clone();
    let build =
        move |s: usize, rng: &mut rand_chacha::ChaCha8Rng| -> ricochet::Result<ricochet::ensemble::custom::Built> {
            if s == 0 {
                counted.fetch_add(1, Ordering::SeqCst);
            }
            let height = 1.0 + rng.random::<f64>();
            let ball = DroppedBall::new(1.0, R, height, 0.0, 0.9, G)?;
            Ok((Box::new(ball.nsds()?), vec![("height".to_string(), height)]))
        };
    let mut scenario = Scenario::custom("counted", (4, 5), TimeSettings::new(H, 0.1), build).unwrap();
    scenario.observe = Scenario::from_toml(BALLS).unwrap().observe;
    let before = builds.load(Ordering::SeqCst);
    let options = RunOptions {
        backend: Backend::Cpu,
        ..Default::default()
    };
    let run = ensemble::run(&scenario, &options, &ensemble::Progress::new()).unwrap();
    let info = RunInfo::new(&scenario, options.shard, &run);
    assert_eq!(info.parameters, ["height"]);
    assert_eq!(
        info.units.get("z").map(String::as_str),
        None,
        "a custom scene's coordinate has no unit"
    );
    assert_eq!(builds.load(Ordering::SeqCst) - before, 5, "builds of scene 0 in a run");
}

/// `[[derive]]` on the shipped billiard shots: the object ball's `direction`, computed from
/// each row's final velocity, is the cut angle asin(offset / 2R) up to the few degrees of
/// throw the balls' friction adds, on the CPU lanes and the reference alike; the derived
/// columns close the summary with their units.
#[test]
fn derived_columns_answer_the_billiard_shot() {
    let mut scenario = common::engines::shipped("billiard_shots.toml");
    scenario.scenes = 12;
    scenario.record.trajectories = 0;
    let lanes = run(&scenario, Backend::Cpu, PrecisionChoice::Auto);
    let columns = &lanes.summary.columns;
    assert_eq!(columns[columns.len() - 2..], ["direction", "object_speed"]);
    let (vx, vy) = (col(&lanes, "x_object_dot"), col(&lanes, "y_object_dot"));
    let (offset, direction) = (col(&lanes, "offset"), col(&lanes, "direction"));
    let radius = 0.028575;
    for i in 0..vx.len() {
        // (To rounding: the parser may fold 180 / PI first.)
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-14 * b.abs();
        assert!(close(direction[i], vy[i].atan2(vx[i]).to_degrees()), "scene {i}");
        assert!(close(col(&lanes, "object_speed")[i], vx[i].hypot(vy[i])), "scene {i}");
        let cut = (offset[i] / (2.0 * radius)).asin().to_degrees();
        assert!(
            (direction[i] - cut).abs() < 4.0,
            "scene {i}: {} against the cut angle {cut}",
            direction[i]
        );
    }
    let reference = run(&scenario, Backend::Reference, PrecisionChoice::Auto);
    let gap = common::engines::deviation(&lanes, &reference, "direction");
    assert!(gap < 1e-6, "lanes and reference differ by {gap} degrees");
    let info =
        ricochet::ensemble::output::RunInfo::new(&scenario, ricochet::ensemble::Shard { index: 0, count: 1 }, &lanes);
    assert_eq!(info.units.get("direction").map(String::as_str), Some("deg"));
    assert_eq!(
        info.observables,
        ["direction", "object_speed"],
        "the study's answers, for the plots"
    );
}

/// `[[derive]]` on the shipped Newton's cradle: `transfer`, the last ball's share of the
/// launch speed, is ((1 + e)/2)^(b − 1) — each of the b − 1 binary impacts of equal masses
/// passes on (1 + e)/2 of the speed under Newton's law — to rounding, on every engine run here.
#[test]
fn the_cradle_transfers_the_speed_newtons_law_predicts() {
    let mut scenario = common::engines::shipped("newtons_cradle.toml");
    scenario.scenes = 16;
    scenario.record.trajectories = 0;
    for backend in [Backend::Cpu, Backend::Reference] {
        let run = run(&scenario, backend, PrecisionChoice::Auto);
        let (e, transfer) = (col(&run, "restitution"), col(&run, "transfer"));
        for (i, (e, transfer)) in e.iter().zip(&transfer).enumerate() {
            let predicted = ((1.0 + e) / 2.0).powi(4);
            assert!(
                (transfer - predicted).abs() < 1e-12,
                "{backend:?} scene {i}: {transfer} against {predicted}"
            );
        }
    }
}
