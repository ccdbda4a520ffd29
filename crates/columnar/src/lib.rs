//! Parquet tables for linksieve (`run --format parquet`, `graph --format parquet`): a fixed
//! set of columns, rows pushed one by one, written a row group at a time (zstd pages) to any
//! writer, so that memory holds one row group and never the table. The file is readable once
//! [`Table::finish`] wrote its footer (Parquet keeps its metadata at the end): until then a
//! reader holds no table at all, which is why `run` records keys in a durable seen-set only
//! after the finish.
//!
//! ```
//! use linksieve_columnar::{Column, Table, Value};
//! let mut t = Table::new("links", &[Column::Str("url"), Column::Int("offset")]).unwrap();
//! let mut out = Vec::new();
//! t.push(&[Value::Str("http://a.example/"), Value::Int(7)], &mut out).unwrap();
//! let rows = t.finish(&mut out).unwrap();
//! assert_eq!(rows, 1);
//! assert_eq!(&out[..4], b"PAR1");
//! ```

use parquet::basic::{Compression, ZstdLevel};
use parquet::data_type::{
    ByteArray, ByteArrayType, FixedLenByteArray, FixedLenByteArrayType, Int64Type,
};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use std::io::{self, Write};
use std::sync::Arc;

/// One column of a [`Table`], by its name.
///
/// ```
/// assert_eq!(linksieve_columnar::Column::Int("id").name(), "id");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Column {
    /// A UTF-8 string (`BYTE_ARRAY`, logical type `STRING`).
    Str(&'static str),
    /// A UTF-8 string or null.
    OptStr(&'static str),
    /// A 64-bit signed integer (`INT64`).
    Int(&'static str),
    /// A 128-bit fingerprint (`FIXED_LEN_BYTE_ARRAY(16)`, Arrow's `FixedSizeBinary(16)`), big
    /// endian: its hex is the fingerprint's as the TSV rows write it.
    Fingerprint(&'static str),
}

impl Column {
    /// The column's name.
    ///
    /// ```
    /// assert_eq!(linksieve_columnar::Column::Str("url").name(), "url");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Column::Str(n) | Column::OptStr(n) | Column::Int(n) | Column::Fingerprint(n) => n,
        }
    }

    fn schema_line(self) -> String {
        match self {
            Column::Str(n) => format!("required binary {n} (STRING);"),
            Column::OptStr(n) => format!("optional binary {n} (STRING);"),
            Column::Int(n) => format!("required int64 {n};"),
            Column::Fingerprint(n) => format!("required fixed_len_byte_array(16) {n};"),
        }
    }
}

/// A value of one row, in its column's order ([`Column`]).
///
/// ```
/// let v = linksieve_columnar::Value::OptStr(None);
/// assert_eq!(v, linksieve_columnar::Value::OptStr(None));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value<'a> {
    /// For [`Column::Str`].
    Str(&'a str),
    /// For [`Column::OptStr`].
    OptStr(Option<&'a str>),
    /// For [`Column::Int`].
    Int(i64),
    /// For [`Column::Fingerprint`].
    Fingerprint(u128),
}

/// Why a table could not be written or read.
///
/// ```
/// let e = linksieve_columnar::ColumnarError::Row("2 values for 3 columns".into());
/// assert!(e.to_string().contains("3 columns"));
/// ```
#[derive(Debug, thiserror::Error)]
pub enum ColumnarError {
    /// A row that does not fit the columns (a bug of the caller).
    #[error("a row that does not fit the table: {0}")]
    Row(String),
    /// The Parquet writer failed.
    #[error("Parquet: {0}")]
    Parquet(#[from] parquet::errors::ParquetError),
    /// The output failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// A table read ([`read_table`]) lacks a column, or has it of another type.
    #[error("{0}")]
    Schema(String),
    /// A table read ([`read_table`]) is damaged in a way the `parquet` crate's reader did not
    /// return as an error but panicked on (caught): the panic's message.
    #[error("a damaged Parquet file: {0}")]
    Damaged(String),
    /// A row read ([`read_table`]) was refused: a null where a value is due, or by the
    /// caller.
    #[error("row {row}: {why}")]
    Rejected {
        /// The row's number, from 1.
        row: u64,
        /// Why.
        why: String,
    },
}

mod read;
pub use read::{read_table, reader_panic_is_caught};

/// One column's values of the row group being filled.
enum Values {
    Bytes(Vec<ByteArray>),
    OptBytes(Vec<ByteArray>, Vec<i16>),
    Ints(Vec<i64>),
    Fixed(Vec<FixedLenByteArray>),
}

/// The row group is written when it holds this many bytes of values...
const GROUP_BYTES: usize = 32 << 20;
/// ...or this many rows.
const GROUP_ROWS: usize = 1 << 20;

/// A Parquet table being written: rows are kept until a row group is full, then written
/// (zstd) and handed to the output.
pub struct Table {
    columns: Vec<Column>,
    values: Vec<Values>,
    rows: usize,
    bytes: usize,
    total: u64,
    writer: SerializedFileWriter<Vec<u8>>,
}

impl Table {
    /// An empty table of `columns`, its schema named `name`.
    ///
    /// ```
    /// let t = linksieve_columnar::Table::new("t", &[linksieve_columnar::Column::Str("a")]);
    /// assert!(t.is_ok());
    /// ```
    pub fn new(name: &str, columns: &[Column]) -> Result<Table, ColumnarError> {
        let fields: Vec<String> = columns.iter().map(|c| c.schema_line()).collect();
        let schema = parquet::schema::parser::parse_message_type(&format!(
            "message {name} {{ {} }}",
            fields.join(" ")
        ))?;
        let props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::try_new(3)?))
            .set_created_by(format!("linksieve {}", env!("CARGO_PKG_VERSION")))
            .build();
        let writer = SerializedFileWriter::new(Vec::new(), Arc::new(schema), Arc::new(props))?;
        let values = columns
            .iter()
            .map(|c| match c {
                Column::Str(_) => Values::Bytes(Vec::new()),
                Column::OptStr(_) => Values::OptBytes(Vec::new(), Vec::new()),
                Column::Int(_) => Values::Ints(Vec::new()),
                Column::Fingerprint(_) => Values::Fixed(Vec::new()),
            })
            .collect();
        Ok(Table {
            columns: columns.to_vec(),
            values,
            rows: 0,
            bytes: 0,
            total: 0,
            writer,
        })
    }

    /// Adds one row; when the row group is full it is written to `out`.
    ///
    /// ```
    /// use linksieve_columnar::{Column, Table, Value};
    /// let mut t = Table::new("t", &[Column::OptStr("a")]).unwrap();
    /// let mut out = Vec::new();
    /// assert!(t.push(&[Value::Int(1)], &mut out).is_err());
    /// ```
    pub fn push(&mut self, row: &[Value<'_>], out: &mut dyn Write) -> Result<(), ColumnarError> {
        if row.len() != self.columns.len() {
            return Err(ColumnarError::Row(format!(
                "{} values for {} columns",
                row.len(),
                self.columns.len()
            )));
        }
        for (i, (v, col)) in row.iter().zip(&mut self.values).enumerate() {
            match (v, col) {
                (Value::Str(s), Values::Bytes(c)) => {
                    self.bytes += s.len();
                    c.push(ByteArray::from(s.as_bytes().to_vec()));
                }
                (Value::OptStr(s), Values::OptBytes(c, def)) => {
                    def.push(i16::from(s.is_some()));
                    if let Some(s) = s {
                        self.bytes += s.len();
                        c.push(ByteArray::from(s.as_bytes().to_vec()));
                    }
                }
                (Value::Int(n), Values::Ints(c)) => c.push(*n),
                (Value::Fingerprint(fp), Values::Fixed(c)) => {
                    c.push(FixedLenByteArray::from(fp.to_be_bytes().to_vec()))
                }
                (v, _) => {
                    let name = self.columns[i].name();
                    return Err(ColumnarError::Row(format!("{v:?} for column {name}")));
                }
            }
        }
        self.rows += 1;
        self.bytes += 16;
        if self.rows >= GROUP_ROWS || self.bytes >= GROUP_BYTES {
            self.write_group(out)?;
        }
        Ok(())
    }

    /// Writes the rows held as one row group, and hands the bytes written to `out`.
    fn write_group(&mut self, out: &mut dyn Write) -> Result<(), ColumnarError> {
        if self.rows == 0 {
            return Ok(());
        }
        let mut group = self.writer.next_row_group()?;
        for values in &mut self.values {
            let Some(mut col) = group.next_column()? else {
                return Err(ColumnarError::Row("fewer columns in the schema".into()));
            };
            match values {
                Values::Bytes(v) => {
                    col.typed::<ByteArrayType>().write_batch(v, None, None)?;
                    v.clear();
                }
                Values::OptBytes(v, def) => {
                    col.typed::<ByteArrayType>()
                        .write_batch(v, Some(def), None)?;
                    v.clear();
                    def.clear();
                }
                Values::Ints(v) => {
                    col.typed::<Int64Type>().write_batch(v, None, None)?;
                    v.clear();
                }
                Values::Fixed(v) => {
                    col.typed::<FixedLenByteArrayType>()
                        .write_batch(v, None, None)?;
                    v.clear();
                }
            }
            col.close()?;
        }
        group.close()?;
        self.total += self.rows as u64;
        self.rows = 0;
        self.bytes = 0;
        self.hand_over(out)
    }

    /// Hands the bytes the writer made so far to `out`.
    fn hand_over(&mut self, out: &mut dyn Write) -> Result<(), ColumnarError> {
        let buf = self.writer.inner_mut();
        out.write_all(buf)?;
        buf.clear();
        Ok(())
    }

    /// Writes the last row group and the footer to `out`; returns the rows written.
    pub fn finish(mut self, out: &mut dyn Write) -> Result<u64, ColumnarError> {
        self.write_group(out)?;
        self.writer.finish()?;
        self.hand_over(out)?;
        Ok(self.total)
    }
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("columns", &self.columns)
            .field("rows", &(self.total + self.rows as u64))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::RowAccessor;

    #[test]
    fn rows_come_back_in_order_over_row_groups() {
        let cols = [
            Column::Str("url"),
            Column::OptStr("host"),
            Column::Int("n"),
            Column::Fingerprint("fp"),
        ];
        let mut t = Table::new("t", &cols).unwrap();
        let mut out = Vec::new();
        for i in 0..1000u64 {
            let url = format!("http://h{i}.example/");
            let host = (i % 3 != 0).then(|| format!("h{i}.example"));
            let row = [
                Value::Str(&url),
                Value::OptStr(host.as_deref()),
                Value::Int(i as i64),
                Value::Fingerprint(u128::from(i) << 64 | 0xab),
            ];
            t.push(&row, &mut out).unwrap();
            if i == 499 {
                t.write_group(&mut out).unwrap();
            }
        }
        assert_eq!(t.finish(&mut out).unwrap(), 1000);
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(&out).unwrap();
        let r = SerializedFileReader::new(file).unwrap();
        assert_eq!(r.metadata().num_row_groups(), 2);
        for (i, row) in r.get_row_iter(None).unwrap().enumerate() {
            let row = row.unwrap();
            assert_eq!(row.get_string(0).unwrap(), &format!("http://h{i}.example/"));
            assert_eq!(row.get_string(1).is_ok(), i % 3 != 0);
            assert_eq!(row.get_long(2).unwrap(), i as i64);
            let fp = row.get_bytes(3).unwrap_or_else(|_| panic!("row {i}"));
            assert_eq!(fp.data()[..8], (i as u64).to_be_bytes());
        }
    }
}
