//! `[[derive]]`: summary columns computed from the others once a scene's row is complete —
//! `direction = atan2(y_object_dot, x_object_dot) * 180 / PI`, a speed from its components,
//! a ratio of two observables. An expression (parsed by `exmex`: `+ - * / ^`, `sqrt`, `exp`,
//! `ln`, `abs`, `sin` … `atan`, `atan2(y, x)`, `min`, `max`, the constants `PI`, `E`)
//! names any column before it: the drawn parameters, the observables, the final state, the
//! health columns, and the derived columns above it. The derived columns come last in the
//! summary, in their order.

use exmex::{Express, FlatEx};
use serde::{Deserialize, Serialize};

use super::Scenario;
use crate::error::{Error, Result};

impl Scenario {
    /// The columns that answer the study: the observables, then the derived columns.
    pub fn answers(&self) -> Vec<String> {
        let observed = self.observe.iter().map(|o| o.name.clone());
        observed.chain(self.derive.iter().map(|d| d.name.clone())).collect()
    }
}

/// One `[[derive]]` entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeriveSpec {
    /// The column's name.
    pub name: String,
    /// Its value in the row's other columns.
    pub expression: String,
    /// Its unit, for `run.json`, Parquet's metadata and the plots' axes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
}

/// A derived column, compiled: its expression and where each of its variables is in a row.
#[derive(Clone, Debug)]
pub struct Derived {
    expression: FlatEx<f64>,
    /// The row's index of each variable, in the expression's order of variables.
    inputs: Vec<usize>,
}

impl Derived {
    /// Compiles `specs` for rows whose first columns are `columns` (the derived columns
    /// follow them, each seeing those above it).
    pub fn compile(specs: &[DeriveSpec], columns: &[String]) -> Result<Vec<Self>> {
        let mut known = columns.to_vec();
        let mut derived = Vec::with_capacity(specs.len());
        for spec in specs {
            let wrong = |reason: String| Error::Scenario {
                what: format!("[[derive]] `{}`", spec.name),
                reason,
            };
            let expression = exmex::parse::<f64>(&spec.expression)
                .map_err(|e| wrong(format!("`{}` is not an expression: {e}", spec.expression)))?;
            let inputs = expression
                .var_names()
                .iter()
                .map(|v| {
                    known.iter().position(|c| c == v).ok_or_else(|| {
                        wrong(format!(
                            "`{v}` is not a column before it (the summary's columns: {})",
                            known.join(", ")
                        ))
                    })
                })
                .collect::<Result<_>>()?;
            if known.contains(&spec.name) {
                return Err(wrong("the name is taken by a column of the summary".into()));
            }
            known.push(spec.name.clone());
            derived.push(Self { expression, inputs });
        }
        Ok(derived)
    }

    /// Appends the derived columns' values to a row of the first columns.
    pub fn extend(derived: &[Self], row: &mut Vec<f64>) -> Result<()> {
        let mut values = Vec::new();
        for d in derived {
            values.clear();
            values.extend(d.inputs.iter().map(|&i| row[i]));
            let value = d.expression.eval(&values).map_err(|e| Error::Unsupported {
                what: format!("derived column `{}`", d.expression.unparse()),
                reason: e.to_string(),
            })?;
            row.push(value);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{DeriveSpec, Derived};

    fn spec(name: &str, expression: &str) -> DeriveSpec {
        DeriveSpec {
            name: name.into(),
            expression: expression.into(),
            unit: None,
        }
    }

    #[test]
    fn derived_columns_see_the_columns_before_them() {
        let columns = ["scene", "vy", "vx"].map(String::from);
        let derived = Derived::compile(
            &[
                spec("direction", "atan2(vy, vx) * 180 / PI"),
                spec("speed", "sqrt(vx^2 + vy^2)"),
                spec("per_degree", "speed / direction"),
            ],
            &columns,
        )
        .unwrap();
        let mut row = vec![0.0, 1.0, 3f64.sqrt()];
        Derived::extend(&derived, &mut row).unwrap();
        assert!((row[3] - 30.0).abs() < 1e-12, "{row:?}");
        assert!((row[4] - 2.0).abs() < 1e-15, "{row:?}");
        assert!((row[5] - 2.0 / 30.0).abs() < 1e-15, "{row:?}");
        let e = |specs: &[DeriveSpec]| Derived::compile(specs, &columns).unwrap_err().to_string();
        let unknown = e(&[spec("a", "vz + 1")]);
        assert!(
            unknown.contains("[[derive]] `a`") && unknown.contains("`vz` is not a column before it"),
            "{unknown}"
        );
        let later = e(&[spec("a", "b * 2"), spec("b", "vx")]);
        assert!(later.contains("`b` is not a column before it"), "{later}");
        let taken = e(&[spec("vx", "vy")]);
        assert!(taken.contains("the name is taken"), "{taken}");
        let garbled = e(&[spec("a", "vx +* (")]);
        assert!(garbled.contains("is not an expression"), "{garbled}");
    }
}
