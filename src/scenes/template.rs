//! The registry of named scenes: a scenario's `template = "…"` names one, and its parameters
//! (see [`Parameters`]) build it. Every template is a scene of this folder, so the command
//! line, the examples, the tests and the benches simulate the same systems.

use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

use super::billiard_shot::BilliardShot;
use super::block_on_incline::BlockOnIncline;
use super::chaplygin_sleigh::ChaplyginSleigh;
use super::column_of_beads::ColumnOfBeads;
use super::cubic_resistor::CubicResistor;
use super::disc_pile::DiscPile;
use super::dropped_ball::DroppedBall;
use super::dumbbell::Dumbbell;
use super::impact_oscillator::ImpactOscillator;
use super::impacting_bar::ImpactingBar;
use super::linear::LinearSystem;
use super::newtons_cradle::NewtonsCradle;
use super::parameters::Parameters;
use super::pendulum::Pendulum;
use super::rocking_block::RockingBlock;
use super::slider_crank::SliderCrank;
use super::spinning_ball::SpinningBall;
use super::woodpecker::Woodpecker;
use crate::engine::Scene;
use crate::error::Result;

/// The scene templates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, strum::EnumIter)]
#[serde(rename_all = "snake_case")]
pub enum Template {
    /// A ball dropped on the floor ([`DroppedBall`], in closed form): one dof z (centre height), M = m, F_ext = −m g,
    /// y = z − R, Newton impact e. Parameters: `mass` 1, `radius` 0.1, `height` 1 (z₀),
    /// `velocity` 0 (ż₀), `restitution` 0.9, `gravity` 9.81.
    BouncingBall,
    /// Newton's cradle on a line ([`NewtonsCradle`]). Parameters: `balls` 5, `radius` 0.02,
    /// `mass` 0.1, `gap` 1e-3, `approach` 0.01, `velocity` 1, `restitution` 1.
    NewtonsCradle,
    /// A vertical column of beads falling on the floor ([`ColumnOfBeads::line_nsds`]: one dof
    /// per bead, every contact linked). Parameters: `beads` 4, `radius` 0.1, `mass` 1,
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
    /// sideways shift of disc i, 0), `friction` 0 (> 0: rotating discs with Coulomb friction,
    /// `DiskDiskR` between discs; every backend).
    DiscPile,
    /// Two balls joined by a rigid rod, falling on the floor ([`Dumbbell`]): dofs z₀, z₁, the equality
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
    /// A block on an incline with Coulomb friction ([`BlockOnIncline`]; every backend).
    /// Parameters: `incline` 0.5 (rad), `friction` 0.3, `velocity` 2 (along the slope, up),
    /// `mass` 1, `gravity` 9.81.
    BlockOnIncline,
    /// A rigid block rocking on the ground, corners with friction, under a one-sine ground
    /// pulse ([`RockingBlock`]; every backend). Parameters: `width` 0.2, `height` 0.6,
    /// `mass` 1, `restitution` 0, `friction` 0.7, `gravity` 9.81, `tilt` 0, `angular_velocity`
    /// 0, `amplitude` 0 (m/s²; 0: no pulse), `frequency` 2 (Hz), `duration` 1/frequency.
    RockingBlock,
    /// A ball dropped with spin on a rough floor, in 3-D ([`SpinningBall`]; every backend). Parameters: `radius` 0.1, `mass` 1, `height` 0.5, `vx` 1, `vy` 0, `vz` 0, `wx`
    /// 0, `wy` −20, `wz` 0, `restitution` 0.8, `tangential_restitution` 0, `friction` 0.5,
    /// `gravity` 9.81.
    SpinningBall,
    /// A billiard shot in 3-D ([`BilliardShot`]: a cue ball with follow and side spin hits an
    /// object ball on a rough table; `SphereLDSSphereLDSR` between the balls; every backend).
    /// Parameters: `radius` 0.028575, `mass` 0.17, `speed` 2, `follow` 0 (ω_y, rad/s),
    /// `english` 0 (ω_z, rad/s), `distance` 0.5, `offset` 0.02, `drop` 1e-3 (onto the cloth),
    /// `table_friction` 0.2,
    /// `ball_friction` 0.05, `restitution` 0.93, `table_restitution` 0.5, `gravity` 9.81.
    BilliardShot,
    /// Siconos's woodpecker toy, stick–slip with impacts ([`Woodpecker`]; every backend).
    /// Parameters: `friction` 0.3, `beak_restitution` 0.5, `spring` 0.0056,
    /// `sleeve_velocity` −0.3411, `sleeve_angular_velocity` 4.8572e-15,
    /// `bird_angular_velocity` −7.4583.
    Woodpecker,
    /// A capacitor discharging into a source through an ideal diode and a cubic resistor
    /// v = β i³ ([`CubicResistor`]: a nonlinear device, a first-order scene run by
    /// Euler–Moreau's Newton loop; reference backend). Coordinate `v_C` (its rate `v_C_dot`).
    /// Parameters: `capacitance` 1, `beta` 1, `source` 1, `voltage` 2 (initial).
    CubicResistor,
    /// A linear system written out ([`LinearSystem`]): `mass`, `stiffness`, `damping` (n × n matrices; K, C default 0), `fext`,
    /// `q0`, `v0` (n-vectors of parameters), `h` (m × n: contact rows y = H q + b), `b`, `e`
    /// (m-vectors of parameters).
    Linear,
}

impl Template {
    /// Every template, in the order of the list above (derived: a new template is listed).
    pub fn all() -> impl Iterator<Item = Self> {
        <Self as strum::IntoEnumIterator>::iter()
    }

    /// The name scenarios give it (`template = "…"`).
    pub fn name(self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default()
    }

    /// The parameters the template asks for, in its order, as it declares them (name, unit,
    /// default written out, `required` for a matrix without one): read off by building the
    /// scene from its defaults, so the list cannot drift from the code. (A template with
    /// required matrices, `linear`, gets 1 × 1 stand-ins; whether its scene then builds does
    /// not matter here.)
    pub fn parameters(self) -> Vec<Declared> {
        let mut defaults = Defaults(Vec::new());
        let _ = self.scene(&mut defaults);
        defaults.0
    }

    /// The scene of this template with its parameters from `p` (asked for in a fixed order):
    /// the bouncing ball in closed form, the others as their `Nsds`.
    pub fn scene(self, p: &mut dyn Parameters) -> Result<Box<dyn Scene>> {
        Ok(match self {
            Self::BouncingBall => Box::new(DroppedBall::from_parameters(p)?),
            Self::NewtonsCradle => Box::new(NewtonsCradle::from_parameters(p)?.checked()?),
            Self::ColumnOfBeads => Box::new(ColumnOfBeads::from_parameters(p)?.line_nsds()?),
            Self::ImpactingBar => Box::new(ImpactingBar::from_parameters(p)?.nsds()?),
            Self::ImpactOscillator => Box::new(ImpactOscillator::from_parameters(p)?.nsds()?),
            Self::DiscPile => Box::new(DiscPile::from_parameters(p)?.nsds()?),
            Self::Dumbbell => Box::new(Dumbbell::from_parameters(p)?.nsds()?),
            Self::Pendulum => Box::new(Pendulum::from_parameters(p, false)?.nsds()?),
            Self::PendulumHittingWall => Box::new(Pendulum::from_parameters(p, true)?.nsds()?),
            Self::SliderCrank => Box::new(SliderCrank::from_parameters(p)?.nsds()?),
            Self::ChaplyginSleigh => Box::new(ChaplyginSleigh::from_parameters(p)?.nsds()?),
            Self::Linear => Box::new(LinearSystem::from_parameters(p)?.nsds()?),
            Self::BlockOnIncline => Box::new(BlockOnIncline::from_parameters(p)?.nsds()?),
            Self::RockingBlock => Box::new(RockingBlock::from_parameters(p)?.nsds()?),
            Self::SpinningBall => Box::new(SpinningBall::from_parameters(p)?.nsds()?),
            Self::BilliardShot => Box::new(BilliardShot::from_parameters(p)?.nsds()?),
            Self::Woodpecker => Box::new(Woodpecker::from_parameters(p)?.nsds()?),
            Self::CubicResistor => Box::new(CubicResistor::from_parameters(p)?.nsds()?),
        })
    }
}

/// A template's parameter as it declares it ([`Template::parameters`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declared {
    /// Its name in a scenario's `[scene]` table.
    pub name: String,
    /// Its SI unit (`""`: a pure number, a count); `None` where the user's numbers carry
    /// their own (`linear`'s matrices and vectors).
    pub unit: Option<&'static str>,
    /// Its default, written out.
    pub default: String,
}

/// Parameters that answer every question with its default, writing down what was asked.
struct Defaults(Vec<Declared>);

impl Defaults {
    fn declare(&mut self, name: &str, unit: Option<&'static str>, default: String) {
        self.0.push(Declared {
            name: name.into(),
            unit,
            default,
        });
    }
}

impl Parameters for Defaults {
    fn scalar(&mut self, name: &str, unit: &'static str, default: f64) -> Result<f64> {
        self.declare(name, Some(unit), default.to_string());
        Ok(default)
    }

    fn count(&mut self, name: &str, default: usize) -> Result<usize> {
        self.declare(name, Some(""), default.to_string());
        Ok(default)
    }

    fn vector(&mut self, name: &str, unit: &'static str, len: usize, default: f64) -> Result<Vec<f64>> {
        // (`linear`'s vectors, the only ones, are in the user's units.)
        self.declare(
            name,
            Some(unit).filter(|u| !u.is_empty()),
            format!("[{default}; {len}]"),
        );
        Ok(vec![default; len])
    }

    fn matrix(&mut self, name: &str, default: Option<&DMatrix<f64>>) -> Result<DMatrix<f64>> {
        match default {
            Some(m) => {
                self.declare(name, None, format!("{}×{} matrix", m.nrows(), m.ncols()));
                Ok(m.clone())
            }
            None => {
                // A 1 × 1 stand-in, so that the parameters after it are listed too.
                self.declare(name, None, "required".into());
                Ok(DMatrix::identity(1, 1))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Template;

    /// Every template has a name of its own, as scenarios name it, and asks for parameters.
    #[test]
    fn every_template_is_listed_with_its_parameters() {
        let mut names: Vec<String> = Template::all().map(Template::name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Template::all().count());
        for template in Template::all() {
            let name = template.name();
            let back: Template = serde_json::from_value(serde_json::Value::String(name.clone())).unwrap();
            assert_eq!(back, template);
            assert!(!template.parameters().is_empty(), "{name}");
        }
        let declared = |t: Template, name: &str| t.parameters().into_iter().find(|d| d.name == name).unwrap();
        let radius = declared(Template::BouncingBall, "radius");
        assert_eq!((radius.unit, radius.default.as_str()), (Some("m"), "0.1"));
        let h = declared(Template::Linear, "h");
        assert_eq!((h.unit, h.default.as_str()), (None, "required"));
        // An indexed parameter past the defaults' (a pile of 4 discs lists x0 … x3) has its
        // family's unit.
        use crate::scenes::units::parameter_unit;
        assert_eq!(parameter_unit(Template::DiscPile, "x5"), Some("m"));
        assert_eq!(parameter_unit(Template::DiscPile, "y5"), None);
    }
}
