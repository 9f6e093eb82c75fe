//! Large-scene scenarios as jobs: the shipped ones run from their files and write
//! `series.csv` and `final.csv`; bad input is refused naming the key, the bodies or the wall.

use crate::common;

use std::path::{Path, PathBuf};

use ricochet::Error;
use ricochet::ensemble::Progress;
use ricochet::ensemble::large_scene::{LargeOutput, LargeScenario};
use ricochet::large_scene::{Bodies, CpuSolver, Dimension, LargeScene, Wall};
use ricochet::model::NewtonImpactFrictionNSL;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ricochet-large-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn shipped(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios").join(name)
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The shipped scenario `name` cut to about `bodies` bodies and `final_time` seconds.
fn cut(name: &str, bodies: usize, final_time: f64) -> LargeScenario {
    let mut scenario = LargeScenario::load(&shipped(&format!("{name}.toml"))).unwrap();
    scenario.large_scene = scenario.large_scene.scaled(bodies);
    scenario.time.final_time = final_time;
    scenario
}

/// Runs `scenario` on the CPU cores into `out`.
fn run_cpu(scenario: &LargeScenario, out: &Path) -> ricochet::ensemble::large_run::LargeRun {
    scenario
        .run(out, &mut CpuSolver::default(), false, &Progress::new())
        .unwrap()
}

/// `ricochet ARGS`: whether it succeeded, and its stdout then stderr.
fn ricochet<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> (bool, String) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_ricochet"))
        .args(args)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

/// The shipped pyramid runs from the command line: a line with its throughput, a series
/// row every 100 steps (and t = 0) in which the pyramid stays at rest, and one final row per
/// disc where it started.
#[test]
fn the_pyramid_runs_from_the_command_line_and_stays_still() {
    let out = scratch("pyramid");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_ricochet"))
        .args([
            "run",
            shipped("pyramid_2d.toml").to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("105 bodies × 2000 steps"), "{stdout}");
    let series = lines(&out.join("series.csv"));
    assert_eq!(series[0], ricochet::ensemble::large_output::SERIES_HEADER);
    assert_eq!(series.len(), 1 + 1 + 20);
    for row in &series[2..] {
        let cells: Vec<f64> = row.split(',').map(|c| c.parse().unwrap()).collect();
        assert!(cells[1] < 1e-12, "kinetic energy {row}");
        assert_eq!(cells[8], 1.0, "converged {row}");
        assert!(cells[9] < 1e-9, "penetration {row}");
    }
    let scenario = LargeScenario::load(&shipped("pyramid_2d.toml")).unwrap();
    let start = scenario.build().unwrap().bodies;
    let finals = lines(&out.join("final.csv"));
    assert_eq!(finals[0], "body,x,y,theta,vx,vy,omega,radius,mass");
    assert_eq!(finals.len(), 1 + 105);
    for (k, row) in finals[1..].iter().enumerate() {
        let cells: Vec<f64> = row.split(',').map(|c| c.parse().unwrap()).collect();
        assert_eq!(cells[0], k as f64);
        let drift = (cells[1] - start.x[k][0]).hypot(cells[2] - start.x[k][1]);
        assert!(drift < 1e-9, "disc {k} drifted {drift:e} m");
    }
    check_picture(&out.join("final.png"), &finals[1..]);
    let _ = std::fs::remove_dir_all(&out);
}

/// `final.png` shows the discs of `rows` (final.csv's, 2-D) at one scale: its size is the
/// discs' box widened by a twentieth of its longer side, that side 1200 pixels, plus the
/// margins (20 pixels, 60 above for the title); the coloured (neither white nor black) pixels
/// cover Σ π (R s)² to 4 %; the pixel at the first disc's centre is coloured and the view's
/// corner above the top of the pile white.
fn check_picture(path: &Path, rows: &[String]) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut pixels).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    let (width, height) = (info.width as usize, info.height as usize);
    let discs: Vec<[f64; 3]> = rows
        .iter()
        .map(|row| {
            let c: Vec<f64> = row.split(',').map(|c| c.parse().unwrap()).collect();
            [c[1], c[2], c[7]]
        })
        .collect();
    let extent = |k: usize, sign: f64| {
        discs
            .iter()
            .map(|d| d[k] + sign * d[2])
            .fold(f64::NAN, |a, b| if sign > 0.0 { a.max(b) } else { a.min(b) })
    };
    let (w, h) = (extent(0, 1.0) - extent(0, -1.0), extent(1, 1.0) - extent(1, -1.0));
    let pad = 0.05 * w.max(h);
    let scale = 1200.0 / (w.max(h) + 2.0 * pad);
    let pixels_of = |m: f64| (m * scale).round() as usize;
    assert_eq!(
        (width, height),
        (pixels_of(w + 2.0 * pad) + 40, pixels_of(h + 2.0 * pad) + 80)
    );
    let at = |x: usize, y: usize| &pixels[3 * (y * width + x)..3 * (y * width + x) + 3];
    let coloured = |p: &[u8]| p != [255, 255, 255] && p != [0, 0, 0];
    let count = (60..height)
        .flat_map(|y| (0..width).map(move |x| (x, y)))
        .filter(|&(x, y)| coloured(at(x, y)))
        .count();
    let expected: f64 = discs
        .iter()
        .map(|d| std::f64::consts::PI * (d[2] * scale).powi(2))
        .sum();
    assert!(
        (count as f64 / expected - 1.0).abs() < 0.04,
        "{count} coloured pixels, {expected:.0} expected"
    );
    let (x0, y_top) = (extent(0, -1.0) - pad, extent(1, 1.0) + pad);
    let pixel = |x: f64, y: f64| (20 + pixels_of(x - x0), 60 + pixels_of(y_top - y));
    let (px, py) = pixel(discs[0][0], discs[0][1]);
    assert!(coloured(at(px, py)), "{:?} at the first disc's centre", at(px, py));
    let (px, py) = pixel(x0 + pad / 2.0, y_top - pad / 2.0);
    assert_eq!(at(px, py), [255, 255, 255]);
}

/// `--backend gpu` (f64 on lavapipe) writes the CPU's `final.csv` and `series.csv` byte for
/// byte on the shipped pyramid: the 2-D kernel is its twin bit for bit; `--backend
/// reference` is refused by name.
#[cfg(feature = "gpu")]
#[test]
fn the_pyramid_on_the_gpu_writes_the_cpu_files() {
    let Some(ctx) = common::gpu() else { return };
    let run = |backend: &str| {
        let out = scratch(&format!("pyramid-{backend}"));
        let pyramid = shipped("pyramid_2d.toml");
        let (ok, text) = ricochet(&[
            "run".as_ref(),
            pyramid.as_os_str(),
            "--backend".as_ref(),
            backend.as_ref(),
            "--out".as_ref(),
            out.as_os_str(),
        ]);
        (ok, text, out)
    };
    let (ok, text, cpu) = run("cpu");
    assert!(ok && text.contains("large-scene cpu"), "{text}");
    let (ok, text, gpu) = run("gpu");
    assert!(ok && text.contains("large-scene gpu"), "{text}");
    if ctx.supports_f64() {
        for file in ["series.csv", "final.csv"] {
            assert_eq!(lines(&gpu.join(file)), lines(&cpu.join(file)), "{file}");
        }
    }
    let (ok, text, reference) = run("reference");
    assert!(!ok && text.contains("--backend reference"), "{text}");
    for out in [cpu, gpu, reference] {
        let _ = std::fs::remove_dir_all(out);
    }
}

/// The shipped pile, cut to 150 spheres and 0.05 s, pours (the energy falls, contacts
/// appear) and writes a 3-D final row per sphere; ensemble options are refused by name.
#[test]
fn a_small_pile_pours_and_ensemble_options_are_refused() {
    let scenario = cut("pile_3d", 150, 0.1);
    let out = scratch("pile");
    let run = run_cpu(&scenario, &out);
    assert_eq!((run.bodies, run.steps), (150, 200));
    let series = lines(&out.join("series.csv"));
    let cell = |row: &str, k: usize| row.split(',').nth(k).unwrap().parse::<f64>().unwrap();
    let last = series.last().unwrap();
    let energy = |row: &str| cell(row, 1) + cell(row, 2);
    assert!(energy(last) < energy(&series[1]), "{series:?}");
    assert!(cell(last, 3) > 50.0, "contacts: {last}");
    let finals = lines(&out.join("final.csv"));
    assert_eq!(finals[0], "body,x,y,z,vx,vy,vz,omega_x,omega_y,omega_z,radius,mass");
    assert_eq!(finals.len(), 151);
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_ricochet"))
        .args([
            "run",
            shipped("pile_3d.toml").to_str().unwrap(),
            "--scenes",
            "4",
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success() && stderr.contains("--scenes") && stderr.contains("large-scene"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&out);
}

/// The shipped hopper, cut to 300 discs and 0.6 s, discharges: `discharged` never falls and
/// ends past a third of the discs, the energies count only the discs still inside, and
/// final.csv keeps a row per disc.
#[test]
fn a_small_hopper_discharges() {
    let scenario = cut("hopper_2d", 300, 0.6);
    let out = scratch("hopper");
    run_cpu(&scenario, &out);
    let series = lines(&out.join("series.csv"));
    assert!(series[0].ends_with(",discharged"), "{}", series[0]);
    let discharged: Vec<f64> = series[1..]
        .iter()
        .map(|row| row.rsplit(',').next().unwrap().parse().unwrap())
        .collect();
    assert!(discharged.windows(2).all(|w| w[0] <= w[1]), "{discharged:?}");
    assert!(*discharged.last().unwrap() > 100.0, "{discharged:?}");
    assert_eq!(lines(&out.join("final.csv")).len(), 301);
    let _ = std::fs::remove_dir_all(&out);
}

/// The shipped chute, cut to 300 spheres and 0.1 s, flows: every centre stays in the period,
/// the flow gains speed along x, and contacts form.
#[test]
fn a_small_chute_flows_in_its_period() {
    let scenario = cut("chute_3d", 300, 0.1);
    let period = scenario.build().unwrap().bodies.period.unwrap();
    let out = scratch("chute");
    run_cpu(&scenario, &out);
    let series = lines(&out.join("series.csv"));
    let cell = |row: &str, k: usize| row.split(',').nth(k).unwrap().parse::<f64>().unwrap();
    assert!(cell(series.last().unwrap(), 3) > 100.0, "contacts: {series:?}");
    let finals = lines(&out.join("final.csv"));
    assert_eq!(finals.len(), 301);
    let mut mean_vx = 0.0;
    for row in &finals[1..] {
        let x = cell(row, 1);
        assert!((0.0..period).contains(&x), "outside the period: {row}");
        mean_vx += cell(row, 4) / 300.0;
    }
    assert!(mean_vx > 0.1, "mean v_x {mean_vx}");
    let _ = std::fs::remove_dir_all(&out);
}

/// The text of a VTK XML `DataArray` named `name` (`Points`' when `None`) as numbers.
fn vtk_array(text: &str, name: Option<&str>) -> Vec<f64> {
    let start = match name {
        Some(name) => text.find(&format!("Name=\"{name}\"")).unwrap(),
        None => text.find("<Points>").unwrap(),
    };
    let body = &text[start..];
    let body = &body[body.find('>').unwrap() + 1..];
    let body = if name.is_none() {
        &body[body.find('>').unwrap() + 1..]
    } else {
        body
    };
    body[..body.find("</DataArray>").unwrap()]
        .split_whitespace()
        .map(|x| x.parse().unwrap())
        .collect()
}

/// `[output] snapshots = K` writes a VTK PolyData file at t = 0, every K steps and after the
/// last, indexed by `snapshots.pvd` with their times; the last one's points, radii and
/// velocities are final.csv's, bit for bit.
#[test]
fn snapshots_are_vtk_polydata_indexed_by_a_pvd() {
    let mut scenario = cut("hopper_2d", 200, 0.1);
    scenario.output.snapshots = 60;
    let out = scratch("snapshots");
    let run = run_cpu(&scenario, &out);
    assert!(run.files.contains(&out.join("snapshots.pvd")));
    let index = std::fs::read_to_string(out.join("snapshots.pvd")).unwrap();
    let files: Vec<&str> = index
        .split("file=\"")
        .skip(1)
        .map(|f| &f[..f.find('"').unwrap()])
        .collect();
    assert_eq!(
        files,
        [
            "snapshots/step_0000000.vtp",
            "snapshots/step_0000060.vtp",
            "snapshots/step_0000120.vtp",
            "snapshots/step_0000180.vtp",
            "snapshots/step_0000200.vtp"
        ]
    );
    assert!(
        index.contains("timestep=\"0.0\"") && index.contains("timestep=\"0.1"),
        "{index}"
    );
    let last = std::fs::read_to_string(out.join(files[4])).unwrap();
    assert!(last.contains("NumberOfPoints=\"200\" NumberOfVerts=\"200\""));
    let (points, radius, velocity) = (
        vtk_array(&last, None),
        vtk_array(&last, Some("radius")),
        vtk_array(&last, Some("velocity")),
    );
    assert_eq!((points.len(), radius.len(), velocity.len()), (600, 200, 600));
    for (k, row) in lines(&out.join("final.csv"))[1..].iter().enumerate() {
        // body, x, y, theta, vx, vy, omega, radius, mass
        let cells: Vec<f64> = row.split(',').map(|c| c.parse().unwrap()).collect();
        assert_eq!(
            [points[3 * k], points[3 * k + 1], points[3 * k + 2]],
            [cells[1], cells[2], 0.0],
            "{row}"
        );
        assert_eq!([velocity[3 * k], velocity[3 * k + 1]], [cells[4], cells[5]], "{row}");
        assert_eq!(radius[k], cells[7], "{row}");
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// `ricochet check` on a large scene builds it and prints its size, pairs and estimates; a
/// bad parameter is refused, named.
#[test]
fn check_dry_runs_a_large_scene() {
    let check = |path: &Path| ricochet(&["check".as_ref(), path.as_os_str()]);
    let (ok, text) = check(&shipped("chute_3d.toml"));
    assert!(ok, "{text}");
    for part in [
        "1000 spheres among 3 walls, 2500 steps",
        "periodic along x",
        "memory: about",
    ] {
        assert!(text.contains(part), "{part}: {text}");
    }
    #[cfg(feature = "gpu")]
    assert!(text.contains("on a device when packed: about"), "{text}");
    let dir = scratch("check");
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.toml");
    std::fs::write(
        &bad,
        "name = \"narrow\"\n[large_scene]\ntemplate = \"hopper_2d\"\norifice = 0.5\n[time]\nstep = 1e-3\nfinal = 1.0\n",
    )
    .unwrap();
    let (ok, text) = check(&bad);
    assert!(!ok && text.contains("orifice"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A misspelt key, a bad number and a bad template are named with their key.
#[test]
fn bad_scenarios_name_the_key() {
    let base =
        "name = \"p\"\n[large_scene]\ntemplate = \"pyramid_2d\"\n{extra}\n[time]\nstep = 1e-3\nfinal = {final}\n";
    for (extra, final_time, expected) in [
        ("rowz = 3", "1.0", "rowz"),
        ("rows = 0", "1.0", "rows"),
        ("radius = -1.0", "1.0", "radius"),
        ("", "0.0", "[time] final"),
    ] {
        let text = base.replace("{extra}", extra).replace("{final}", final_time);
        let error = LargeScenario::from_toml(&text, "p.toml")
            .and_then(|s| s.build().map(|_| ()))
            .unwrap_err();
        assert!(error.to_string().contains(expected), "{extra}: {error}");
    }
    let error = LargeScenario::from_toml(
        &base
            .replace("pyramid_2d", "heap")
            .replace("{extra}", "")
            .replace("{final}", "1"),
        "p.toml",
    )
    .unwrap_err();
    assert!(
        error.to_string().contains("pyramid_2d") && error.to_string().contains("p.toml"),
        "{error}"
    );
}

fn law() -> NewtonImpactFrictionNSL {
    NewtonImpactFrictionNSL::new(0.0, 0.0, 0.5, 2).unwrap()
}

/// Overlapping bodies at t = 0, a body through a wall, and non-positive or NaN radii and
/// masses are refused, naming the bodies (and the wall) and by how much they overlap.
#[test]
fn bad_bodies_are_named() {
    let discs = |x: Vec<[f64; 3]>, r: Vec<f64>, m: Vec<f64>| Bodies::new(Dimension::Two, x, r, m);
    let floor = || vec![Wall::plane([0.0; 3], [0.0, 1.0, 0.0], law()).unwrap()];
    let two = discs(vec![[0.0, 1.0, 0.0], [0.15, 1.0, 0.0]], vec![0.1, 0.1], vec![1.0, 1.0]).unwrap();
    let error = LargeScene::new(two, floor(), law(), [0.0, -9.81, 0.0], 1e-3).unwrap_err();
    let text = error.to_string();
    assert!(
        text.contains("disc 0 and disc 1") && text.contains("overlap by 5.0"),
        "{text}"
    );
    let sunk = discs(vec![[0.0, 0.05, 0.0]], vec![0.1], vec![1.0]).unwrap();
    let text = LargeScene::new(sunk, floor(), law(), [0.0, -9.81, 0.0], 1e-3)
        .unwrap_err()
        .to_string();
    assert!(text.contains("disc 0 and wall 0"), "{text}");
    for (r, m, what) in [
        (0.0, 1.0, "disc 1: radius"),
        (0.1, f64::NAN, "disc 1: mass"),
        (-0.1, 1.0, "disc 1: radius"),
    ] {
        let error = discs(vec![[0.0, 1.0, 0.0], [1.0, 1.0, 0.0]], vec![0.1, r], vec![1.0, m]).unwrap_err();
        assert!(
            matches!(error, Error::Parameter { .. }) && error.to_string().contains(what),
            "{error}"
        );
    }
    let error = discs(vec![[0.0, 1.0, 0.5]], vec![0.1], vec![1.0]).unwrap_err();
    assert!(error.to_string().contains("disc 0: z"), "{error}");
}

/// Every file under `dir` but the lock, by path relative to it, with its bytes.
fn files_under(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    let mut files = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if !path.ends_with(".ricochet.lock") {
                files.insert(
                    path.strip_prefix(dir).unwrap().to_path_buf(),
                    std::fs::read(&path).unwrap(),
                );
            }
        }
    }
    files
}

/// A run interrupted twice — after its first step, then after step 40 (`cancel_after`),
/// between checkpoints 25 steps apart — and resumed each time ends with the files of an
/// uninterrupted run, byte for byte (series, final state, every snapshot and their index), in
/// 2-D and 3-D; its checkpoint is gone once it has finished.
#[test]
fn an_interrupted_large_run_resumes_to_the_same_bytes() {
    for name in ["hopper_2d", "pile_3d"] {
        let mut scenario = cut(name, 300, 0.06);
        scenario.output = LargeOutput {
            every: 10,
            snapshots: 30,
            checkpoint: 25,
        };
        let steps = scenario.steps();
        assert!(steps > 80, "{steps}");
        let whole = scratch(&format!("resume-whole-{name}"));
        run_cpu(&scenario, &whole);
        let pieces = scratch(&format!("resume-pieces-{name}"));
        let cancelled = Progress::new();
        cancelled.cancel();
        let e = scenario
            .run(&pieces, &mut CpuSolver::default(), false, &cancelled)
            .unwrap_err();
        assert!(
            matches!(e, Error::Interrupted { .. }) && e.to_string().contains("after step 1 of"),
            "{e}"
        );
        let progress = Progress::new();
        progress.cancel_after(40);
        let e = scenario
            .run(&pieces, &mut CpuSolver::default(), true, &progress)
            .unwrap_err();
        assert!(e.to_string().contains("after step 40 of"), "{e}");
        let run = scenario
            .run(&pieces, &mut CpuSolver::default(), true, &Progress::new())
            .unwrap();
        assert_eq!(run.resumed_steps, 40);
        assert_eq!(run.steps, steps);
        assert!(!pieces.join(".checkpoint").exists());
        let (a, b) = (files_under(&whole), files_under(&pieces));
        assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
        for (path, bytes) in &a {
            assert!(bytes == &b[path], "{name}: {} differs", path.display());
        }
        assert!(a.len() >= 6, "{:?}", a.keys());
        let _ = std::fs::remove_dir_all(&whole);
        let _ = std::fs::remove_dir_all(&pieces);
    }
}

/// A resume is refused, naming the file: with nothing to resume (the library and the
/// command line), from another scenario's checkpoint, from one of another colouring rule,
/// from a changed state file.
#[test]
fn a_resume_from_a_wrong_checkpoint_is_refused() {
    let scenario = cut("hopper_2d", 300, 0.01);
    let out = scratch("resume-refused");
    let resume = |s: &LargeScenario| {
        s.run(&out, &mut CpuSolver::default(), true, &Progress::new())
            .unwrap_err()
            .to_string()
    };
    let e = resume(&scenario);
    assert!(e.contains("nothing to resume") && e.contains("manifest.json"), "{e}");
    let path = shipped("pyramid_2d.toml");
    let (ok, text) = ricochet(&[
        "run",
        path.to_str().unwrap(),
        "--resume",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!ok && text.contains("nothing to resume"), "{text}");
    let cancelled = Progress::new();
    cancelled.cancel();
    assert!(
        scenario
            .run(&out, &mut CpuSolver::default(), false, &cancelled)
            .is_err()
    );
    let mut other = scenario.clone();
    other.seed += 1;
    let e = resume(&other);
    assert!(e.contains("another scenario"), "{e}");
    // A checkpoint from before the manifest named its colouring was coloured in key order.
    let manifest = out.join(".checkpoint").join("manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json.as_object_mut().unwrap().remove("colouring").unwrap();
    std::fs::write(&manifest, json.to_string()).unwrap();
    let e = resume(&scenario);
    assert!(e.contains("another colouring (greedy in pair key order"), "{e}");
    std::fs::write(&manifest, text).unwrap();
    let state = std::fs::read_dir(out.join(".checkpoint"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "bin"))
        .unwrap();
    let mut bytes = std::fs::read(&state).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&state, &bytes).unwrap();
    let e = resume(&scenario);
    assert!(e.contains("state-000000000001.bin") && e.contains("changed"), "{e}");
    let _ = std::fs::remove_dir_all(&out);
}

/// `[solver] method = "jacobi"` runs the pyramid by Jacobi with mass splitting on the CPU
/// cores (named in the run's engine; still at rest), `auto` takes the cores too (lavapipe is
/// no hardware GPU), and `--backend gpu` runs it on the device with the CPU's files, byte for
/// byte; an unknown method is refused naming the key.
#[test]
fn the_jacobi_method_runs_on_every_engine() {
    let dir = scratch("jacobi");
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string(shipped("pyramid_2d.toml"))
        .unwrap()
        .replace("final = 2.0", "final = 0.2")
        .replace("max_sweeps = 10000", "max_sweeps = 20000\nmethod = \"jacobi\"");
    let file = dir.join("jacobi.toml");
    std::fs::write(&file, &text).unwrap();
    let out = dir.join("out");
    let run = |backend: &str| {
        ricochet(&[
            "run",
            file.to_str().unwrap(),
            "--backend",
            backend,
            "--json",
            "--out",
            out.to_str().unwrap(),
        ])
    };
    for backend in ["auto", "cpu"] {
        let (ok, text) = run(backend);
        // (`auto` takes a hardware GPU where there is one.)
        let cpu = backend == "cpu" || common::gpu().is_none_or(|c| c.is_cpu());
        let engine = if cpu {
            "large-scene cpu jacobi"
        } else {
            "large-scene gpu"
        };
        assert!(
            ok && text.contains(&format!("\"engine\":\"{engine}")),
            "{backend}: {text}"
        );
        let finals = lines(&out.join("final.csv"));
        let speed = finals[1..]
            .iter()
            .map(|row| {
                let c: Vec<f64> = row.split(',').map(|c| c.parse().unwrap()).collect();
                c[4].hypot(c[5])
            })
            .fold(0.0, f64::max);
        assert!(speed < 1e-6, "{backend}: a disc moves at {speed:e} m/s");
    }
    // On lavapipe the 2-D kernel is the twin bit for bit (elsewhere: the GPU tests' bounds).
    #[cfg(feature = "gpu")]
    if common::gpu().is_some_and(|c| c.is_cpu()) {
        let cpu = [lines(&out.join("final.csv")), lines(&out.join("series.csv"))];
        let (ok, text) = run("gpu");
        assert!(ok && text.contains("\"engine\":\"large-scene gpu f64 jacobi"), "{text}");
        assert!(
            [lines(&out.join("final.csv")), lines(&out.join("series.csv"))] == cpu,
            "the GPU's files differ"
        );
    }
    std::fs::write(&file, text_with_method("gauss")).unwrap();
    let (ok, text) = run("cpu");
    assert!(!ok && text.contains("method") && text.contains("jacobi"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The shipped pyramid with `[solver] method = "{method}"`.
fn text_with_method(method: &str) -> String {
    std::fs::read_to_string(shipped("pyramid_2d.toml")).unwrap().replace(
        "max_sweeps = 10000",
        &format!("max_sweeps = 10000\nmethod = \"{method}\""),
    )
}

/// Ctrl-C (SIGINT) stops `ricochet run` at the step it reached, not at the last periodic
/// checkpoint: the checkpoint holds that step, the status is 130 and the message says where
/// `--resume` continues.
#[cfg(unix)]
#[test]
fn ctrl_c_checkpoints_a_large_run_where_it_stopped() {
    let out = scratch("sigint");
    let text = std::fs::read_to_string(shipped("pyramid_2d.toml"))
        .unwrap()
        .replace("final = 2.0", "final = 30.0")
        .replace("snapshots = 500", "snapshots = 0\ncheckpoint = 1000");
    assert!(text.contains("final = 30.0") && text.contains("checkpoint = 1000"));
    std::fs::create_dir_all(&out).unwrap();
    let scenario = out.join("long_pyramid.toml");
    std::fs::write(&scenario, text).unwrap();
    let run = out.join("run");
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_ricochet"))
        .args(["run", "-q", "--out"])
        .arg(&run)
        .arg(&scenario)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The first periodic checkpoint (step 1000) shows the run is under way.
    let manifest = run.join(".checkpoint").join("manifest.json");
    let started = std::time::Instant::now();
    while !manifest.exists() {
        assert!(started.elapsed().as_secs() < 120, "no checkpoint after 120 s");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let kill = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    let saved: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    let steps = saved["steps"].as_u64().unwrap();
    assert!((1000..30_000).contains(&steps), "{steps}");
    assert!(
        stderr.contains(&format!("after step {steps} of 30000")) && stderr.contains("--resume"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&out);
}
