//! `[[derive]]`: summary columns computed from the others once a scene's row is complete —
//! `direction = atan2(y_object_dot, x_object_dot) * 180 / PI`, a speed from its components,
//! a ratio of two observables. An expression (parsed by `exmex`: `+ - * / ^`, `sqrt`, `exp`,
//! `ln`, `abs`, `sin` … `atan`, `atan2(y, x)`, `min`, `max`, the constants `PI`, `E`)
//! names any column before it: the drawn parameters, the observables, the final state, the
//! health columns, and the derived columns above it. The derived columns come last in the
//! summary, in their order.
//!
//! Before exmex reads it, every column the expression names is put in braces (exmex's
//! spelling of a variable), so that `max_penetration` is not read as the operator `max` and
//! a column named `e` is that column, not Euler's number; numbers with an exponent (`1e-3`)
//! are written out in decimals, which exmex reads. exmex's precedence: a unary minus binds
//! before `^` (`-x^2` is (−x)², write `-(x^2)`), and `^` is left-associative.

use exmex::{Express, FlatEx};
use serde::{Deserialize, Serialize};

use super::Scenario;
use crate::error::{Error, Result};
use crate::validate;

/// The columns of the other tables (trajectories, stroboscopic samples, events) that are not
/// the summary's: a derived column may not take their names, which key the units of every
/// table alike.
const OTHER_TABLES: [&str; 5] = ["t", "row", "ydot_before", "ydot_after", "impulse"];

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
    name: String,
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
            if !validate::is_identifier(&spec.name) {
                return Err(wrong(
                    "a column's name is letters, digits and underscores, not starting with a digit".into(),
                ));
            }
            if OTHER_TABLES.contains(&spec.name.as_str()) {
                return Err(wrong(format!(
                    "the name is a column of the trajectories, samples or events ({}): choose another",
                    OTHER_TABLES.join(", ")
                )));
            }
            let not_read = |reason: String| wrong(format!("`{}` is not an expression: {reason}", spec.expression));
            let prepared = braced(&spec.expression, &known).map_err(not_read)?;
            let expression = exmex::parse::<f64>(&prepared).map_err(|e| {
                // (exmex's messages may show its operators' internals: keep their first line.)
                let e = e.to_string();
                not_read(e.split(['\n', '{']).next().unwrap_or_default().trim().to_string())
            })?;
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
            derived.push(Self {
                name: spec.name.clone(),
                expression,
                inputs,
            });
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
                what: format!("derived column `{}`", d.name),
                reason: e.to_string(),
            })?;
            row.push(value);
        }
        Ok(())
    }
}

/// `expression` with each name of `columns` in braces and each number in plain decimals.
fn braced(expression: &str, columns: &[String]) -> std::result::Result<String, String> {
    let chars: Vec<char> = expression.chars().collect();
    let mut out = String::with_capacity(expression.len() + 8);
    let mut i = 0;
    let is_digit = |i: usize| chars.get(i).is_some_and(char::is_ascii_digit);
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        if is_digit(i) || (c == '.' && is_digit(i + 1)) {
            while is_digit(i) || chars.get(i) == Some(&'.') {
                i += 1;
            }
            let sign = usize::from(matches!(chars.get(i + 1), Some('+' | '-')));
            if matches!(chars.get(i), Some('e' | 'E')) && is_digit(i + 1 + sign) {
                i += 1 + sign;
                while is_digit(i) {
                    i += 1;
                }
            }
            let text: String = chars[start..i].iter().collect();
            let value: f64 = text.parse().map_err(|_| format!("`{text}` is not a number"))?;
            out.push_str(&value.to_string());
        } else if c.is_alphabetic() || c == '_' {
            while chars.get(i).is_some_and(|c| c.is_alphanumeric() || *c == '_') {
                i += 1;
            }
            let name: String = chars[start..i].iter().collect();
            match columns.contains(&name) {
                true => out.push_str(&format!("{{{name}}}")),
                false => out.push_str(&name),
            }
        } else if c == '{' {
            // (A name already in braces.)
            while i < chars.len() && chars[i] != '}' {
                i += 1;
            }
            i += 1;
            out.extend(&chars[start..i.min(chars.len())]);
        } else {
            out.push(c);
            i += 1;
        }
    }
    Ok(out)
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
        for (name, says) in [
            ("1st", "letters, digits and underscores"),
            ("x'y", "letters"),
            ("t", "a column of the trajectories"),
        ] {
            let refused = e(&[spec(name, "vx")]);
            assert!(refused.contains(says), "{name}: {refused}");
        }
    }

    /// Columns that exmex would read as its operators or constants (`max_…`, `e`) are
    /// columns; exponents are read; the constants stay where no column has their name.
    #[test]
    fn columns_named_like_operators_are_columns() {
        let columns = ["max_penetration", "e", "min_z"].map(String::from);
        let derived = Derived::compile(
            &[
                spec("a", "1 + max_penetration"),
                spec("b", "2 * e"),
                spec("c", "min_z * 1e-3 + 2.5E+2"),
                spec("d", "E + PI"),
                spec("f", "max(e, min_z)"),
            ],
            &columns,
        )
        .unwrap();
        let mut row = vec![0.5, 0.25, 4.0];
        Derived::extend(&derived, &mut row).unwrap();
        assert_eq!(
            row[3..],
            [
                1.5,
                0.5,
                4.0 * 1e-3 + 250.0,
                std::f64::consts::E + std::f64::consts::PI,
                4.0
            ]
        );
    }
}
