//! Siconos's BouncingBallTS: a ball dropped on the floor, written as CSV `t,q,v,p,lambda`.
//!
//! cargo run --release --example bouncing_ball -- --out bb.csv [--restitution 0.9] [--height 1]
//!     [--step 0.005] [--final-time 10] [--integrator moreau-jean|rattle]

use std::io::Write;

use clap::Parser;
use ricochet::reference::{Integrator, Trajectory};
use ricochet::scenes::bouncing_ball::BouncingBall;

#[derive(Parser)]
#[command(allow_negative_numbers = true)]
struct Args {
    /// Output CSV file.
    #[arg(long)]
    out: std::path::PathBuf,
    /// Restitution coefficient e.
    #[arg(long, default_value_t = 0.9)]
    restitution: f64,
    /// Initial height (m).
    #[arg(long, default_value_t = 1.0)]
    height: f64,
    /// Time step h (s).
    #[arg(long, default_value_t = 0.005)]
    step: f64,
    /// Final time (s).
    #[arg(long, default_value_t = 10.0)]
    final_time: f64,
    /// The one-step integrator: moreau-jean (first order, Siconos's) or rattle (nonsmooth
    /// RATTLE, second order between impacts).
    #[arg(long, default_value = "moreau-jean")]
    integrator: Integrator,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let ball = BouncingBall {
        restitution: args.restitution,
        height: args.height,
        step: args.step,
        ..Default::default()
    };
    let mut trajectory = Trajectory::default();
    let mut sim = ball.simulation()?;
    sim.set_integrator(args.integrator)?;
    sim.run(args.final_time, &mut trajectory)?;
    let mut out = std::io::BufWriter::new(std::fs::File::create(&args.out)?);
    writeln!(out, "t,q,v,p,lambda")?;
    for s in &trajectory.samples {
        writeln!(
            out,
            "{:e},{:e},{:e},{:e},{:e}",
            s.t, s.q[0], s.v[0], s.p[0], s.lambda[0]
        )?;
    }
    println!("wrote {} rows to {}", trajectory.len(), args.out.display());
    Ok(())
}
