//! Siconos's woodpecker toy ([`Woodpecker`]): a sleeve sliding down a pole with Coulomb
//! friction and a bird on a spring pecking the pole — stick–slip with impacts. Written as CSV
//! `t,y,vy,phi_sleeve,omega_sleeve,phi_bird,omega_bird,lambda_beak,lambda_top,lambda_bottom`
//! (Siconos's q = (y, φ_M, φ_S), their rates, and the normal impulses of the beak and the
//! sleeve's two edges in the step). Prints the sleeve's descent and the number of pecks.
//!
//! cargo run --release --example woodpecker -- --out woodpecker.csv [--friction 0.3]
//!     [--spring 0.0056] [--step 2e-5] [--final-time 0.5]

use std::io::Write;

use clap::Parser;
use ricochet::scenes::woodpecker::Woodpecker;

#[derive(Parser)]
#[command(allow_negative_numbers = true)]
struct Args {
    /// Output CSV file.
    #[arg(long)]
    out: std::path::PathBuf,
    /// Coulomb coefficient μ of the three contacts.
    #[arg(long, default_value_t = 0.3)]
    friction: f64,
    /// Spring stiffness c_φ (N m/rad).
    #[arg(long, default_value_t = 0.0056)]
    spring: f64,
    /// Time step h (s).
    #[arg(long, default_value_t = 2e-5)]
    step: f64,
    /// Final time (s).
    #[arg(long, default_value_t = 0.5)]
    final_time: f64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let toy = Woodpecker {
        friction: args.friction,
        spring: args.spring,
        step: args.step,
        ..Default::default()
    };
    let mut sim = toy.simulation()?;
    let mut out = std::io::BufWriter::new(std::fs::File::create(&args.out)?);
    writeln!(
        out,
        "t,y,vy,phi_sleeve,omega_sleeve,phi_bird,omega_bird,lambda_beak,lambda_top,lambda_bottom"
    )?;
    let steps = sim.steps_until(args.final_time)?;
    let (mut pecks, mut pecking, mut y) = (0, false, 0.0);
    for k in 0..=steps {
        if k > 0 {
            sim.step()?;
        }
        // λ = (N, T) of the beak, the sleeve's top edge, its bottom edge.
        let s = sim.sample()?;
        let beak = s.lambda[0] > 0.0;
        pecks += usize::from(beak && !pecking);
        (pecking, y) = (beak, s.q[0]);
        writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{}",
            s.t, s.q[0], s.v[0], s.q[1], s.v[1], s.q[2], s.v[2], s.lambda[0], s.lambda[2], s.lambda[4]
        )?;
    }
    out.flush()?;
    println!(
        "the sleeve went down {:.4} m in {} s with {pecks} pecks",
        -y, args.final_time
    );
    Ok(())
}
