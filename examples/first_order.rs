//! Siconos's nonlinear first-order references as CSV `t,<coordinates>,lambda…,y…,z…`: the
//! Filippov sliding mode, the StepSystem gene networks, the NonLinearSwitch buck stage, the
//! OptimalControl bang-bang problem, the RelayBiSimulation controller (its rows, z its held
//! control) and the cubic-resistor circuit — each the scene the tests check against
//! Siconos's reference (tests/integration/first_order_nonlinear.rs).
//!
//! cargo run --release --example first_order -- --system step-system --out genes.csv [--final-time 3]

use clap::{Parser, ValueEnum};
use ricochet::reference::{TimeStepping, Trajectory};
use ricochet::scenes::cubic_resistor::CubicResistor;
use ricochet::scenes::filippov::Filippov;
use ricochet::scenes::nonlinear_switch::NonLinearSwitch;
use ricochet::scenes::optimal_control::OptimalControl;
use ricochet::scenes::relay_bi_simulation::RelayBiSimulation;
use ricochet::scenes::step_system::{StepSystem, StepVariant};

#[derive(Clone, Copy, ValueEnum)]
enum Example {
    /// Filippov_NL: ẋ = B λ under a relay (T = 0.1).
    Filippov,
    /// StepSystem: thresholds as step functions (T = 3).
    StepSystem,
    /// SignSystem: thresholds as sign functions (T = 3).
    SignSystem,
    /// StepSystemReduced (T = 3).
    StepSystemReduced,
    /// NonLinearSwitch: a PWM buck stage (T = 200 µs).
    NonLinearSwitch,
    /// OptimalControl: a Pontryagin bang-bang problem (T = 10).
    OptimalControl,
    /// RelayBiSimulation: the sampled controller's rows (T = 1).
    RelayBiSimulation,
    /// A capacitor through an ideal diode and a cubic resistor (T = 2).
    CubicResistor,
}

#[derive(Parser)]
#[command(allow_negative_numbers = true)]
struct Args {
    /// Which system.
    #[arg(long, value_enum)]
    system: Example,
    /// Output CSV file.
    #[arg(long)]
    out: std::path::PathBuf,
    /// Final time (default: the reference's).
    #[arg(long)]
    final_time: Option<f64>,
}

fn step_system(variant: StepVariant) -> ricochet::Result<TimeStepping> {
    StepSystem {
        variant,
        ..Default::default()
    }
    .simulation()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let mut trajectory = Trajectory::default();
    let coordinates = if let Example::RelayBiSimulation = args.system {
        let mut pair = RelayBiSimulation::default().start()?;
        let steps = pair.controller.steps_until(args.final_time.unwrap_or(1.0))?;
        trajectory.samples.push(pair.controller.sample()?);
        for _ in 0..steps {
            trajectory.samples.push(pair.step()?);
        }
        pair.controller.nsds().coordinates()
    } else {
        let (mut sim, final_time) = match args.system {
            Example::Filippov => (Filippov::default().simulation()?, 0.1),
            Example::StepSystem => (step_system(StepVariant::Step)?, 3.0),
            Example::SignSystem => (step_system(StepVariant::Sign)?, 3.0),
            Example::StepSystemReduced => (step_system(StepVariant::Reduced)?, 3.0),
            Example::NonLinearSwitch => (NonLinearSwitch::default().simulation()?, 200e-6),
            Example::OptimalControl => (OptimalControl::default().simulation()?, 10.0),
            Example::CubicResistor => (CubicResistor::default().simulation()?, 2.0),
            Example::RelayBiSimulation => unreachable!("run above"),
        };
        sim.run(args.final_time.unwrap_or(final_time), &mut trajectory)?;
        sim.nsds().coordinates()
    };
    trajectory.write_first_order_csv(std::fs::File::create(&args.out)?, &coordinates)?;
    println!("wrote {} rows to {}", trajectory.len(), args.out.display());
    Ok(())
}
