//! A billiard cut shot in 3-D ([`BilliardShot`]): a cue ball struck with follow (or draw) and
//! side spin slides, rolls and hits an object ball on a rough table. Written as CSV
//! `t,cue_x,cue_y,object_x,object_y,cue_vx,cue_vy,object_vx,object_vy,lambda_balls`: the
//! balls' centres and velocities on the table and the normal impulse between the balls in the
//! step. Prints the object ball's direction after the shot and the cut angle of the line of
//! centres at contact, asin(b / 2R): without friction between the balls they differ only by
//! the step's error in where the balls meet (O(v h / R)).
//!
//! cargo run --release --example billiard_shot -- --out shot.csv [--speed 2] [--follow 0]
//!     [--english 0] [--offset 0.02] [--table-friction 0.2] [--ball-friction 0.05]
//!     [--step 0.001] [--final-time 1.5]

use std::io::Write;

use clap::Parser;
use ricochet::scenes::billiard_shot::BilliardShot;

#[derive(Parser)]
#[command(allow_negative_numbers = true)]
struct Args {
    /// Output CSV file.
    #[arg(long)]
    out: std::path::PathBuf,
    /// The cue ball's speed (m/s).
    #[arg(long, default_value_t = 2.0)]
    speed: f64,
    /// The cue ball's follow ω_y (rad/s; negative is draw).
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    follow: f64,
    /// The cue ball's side spin ω_z (rad/s).
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    english: f64,
    /// The object ball's offset across the line of the shot (m).
    #[arg(long, default_value_t = 0.02, allow_hyphen_values = true)]
    offset: f64,
    /// Coulomb coefficient μ of the table.
    #[arg(long, default_value_t = 0.2)]
    table_friction: f64,
    /// Coulomb coefficient μ between the balls.
    #[arg(long, default_value_t = 0.05)]
    ball_friction: f64,
    /// Time step h (s).
    #[arg(long, default_value_t = 1e-3)]
    step: f64,
    /// Final time (s).
    #[arg(long, default_value_t = 1.5)]
    final_time: f64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let shot = BilliardShot {
        speed: args.speed,
        follow: args.follow,
        english: args.english,
        offset: args.offset,
        table_friction: args.table_friction,
        ball_friction: args.ball_friction,
        step: args.step,
        ..Default::default()
    };
    let mut sim = shot.simulation()?;
    let mut out = std::io::BufWriter::new(std::fs::File::create(&args.out)?);
    writeln!(
        out,
        "t,cue_x,cue_y,object_x,object_y,cue_vx,cue_vy,object_vx,object_vy,lambda_balls"
    )?;
    let steps = sim.steps_until(args.final_time)?;
    let mut object = [0.0, 0.0];
    for k in 0..=steps {
        if k > 0 {
            sim.step()?;
        }
        // q, v = (cue: x, y, z, angles | object: x, y, z, angles); λ = (cue table: 3, object
        // table: 3, balls: normal and two tangents).
        let s = sim.sample()?;
        object = [s.v[6], s.v[7]];
        writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{}",
            s.t, s.q[0], s.q[1], s.q[6], s.q[7], s.v[0], s.v[1], s.v[6], s.v[7], s.lambda[6]
        )?;
    }
    out.flush()?;
    let speed = object[0].hypot(object[1]);
    let heading = object[1].atan2(object[0]).to_degrees();
    let cut = args.offset / (2.0 * shot.radius);
    if cut.abs() < 1.0 {
        println!(
            "object ball: {speed:.4} m/s at {heading:.2}°; line of centres at contact: {:.2}°",
            cut.asin().to_degrees()
        );
    } else {
        println!("object ball: {speed:.4} m/s at {heading:.2}°; |offset| ≥ 2R: the cue ball misses it");
    }
    Ok(())
}
