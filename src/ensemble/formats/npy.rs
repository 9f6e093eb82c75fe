//! numpy's `.npy`: a structured array with one named field per column.

use std::io::{Read, Write};

use super::super::Table;
use crate::error::{Error, Result};

impl Table {
    /// Writes the table as a `.npy` structured array, fields named after the columns:
    /// little-endian 64-bit integers (`<i8`) for the columns named in `integers` (counts,
    /// flags) whose values are whole ([`Table::integer_columns`]), doubles (`<f8`) for the others;
    /// `pandas.DataFrame(numpy.load(path))`. Format version 1.0, whose header length is 2
    /// bytes, or 2.0 (4 bytes) when the column names need more than 65 535 bytes (a 2000-ball
    /// cradle has 8000 state columns). numpy reads headers over 10 kB only with
    /// `max_header_size`. (Written here rather than by npyz: npyz 0.9.1 writes the header of a
    /// structured dtype, but panics on one over 64 KiB — an assertion in its `write_header` —
    /// the very case this writer's version 2.0 exists for.)
    pub fn write_npy(&self, mut out: impl Write, integers: &[&str]) -> Result<()> {
        let integer = self.integer_columns(integers);
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
                // (Exact: the integer columns' values are whole numbers within ±2⁵³.)
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

    /// Reads a `.npy` written by [`Table::write_npy`] (or by numpy: a one-dimensional
    /// structured array of `<f8` and `<i8` fields, any format version); `file` names it in
    /// errors.
    pub fn read_npy(mut input: impl Read, file: &str) -> Result<Self> {
        let fail = |reason: String| Error::Parse {
            file: file.into(),
            reason,
        };
        let mut bytes = Vec::new();
        input.read_to_end(&mut bytes)?;
        let (header, body) = header(&bytes).ok_or_else(|| fail("not a .npy file (bad magic or header)".into()))?;
        let (fields, rows) = descr_and_shape(header).ok_or_else(|| {
            let shown: String = header.trim_end().chars().take(200).collect();
            fail(format!(
                "a .npy of a one-dimensional structured array of <f8 and <i8 fields was expected, the header is {shown}{}",
                if shown.len() < header.trim_end().len() { " …" } else { "" }
            ))
        })?;
        let width = 8 * fields.len();
        if body.len() != width * rows {
            return Err(fail(format!(
                "{rows} rows of {} fields need {} bytes after the header, the file has {}",
                fields.len(),
                width * rows,
                body.len()
            )));
        }
        let mut table = Table::new(fields.iter().map(|(name, _)| name.clone()).collect());
        table.values.reserve(rows * fields.len());
        for row in body.chunks_exact(width.max(1)).take(rows) {
            for (value, (_, whole)) in row.chunks_exact(8).zip(&fields) {
                let value: [u8; 8] = value.try_into().expect("8 bytes");
                table.values.push(match whole {
                    true => i64::from_le_bytes(value) as f64,
                    false => f64::from_le_bytes(value),
                });
            }
        }
        Ok(table)
    }
}

/// The header text and the data after it.
fn header(bytes: &[u8]) -> Option<(&str, &[u8])> {
    let rest = bytes.strip_prefix(b"\x93NUMPY")?;
    let (&[major, _minor], rest) = rest.split_first_chunk::<2>()?;
    let (len, rest) = match major {
        1 => {
            let (len, rest) = rest.split_first_chunk::<2>()?;
            (u16::from_le_bytes(*len) as usize, rest)
        }
        2 | 3 => {
            let (len, rest) = rest.split_first_chunk::<4>()?;
            (u32::from_le_bytes(*len) as usize, rest)
        }
        _ => return None,
    };
    let (header, body) = (rest.get(..len)?, rest.get(len..)?);
    Some((std::str::from_utf8(header).ok()?, body))
}

/// The fields (name, whether `<i8`) and the row count of a header, a Python dict literal
/// `{'descr': [('a', '<f8'), …], 'fortran_order': False, 'shape': (n,), }` with its keys in
/// any order and any spacing.
fn descr_and_shape(header: &str) -> Option<(Vec<(String, bool)>, usize)> {
    let value = |key: &str| {
        let at = header.find(&format!("'{key}'"))? + key.len() + 2;
        header[at..].trim_start().strip_prefix(':').map(str::trim_start)
    };
    let descr = value("descr")?.strip_prefix('[')?;
    let descr = &descr[..descr.find(']')?];
    // The quoted strings, in order: name, type, name, type, …
    let quoted: Vec<&str> = descr.split('\'').skip(1).step_by(2).collect();
    if !quoted.len().is_multiple_of(2) {
        return None;
    }
    let fields = quoted
        .chunks_exact(2)
        .map(|pair| match pair[1] {
            "<i8" => Some((pair[0].to_string(), true)),
            "<f8" => Some((pair[0].to_string(), false)),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    if !value("fortran_order")?.starts_with("False") {
        return None;
    }
    let shape = value("shape")?.strip_prefix('(')?;
    let rows = shape[..shape.find(')')?]
        .trim()
        .strip_suffix(',')?
        .trim()
        .parse()
        .ok()?;
    Some((fields, rows))
}

#[cfg(test)]
mod tests {
    use super::super::super::Table;

    #[test]
    fn npy_round_trips_with_integer_columns() {
        let mut table = Table::new(vec!["scene".into(), "z".into(), "impacts".into()]);
        table.push(&[0.0, 0.1 + 0.2, 3.0]);
        table.push(&[1.0, f64::NAN, 0.0]);
        table.push(&[2.0, -2.5e-7, 7.0]);
        let mut bytes = Vec::new();
        table.write_npy(&mut bytes, &["scene", "impacts"]).unwrap();
        let back = Table::read_npy(&bytes[..], "t.npy").unwrap();
        assert_eq!(back.columns, table.columns);
        assert!(
            back.values
                .iter()
                .zip(&table.values)
                .all(|(a, b)| a.to_bits() == b.to_bits())
        );
        let e = Table::read_npy(&bytes[..bytes.len() - 8], "t.npy")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("t.npy") && e.contains("3 rows of 3 fields need 72 bytes"),
            "{e}"
        );
        // numpy's own spellings: no spaces, keys in another order, a trailing comma.
        for header in [
            "{'shape':(3,),'fortran_order':False,'descr':[('scene','<i8'),('z','<f8'),('impacts','<i8')]}",
            "{'descr': [('scene', '<i8'), ('z', '<f8'), ('impacts', '<i8'),], 'fortran_order': False, 'shape': (3,), }",
        ] {
            let mut other = b"\x93NUMPY\x01\x00".to_vec();
            other.extend((header.len() as u16).to_le_bytes());
            other.extend(header.as_bytes());
            let body = &bytes[bytes.len() - 72..];
            other.extend(body);
            let back = Table::read_npy(&other[..], "t.npy").unwrap();
            assert_eq!(back.columns, table.columns, "{header}");
            assert!(
                back.values
                    .iter()
                    .zip(&table.values)
                    .all(|(a, b)| a.to_bits() == b.to_bits())
            );
        }
        let e = Table::read_npy(&b"PK\x03\x04"[..], "t.npy").unwrap_err().to_string();
        assert!(e.contains("not a .npy file"), "{e}");
    }
}
