//! A table of f64 columns (the per-scene summary, the recorded trajectories) and its files:
//! CSV (shortest round-trip decimal, so reading it back gives the same bits) and numpy's
//! `.npy` (a structured array with one named `<f8` field per column).

use std::io::{BufRead, Write};

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

    /// Writes the table as CSV: the column names, then one line per row (numbers as Rust's
    /// `Display` prints them: decimals, no exponent, that read back to the same bits).
    pub fn write_csv(&self, out: impl Write) -> Result<()> {
        let mut csv = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(out);
        let fail = |e: csv::Error| Error::Io(std::io::Error::other(e.to_string()));
        csv.write_record(&self.columns).map_err(fail)?;
        let mut fields = Vec::with_capacity(self.columns.len());
        for i in 0..self.rows() {
            fields.clear();
            fields.extend(self.row(i).iter().map(f64::to_string));
            csv.write_record(&fields).map_err(fail)?;
        }
        csv.flush()?;
        Ok(())
    }

    /// Reads a CSV written by [`Table::write_csv`]; `file` names it in errors (with the line).
    pub fn read_csv(input: impl BufRead, file: &str) -> Result<Self> {
        let fail = |reason: String| Error::Parse {
            file: file.into(),
            reason,
        };
        let mut csv = csv::ReaderBuilder::new().has_headers(false).from_reader(input);
        let mut records = csv.records();
        let header = records
            .next()
            .transpose()
            .map_err(|e| fail(e.to_string()))?
            .ok_or_else(|| fail("empty file".into()))?;
        let mut table = Table::new(header.iter().map(str::to_owned).collect());
        for record in records {
            let record = record.map_err(|e| match e.kind() {
                csv::ErrorKind::UnequalLengths { pos, .. } => fail(format!(
                    "line {}: expected {} fields",
                    pos.as_ref().map_or(0, csv::Position::line),
                    table.columns.len()
                )),
                _ => fail(e.to_string()),
            })?;
            let line = record.position().map_or(0, csv::Position::line);
            for field in &record {
                table.values.push(
                    field
                        .parse()
                        .map_err(|_| fail(format!("line {line}: `{field}` is not a number")))?,
                );
            }
        }
        Ok(table)
    }

    /// Writes the table as a `.npy` structured array, fields named after the columns:
    /// little-endian 64-bit integers (`<i8`) for the columns named in `integers` (counts,
    /// flags: their values are whole numbers), doubles (`<f8`) for the others;
    /// `pandas.DataFrame(numpy.load(path))`. Format version 1.0, whose header length is 2
    /// bytes, or 2.0 (4 bytes) when the column names need more than 65 535 bytes (a 2000-ball
    /// cradle has 8000 state columns). numpy reads headers over 10 kB only with
    /// `max_header_size`. (Written here rather than by npyz: npyz 0.9.1 writes the header of a
    /// structured dtype, but panics on one over 64 KiB — an assertion in its `write_header` —
    /// the very case this writer's version 2.0 exists for.)
    pub fn write_npy(&self, mut out: impl Write, integers: &[&str]) -> Result<()> {
        let integer: Vec<bool> = self.columns.iter().map(|c| integers.contains(&c.as_str())).collect();
        let fields: Vec<String> = (self.columns.iter().zip(&integer))
            .map(|(c, &i)| format!("('{c}', '{}')", if i { "<i8" } else { "<f8" }))
            .collect();
        let header = format!(
            "{{'descr': [{}], 'fortran_order': False, 'shape': ({},), }}",
            fields.join(", "),
            self.rows()
        );
        // Magic (6) + version (2) + length (2 or 4) + header + '\n' is a multiple of 64.
        let padded = |preamble: usize| {
            let total = (preamble + header.len() + 1).div_ceil(64) * 64;
            format!("{header}{}\n", " ".repeat(total - preamble - header.len() - 1))
        };
        let short = padded(10);
        if let Ok(len) = u16::try_from(short.len()) {
            out.write_all(b"\x93NUMPY\x01\x00")?;
            out.write_all(&len.to_le_bytes())?;
            out.write_all(short.as_bytes())?;
        } else {
            let long = padded(12);
            let len = u32::try_from(long.len()).map_err(|_| Error::Unsupported {
                what: "npy header".into(),
                reason: "more than 4 GiB of column names".into(),
            })?;
            out.write_all(b"\x93NUMPY\x02\x00")?;
            out.write_all(&len.to_le_bytes())?;
            out.write_all(long.as_bytes())?;
        }
        let mut row = Vec::with_capacity(8 * self.columns.len());
        for i in 0..self.rows() {
            row.clear();
            for (x, &whole) in self.row(i).iter().zip(&integer) {
                // (`as` saturates; the integer columns hold counts and flags.)
                row.extend(if whole {
                    (*x as i64).to_le_bytes()
                } else {
                    x.to_le_bytes()
                });
            }
            out.write_all(&row)?;
        }
        Ok(())
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

#[cfg(test)]
mod tests {
    use super::Table;

    #[test]
    fn csv_round_trips_and_names_the_bad_line() {
        let mut table = Table::new(vec!["scene".into(), "z".into()]);
        table.push(&[0.0, 0.1 + 0.2]);
        table.push(&[1.0, f64::NAN]);
        table.push(&[2.0, -2.5e-7]);
        let mut text = Vec::new();
        table.write_csv(&mut text).unwrap();
        assert_eq!(
            String::from_utf8(text.clone()).unwrap(),
            "scene,z\n0,0.30000000000000004\n1,NaN\n2,-0.00000025\n"
        );
        let back = Table::read_csv(&text[..], "t.csv").unwrap();
        assert_eq!(back.columns, table.columns);
        assert!(
            back.values
                .iter()
                .zip(&table.values)
                .all(|(a, b)| a.to_bits() == b.to_bits())
        );
        let e = Table::read_csv(&b"scene,z\n0,1\n1,x\n"[..], "t.csv")
            .unwrap_err()
            .to_string();
        assert!(e.contains("t.csv") && e.contains("line 3: `x` is not a number"), "{e}");
        let e = Table::read_csv(&b"scene,z\n0,1\n1\n"[..], "t.csv")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 3: expected 2 fields"), "{e}");
        let e = Table::read_csv(&b""[..], "t.csv").unwrap_err().to_string();
        assert!(e.contains("empty file"), "{e}");
    }
}
