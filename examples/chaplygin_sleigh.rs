//! The Chaplygin sleigh (a knife edge: the non-holonomic constraint −sin φ ẋ + cos φ ẏ − a φ̇ = 0);
//! written as CSV `t,x,y,phi,vx,vy,vphi,residual` (residual = |a(q) v|), and the deviation
//! from the exact solution printed at the end.
//!
//! cargo run --release --example chaplygin_sleigh -- --out sleigh.csv [--step 0.001]
//!     [--final-time 10] [--angular-velocity 2] [--speed 0]

use clap::Parser;
use ricochet::reference::Trajectory;
use ricochet::scenes::chaplygin_sleigh::ChaplyginSleigh;

#[derive(Parser)]
#[command(allow_negative_numbers = true)]
struct Args {
    /// Output CSV file.
    #[arg(long)]
    out: std::path::PathBuf,
    /// Time step h (s).
    #[arg(long, default_value_t = 1e-3)]
    step: f64,
    /// Final time (s).
    #[arg(long, default_value_t = 10.0)]
    final_time: f64,
    /// Initial angular velocity ω₀ (rad/s).
    #[arg(long, default_value_t = 2.0)]
    angular_velocity: f64,
    /// Initial forward speed u₀ (m/s).
    #[arg(long, default_value_t = 0.0)]
    speed: f64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let sleigh = ChaplyginSleigh {
        step: args.step,
        angular_velocity: args.angular_velocity,
        speed: args.speed,
        ..Default::default()
    };
    let mut trajectory = Trajectory::default();
    sleigh.simulation()?.run(args.final_time, &mut trajectory)?;
    trajectory.write_csv(std::fs::File::create(&args.out)?, &["x", "y", "phi"], |s| {
        s.velocity_residual
    })?;
    let last = &trajectory.samples[trajectory.len() - 1];
    let (u, w) = ChaplyginSleigh::speeds(&last.q, &last.v);
    let (u_exact, w_exact, phi_exact) = sleigh.exact(last.t);
    println!("wrote {} rows to {}", trajectory.len(), args.out.display());
    println!(
        "t = {}: u − u_exact = {:.2e}, ω − ω_exact = {:.2e}, φ − φ_exact = {:.2e}",
        last.t,
        u - u_exact,
        w - w_exact,
        last.q[2] - phi_exact
    );
    Ok(())
}
