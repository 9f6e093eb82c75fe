//! Siconos's DiodeBridge: an LC oscillator rectified by four ideal diodes, written as CSV
//! `t,voltage,current,diode_r1_current,diode_r1_voltage,diode_f2_voltage,diode_f1_current,resistor_current`
//! (the columns of DiodeBridge.ref).
//!
//! cargo run --release --example diode_bridge -- --out diode.csv [--step 1e-6] [--final-time 5e-3]

use std::io::Write;

use clap::Parser;
use ricochet::reference::Trajectory;
use ricochet::scenes::diode_bridge::DiodeBridge;

#[derive(Parser)]
#[command(allow_negative_numbers = true)]
struct Args {
    /// Output CSV file.
    #[arg(long)]
    out: std::path::PathBuf,
    /// Time step h (s).
    #[arg(long, default_value_t = 1e-6)]
    step: f64,
    /// Final time (s).
    #[arg(long, default_value_t = 5e-3)]
    final_time: f64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let bridge = DiodeBridge {
        step: args.step,
        ..Default::default()
    };
    let mut trajectory = Trajectory::default();
    bridge.simulation()?.run(args.final_time, &mut trajectory)?;
    let mut out = std::io::BufWriter::new(std::fs::File::create(&args.out)?);
    writeln!(
        out,
        "t,voltage,current,diode_r1_current,diode_r1_voltage,diode_f2_voltage,diode_f1_current,resistor_current"
    )?;
    for s in &trajectory.samples {
        let (y, l) = (&s.y, &s.lambda);
        writeln!(
            out,
            "{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e}",
            s.t,
            s.q[0],
            s.q[1],
            y[0],
            -l[0],
            -l[1],
            l[2],
            y[0] + l[2]
        )?;
    }
    println!("wrote {} rows to {}", trajectory.len(), args.out.display());
    Ok(())
}
