//! An [`Nsds`] gathered over its coordinates into a [`Gathered`] scene — M, K, C, F_ext and
//! each relation's rows (linear H, quadratic Y, sphere rows, lever terms, friction layout) —
//! and reduced by [`LinearScene::reduce`]: [`LinearScene::from_nsds`].

use nalgebra::{DMatrix, DVector};

use super::gathered::Gathered;
use super::layout::RowKind;
use super::linear_scene::LinearScene;
use crate::error::{Error, Result};
use crate::model::{DynamicalSystem, ExternalForce, NonSmoothLaw, Nsds, Relation};
use crate::scheme::Stabilization;

impl LinearScene {
    /// Reduces `nsds` for steps of size `h` with θ = `theta` and the `stabilization` of its
    /// equalities. Supported: `LagrangianLinearTIDS`, and `LagrangianDS` with a constant mass
    /// and neither F_int nor F_gyr, with constant or harmonic F_ext (one ω, φ and end per
    /// scene); `LagrangianLinearTIR`, `SphereSphereR` and position-level coordinate-vector
    /// constraints (X, Y, offset) with `NewtonImpactNSL` (one row) or `EqualityConditionNSL`,
    /// and `LagrangianLinearTIR`, `PlanarContactR`, `DiskDiskR`, `SphereLDSSphereLDSR` with
    /// `NewtonImpactFrictionNSL` (rows: normal, tangents), under no stabilisation or
    /// Baumgarte's. Anything else is [`Error::Unsupported`].
    pub fn from_nsds(nsds: &Nsds, h: f64, theta: f64, stabilization: Stabilization) -> Result<Self> {
        Self::check_step(h, theta)?;
        let beta = Self::feedback_gain(stabilization)?;
        let (gathered, names) = gather(nsds)?;
        Self::reduce(gathered, h, theta, beta, &|row| format!("interaction `{}`", names[row]))
    }

    /// Reduces `nsds` for nonsmooth RATTLE steps of size `h` ([`LinearScene::reduce_rattle`]):
    /// the systems and relations [`LinearScene::from_nsds`] takes, without friction.
    pub fn from_nsds_rattle(nsds: &Nsds, h: f64) -> Result<Self> {
        crate::validate::scalar("time step h", h, h > 0.0, "must be > 0")?;
        let (gathered, names) = gather(nsds)?;
        Self::reduce_rattle(gathered, h, &|row| format!("interaction `{}`", names[row]))
    }
}

/// `nsds` over its coordinates, and the name of each row's interaction.
fn gather(nsds: &Nsds) -> Result<(Gathered, Vec<&str>)> {
    let unsupported = |what: &str, reason: &str| Error::Unsupported {
        what: what.into(),
        reason: reason.into(),
    };
    let n: usize = nsds.systems().map(|(_, ds)| ds.dimension()).sum();
    let (mut mass, mut stiffness, mut damping) = (DMatrix::zeros(n, n), DMatrix::zeros(n, n), DMatrix::zeros(n, n));
    let (mut q0, mut v0, mut fext) = (DVector::zeros(n), DVector::zeros(n), DVector::zeros(n));
    let (mut amplitude, mut frequency) = (DVector::zeros(n), None);
    let mut offsets = Vec::new();
    let mut o = 0;
    for (name, ds) in nsds.systems() {
        let (m_ds, k_ds, c_ds, q_ds, v_ds, fext_ds) = match ds {
            DynamicalSystem::LagrangianLinearTIDS(ds) => (
                &ds.mass,
                Some(&ds.stiffness),
                Some(&ds.damping),
                &ds.q0,
                &ds.v0,
                &ds.fext,
            ),
            DynamicalSystem::LagrangianDS(ds) if ds.fint.is_none() && ds.fgyr.is_none() => {
                let mass = ds.constant_mass.as_ref().ok_or_else(|| {
                    unsupported(
                        &format!("system `{name}`"),
                        "the batched engines need a constant mass matrix",
                    )
                })?;
                (mass, None, None, &ds.q0, &ds.v0, &ds.fext)
            }
            ds if !ds.is_lagrangian() => {
                return Err(unsupported(
                    &format!("system `{name}`"),
                    "is first-order: the batched engines run Moreau–Jean on Lagrangian systems (the reference engine runs first-order scenes with Euler–Moreau)",
                ));
            }
            _ => {
                return Err(unsupported(
                    &format!("system `{name}`"),
                    "the batched engines take LagrangianLinearTIDS, or LagrangianDS with a constant mass and no F_int or F_gyr",
                ));
            }
        };
        let d = q_ds.len();
        let f = match fext_ds {
            ExternalForce::Constant(f) => f,
            ExternalForce::Harmonic(force) => {
                let key = (force.omega, force.phase, force.end);
                if *frequency.get_or_insert(key) != key {
                    return Err(unsupported(
                        &format!("system `{name}`"),
                        "the batched engines take one harmonic frequency, phase and end per scene",
                    ));
                }
                amplitude.rows_mut(o, d).copy_from(&force.amplitude);
                &force.constant
            }
            ExternalForce::Function(_) => {
                return Err(unsupported(
                    &format!("system `{name}`"),
                    "the batched engines take a constant or harmonic F_ext, not a closure",
                ));
            }
        };
        mass.view_mut((o, o), (d, d)).copy_from(m_ds);
        if let (Some(k), Some(c)) = (k_ds, c_ds) {
            stiffness.view_mut((o, o), (d, d)).copy_from(k);
            damping.view_mut((o, o), (d, d)).copy_from(c);
        }
        q0.rows_mut(o, d).copy_from(q_ds);
        v0.rows_mut(o, d).copy_from(v_ds);
        fext.rows_mut(o, d).copy_from(f);
        offsets.push(o);
        o += d;
    }
    let m: usize = nsds.interactions().iter().map(|inter| inter.size()).sum();
    let (mut hmat, mut offset, mut restitution) = (DMatrix::zeros(m, n), DVector::zeros(m), DVector::zeros(m));
    let mut rows = vec![RowKind::Contact; m];
    let mut mu = vec![0.0; m];
    let mut quadratic = DMatrix::zeros(m, n);
    let mut distance = vec![[0.0; 6]; m];
    let mut lever = vec![[0.0; 3]; m];
    // G(q₀) from the relations themselves, for the check that PGS can divide by its rows.
    let mut g0 = DMatrix::zeros(m, n);
    let mut names = Vec::with_capacity(m);
    let mut row = 0;
    for inter in nsds.interactions() {
        let what = format!("interaction `{}`", inter.name);
        let size = inter.size();
        // Restitution of the normal row and of the others, equality, the friction law.
        let (law_e, row_e, is_equality, coulomb) = match inter.law {
            NonSmoothLaw::NewtonImpact(law) if size == 1 => (law.e(), law.e(), false, None),
            NonSmoothLaw::EqualityCondition(_) => (0.0, 0.0, true, None),
            NonSmoothLaw::NewtonImpactFriction(law)
                if matches!(
                    inter.relation,
                    Relation::LagrangianLinearTIR(_)
                        | Relation::PlanarContact(_)
                        | Relation::DiskDisk(_)
                        | Relation::SphereLDSSphereLDS(_)
                ) =>
            {
                (law.e_n(), law.e_t(), false, Some(law.mu()))
            }
            _ => {
                return Err(unsupported(
                    &what,
                    "the batched engines take one-row NewtonImpactNSL contacts, EqualityConditionNSL rows and NewtonImpactFrictionNSL on LagrangianLinearTIR, PlanarContactR, DiskDiskR or SphereLDSSphereLDSR only",
                ));
            }
        };
        let (g, y, b) = match &inter.relation {
            Relation::SphereSphere(r) => {
                let first = |k: usize| offsets[inter.systems[k].0] as f64;
                let (i0, i1) = if r.coordinates[0] == 0 {
                    (-1.0, first(0))
                } else {
                    (first(0), first(1))
                };
                let [c0, c1, c2] = r.centre;
                distance[row] = [r.dim as f64, i0, i1, c0, c1, c2];
                let zero = DMatrix::zeros(1, r.marker_coordinates());
                (zero.clone(), zero, DVector::from_element(1, -r.radii))
            }
            Relation::LagrangianLinearTIR(rel) => {
                // (F z at the systems' z as built: nothing changes z in a batched run.)
                let z = nsds.gather(&inter.systems, DynamicalSystem::z);
                (rel.h.clone(), DMatrix::zeros(size, rel.h.ncols()), rel.offset(&z)?)
            }
            Relation::DiskDisk(r) => {
                // The normal row a 2-D sphere–sphere gap, the tangent row its kind −2 (the
                // pair's tangent t, re-evaluated per iterate) plus the constant −R θ̇ terms.
                let first = |k: usize| offsets[inter.systems[k].0] as f64;
                distance[row] = [2.0, first(0), first(1), 0.0, 0.0, 0.0];
                distance[row + 1] = [-2.0, first(0), first(1), 0.0, 0.0, 0.0];
                let mut g = DMatrix::zeros(2, r.gap.marker_coordinates());
                g.row_mut(1).copy_from(&r.lever_row().row(0));
                let b = DVector::from_vec(vec![-r.gap.radii, 0.0]);
                (g.clone(), DMatrix::zeros(2, g.ncols()), b)
            }
            Relation::SphereLDSSphereLDS(r) => {
                // The normal row a 3-D gap, the tangent rows kinds −3, −4 (t₁, t₂ of the
                // frame of n, with the radii for their −R (n × t)·ω terms).
                let first = |k: usize| offsets[inter.systems[k].0] as f64;
                let [r0, r1] = r.radius;
                distance[row] = [3.0, first(0), first(1), 0.0, 0.0, 0.0];
                distance[row + 1] = [-3.0, first(0), first(1), r0, r1, 0.0];
                distance[row + 2] = [-4.0, first(0), first(1), r0, r1, 0.0];
                let zero = DMatrix::zeros(3, r.gap.marker_coordinates());
                (zero.clone(), zero, DVector::from_vec(vec![-r.gap.radii, 0.0, 0.0]))
            }
            Relation::PlanarContact(r) => {
                let (g, b, terms) = r.lever();
                let angle = (offsets[inter.systems[0].0] + 2) as f64;
                for (k, [a, bt]) in terms.into_iter().enumerate() {
                    lever[row + k] = [angle, a, bt];
                }
                (g.clone(), DMatrix::zeros(size, g.ncols()), b)
            }
            Relation::CoordinateVector(c) if !c.is_velocity_level() && c.is_active() => {
                c.quadratic_form().ok_or_else(|| {
                    unsupported(
                        &what,
                        "the batched engines take no user constraint function: use X, Y and the offset",
                    )
                })?
            }
            _ => {
                return Err(unsupported(
                    &what,
                    "the batched engines take LagrangianLinearTIR, SphereSphereR, PlanarContactR, DiskDiskR, SphereLDSSphereLDSR and active position-level coordinate-vector constraints only",
                ));
            }
        };
        let z = nsds.gather(&inter.systems, DynamicalSystem::z);
        let g_start = inter.jacobian(&nsds.gather(&inter.systems, |ds| ds.initial_state().0), &z, 0.0)?;
        for k in 0..size {
            let mut col = 0;
            for id in &inter.systems {
                let d = nsds.system(*id).dimension();
                for j in 0..d {
                    hmat[(row + k, offsets[id.0] + j)] = g[(k, col + j)];
                    quadratic[(row + k, offsets[id.0] + j)] = y[(k, col + j)];
                    g0[(row + k, offsets[id.0] + j)] = g_start[(k, col + j)];
                }
                col += d;
            }
            offset[row + k] = b[k];
            restitution[row + k] = if k == 0 { law_e } else { row_e };
            rows[row + k] = match (is_equality, coulomb, k, size) {
                (true, ..) => RowKind::Equality,
                (false, None, ..) => RowKind::Contact,
                (false, Some(_), 0, 2) => RowKind::Normal2d,
                (false, Some(_), 0, 3) => RowKind::Normal3d,
                (false, Some(_), 0, _) => return Err(unsupported(&what, "a friction contact has 2 or 3 rows")),
                (false, Some(_), ..) => RowKind::Tangent,
            };
            mu[row + k] = coulomb.unwrap_or(0.0);
            names.push(inter.name.as_str());
        }
        row += size;
    }
    Ok((
        Gathered {
            mass,
            stiffness,
            damping,
            fext,
            amplitude,
            frequency,
            q0,
            v0,
            h: hmat,
            quadratic,
            offset,
            restitution,
            rows,
            mu,
            distance,
            lever,
            g0,
        },
        names,
    ))
}
