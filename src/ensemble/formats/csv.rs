//! CSV: the column names, then one line per row, numbers in the shortest decimal that reads
//! back to the same bits.

use std::io::{BufRead, Write};

use super::super::Table;
use crate::error::{Error, Result};

impl Table {
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
}

#[cfg(test)]
mod tests {
    use super::super::super::Table;

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
