//! Housner's rocking block ([`RockingBlock`]) on rough ground under a one-sine ground pulse;
//! written as CSV `t,x,y,theta,omega,lambda_left,lambda_right`: the centre, the tilt θ and its
//! rate, and the normal impulses of the bottom corners in the step. Prints whether it
//! toppled (|θ| beyond the slenderness α_b = atan(w/H) at the end).
//!
//! cargo run --release --example rocking_block -- --out block.csv [--amplitude 6]
//!     [--frequency 2] [--width 0.2] [--height 0.6] [--friction 0.7] [--step 0.001]
//!     [--final-time 3]

use std::io::Write;

use clap::Parser;
use ricochet::scenes::rocking_block::{GroundPulse, RockingBlock};

#[derive(Parser)]
#[command(allow_negative_numbers = true)]
struct Args {
    /// Output CSV file.
    #[arg(long)]
    out: std::path::PathBuf,
    /// Peak ground acceleration A of the pulse (m/s²; 0: none).
    #[arg(long, default_value_t = 6.0)]
    amplitude: f64,
    /// Frequency f of the pulse (Hz); it lasts one sine, 1/f.
    #[arg(long, default_value_t = 2.0)]
    frequency: f64,
    /// Width w (m).
    #[arg(long, default_value_t = 0.2)]
    width: f64,
    /// Height H (m).
    #[arg(long, default_value_t = 0.6)]
    height: f64,
    /// Coulomb coefficient μ of the corners.
    #[arg(long, default_value_t = 0.7)]
    friction: f64,
    /// Time step h (s).
    #[arg(long, default_value_t = 1e-3)]
    step: f64,
    /// Final time (s).
    #[arg(long, default_value_t = 3.0)]
    final_time: f64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let block = RockingBlock {
        width: args.width,
        height: args.height,
        friction: args.friction,
        step: args.step,
        pulse: (args.amplitude != 0.0).then_some(GroundPulse {
            amplitude: args.amplitude,
            frequency: args.frequency,
            duration: 1.0 / args.frequency,
        }),
        ..Default::default()
    };
    let mut sim = block.simulation()?;
    let mut out = std::io::BufWriter::new(std::fs::File::create(&args.out)?);
    writeln!(out, "t,x,y,theta,omega,lambda_left,lambda_right")?;
    let steps = sim.steps_until(args.final_time)?;
    let mut theta = 0.0;
    for k in 0..=steps {
        if k > 0 {
            sim.step()?;
        }
        // q = (x, y, θ); λ = (N, T) of the left, right, top left, top right corners.
        let s = sim.sample()?;
        theta = s.q[2];
        writeln!(
            out,
            "{},{},{},{},{},{},{}",
            s.t, s.q[0], s.q[1], s.q[2], s.v[2], s.lambda[0], s.lambda[2]
        )?;
    }
    out.flush()?;
    let toppled = theta.abs() > block.slenderness();
    println!(
        "θ(T) = {theta:.4} rad, α_b = {:.4} rad: {}",
        block.slenderness(),
        if toppled { "toppled" } else { "standing" }
    );
    Ok(())
}
