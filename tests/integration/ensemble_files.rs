//! An ensemble's files: the same bytes whatever the chunking or sharding (shards merged),
//! `summary.npy`'s layout, files whole or absent, merges that refuse parts that differ,
//! resumed chunks, and the shipped scenarios through `ricochet verify`.

use crate::common;

use common::engines::{BALLS, run};
use ricochet::ensemble::formats::Format;
use ricochet::ensemble::output::RunFiles;
use ricochet::ensemble::output::RunInfo;
use ricochet::ensemble::{self, Backend, RunOptions, Scenario, Shard, Table};

fn files(scenario: &Scenario, backend: Backend, chunk: usize, shard: Shard) -> RunFiles {
    let run = run(scenario, backend, chunk, shard);
    RunFiles {
        info: RunInfo::new(scenario, shard, &run),
        summary: run.summary,
        trajectories: run.trajectories,
        strobe: scenario.strobe.is_some().then_some(run.strobe),
        events: scenario.events.is_some().then_some(run.events),
    }
}

/// The files of a run's directory but its pictures.
fn read_dir(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    common::files_of(dir, |p| p.extension().is_none_or(|x| x != "png"))
}

/// Same seed ⇒ byte-identical files: across runs, across chunk sizes, and between one run
/// and four shards merged.
#[test]
fn results_do_not_depend_on_chunking_or_sharding() {
    let observed = "[strobe]\nevery = 0.2\nfrom = 0.1\n[events]\nmax = 2\n[[observe]]\nname = \"lowest\"\nsignal = \"y0\"\nreduce = \"min\"\n";
    let mut scenario = Scenario::from_toml(&format!("{BALLS}{observed}")).unwrap();
    scenario.scenes = 301;
    scenario.time.final_time = 0.8;
    scenario.output.formats = Format::ALL.to_vec();
    // Each shard in other formats: a merge reads any and writes the same bits.
    let shards = [
        &[Format::Csv][..],
        &[Format::Npy],
        &[Format::Parquet],
        &[Format::Csv, Format::Npy],
    ];
    let in_formats = |formats: &[Format]| {
        let mut s = scenario.clone();
        s.output.formats = formats.to_vec();
        s
    };
    let all = Shard { index: 0, count: 1 };
    let tmp = std::env::temp_dir().join(format!("ricochet-shards-{}", std::process::id()));
    let one = tmp.join("one");
    files(&scenario, Backend::Cpu, 1 << 16, all).write(&one).unwrap();
    let again = tmp.join("again");
    files(&scenario, Backend::Cpu, 7, all).write(&again).unwrap();
    assert_eq!(read_dir(&one), read_dir(&again), "chunks of 7 scenes");
    let strobe = RunFiles::read(&one).unwrap().strobe.expect("strobe.parquet");
    assert_eq!(strobe.rows(), 301 * 4, "samples at 0.1, 0.3, 0.5, 0.7 s");
    let parts: Vec<RunFiles> = (0..4)
        .map(|i| {
            let dir = tmp.join(format!("part{i}"));
            files(&in_formats(shards[i]), Backend::Cpu, 50, Shard { index: i, count: 4 })
                .write(&dir)
                .unwrap();
            RunFiles::read(&dir).unwrap()
        })
        .collect();
    let merged = tmp.join("merged");
    let mut all_formats = RunFiles::merge(parts).unwrap();
    assert_eq!(all_formats.info.formats, [Format::Csv], "the first part's");
    all_formats.info.formats = Format::ALL.to_vec();
    all_formats.write(&merged).unwrap();
    assert_eq!(read_dir(&one), read_dir(&merged), "4 shards in 3 formats merged");
    let other_seed = Scenario {
        seed: 100,
        ..scenario.clone()
    };
    assert_ne!(
        files(&other_seed, Backend::Cpu, 1 << 16, all).summary,
        RunFiles::read(&one).unwrap().summary
    );
    // A missing shard is an error, not a short table.
    let parts: Vec<RunFiles> = (0..3)
        .map(|i| RunFiles::read(&tmp.join(format!("part{i}"))).unwrap())
        .collect();
    assert!(RunFiles::merge(parts).is_err());
    std::fs::remove_dir_all(&tmp).ok();
}

/// A table too wide for a version-1.0 `.npy` header (a 2000-ball cradle's 8000 state
/// columns failed on it after the whole run) is written as version 2.0: a 4-byte header
/// length, the header padded to 64 bytes, then the values.
#[test]
fn wide_tables_write_npy_version_two() {
    let mut table = Table::new((0..8000).map(|i| format!("q{i}")).collect());
    for r in 0..3 {
        table.push(&(0..8000).map(|c| (r * 8000 + c) as f64).collect::<Vec<_>>());
    }
    let mut bytes = Vec::new();
    table.write_npy(&mut bytes, &[]).unwrap();
    assert_eq!(&bytes[..8], b"\x93NUMPY\x02\x00");
    let len = u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize;
    assert!(len > 65_535 && (12 + len).is_multiple_of(64), "{len}");
    let header = std::str::from_utf8(&bytes[12..12 + len]).unwrap();
    assert!(header.contains("('q7999', '<f8')") && header.contains("'shape': (3,)") && header.ends_with('\n'));
    let values = &bytes[12 + len..];
    assert_eq!(values.len(), 8 * 3 * 8000);
    let last = f64::from_le_bytes(values[values.len() - 8..].try_into().unwrap());
    assert_eq!(last, (3 * 8000 - 1) as f64);
}

/// The .npy file is a structured array numpy can read: magic, header, 8 bytes per value,
/// counts and flags as integers.
#[test]
fn npy_layout() {
    let mut scenario = Scenario::from_toml(BALLS).unwrap();
    scenario.scenes = 5;
    let run = run(&scenario, Backend::Cpu, 1 << 16, Shard { index: 0, count: 1 });
    let mut bytes = Vec::new();
    run.summary.write_npy(&mut bytes, &ensemble::INTEGER_COLUMNS).unwrap();
    assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00");
    let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    assert_eq!((10 + header_len) % 64, 0);
    let header = std::str::from_utf8(&bytes[10..10 + header_len]).unwrap();
    assert!(header.contains("('height', '<f8')") && header.contains("'shape': (5,)"));
    assert_eq!(bytes.len() - 10 - header_len, 8 * run.summary.values.len());
    let first = f64::from_le_bytes(bytes[10 + header_len + 8..10 + header_len + 16].try_into().unwrap());
    assert_eq!(first, run.summary.row(0)[1], "row 0, column height");
    let integer = |column: &str| {
        assert!(header.contains(&format!("('{column}', '<i8')")), "{column}: {header}");
        let (row, j) = (3, run.summary.index(column).unwrap());
        let at = 10 + header_len + 8 * (row * run.summary.columns.len() + j);
        (
            i64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()),
            run.summary.row(row)[j],
        )
    };
    for column in ["scene", "impacts", "converged", "finite", "lcp_iterations"] {
        let (written, value) = integer(column);
        assert_eq!(written as f64, value, "{column}");
    }
    assert_eq!(integer("scene").0, 3);
    assert!(header.contains("('z', '<f8')"));
}

/// `ricochet verify` passes on every shipped scenario (reference vs CPU vs GPU), over their
/// first 5 s at most; the impacting bar and the disc pile at the sizes lavapipe compiles in
/// seconds (`common::lean_scenario_text`: minutes at their shipped sizes, for the same code).
#[test]
fn shipped_scenarios_verify() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let lean = std::env::temp_dir().join(format!("ricochet-verify-lean-{}", std::process::id()));
    std::fs::create_dir_all(&lean).unwrap();
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let mut path = entry.unwrap().path();
        if let Some(text) = common::lean_scenario_text(&path) {
            path = lean.join(path.file_name().unwrap());
            std::fs::write(&path, text).unwrap();
        }
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_ricochet"))
            .args(["verify", path.to_str().unwrap(), "--scenes", "4", "--max-time", "5"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&output.stdout);
        println!("{}\n{text}", path.display());
        if common::is_large_scene(&path) {
            // One large scene: nothing to compare across an ensemble's engines; refused by name.
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(
                !output.status.success() && stderr.contains("large-scene scenario"),
                "{stderr}"
            );
            continue;
        }
        if path.ends_with("cubic_resistor.toml") {
            // First-order: only the reference runs it, so nothing is compared (status 4).
            assert_eq!(output.status.code(), Some(4), "{text}");
            assert!(text.contains("cpu: not compared: "), "{text}");
            continue;
        }
        assert!(
            output.status.success(),
            "{}: {text}{}",
            path.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        checked += 1;
    }
    std::fs::remove_dir_all(&lean).unwrap();
    assert!(checked >= 5);
}

/// Every output file is written under a temporary name and renamed into place: a finished
/// run leaves no partial file, and a run interrupted with Ctrl-C (SIGINT) while stepping leaves
/// no output file at all — never a truncated one — only its finished chunks (`.chunks`, for
/// `--resume`).
#[test]
fn outputs_are_whole_or_absent() {
    let dir = std::env::temp_dir().join(format!("ricochet-atomic-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let scenario = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/bouncing_balls.toml");
    let run = |scenes: &str, out: &std::path::Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_ricochet"))
            .args([
                "run",
                scenario.to_str().unwrap(),
                "--backend",
                "cpu",
                "--scenes",
                scenes,
                "--format",
                "csv,npy,parquet",
                "--out",
            ])
            .arg(out)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let finished = dir.join("finished");
    assert!(run("2000", &finished).wait().unwrap().success());
    let names: Vec<String> = std::fs::read_dir(&finished)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().any(|n| n == "summary.csv"), "{names:?}");
    assert!(names.iter().all(|n| !n.starts_with(".partial-")), "{names:?}");
    let summary = std::fs::read_to_string(finished.join("summary.csv")).unwrap();
    assert_eq!(summary.lines().count(), 2001);

    let interrupted = dir.join("interrupted");
    let mut child = run("5000000", &interrupted);
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let killed = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert!(!status.success(), "the run was interrupted");
    let left: Vec<String> = std::fs::read_dir(&interrupted)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    assert!(
        left.iter()
            .all(|n| n.starts_with(".partial-") || n == ".chunks" || n == ricochet::ensemble::lock::FILE),
        "outputs of an interrupted run: {left:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `merge` refuses parts that are not shards of one run, naming the part: another scenario
/// text under the same name, seed and count (they merged before), or rows computed by another
/// engine or precision.
#[test]
fn merge_refuses_parts_that_differ() {
    let mut scenario = Scenario::from_toml(BALLS).unwrap();
    scenario.scenes = 40;
    let half = |index| Shard { index, count: 2 };
    let first = || files(&scenario, Backend::Cpu, 1 << 16, half(0));
    let merged = RunFiles::merge(vec![first(), files(&scenario, Backend::Cpu, 1 << 16, half(1))]);
    assert_eq!(merged.map(|m| m.summary.rows()).ok(), Some(40));
    let mut wider = scenario.clone();
    let text = BALLS.replace("height = { uniform = [1.0, 2.0] }", "height = { uniform = [1.0, 3.0] }");
    wider.scene = Scenario::from_toml(&text).unwrap().scene;
    let refusal = |parts: Vec<RunFiles>| match RunFiles::merge(parts) {
        Ok(_) => panic!("merged"),
        Err(e) => e.to_string(),
    };
    let e = refusal(vec![first(), files(&wider, Backend::Cpu, 1 << 16, half(1))]);
    assert!(e.contains("shard 1/2") && e.contains("another scenario"), "{e}");
    let e = refusal(vec![first(), files(&scenario, Backend::Reference, 1 << 16, half(1))]);
    assert!(e.contains("shard 1/2") && e.contains("reference f64"), "{e}");
    // Columns that differ (a part written by another version) name the part and the column.
    let mut renamed = files(&scenario, Backend::Cpu, 1 << 16, half(1));
    renamed.summary.columns[2] = "renamed".into();
    let e = refusal(vec![first(), renamed]);
    assert!(e.contains("shard 1/2") && e.contains("column 2: `renamed`"), "{e}");
}

/// A resumed run's finished chunks count as done but not as computed: the progress tells
/// them apart, so the rate and the time left shown are those of the computing.
#[test]
fn resumed_chunks_are_done_not_computed() {
    let mut scenario = Scenario::from_toml(BALLS).unwrap();
    scenario.scenes = 30;
    scenario.time.final_time = 0.05;
    let dir = std::env::temp_dir().join(format!("ricochet-resumed-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).unwrap();
    let options = |resume| RunOptions {
        backend: Backend::Cpu,
        chunk: Some(10),
        checkpoints: Some(dir.clone()),
        resume,
        ..Default::default()
    };
    let fresh = ensemble::Progress::new();
    ensemble::run(&scenario, &options(false), &fresh).unwrap();
    assert_eq!((fresh.scene_steps(), fresh.resumed()), (30 * 50, 0));
    let resumed = ensemble::Progress::new();
    ensemble::run(&scenario, &options(true), &resumed).unwrap();
    assert_eq!(
        (resumed.scene_steps(), resumed.resumed()),
        (30 * 50, 30 * 50),
        "every chunk taken"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A directory holds one run's tables: a run in other formats removes the earlier run's,
/// a stray file of another format (an older version's) is never read, a `run.json` without
/// `formats` is read in the formats there, and a bad list of formats is refused before the
/// earlier run's files go.
#[test]
fn a_directory_is_read_in_the_formats_its_run_wrote() {
    let mut scenario = Scenario::from_toml(BALLS).unwrap();
    scenario.scenes = 6;
    let all = Shard { index: 0, count: 1 };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let with = |seed: u64, formats: &[Format]| {
        let mut s = scenario.clone();
        (s.seed, s.output.formats) = (seed, formats.to_vec());
        files(&s, Backend::Cpu, 1 << 16, all)
    };
    let first = with(1, &[Format::Csv, Format::Npy]);
    first.write(&out).unwrap();
    let second = with(2, &[Format::Parquet]);
    second.write(&out).unwrap();
    let names: Vec<String> = read_dir(&out).into_iter().map(|(n, _)| n).collect();
    assert!(
        !names.iter().any(|n| n.ends_with(".csv") || n.ends_with(".npy")),
        "{names:?}"
    );
    // An older version's summary.csv beside them is not this run's.
    let stray = dir.path().join("stray");
    first.write(&stray).unwrap();
    std::fs::copy(stray.join("summary.csv"), out.join("summary.csv")).unwrap();
    assert_eq!(RunFiles::read(&out).unwrap().summary, second.summary);
    // A run.json from before `formats`: the formats there (NPY before CSV).
    let json = std::fs::read_to_string(stray.join("run.json")).unwrap();
    let mut old: serde_json::Value = serde_json::from_str(&json).unwrap();
    old.as_object_mut().unwrap().remove("formats");
    std::fs::write(stray.join("run.json"), old.to_string()).unwrap();
    let read = RunFiles::read(&stray).unwrap();
    assert_eq!(
        (read.info.formats, read.summary),
        (vec![Format::Csv, Format::Npy], first.summary.clone())
    );
    // Refused before anything is removed.
    let mut bad = with(3, &[Format::Csv]);
    bad.info.formats = vec![Format::Csv, Format::Csv];
    let e = bad.write(&out).unwrap_err().to_string();
    assert!(e.contains("names csv twice"), "{e}");
    assert_eq!(RunFiles::read(&out).unwrap().summary, second.summary);
}

/// A column named like a count but holding other numbers (an observable called
/// `events_dropped` in a scenario without `[events]`, a NaN) stays a double in NPY and
/// Parquet: every format holds the same bits.
#[test]
fn only_whole_columns_are_stored_as_integers() {
    let mut table = Table::new(["scene", "events_dropped", "impacts"].map(String::from).to_vec());
    table.push(&[0.0, 0.25, 1.0]);
    table.push(&[1.0, f64::NAN, 2.0]);
    assert_eq!(table.integer_columns(&ensemble::INTEGER_COLUMNS), [true, false, true]);
    let dir = tempfile::tempdir().unwrap();
    let mut formats = Format::ALL.to_vec();
    formats.retain(|f| *f != Format::Parquet || cfg!(feature = "parquet"));
    for format in formats {
        let path = dir.path().join(format.file("summary"));
        let units = Default::default();
        let columns = ricochet::ensemble::formats::Columns {
            integers: &ensemble::INTEGER_COLUMNS,
            units: &units,
        };
        let mut file = std::fs::File::create(&path).unwrap();
        ricochet::ensemble::formats::write(&table, format, &mut file, columns).unwrap();
        drop(file);
        let back = ricochet::ensemble::formats::read(dir.path(), "summary", &[format])
            .unwrap()
            .unwrap();
        assert!(
            back.values
                .iter()
                .zip(&table.values)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "{format}: {:?}",
            back.values
        );
        std::fs::remove_file(&path).unwrap();
    }
}
