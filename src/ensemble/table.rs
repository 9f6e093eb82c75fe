//! A table of f64 columns (the per-scene summary, the recorded trajectories); its files are
//! in [`super::formats`].

use crate::error::{Error, Result};

/// Named columns, rows stored one after the other.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    /// Column names.
    pub columns: Vec<String>,
    /// Row-major values, `columns.len()` per row.
    pub values: Vec<f64>,
}

impl Table {
    /// An empty table with these columns.
    pub fn new(columns: Vec<String>) -> Self {
        Self {
            columns,
            values: Vec::new(),
        }
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.values.len() / self.columns.len().max(1)
    }

    /// Row `i`.
    pub fn row(&self, i: usize) -> &[f64] {
        let c = self.columns.len();
        &self.values[i * c..(i + 1) * c]
    }

    /// Appends a row (of `columns.len()` values).
    pub fn push(&mut self, row: &[f64]) {
        debug_assert_eq!(row.len(), self.columns.len());
        self.values.extend_from_slice(row);
    }

    /// Index of the column `name`.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c == name)
    }

    /// The values of column `name`.
    pub fn column(&self, name: &str) -> Option<Vec<f64>> {
        let j = self.index(name)?;
        Some((0..self.rows()).map(|i| self.row(i)[j]).collect())
    }

    /// Appends the rows of `other`, which must have the same columns.
    pub fn append(&mut self, other: &Table) -> Result<()> {
        if other.columns != self.columns {
            let first = (self.columns.iter().map(Some).chain(std::iter::repeat(None)))
                .zip(other.columns.iter().map(Some).chain(std::iter::repeat(None)))
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            let name = |columns: &[String]| columns.get(first).map_or("none".to_string(), |c| format!("`{c}`"));
            return Err(Error::Argument {
                what: "rows to append".into(),
                reason: format!(
                    "their {} columns differ from the {} before them, first at column {first}: {} where the others have {} (written by another version of ricochet?)",
                    other.columns.len(),
                    self.columns.len(),
                    name(&other.columns),
                    name(&self.columns)
                ),
            });
        }
        self.values.extend_from_slice(&other.values);
        Ok(())
    }

    /// Sorts the rows by their first `keys` columns (stable).
    pub fn sort_by_leading(&mut self, keys: usize) {
        let c = self.columns.len();
        let mut order: Vec<usize> = (0..self.rows()).collect();
        order.sort_by(|&a, &b| {
            let (ra, rb) = (&self.values[a * c..a * c + keys], &self.values[b * c..b * c + keys]);
            ra.iter()
                .zip(rb)
                .map(|(x, y)| x.total_cmp(y))
                .find(|o| o.is_ne())
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        self.values = order.iter().flat_map(|&i| self.row(i).to_vec()).collect();
    }
}

/// `rows` with the column `name` of `summary` appended, matched by their `scene` column (a
/// scene missing from the summary gets NaN).
pub fn join_by_scene(rows: &Table, summary: &Table, name: &str) -> Result<Table> {
    let missing = |what: &str| Error::Scenario {
        what: format!("column `{what}`"),
        reason: "is needed to join the tables by scene".into(),
    };
    let scenes = summary.column("scene").ok_or_else(|| missing("scene"))?;
    let values = summary.column(name).ok_or_else(|| missing(name))?;
    let at = rows.index("scene").ok_or_else(|| missing("scene"))?;
    let lookup: std::collections::HashMap<u64, f64> = scenes.iter().map(|s| s.to_bits()).zip(values).collect();
    let mut columns = rows.columns.clone();
    columns.push(name.to_string());
    let mut joined = Table::new(columns);
    for i in 0..rows.rows() {
        let mut row = rows.row(i).to_vec();
        row.push(lookup.get(&row[at].to_bits()).copied().unwrap_or(f64::NAN));
        joined.push(&row);
    }
    Ok(joined)
}
