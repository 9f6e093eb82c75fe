//! A block on an incline with Coulomb friction ([`BlockOnIncline`]), launched along the
//! slope; written as CSV `t,s,v,lambda_n,lambda_t`: s the distance along the slope from the
//! start (positive up), v = ṡ, and the normal and tangential impulses of the step.
//!
//! cargo run --release --example block_on_incline -- --out block.csv [--incline 0.5]
//!     [--friction 0.3] [--velocity 2] [--step 0.001] [--final-time 2]

use std::io::Write;

use clap::Parser;
use ricochet::scenes::block_on_incline::BlockOnIncline;

#[derive(Parser)]
#[command(allow_negative_numbers = true)]
struct Args {
    /// Output CSV file.
    #[arg(long)]
    out: std::path::PathBuf,
    /// Incline α (rad).
    #[arg(long, default_value_t = 0.5)]
    incline: f64,
    /// Coulomb coefficient μ.
    #[arg(long, default_value_t = 0.3)]
    friction: f64,
    /// Initial velocity along the slope (m/s, positive up).
    #[arg(long, default_value_t = 2.0)]
    velocity: f64,
    /// Time step h (s).
    #[arg(long, default_value_t = 1e-3)]
    step: f64,
    /// Final time (s).
    #[arg(long, default_value_t = 2.0)]
    final_time: f64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let block = BlockOnIncline {
        incline: args.incline,
        friction: args.friction,
        velocity: args.velocity,
        step: args.step,
        ..Default::default()
    };
    let mut sim = block.simulation()?;
    let mut out = std::io::BufWriter::new(std::fs::File::create(&args.out)?);
    writeln!(out, "t,s,v,lambda_n,lambda_t")?;
    let steps = sim.steps_until(args.final_time)?;
    for k in 0..=steps {
        if k > 0 {
            sim.step()?;
        }
        // q = (s, d): along the slope and off it.
        let s = sim.sample()?;
        writeln!(out, "{},{},{},{},{}", s.t, s.q[0], s.v[0], s.lambda[0], s.lambda[1])?;
    }
    out.flush()?;
    Ok(())
}
