//! Reading a table back, row by row: what `linksieve graph --check` reads of a Parquet graph.

use crate::{Column, ColumnarError, Value};
use parquet::basic::Type as Physical;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::{Field, RowAccessor};

/// Reads the Parquet table in `file` row by row, in order: `each` gets the row's number
/// (the first is 1) and the values of `columns`, found by name among the table's top-level
/// columns (others are ignored; [`Column::Str`] and [`Column::OptStr`] are `BYTE_ARRAY`,
/// [`Column::Int`] `INT64` or `INT32` (as DuckDB writes an `INTEGER`),
/// [`Column::Fingerprint`] `FIXED_LEN_BYTE_ARRAY`). A column missing or of another type is
/// [`ColumnarError::Schema`]; a null where a value is due, or an error of `each`, is
/// [`ColumnarError::Rejected`] with the row's number. Returns the rows read.
///
/// ```
/// use linksieve_columnar::{Column, Table, Value, read_table};
/// use std::io::Seek;
/// let cols = [Column::Int("id"), Column::Str("name")];
/// let mut t = Table::new("vertices", &cols).unwrap();
/// let mut file = tempfile::tempfile().unwrap();
/// t.push(&[Value::Int(0), Value::Str("com.example")], &mut file).unwrap();
/// t.finish(&mut file).unwrap();
/// file.rewind().unwrap();
/// let mut names = Vec::new();
/// let n = read_table(file, &[Column::Str("name")], |_, row| match row {
///     [Value::Str(name)] => Ok(names.push(name.to_string())),
///     _ => Err("not a name".to_owned()),
/// })
/// .unwrap();
/// assert_eq!((n, names), (1, vec!["com.example".to_owned()]));
/// ```
pub fn read_table(
    file: std::fs::File,
    columns: &[Column],
    mut each: impl FnMut(u64, &[Value<'_>]) -> Result<(), String>,
) -> Result<u64, ColumnarError> {
    let reader = SerializedFileReader::new(file)?;
    let fields = reader
        .metadata()
        .file_metadata()
        .schema_descr()
        .root_schema()
        .get_fields()
        .to_vec();
    let mut at = Vec::with_capacity(columns.len());
    for c in columns {
        let (want, types): (&str, &[Physical]) = match c {
            Column::Str(_) | Column::OptStr(_) => ("BYTE_ARRAY", &[Physical::BYTE_ARRAY]),
            Column::Int(_) => ("INT32 or INT64", &[Physical::INT32, Physical::INT64]),
            Column::Fingerprint(_) => ("FIXED_LEN_BYTE_ARRAY", &[Physical::FIXED_LEN_BYTE_ARRAY]),
        };
        let i = fields
            .iter()
            .position(|f| f.name() == c.name())
            .ok_or_else(|| ColumnarError::Schema(format!("no column {:?}", c.name())))?;
        if !fields[i].is_primitive() || !types.contains(&fields[i].get_physical_type()) {
            return Err(ColumnarError::Schema(format!(
                "column {:?} is not {want}",
                c.name()
            )));
        }
        at.push(i);
    }
    let mut n = 0u64;
    for row in reader.get_row_iter(None)? {
        let row = row?;
        n += 1;
        let rejected = |why: String| ColumnarError::Rejected { row: n, why };
        let null = |c: &Column| rejected(format!("no value in column {:?}", c.name()));
        let mut values = Vec::with_capacity(columns.len());
        for (c, &i) in columns.iter().zip(&at) {
            values.push(match c {
                Column::Str(_) => Value::Str(row.get_string(i).map_err(|_| null(c))?),
                Column::OptStr(_) => Value::OptStr(row.get_string(i).ok().map(String::as_str)),
                Column::Int(_) => Value::Int(match row.get_column_iter().nth(i) {
                    Some((_, Field::Long(v))) => *v,
                    Some((_, Field::Int(v))) => i64::from(*v),
                    Some((_, Field::UInt(v))) => i64::from(*v),
                    Some((_, Field::ULong(v))) => i64::try_from(*v)
                        .map_err(|_| rejected(format!("{v} in column {:?}", c.name())))?,
                    _ => return Err(null(c)),
                }),
                Column::Fingerprint(_) => {
                    let b = row.get_bytes(i).map_err(|_| null(c))?;
                    let b: [u8; 16] = b
                        .data()
                        .try_into()
                        .map_err(|_| rejected("a fingerprint not of 16 bytes".to_owned()))?;
                    Value::Fingerprint(u128::from_be_bytes(b))
                }
            });
        }
        each(n, &values).map_err(rejected)?;
    }
    Ok(n)
}
