//! Apache Parquet (through the `arrow` and `parquet` crates): one zstd-compressed column chunk
//! per column and row group, doubles (`DOUBLE`) and 64-bit integers (`INT64`) for the counts
//! and flags, each column's unit as its Arrow field's `unit` metadata, and the units as a
//! whole in the Arrow schema's `PANDAS_ATTRS` so that `pandas.read_parquet(path).attrs["units"]` has
//! them (pandas ≥ 2.1 restores a frame's `attrs` from that key).

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Float64Array, Int64Array, RecordBatch, RecordBatchReader};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

use super::super::Table;
use crate::error::{Error, Result};

/// Rows converted to columns at a time (bounds the copy beside the table).
const BATCH: usize = 1 << 16;

impl Table {
    /// Writes the table as Parquet: the columns named in `integers` as `INT64` (counts and
    /// flags, where whole: [`Table::integer_columns`]), the others as `DOUBLE`, zstd level 3, a column's unit from `units` as its
    /// field's `unit` metadata.
    pub fn write_parquet(
        &self,
        out: impl Write + Send,
        integers: &[&str],
        units: &BTreeMap<String, String>,
    ) -> Result<()> {
        let fail = |e: parquet::errors::ParquetError| Error::Io(std::io::Error::other(e.to_string()));
        let whole = self.integer_columns(integers);
        let fields: Vec<Field> = (self.columns.iter().zip(&whole))
            .map(|(name, &whole)| {
                let kind = if whole { DataType::Int64 } else { DataType::Float64 };
                let unit = units
                    .get(name)
                    .map(|u| HashMap::from([("unit".to_string(), u.clone())]));
                Field::new(name, kind, false).with_metadata(unit.unwrap_or_default())
            })
            .collect();
        let attrs = serde_json::json!({ "units": units }).to_string();
        let schema = Arc::new(Schema::new_with_metadata(
            fields,
            HashMap::from([("PANDAS_ATTRS".into(), attrs)]),
        ));
        let properties = WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::try_new(3).map_err(fail)?))
            .build();
        let mut writer = ArrowWriter::try_new(out, schema.clone(), Some(properties)).map_err(fail)?;
        let c = self.columns.len();
        for start in (0..self.rows()).step_by(BATCH) {
            let rows = start..(start + BATCH).min(self.rows());
            let columns: Vec<ArrayRef> = (0..c)
                .map(|j| {
                    let values = rows.clone().map(|i| self.values[i * c + j]);
                    // (Exact: the integer columns' values are whole numbers within ±2⁵³.)
                    match whole[j] {
                        true => Arc::new(Int64Array::from_iter_values(values.map(|x| x as i64))) as ArrayRef,
                        false => Arc::new(Float64Array::from_iter_values(values)) as ArrayRef,
                    }
                })
                .collect();
            let batch = RecordBatch::try_new(schema.clone(), columns)
                .map_err(|e| Error::Io(std::io::Error::other(e.to_string())))?;
            writer.write(&batch).map_err(fail)?;
        }
        writer.close().map_err(fail)?;
        Ok(())
    }

    /// Reads a Parquet file of `DOUBLE` and `INT64` columns (as [`Table::write_parquet`]
    /// writes; a null reads as NaN).
    pub fn read_parquet(path: &Path) -> Result<Self> {
        let fail = |reason: String| Error::Parse {
            file: path.display().to_string(),
            reason,
        };
        let reader = ParquetRecordBatchReaderBuilder::try_new(super::open(path)?)
            .and_then(|b| b.build())
            .map_err(|e| fail(format!("not a readable Parquet file: {e}")))?;
        let schema = reader.schema();
        let mut table = Table::new(schema.fields().iter().map(|f| f.name().clone()).collect());
        let c = table.columns.len();
        for batch in reader {
            let batch = batch.map_err(|e| fail(e.to_string()))?;
            let start = table.values.len();
            table.values.resize(start + batch.num_rows() * c, f64::NAN);
            for (j, column) in batch.columns().iter().enumerate() {
                let mut set = |i: usize, x: f64| table.values[start + i * c + j] = x;
                let any = column.as_any();
                if let Some(doubles) = any.downcast_ref::<Float64Array>() {
                    (0..doubles.len())
                        .filter(|&i| doubles.is_valid(i))
                        .for_each(|i| set(i, doubles.value(i)));
                } else if let Some(integers) = any.downcast_ref::<Int64Array>() {
                    (0..integers.len())
                        .filter(|&i| integers.is_valid(i))
                        .for_each(|i| set(i, integers.value(i) as f64));
                } else {
                    return Err(fail(format!(
                        "column `{}` holds {}; DOUBLE or INT64 columns were expected",
                        table.columns[j],
                        column.data_type()
                    )));
                }
            }
        }
        Ok(table)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::super::super::Table;

    #[test]
    fn parquet_round_trips_with_units() {
        let mut table = Table::new(vec!["scene".into(), "z".into(), "impacts".into()]);
        for i in 0..(super::BATCH + 3) {
            table.push(&[i as f64, (i as f64).sqrt() - 0.1, (i % 5) as f64]);
        }
        table.values[4] = f64::NAN;
        let units = BTreeMap::from([("z".to_string(), "m".to_string())]);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.parquet");
        table
            .write_parquet(std::fs::File::create(&path).unwrap(), &["scene", "impacts"], &units)
            .unwrap();
        let back = Table::read_parquet(&path).unwrap();
        assert_eq!(back.columns, table.columns);
        assert_eq!(back.rows(), table.rows());
        assert!(
            back.values
                .iter()
                .zip(&table.values)
                .all(|(a, b)| a.to_bits() == b.to_bits())
        );
        let reader =
            parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&path).unwrap())
                .unwrap();
        let schema = reader.schema();
        assert_eq!(schema.field(1).metadata().get("unit").map(String::as_str), Some("m"));
        assert!(schema.field(0).metadata().is_empty());
        assert_eq!(schema.field(0).data_type(), &arrow_schema::DataType::Int64);
        let pandas = schema.metadata().get("PANDAS_ATTRS").map(String::as_str);
        assert_eq!(pandas, Some(r#"{"units":{"z":"m"}}"#));
        std::fs::write(&path, b"scene,z\n").unwrap();
        let e = Table::read_parquet(&path).unwrap_err().to_string();
        assert!(
            e.contains("t.parquet") && e.contains("not a readable Parquet file"),
            "{e}"
        );
    }
}
