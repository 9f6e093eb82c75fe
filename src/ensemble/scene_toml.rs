//! Reading the `[scene]` table by hand, so that a mistake in a value is named with its key,
//! its line (the TOML reader's position of the value) and what was expected — serde's untagged
//! enums said only "data did not match any variant" with the caret on `[scene]`.
//!
//! A value is a number, a distribution `{ name = … }` (one of [`DISTRIBUTIONS`]), an array of
//! numbers or distributions (a vector), or an array of arrays of numbers (a matrix).

use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use toml::Value as Toml;

use super::sampling::{Distribution, Parameter};
use super::scene_spec::{SceneSpec, Value};

/// The distributions a parameter may be drawn from, as written in scenarios.
pub const DISTRIBUTIONS: &str = "uniform = [a, b], normal = { mean, std }, log_normal = { mu, sigma }, \
     truncated_normal = { mean, std, min, max }, choice = [x, …], or a sweep: grid = [a, b, n], \
     log_grid = [a, b, n], sobol = [a, b] or lhs = [a, b]";

impl<'de> Deserialize<'de> for SceneSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(SceneVisitor)
    }
}

struct SceneVisitor;

impl<'de> Visitor<'de> for SceneVisitor {
    type Value = SceneSpec;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a [scene] table: template = \"…\" and the template's parameters")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SceneSpec, A::Error> {
        let (mut template, mut parameters) = (None, BTreeMap::new());
        while let Some(key) = map.next_key::<String>()? {
            if key == "template" {
                template = Some(map.next_value()?);
            } else {
                let value = map.next_value_seed(Named(&key))?;
                parameters.insert(key, value);
            }
        }
        let template =
            template.ok_or_else(|| de::Error::custom("[scene] needs template = \"…\" (a template's name)"))?;
        Ok(SceneSpec { template, parameters })
    }
}

/// A `[scene]` value, whose errors name its key.
struct Named<'a>(&'a str);

impl<'de> DeserializeSeed<'de> for Named<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        let toml = Toml::deserialize(deserializer)?;
        value(&toml).map_err(|reason| de::Error::custom(format!("parameter `{}`: {reason}", self.0)))
    }
}

/// A value: a parameter, a vector of parameters, or a matrix (every entry an array).
fn value(toml: &Toml) -> Result<Value, String> {
    match toml {
        Toml::Array(entries) if !entries.is_empty() && entries.iter().all(Toml::is_array) => entries
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let row = row.as_array().map(Vec::as_slice).unwrap_or_default();
                row.iter()
                    .map(|x| number(x).ok_or_else(|| format!("row {i} of the matrix holds {x}: a matrix is numbers")))
                    .collect()
            })
            .collect::<Result<_, _>>()
            .map(Value::Matrix),
        Toml::Array(entries) => entries
            .iter()
            .enumerate()
            .map(|(i, x)| parameter(x).map_err(|e| format!("entry {i}: {e}")))
            .collect::<Result<_, _>>()
            .map(Value::Vector),
        other => parameter(other).map(Value::Parameter),
    }
}

/// A number or a distribution.
fn parameter(toml: &Toml) -> Result<Parameter, String> {
    if let Some(x) = number(toml) {
        return Ok(Parameter::Fixed(x));
    }
    match toml {
        Toml::Table(table) => distribution(table).map(Parameter::Drawn),
        Toml::String(s) => Err(format!(
            "\"{s}\" is a string: write a number without quotes, or a distribution: {DISTRIBUTIONS}"
        )),
        other => Err(format!(
            "expected a number or a distribution ({DISTRIBUTIONS}), got {}",
            other.type_str()
        )),
    }
}

fn number(toml: &Toml) -> Option<f64> {
    match toml {
        Toml::Integer(i) => Some(*i as f64),
        Toml::Float(x) => Some(*x),
        _ => None,
    }
}

/// `{ name = … }`: exactly one distribution.
fn distribution(table: &toml::Table) -> Result<Distribution, String> {
    let mut entries = table.iter();
    let (Some((name, spec)), None) = (entries.next(), entries.next()) else {
        let keys: Vec<&str> = table.keys().map(String::as_str).collect();
        return Err(format!(
            "a distribution is one of {DISTRIBUTIONS}; got the keys [{}]",
            keys.join(", ")
        ));
    };
    match name.as_str() {
        "uniform" => match numbers(spec).as_deref() {
            Some(&[a, b]) => Ok(Distribution::Uniform([a, b])),
            _ => Err(format!("uniform = [a, b] takes two numbers, got {spec}")),
        },
        "normal" => fields(name, spec, ["mean", "std"]).map(|[mean, std]| Distribution::Normal { mean, std }),
        "log_normal" => fields(name, spec, ["mu", "sigma"]).map(|[mu, sigma]| Distribution::LogNormal { mu, sigma }),
        "truncated_normal" => fields(name, spec, ["mean", "std", "min", "max"])
            .map(|[mean, std, min, max]| Distribution::TruncatedNormal { mean, std, min, max }),
        "choice" => match numbers(spec) {
            Some(xs) if !xs.is_empty() => Ok(Distribution::Choice(xs)),
            _ => Err(format!("choice = [x, …] takes at least one number, got {spec}")),
        },
        "grid" | "log_grid" => match numbers(spec).as_deref() {
            // Any whole n a float holds exactly is read; the design states the largest grid.
            Some(&[a, b, n]) if n >= 1.0 && n.fract() == 0.0 && n < 9.007_199_254_740_992e15 => Ok(if name == "grid" {
                Distribution::Grid(a, b, n as usize)
            } else {
                Distribution::LogGrid(a, b, n as usize)
            }),
            _ => Err(format!(
                "{name} = [a, b, n] takes two numbers and a whole number of points n ≥ 1, got {spec}"
            )),
        },
        "sobol" | "lhs" => match numbers(spec).as_deref() {
            Some(&[a, b]) if name == "sobol" => Ok(Distribution::Sobol([a, b])),
            Some(&[a, b]) => Ok(Distribution::Lhs([a, b])),
            _ => Err(format!("{name} = [a, b] takes two numbers, got {spec}")),
        },
        other => Err(format!("unknown distribution `{other}`: expected {DISTRIBUTIONS}")),
    }
}

/// An array of numbers.
fn numbers(toml: &Toml) -> Option<Vec<f64>> {
    toml.as_array()?.iter().map(number).collect()
}

/// `{ a = x, b = y, … }` with exactly the `names` of distribution `what`, each a number.
fn fields<const N: usize>(what: &str, spec: &Toml, names: [&str; N]) -> Result<[f64; N], String> {
    let form = format!("{what} = {{ {} }}", names.join(", "));
    let table = spec
        .as_table()
        .ok_or_else(|| format!("{form} is a table of numbers, got {spec}"))?;
    if let Some(extra) = table.keys().find(|k| !names.contains(&k.as_str())) {
        return Err(format!("{form}: `{extra}` is not one of its fields"));
    }
    let mut values = [0.0; N];
    for (value, name) in values.iter_mut().zip(names) {
        let entry = table.get(name).ok_or_else(|| format!("{form}: `{name}` is missing"))?;
        *value = number(entry).ok_or_else(|| format!("{form}: `{name}` must be a number, got {entry}"))?;
    }
    Ok(values)
}
