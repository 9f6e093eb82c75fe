//! A Monte Carlo study from code: bouncing balls with uncertain drop height, swept over the
//! restitution coefficient; prints the mean number of impacts in 2 s and the mean rest
//! energy fraction, and writes one CSV row per restitution.
//!
//! cargo run --release --example monte_carlo -- --scenes 20000 --out sweep.csv

use std::io::Write;

use clap::Parser;
use ricochet::ensemble::custom::Scenes;
use ricochet::ensemble::sampling::Parameter;
use ricochet::ensemble::scene_spec::Value;
use ricochet::ensemble::{self, Backend, RunOptions, Scenario, Statistics};

#[derive(Parser)]
#[command(allow_negative_numbers = true)]
struct Args {
    /// Scenes per restitution value.
    #[arg(long, default_value_t = 10_000)]
    scenes: usize,
    /// Output CSV.
    #[arg(long, default_value = "monte_carlo.csv")]
    out: std::path::PathBuf,
}

const SCENARIO: &str = r#"
name = "restitution_sweep"
seed = 7
[scene]
template = "bouncing_ball"
height = { uniform = [1.0, 2.0] }
restitution = 0.9
[time]
step = 1e-3
final = 2.0
[record]
trajectories = 0
"#;

fn main() -> ricochet::Result<()> {
    let args = Args::parse();
    let mut scenario = Scenario::from_toml(SCENARIO)?;
    scenario.scenes = args.scenes;
    let mut out = std::io::BufWriter::new(std::fs::File::create(&args.out)?);
    writeln!(out, "restitution,mean_impacts,p95_impacts,mean_energy_fraction")?;
    for e in [0.5, 0.6, 0.7, 0.8, 0.9, 0.95] {
        if let Scenes::Template(spec) = &mut scenario.scene {
            spec.parameters
                .insert("restitution".into(), Value::Parameter(Parameter::Fixed(e)));
        }
        let run = ensemble::run(
            &scenario,
            &RunOptions {
                backend: Backend::Auto,
                ..Default::default()
            },
            &ensemble::Progress::new(),
        )?;
        let stats = Statistics::of(&run.summary);
        let impacts = &stats.columns["impacts"];
        let (initial, change) = (
            run.summary.column("energy_initial").unwrap_or_default(),
            run.summary.column("energy_change").unwrap_or_default(),
        );
        let fraction = initial.iter().zip(&change).map(|(e0, de)| (e0 + de) / e0).sum::<f64>() / initial.len() as f64;
        println!(
            "e = {e:4}: {:.3} impacts on average (95 % ≤ {}), {:.1} % of the energy left  [{}]",
            impacts.mean,
            impacts.quantiles["0.95"],
            100.0 * fraction,
            run.engine
        );
        writeln!(out, "{e},{},{},{fraction}", impacts.mean, impacts.quantiles["0.95"])?;
    }
    println!("wrote {}", args.out.display());
    Ok(())
}
