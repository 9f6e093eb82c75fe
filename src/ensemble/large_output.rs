//! The files of a large-scene run: `series.csv` (a row every `every` steps), `final.csv`
//! (a row per body) and the VTK snapshots.

use std::io::Write;
use std::path::Path;

use super::atomic::write_atomically;
use crate::error::Result;
use crate::io::vtk;
use crate::large_scene::{Dimension, LargeScene, StepReport};

/// The columns of `series.csv`.
pub const SERIES_HEADER: &str = "t,kinetic_energy,potential_energy,contacts,candidates,colours,sweeps,residual,converged,max_penetration,discharged";

/// Writes the scene's state after step `k` as `snapshots/step_{k:07}.vtp` under `out`: the
/// centres as points with `radius`, `mass`, `velocity`, `angular_velocity` and `present` (1,
/// or 0 once discharged); returns its time and path for the `.pvd` index.
pub fn snapshot(out: &Path, scene: &LargeScene, k: u64) -> Result<(f64, String)> {
    let b = &scene.bodies;
    let flat = |v: &[[f64; 3]]| v.iter().flatten().copied().collect::<Vec<f64>>();
    let (velocity, spin) = (flat(&b.v), flat(&b.omega));
    let present: Vec<f64> = b.present.iter().map(|&p| f64::from(u8::from(p))).collect();
    let array = |name, components, values| vtk::PointArray {
        name,
        components,
        values,
    };
    let text = vtk::polydata(
        &b.x,
        &[
            array("radius", 1, &b.radius),
            array("mass", 1, &b.mass),
            array("velocity", 3, &velocity),
            array("angular_velocity", 3, &spin),
            array("present", 1, &present),
        ],
    );
    let file = snapshot_file(k);
    write_atomically(&out.join(&file), |p| Ok(std::fs::write(p, &text)?))?;
    Ok((scene.time, file))
}

/// The snapshot after step `k`, relative to the run's directory.
pub fn snapshot_file(k: u64) -> String {
    format!("snapshots/step_{k:07}.vtp")
}

/// One row of `series.csv` after a step (`None`: the initial state, no solve).
pub fn series_row(scene: &LargeScene, report: Option<&StepReport>) -> String {
    let b = &scene.bodies;
    let (kinetic, potential) = (b.kinetic_energy(), b.potential_energy(scene.gravity));
    match report {
        Some(r) => format!(
            "{},{kinetic:e},{potential:e},{},{},{},{},{:e},{},{:e},{}",
            scene.time,
            r.active,
            r.candidates,
            r.colours,
            r.sweeps,
            r.residual,
            u8::from(r.converged),
            r.max_penetration,
            r.discharged
        ),
        None => format!("{},{kinetic:e},{potential:e},0,0,0,0,0,1,0,0", scene.time),
    }
}

/// The columns of `final.csv` for the scene's dimension.
pub fn final_header(scene: &LargeScene) -> String {
    match scene.bodies.dimension {
        Dimension::Two => "body,x,y,theta,vx,vy,omega,radius,mass".into(),
        Dimension::Three => "body,x,y,z,vx,vy,vz,omega_x,omega_y,omega_z,radius,mass".into(),
    }
}

/// One row per body: its state, radius and mass (floats in Rust's shortest round-trip form).
pub fn final_rows(scene: &LargeScene) -> Vec<String> {
    let b = &scene.bodies;
    (0..b.len())
        .map(|k| {
            let (x, v, w) = (b.x[k], b.v[k], b.omega[k]);
            match b.dimension {
                Dimension::Two => format!(
                    "{k},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e}",
                    x[0], x[1], b.angle[k], v[0], v[1], w[2], b.radius[k], b.mass[k]
                ),
                Dimension::Three => format!(
                    "{k},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e}",
                    x[0], x[1], x[2], v[0], v[1], v[2], w[0], w[1], w[2], b.radius[k], b.mass[k]
                ),
            }
        })
        .collect()
}

/// `header`, then `rows`, a line each, into `path`.
pub fn write_lines(path: &Path, header: &str, rows: &[String]) -> Result<()> {
    let mut file = std::io::BufWriter::new(std::fs::File::create(path)?);
    writeln!(file, "{header}")?;
    for row in rows {
        writeln!(file, "{row}")?;
    }
    file.flush()?;
    Ok(())
}
