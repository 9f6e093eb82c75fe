//! The files a run's tables are written to, chosen by `[output] formats` (or `--format`):
//!
//! - `csv`: text, the shortest decimal that reads back to the same bits ([`Table::write_csv`]);
//! - `npy`: numpy's structured array, `pandas.DataFrame(numpy.load(path))` ([`Table::write_npy`]);
//! - `parquet`: Apache Parquet, zstd, units as field metadata, what pandas, polars and DuckDB
//!   read lazily (`Table::write_parquet`, with the `parquet` feature).
//!
//! A million scenes of the bouncing balls (16 columns): 160 MB of CSV, 128 MB of NPY, 55 MB
//! of Parquet (BENCHMARKS.md §4.13), hence Parquet by default where the build has it. Every
//! format holds the same bits; reading a directory takes whichever is there.

mod csv;
mod npy;
#[cfg(feature = "parquet")]
mod parquet;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::Table;
use crate::error::{Error, Result};

/// A table's file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, strum::Display)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Format {
    /// `.csv`.
    Csv,
    /// `.npy`.
    Npy,
    /// `.parquet`.
    Parquet,
}

/// The formats a directory is read from, in order of preference (binary first: no parsing).
const READ_ORDER: [Format; 3] = [Format::Parquet, Format::Npy, Format::Csv];

impl Format {
    /// The file name extension.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Csv => "csv",
            Self::Npy => "npy",
            Self::Parquet => "parquet",
        }
    }

    /// The file of the table `stem` in this format: `{stem}.{extension}`.
    pub fn file(self, stem: &str) -> String {
        format!("{stem}.{}", self.extension())
    }

    /// Every format, as the files a run may leave (`{stem}.{extension}`).
    pub const ALL: [Format; 3] = [Format::Csv, Format::Npy, Format::Parquet];

    /// What a run writes unless told otherwise: one compact table, Parquet, where this build
    /// has the `parquet` feature; CSV where it has not.
    pub fn defaults() -> Vec<Format> {
        vec![if cfg!(feature = "parquet") {
            Self::Parquet
        } else {
            Self::Csv
        }]
    }

    /// Checks a list of formats: at least one, none twice, each one this build writes.
    pub fn check(formats: &[Format]) -> Result<()> {
        let wrong = |reason: String| Error::Scenario {
            what: "[output] formats".into(),
            reason,
        };
        if formats.is_empty() {
            return Err(wrong("is empty: name at least one of csv, npy, parquet".into()));
        }
        if let Some(f) = formats
            .iter()
            .enumerate()
            .find_map(|(i, f)| formats[..i].contains(f).then_some(f))
        {
            return Err(wrong(format!("names {f} twice")));
        }
        if formats.contains(&Self::Parquet) && !cfg!(feature = "parquet") {
            return Err(wrong(
                "parquet: this build has no `parquet` feature (build with `--features parquet`, or choose csv or npy)"
                    .into(),
            ));
        }
        Ok(())
    }
}

/// `[output]`: how the tables are written (not part of what is computed: the scenario's
/// fingerprint leaves it out, so a resumed run may change it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSettings {
    /// The tables' formats ([`Format::defaults`] unless given).
    #[serde(default = "Format::defaults")]
    pub formats: Vec<Format>,
}

impl Default for OutputSettings {
    fn default() -> Self {
        Self {
            formats: Format::defaults(),
        }
    }
}

/// How the binary formats type and label a table's columns.
#[derive(Clone, Copy)]
pub struct Columns<'a> {
    /// The columns that hold counts and flags: 64-bit integers in NPY and Parquet where
    /// every value is a whole number ([`Table::integer_columns`]).
    pub integers: &'a [&'a str],
    /// The units of the columns whose unit is known (Parquet's field metadata).
    pub units: &'a BTreeMap<String, String>,
}

impl Table {
    /// Which columns NPY and Parquet store as 64-bit integers: those named in `integers`
    /// whose every value is a whole number within ±2⁵³ (so that the integer holds the same
    /// bits); any other column — an observable that took such a name, a NaN — stays double.
    pub fn integer_columns(&self, integers: &[&str]) -> Vec<bool> {
        let c = self.columns.len();
        (self.columns.iter().enumerate())
            .map(|(j, name)| {
                integers.contains(&name.as_str())
                    && (0..self.rows()).all(|i| {
                        let x = self.values[i * c + j];
                        x.fract() == 0.0 && x.abs() <= 2f64.powi(53) && !(x == 0.0 && x.is_sign_negative())
                    })
            })
            .collect()
    }
}

/// Writes `table` in `format` to `out`.
pub fn write(table: &Table, format: Format, out: &mut (impl Write + Send), columns: Columns) -> Result<()> {
    match format {
        Format::Csv => table.write_csv(out),
        Format::Npy => table.write_npy(out, columns.integers),
        #[cfg(feature = "parquet")]
        Format::Parquet => table.write_parquet(out, columns.integers, columns.units),
        #[cfg(not(feature = "parquet"))]
        Format::Parquet => Format::check(&[format]),
    }
}

/// `path` opened for reading; the error names the file.
pub fn open(path: &Path) -> Result<std::fs::File> {
    std::fs::File::open(path).map_err(|e| Error::Parse {
        file: path.display().to_string(),
        reason: format!("cannot open: {e}"),
    })
}

/// The formats in which `dir` holds the table `stem` (in [`Format::ALL`]'s order).
pub fn present(dir: &Path, stem: &str) -> Vec<Format> {
    Format::ALL
        .into_iter()
        .filter(|f| dir.join(f.file(stem)).exists())
        .collect()
}

/// Reads the table `dir/{stem}.*` from the first of `formats` that is there (binary ones
/// first: Parquet, NPY, then CSV), or `None` when none is. `formats` are those the run wrote
/// (`run.json`): a file of another format is another run's and is never read. A Parquet
/// file in a build without the feature is read from another format, or named in the error
/// when it is the only one.
pub fn read(dir: &Path, stem: &str, formats: &[Format]) -> Result<Option<Table>> {
    let path = |format: Format| dir.join(format.file(stem));
    let buffered = |path: &Path| open(path).map(std::io::BufReader::new);
    for format in READ_ORDER.into_iter().filter(|f| formats.contains(f)) {
        let p = path(format);
        if !p.exists() {
            continue;
        }
        let name = p.display().to_string();
        return Ok(Some(match format {
            Format::Csv => Table::read_csv(buffered(&p)?, &name)?,
            Format::Npy => Table::read_npy(buffered(&p)?, &name)?,
            #[cfg(feature = "parquet")]
            Format::Parquet => Table::read_parquet(&p)?,
            #[cfg(not(feature = "parquet"))]
            Format::Parquet => continue,
        }));
    }
    match formats.contains(&Format::Parquet) && path(Format::Parquet).exists() {
        true => Err(Error::Parse {
            file: path(Format::Parquet).display().to_string(),
            reason: "this build has no `parquet` feature to read it (and no other format of the table is there)".into(),
        }),
        false => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::super::Scenario;
    use super::Format;

    const BALL: &str =
        "name = \"ball\"\nscenes = 2\n[scene]\ntemplate = \"bouncing_ball\"\n[time]\nstep = 1e-3\nfinal = 0.01\n";

    #[test]
    fn output_formats_are_read_checked_and_not_fingerprinted() {
        let plain = Scenario::from_toml(BALL).unwrap();
        assert_eq!(plain.output.formats, Format::defaults());
        let both = Scenario::from_toml(&format!("{BALL}[output]\nformats = [\"npy\", \"csv\"]\n")).unwrap();
        assert_eq!(both.output.formats, [Format::Npy, Format::Csv]);
        assert_eq!(
            both.fingerprint(),
            plain.fingerprint(),
            "how results are written is not what is computed"
        );
        for (formats, says) in [
            ("[]", "is empty"),
            ("[\"csv\", \"npy\", \"csv\"]", "names csv twice"),
            ("[\"hdf5\"]", "unknown variant `hdf5`"),
        ] {
            let e = Scenario::from_toml(&format!("{BALL}[output]\nformats = {formats}\n"))
                .unwrap_err()
                .to_string();
            assert!(
                e.contains(says) && (e.contains("[output]") || e.contains("formats")),
                "{formats}: {e}"
            );
        }
    }
}
