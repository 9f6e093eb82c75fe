//! A scenario's `[scene]` table: a [`Template`] of the scene registry and its parameters,
//! each fixed or drawn from the scene's random stream (see [`super::sampling`]). The template
//! asks for its parameters in a fixed order, so a scene's values depend on the seed and its
//! index only.

use std::collections::{BTreeMap, BTreeSet};

use nalgebra::DMatrix;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use super::design::{Design, Draws};
use super::sampling::{Parameter, scene_rng};
use crate::engine::Scene;
use crate::error::{Error, Result};
use crate::scenes::parameters::Parameters;
use crate::scenes::template::Template;

/// A scenario value: a parameter, a vector of parameters, or a matrix of numbers (read by
/// `scene_toml`, which names the key and the line of a mistake).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Value {
    /// A number or a distribution.
    Parameter(Parameter),
    /// Entries each fixed or drawn.
    Vector(Vec<Parameter>),
    /// Rows of numbers.
    Matrix(Vec<Vec<f64>>),
}

/// The `[scene]` table: a template and its parameters (read by `scene_toml`).
#[derive(Clone, Debug, PartialEq, Serialize)]
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

/// Draws the scenes of one ensemble of a [`SceneSpec`]: the design of its swept parameters,
/// which every scene shares, built once.
pub struct Sampler<'a> {
    spec: &'a SceneSpec,
    seed: u64,
    design: Design,
}

impl Sampler<'_> {
    /// The design of the swept parameters.
    pub fn design(&self) -> &Design {
        &self.design
    }

    /// Scene `index`, drawn from its own random stream and placed in the design of the swept
    /// parameters; a scene its draws make invalid is an error naming the scene and its drawn
    /// values.
    pub fn sample(&self, index: usize) -> Result<SampledScene> {
        let mut draw = Draw::new(self, index, false);
        let scene = self.spec.build(index, &mut draw)?;
        Ok(SampledScene {
            index,
            drawn: draw.drawn,
            scene,
        })
    }
}

impl SceneSpec {
    /// The sampler of the ensemble `draws` (refused where the swept parameters do not fit
    /// it).
    pub fn sampler(&self, draws: Draws) -> Result<Sampler<'_>> {
        // Every parameter by its name in draws (`x`, or `x[i]` for a vector's entries).
        let named = self.parameters.iter().flat_map(|(name, value)| {
            let entries: Vec<(String, &Parameter)> = match value {
                Value::Parameter(p) => vec![(name.clone(), p)],
                Value::Vector(entries) => entries
                    .iter()
                    .enumerate()
                    .map(|(i, p)| (format!("{name}[{i}]"), p))
                    .collect(),
                Value::Matrix(_) => Vec::new(),
            };
            entries
        });
        Ok(Sampler {
            spec: self,
            seed: draws.seed,
            design: Design::new(named, draws)?,
        })
    }

    /// Scene `index` of the ensemble `draws` ([`Sampler::sample`]).
    pub fn sample(&self, index: usize, draws: Draws) -> Result<SampledScene> {
        self.sampler(draws)?.sample(index)
    }

    /// Checks the parameters (names, distributions, sizes) by building one scene, and returns
    /// the names of the drawn ones (the columns they get in summaries).
    pub fn drawn_names(&self, draws: Draws) -> Result<Vec<String>> {
        let sampler = self.sampler(draws)?;
        let mut draw = Draw::new(&sampler, 0, true);
        self.build(0, &mut draw)?;
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

    /// Scene `index` from `draw`; where its draws make it invalid, the error names the scene
    /// and its drawn values (a fixed parameter's error is the same for every scene).
    fn build(&self, index: usize, draw: &mut Draw) -> Result<Box<dyn Scene>> {
        self.template.scene(draw).map_err(|e| {
            if draw.drawn.is_empty() {
                return e;
            }
            let values: Vec<String> = (draw.names.iter().zip(&draw.drawn))
                .map(|(name, value)| format!("{name} = {value}"))
                .collect();
            Error::Scenario {
                what: format!("scene {index} (drawn: {})", values.join(", ")),
                reason: e.to_string(),
            }
        })
    }
}

/// Hands out the parameters of one scene, drawing the random ones from its stream and
/// placing the swept ones in the design.
struct Draw<'a> {
    spec: &'a SceneSpec,
    design: &'a Design,
    index: usize,
    rng: ChaCha8Rng,
    /// Values of the drawn parameters, and their names.
    drawn: Vec<f64>,
    names: Vec<String>,
    /// Whether to list in `used` every parameter the template asks for (to find unknown ones).
    listing: bool,
    used: Vec<String>,
}

impl<'a> Draw<'a> {
    fn new(sampler: &'a Sampler, index: usize, listing: bool) -> Self {
        Self {
            spec: sampler.spec,
            design: &sampler.design,
            index,
            rng: scene_rng(sampler.seed, index as u64),
            drawn: Vec::new(),
            names: Vec::new(),
            listing,
            used: Vec::new(),
        }
    }

    /// Lists `name` among the parameters asked for, when listing.
    fn asked(&mut self, name: &str) {
        if self.listing {
            self.used.push(name.into());
        }
    }

    fn wrong(name: &str, reason: &str) -> Error {
        Error::Scenario {
            what: format!("parameter `{name}`"),
            reason: reason.into(),
        }
    }

    fn draw(&mut self, name: &str, p: &Parameter) -> Result<f64> {
        p.validate(name)?;
        let x = match self.design.position(name, self.index, &mut self.rng) {
            Some(position) => p.at(position),
            None => p.sample(&mut self.rng),
        };
        if p.is_drawn() {
            self.drawn.push(x);
            self.names.push(name.into());
        }
        Ok(x)
    }
}

impl Parameters for Draw<'_> {
    fn scalar(&mut self, name: &str, _: &'static str, default: f64) -> Result<f64> {
        self.asked(name);
        match self.spec.parameters.get(name) {
            None => Ok(default),
            Some(Value::Parameter(p)) => self.draw(name, p),
            Some(_) => Err(Self::wrong(name, "must be a number or a distribution")),
        }
    }

    /// A size (number of balls, nodes): a fixed integer ≥ 1.
    fn count(&mut self, name: &str, default: usize) -> Result<usize> {
        self.asked(name);
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

    fn vector(&mut self, name: &str, _: &'static str, len: usize, default: f64) -> Result<Vec<f64>> {
        self.asked(name);
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
            .map(|(i, p)| self.draw(&format!("{name}[{i}]"), p))
            .collect()
    }

    fn matrix(&mut self, name: &str, default: Option<&DMatrix<f64>>) -> Result<DMatrix<f64>> {
        self.asked(name);
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
