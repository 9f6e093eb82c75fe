//! A ball dropped with spin and horizontal speed onto a rough floor, in 3-D
//! ([`SpinningBall`]); written as CSV `t,x,z,vx,vz,wy,slip,lambda_n,lambda_t`: the centre, its
//! velocity, the spin about y, the contact point's sliding velocity v_x − R ω_y, and the normal
//! and tangential impulses of the step. The floor's friction conserves m v_x + (I/R) ω_y, so
//! once the ball rolls its speed is (5 v_x + 2 R ω_y)/7 of its start: the example prints both.
//!
//! cargo run --release --example spinning_ball -- --out ball.csv [--height 0.5] [--vx 1]
//!     [--wy -20] [--restitution 0.8] [--friction 0.5] [--step 0.001] [--final-time 2]

use std::io::Write;

use clap::Parser;
use ricochet::scenes::spinning_ball::SpinningBall;

#[derive(Parser)]
#[command(allow_negative_numbers = true)]
struct Args {
    /// Output CSV file.
    #[arg(long)]
    out: std::path::PathBuf,
    /// Initial height of the centre (m).
    #[arg(long, default_value_t = 0.5)]
    height: f64,
    /// Initial horizontal velocity v_x (m/s).
    #[arg(long, default_value_t = 1.0)]
    vx: f64,
    /// Initial spin ω_y (rad/s; negative is backspin for v_x > 0).
    #[arg(long, default_value_t = -20.0, allow_hyphen_values = true)]
    wy: f64,
    /// Normal restitution e_N.
    #[arg(long, default_value_t = 0.8)]
    restitution: f64,
    /// Coulomb coefficient μ.
    #[arg(long, default_value_t = 0.5)]
    friction: f64,
    /// Time step h (s).
    #[arg(long, default_value_t = 1e-3)]
    step: f64,
    /// Final time (s).
    #[arg(long, default_value_t = 2.0)]
    final_time: f64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let ball = SpinningBall {
        height: args.height,
        velocity: [args.vx, 0.0, 0.0],
        spin: [0.0, args.wy, 0.0],
        restitution: args.restitution,
        friction: args.friction,
        step: args.step,
        ..Default::default()
    };
    let r = ball.radius;
    let mut sim = ball.simulation()?;
    let mut out = std::io::BufWriter::new(std::fs::File::create(&args.out)?);
    writeln!(out, "t,x,z,vx,vz,wy,slip,lambda_n,lambda_t")?;
    let steps = sim.steps_until(args.final_time)?;
    let mut last = (0.0, 0.0);
    for k in 0..=steps {
        if k > 0 {
            sim.step()?;
        }
        // q = (x, y, z, angles), v = (v, ω); λ = (normal, tangent x, tangent y).
        let s = sim.sample()?;
        let (vx, wy) = (s.v[0], s.v[4]);
        last = (vx, vx - r * wy);
        writeln!(
            out,
            "{},{},{},{},{},{},{},{},{}",
            s.t,
            s.q[0],
            s.q[2],
            vx,
            s.v[2],
            wy,
            vx - r * wy,
            s.lambda[0],
            s.lambda[1]
        )?;
    }
    out.flush()?;
    println!(
        "v_x(T) = {:.6} m/s, slip {:.1e} m/s; rolling (5 v_x + 2 R ω_y)/7 = {:.6} m/s",
        last.0,
        last.1,
        (5.0 * args.vx + 2.0 * r * args.wy) / 7.0
    );
    Ok(())
}
