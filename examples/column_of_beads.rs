//! Siconos's ColumnOfBeadsTS: ten beads falling on the floor and on each other, written as
//! CSV `t,z0,v0,z1,v1,…`.
//!
//! cargo run --release --example column_of_beads -- --out beads.csv [--beads 10]
//!     [--restitution 0.9] [--step 5e-4] [--final-time 2]

use std::io::Write;

use clap::Parser;
use ricochet::reference::Trajectory;
use ricochet::scenes::column_of_beads::ColumnOfBeads;

#[derive(Parser)]
#[command(allow_negative_numbers = true)]
struct Args {
    /// Output CSV file.
    #[arg(long)]
    out: std::path::PathBuf,
    /// Number of beads.
    #[arg(long, default_value_t = 10)]
    beads: usize,
    /// Restitution coefficient e.
    #[arg(long, default_value_t = 0.9)]
    restitution: f64,
    /// Time step h (s).
    #[arg(long, default_value_t = 5e-4)]
    step: f64,
    /// Final time (s).
    #[arg(long, default_value_t = 2.0)]
    final_time: f64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let column = ColumnOfBeads {
        beads: args.beads,
        restitution: args.restitution,
        step: args.step,
        ..Default::default()
    };
    let mut sim = column.simulation()?;
    let mut trajectory = Trajectory::default();
    sim.run(args.final_time, &mut trajectory)?;
    let mut out = std::io::BufWriter::new(std::fs::File::create(&args.out)?);
    let header: Vec<String> = (0..args.beads).map(|i| format!("z{i},v{i}")).collect();
    writeln!(out, "t,{}", header.join(","))?;
    for s in &trajectory.samples {
        let row: Vec<String> = sim
            .beads()
            .iter()
            .map(|&b| format!("{:e},{:e}", s.q[3 * b.0], s.v[3 * b.0]))
            .collect();
        writeln!(out, "{:e},{}", s.t, row.join(","))?;
    }
    println!("wrote {} rows to {}", trajectory.len(), args.out.display());
    Ok(())
}
