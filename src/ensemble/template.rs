//! The named scene templates of scenario files, and the generic linear one.
//!
//! A template turns the parameters of one scene (each fixed or drawn from the scene's random
//! stream, see [`super::sampling`]) into an [`Nsds`]. Parameters are drawn in the order the
//! template asks for them, so a scene's values depend on the seed and its index only.

use std::collections::{BTreeMap, BTreeSet};

use nalgebra::{DMatrix, DVector};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::sampling::Parameter;
use crate::engine::Scene;
use crate::error::{Error, Result};
use crate::model::{
    CoordinateVectorConstraint, EqualityConditionNSL, LagrangianLinearTIDS, LagrangianLinearTIR, NewtonImpactNSL, Nsds,
};
use crate::scenes::chaplygin_sleigh::ChaplyginSleigh;
use crate::scenes::disc_pile::DiscPile;
use crate::scenes::dropped_ball::DroppedBall;
use crate::scenes::impact_oscillator::ImpactOscillator;
use crate::scenes::pendulum::{Pendulum, Wall};
use crate::scenes::slider_crank::SliderCrank;
use crate::scenes::{impacting_bar::ImpactingBar, newtons_cradle::NewtonsCradle};

/// The scene templates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Template {
    /// A ball dropped on the floor: one dof z (centre height), M = m, F_ext = −m g,
    /// y = z − R, Newton impact e. Parameters: `mass` 1, `radius` 0.1, `height` 1 (z₀),
    /// `velocity` 0 (ż₀), `restitution` 0.9, `gravity` 9.81.
    BouncingBall,
    /// Newton's cradle on a line ([`NewtonsCradle`]). Parameters: `balls` 5, `radius` 0.02,
    /// `mass` 0.1, `gap` 1e-3, `approach` 0.01, `velocity` 1, `restitution` 1.
    NewtonsCradle,
    /// A vertical column of beads falling on the floor (ColumnOfBeadsTS with one dof per
    /// bead, every contact linked). Parameters: `beads` 4, `radius` 0.1, `mass` 1,
    /// `gravity` 9.81, `height` 1 (centre of bead 0), `spacing` 0.25, `restitution` 0.9.
    ColumnOfBeads,
    /// Siconos's impacting elastic bar ([`ImpactingBar`]). Parameters: `nodes` 20, `young`
    /// 210e9, `section` 3.14e-4, `length` 1, `density` 7800, `position` 5e-5, `velocity` −0.1,
    /// `restitution` 0.
    ImpactingBar,
    /// The impact oscillator ([`ImpactOscillator`]: a mass–spring–damper under harmonic
    /// forcing A cos(ω t + φ) hitting a stop at x = g). Parameters: `mass` 1, `stiffness` 1,
    /// `damping` 0, `amplitude` 1, `frequency` 0.8 (ω), `phase` 0, `gap` 1, `restitution`
    /// 0.8, `position` 0, `velocity` 0.
    ImpactOscillator,
    /// Discs dropped into a box ([`DiscPile`]: sphere–plane walls, sphere–sphere pairs, 2-D).
    /// Parameters: `discs` 4, `radius` 0.1, `mass` 1, `width` 1, `gravity` 9.81, `restitution`
    /// 0.5, `stagger` 0.05 (alternate sideways shift of the column), `x0`, `x1`, … (extra
    /// sideways shift of disc i, 0).
    DiscPile,
    /// Two balls joined by a rigid rod, falling on the floor: dofs z₀, z₁, the equality
    /// z₁ − z₀ = `length` (a linear coordinate-vector constraint) and a Newton contact of the
    /// lower ball. It bounces as one ball of mass m₀ + m₁. Parameters: `mass0` 1, `mass1` 1,
    /// `radius` 0.1, `height` 1 (z₀), `length` 0.5, `restitution` 0.9, `gravity` 9.81.
    Dumbbell,
    /// The pendulum ([`Pendulum`]: a point mass on a rod x² + y² = L², a quadratic
    /// coordinate-vector constraint; every backend). Parameters: `length` 1, `mass` 1,
    /// `gravity` 9.81, `angle` π/2 (from the downward vertical), `angular_velocity` 0.
    Pendulum,
    /// The pendulum hitting a wall at the bottom of its swing. Parameters: those of
    /// `pendulum` and `restitution` 0.8.
    PendulumHittingWall,
    /// The slider–crank with a stop ([`SliderCrank`]; reference backend). Parameters: `crank`
    /// 0.1, `rod` 0.3, `pin_mass` 1, `slider_mass` 1, `angle` π/2, `angular_velocity` −10,
    /// `stop` 0.38, `restitution` 0.8.
    SliderCrank,
    /// The Chaplygin sleigh ([`ChaplyginSleigh`], non-holonomic; reference backend).
    /// Parameters: `mass` 1, `inertia` 0.1, `arm` 0.5, `speed` 0, `angular_velocity` 2,
    /// `heading` 0.
    ChaplyginSleigh,
    /// Written out: `mass`, `stiffness`, `damping` (n × n matrices; K, C default 0), `fext`,
    /// `q0`, `v0` (n-vectors of parameters), `h` (m × n: contact rows y = H q + b), `b`, `e`
    /// (m-vectors of parameters).
    Linear,
}

/// A scenario value: a parameter, a vector of parameters, or a matrix of numbers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Value {
    /// A number or a distribution.
    Parameter(Parameter),
    /// Entries each fixed or drawn.
    Vector(Vec<Parameter>),
    /// Rows of numbers.
    Matrix(Vec<Vec<f64>>),
}

/// The `[scene]` table: a template and its parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SceneSpec {
    /// Which template.
    pub template: Template,
    /// Its parameters (the others take their defaults).
    #[serde(flatten)]
    pub parameters: BTreeMap<String, Value>,
}

/// One scene drawn from a scenario.
pub struct SampledScene {
    /// Its index in the ensemble.
    pub index: usize,
    /// The values of the drawn parameters, in [`SceneSpec::drawn_names`] order.
    pub drawn: Vec<f64>,
    /// The scene.
    pub scene: Box<dyn Scene>,
}

impl SceneSpec {
    /// The scene built from the random stream `rng` (scene `index`).
    pub fn sample(&self, index: usize, rng: ChaCha8Rng) -> Result<SampledScene> {
        let mut draw = Draw::new(self, rng);
        let scene = self.build(&mut draw)?;
        Ok(SampledScene {
            index,
            drawn: draw.drawn,
            scene,
        })
    }

    /// Checks the parameters (names, distributions, sizes) by building one scene, and returns
    /// the names of the drawn ones (the columns they get in summaries).
    pub fn drawn_names(&self, rng: ChaCha8Rng) -> Result<Vec<String>> {
        let mut draw = Draw::new(self, rng);
        self.build(&mut draw)?;
        let used: BTreeSet<&str> = draw.used.iter().map(String::as_str).collect();
        if let Some(unknown) = self.parameters.keys().find(|k| !used.contains(k.as_str())) {
            return Err(Error::Scenario {
                what: format!("parameter `{unknown}`"),
                reason: format!(
                    "not a parameter of template {:?} (it takes: {})",
                    self.template,
                    draw.used.join(", ")
                ),
            });
        }
        Ok(draw.names)
    }

    /// The scene of `template`: the bouncing ball in closed form, the others as their `Nsds`.
    fn build(&self, d: &mut Draw) -> Result<Box<dyn Scene>> {
        match self.template {
            Template::BouncingBall => Ok(Box::new(self.dropped_ball(d)?)),
            _ => Ok(Box::new(self.build_nsds(d)?)),
        }
    }

    /// The `bouncing_ball` template's ball (parameters drawn in this order).
    fn dropped_ball(&self, d: &mut Draw) -> Result<DroppedBall> {
        let (m, r, z0, v0) = (
            d.scalar("mass", 1.0)?,
            d.scalar("radius", 0.1)?,
            d.scalar("height", 1.0)?,
            d.scalar("velocity", 0.0)?,
        );
        let (e, g) = (d.scalar("restitution", 0.9)?, d.scalar("gravity", 9.81)?);
        DroppedBall::new(m, r, z0, v0, e, g)
    }

    fn build_nsds(&self, d: &mut Draw) -> Result<Nsds> {
        match self.template {
            Template::BouncingBall => self.dropped_ball(d)?.nsds(),
            Template::NewtonsCradle => Ok(NewtonsCradle {
                balls: d.count("balls", 5)?,
                radius: d.scalar("radius", 0.02)?,
                mass: d.scalar("mass", 0.1)?,
                gap: d.scalar("gap", 1e-3)?,
                approach: d.scalar("approach", 0.01)?,
                velocity: d.scalar("velocity", 1.0)?,
                restitution: d.scalar("restitution", 1.0)?,
                ..Default::default()
            }
            .nsds()?
            .0),
            Template::ColumnOfBeads => {
                let n = d.count("beads", 4)?;
                let (r, m, g) = (
                    d.scalar("radius", 0.1)?,
                    d.scalar("mass", 1.0)?,
                    d.scalar("gravity", 9.81)?,
                );
                let (z0, spacing, e) = (
                    d.scalar("height", 1.0)?,
                    d.scalar("spacing", 0.25)?,
                    d.scalar("restitution", 0.9)?,
                );
                let mut nsds = Nsds::new();
                let mut beads = Vec::with_capacity(n);
                for i in 0..n {
                    let z = z0 + spacing * i as f64;
                    let bead = LagrangianLinearTIDS::new(vector(&[z]), vector(&[0.0]), DMatrix::from_element(1, 1, m))?
                        .with_fext(vector(&[-m * g]))?;
                    beads.push(nsds.add(&format!("bead {i}"), bead));
                }
                let law = NewtonImpactNSL::new(e)?;
                let floor = LagrangianLinearTIR::with_offset(DMatrix::from_element(1, 1, 1.0), vector(&[-r]))?;
                nsds.link("floor", law, floor, &[beads[0]])?;
                for i in 1..n {
                    let pair = LagrangianLinearTIR::with_offset(
                        DMatrix::from_row_slice(1, 2, &[-1.0, 1.0]),
                        vector(&[-2.0 * r]),
                    )?;
                    nsds.link(&format!("beads {}-{i}", i - 1), law, pair, &[beads[i - 1], beads[i]])?;
                }
                Ok(nsds)
            }
            Template::ImpactingBar => ImpactingBar {
                nodes: d.count("nodes", 20)?,
                young: d.scalar("young", 210e9)?,
                section: d.scalar("section", 3.14e-4)?,
                length: d.scalar("length", 1.0)?,
                density: d.scalar("density", 7800.0)?,
                position: d.scalar("position", 5e-5)?,
                velocity: d.scalar("velocity", -0.1)?,
                restitution: d.scalar("restitution", 0.0)?,
                ..Default::default()
            }
            .nsds(),
            Template::ImpactOscillator => ImpactOscillator {
                mass: d.scalar("mass", 1.0)?,
                stiffness: d.scalar("stiffness", 1.0)?,
                damping: d.scalar("damping", 0.0)?,
                amplitude: d.scalar("amplitude", 1.0)?,
                frequency: d.scalar("frequency", 0.8)?,
                phase: d.scalar("phase", 0.0)?,
                gap: d.scalar("gap", 1.0)?,
                restitution: d.scalar("restitution", 0.8)?,
                position: d.scalar("position", 0.0)?,
                velocity: d.scalar("velocity", 0.0)?,
                ..Default::default()
            }
            .nsds(),
            Template::DiscPile => {
                let count = d.count("discs", 4)?;
                let stagger = d.scalar("stagger", 0.05)?;
                let mut pile = DiscPile::column(count, stagger);
                pile.radius = d.scalar("radius", pile.radius)?;
                pile.mass = d.scalar("mass", pile.mass)?;
                pile.width = d.scalar("width", pile.width)?;
                pile.gravity = d.scalar("gravity", pile.gravity)?;
                pile.restitution = d.scalar("restitution", pile.restitution)?;
                for (i, centre) in pile.centres.iter_mut().enumerate() {
                    centre[0] += d.scalar(&format!("x{i}"), 0.0)?;
                }
                pile.nsds()
            }
            Template::Dumbbell => {
                let (m0, m1, r) = (
                    d.scalar("mass0", 1.0)?,
                    d.scalar("mass1", 1.0)?,
                    d.scalar("radius", 0.1)?,
                );
                let (z0, length) = (d.scalar("height", 1.0)?, d.scalar("length", 0.5)?);
                let (e, g) = (d.scalar("restitution", 0.9)?, d.scalar("gravity", 9.81)?);
                let mut nsds = Nsds::new();
                let ball = |z: f64, m: f64| -> Result<LagrangianLinearTIDS> {
                    LagrangianLinearTIDS::new(vector(&[z]), vector(&[0.0]), DMatrix::from_element(1, 1, m))?
                        .with_fext(vector(&[-m * g]))
                };
                let lower = nsds.add("lower ball", ball(z0, m0)?);
                let upper = nsds.add("upper ball", ball(z0 + length, m1)?);
                let one = DMatrix::from_element(1, 1, 1.0);
                let rod = CoordinateVectorConstraint::builder("rod", [1, 1])
                    .scaling(0, one.clone())
                    .scaling(1, one.clone())
                    .offset(vector(&[length]))
                    .build()?;
                nsds.link("rod", EqualityConditionNSL::new(1)?, rod, &[lower, upper])?;
                let floor = LagrangianLinearTIR::with_offset(one, vector(&[-r]))?;
                nsds.link("floor", NewtonImpactNSL::new(e)?, floor, &[lower])?;
                Ok(nsds)
            }
            Template::Pendulum | Template::PendulumHittingWall => {
                let pendulum = Pendulum {
                    length: d.scalar("length", 1.0)?,
                    mass: d.scalar("mass", 1.0)?,
                    gravity: d.scalar("gravity", 9.81)?,
                    angle: d.scalar("angle", std::f64::consts::FRAC_PI_2)?,
                    angular_velocity: d.scalar("angular_velocity", 0.0)?,
                    ..Default::default()
                };
                let wall = match self.template {
                    Template::PendulumHittingWall => Some(Wall {
                        position: 0.0,
                        restitution: d.scalar("restitution", 0.8)?,
                    }),
                    _ => None,
                };
                Pendulum { wall, ..pendulum }.nsds()
            }
            Template::SliderCrank => SliderCrank {
                crank: d.scalar("crank", 0.1)?,
                rod: d.scalar("rod", 0.3)?,
                pin_mass: d.scalar("pin_mass", 1.0)?,
                slider_mass: d.scalar("slider_mass", 1.0)?,
                angle: d.scalar("angle", std::f64::consts::FRAC_PI_2)?,
                angular_velocity: d.scalar("angular_velocity", -10.0)?,
                stop: d.scalar("stop", 0.38)?,
                restitution: d.scalar("restitution", 0.8)?,
                ..Default::default()
            }
            .nsds(),
            Template::ChaplyginSleigh => ChaplyginSleigh {
                mass: d.scalar("mass", 1.0)?,
                inertia: d.scalar("inertia", 0.1)?,
                arm: d.scalar("arm", 0.5)?,
                speed: d.scalar("speed", 0.0)?,
                angular_velocity: d.scalar("angular_velocity", 2.0)?,
                heading: d.scalar("heading", 0.0)?,
                ..Default::default()
            }
            .nsds(),
            Template::Linear => {
                let mass = d.matrix("mass", None)?;
                let n = mass.nrows();
                let zero = DMatrix::zeros(n, n);
                let (stiffness, damping) = (d.matrix("stiffness", Some(&zero))?, d.matrix("damping", Some(&zero))?);
                let (fext, q0, v0) = (
                    d.vector("fext", n, 0.0)?,
                    d.vector("q0", n, 0.0)?,
                    d.vector("v0", n, 0.0)?,
                );
                let h = d.matrix("h", None)?;
                let m = h.nrows();
                let (b, e) = (d.vector("b", m, 0.0)?, d.vector("e", m, 0.0)?);
                if h.ncols() != n {
                    return Err(Error::Dimension {
                        what: "scenario: contact rows `h`".into(),
                        expected: format!("{m}x{n}"),
                        got: format!("{}x{}", h.nrows(), h.ncols()),
                    });
                }
                let mut nsds = Nsds::new();
                let ds = LagrangianLinearTIDS::new(vector(&q0), vector(&v0), mass)?
                    .with_stiffness(stiffness)?
                    .with_damping(damping)?
                    .with_fext(vector(&fext))?;
                let ds = nsds.add("system", ds);
                for r in 0..m {
                    let relation = LagrangianLinearTIR::with_offset(h.rows(r, 1).into_owned(), vector(&[b[r]]))?;
                    nsds.link(&format!("contact {r}"), NewtonImpactNSL::new(e[r])?, relation, &[ds])?;
                }
                Ok(nsds)
            }
        }
    }
}

fn vector(x: &[f64]) -> DVector<f64> {
    DVector::from_column_slice(x)
}

/// Hands out the parameters of one scene, drawing the random ones from its stream.
struct Draw<'a> {
    spec: &'a SceneSpec,
    rng: ChaCha8Rng,
    /// Values of the drawn parameters, and their names.
    drawn: Vec<f64>,
    names: Vec<String>,
    /// Every parameter the template asked for.
    used: Vec<String>,
}

impl<'a> Draw<'a> {
    fn new(spec: &'a SceneSpec, rng: ChaCha8Rng) -> Self {
        Self {
            spec,
            rng,
            drawn: Vec::new(),
            names: Vec::new(),
            used: Vec::new(),
        }
    }

    fn wrong(name: &str, reason: &str) -> Error {
        Error::Scenario {
            what: format!("parameter `{name}`"),
            reason: reason.into(),
        }
    }

    fn draw(&mut self, name: String, p: &Parameter) -> Result<f64> {
        p.validate(&name)?;
        let x = p.sample(&mut self.rng);
        if p.is_drawn() {
            self.drawn.push(x);
            self.names.push(name);
        }
        Ok(x)
    }

    fn scalar(&mut self, name: &str, default: f64) -> Result<f64> {
        self.used.push(name.into());
        match self.spec.parameters.get(name) {
            None => Ok(default),
            Some(Value::Parameter(p)) => self.draw(name.into(), p),
            Some(_) => Err(Self::wrong(name, "must be a number or a distribution")),
        }
    }

    /// A size (number of balls, nodes): a fixed integer ≥ 1.
    fn count(&mut self, name: &str, default: usize) -> Result<usize> {
        self.used.push(name.into());
        match self.spec.parameters.get(name) {
            None => Ok(default),
            Some(Value::Parameter(Parameter::Fixed(x))) if *x >= 1.0 && x.fract() == 0.0 && *x <= 1e6 => {
                Ok(*x as usize)
            }
            Some(_) => Err(Self::wrong(
                name,
                "must be a fixed whole number ≥ 1 (scene sizes are not drawn)",
            )),
        }
    }

    fn vector(&mut self, name: &str, len: usize, default: f64) -> Result<Vec<f64>> {
        self.used.push(name.into());
        let entries = match self.spec.parameters.get(name) {
            None => return Ok(vec![default; len]),
            Some(Value::Vector(entries)) => entries,
            Some(Value::Parameter(Parameter::Fixed(x))) if len == 1 => &vec![Parameter::Fixed(*x)],
            Some(_) => return Err(Self::wrong(name, "must be an array of numbers or distributions")),
        };
        if entries.len() != len {
            return Err(Error::Dimension {
                what: format!("scenario: `{name}`"),
                expected: len.to_string(),
                got: entries.len().to_string(),
            });
        }
        entries
            .clone()
            .iter()
            .enumerate()
            .map(|(i, p)| self.draw(format!("{name}[{i}]"), p))
            .collect()
    }

    fn matrix(&mut self, name: &str, default: Option<&DMatrix<f64>>) -> Result<DMatrix<f64>> {
        self.used.push(name.into());
        let rows = match (self.spec.parameters.get(name), default) {
            (None, Some(d)) => return Ok(d.clone()),
            (None, None) => return Err(Self::wrong(name, "is required by template linear")),
            (Some(Value::Matrix(rows)), _) => rows,
            (Some(_), _) => {
                return Err(Self::wrong(
                    name,
                    "must be an array of rows of numbers, e.g. [[1.0, 0.0]]",
                ));
            }
        };
        let cols = rows.first().map_or(0, Vec::len);
        if rows.is_empty() || cols == 0 || rows.iter().any(|r| r.len() != cols) {
            return Err(Self::wrong(name, "must have at least one row, all of the same length"));
        }
        if let Some(d) = default
            && (rows.len(), cols) != d.shape()
        {
            return Err(Error::Dimension {
                what: format!("scenario: `{name}`"),
                expected: format!("{}x{}", d.nrows(), d.ncols()),
                got: format!("{}x{cols}", rows.len()),
            });
        }
        Ok(DMatrix::from_fn(rows.len(), cols, |i, j| rows[i][j]))
    }
}
