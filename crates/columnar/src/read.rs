//! Reading a table back, row by row: what `linksieve graph --check` reads of a Parquet graph.

use crate::{Column, ColumnarError, Value};
use parquet::basic::Type as Physical;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::{Field, RowAccessor};
use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};

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
    let reader = guarded(|| SerializedFileReader::new(file))?;
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
    let mut rows = guarded(|| reader.get_row_iter(None))?;
    while let Some(row) = guarded(|| rows.next().transpose())? {
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

thread_local! {
    /// Whether this thread is in a call of the `parquet` crate made by [`guarded`].
    static GUARDED: Cell<bool> = const { Cell::new(false) };
}

/// Runs one call of the `parquet` crate's reader on a file from outside. That crate panics on
/// some damaged files instead of returning an error (an index out of bounds in its RLE decoder,
/// `encodings/rle.rs`, with bits flipped in a data page: 7 of 400 damaged copies of a graph
/// table here); such a panic becomes [`ColumnarError::Damaged`], so a damaged table is an error
/// like a truncated one. Only the crate's calls are guarded, never the caller's `each`.
fn guarded<T>(
    call: impl FnOnce() -> Result<T, parquet::errors::ParquetError>,
) -> Result<T, ColumnarError> {
    GUARDED.with(|g| g.set(true));
    let result = catch_unwind(AssertUnwindSafe(call));
    GUARDED.with(|g| g.set(false));
    match result {
        Ok(r) => Ok(r?),
        Err(panic) => Err(ColumnarError::Damaged(
            panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("the reader stopped")
                .to_owned(),
        )),
    }
}

/// Whether the panic now being raised on this thread comes from the Parquet reader inside
/// [`read_table`], which returns it as [`ColumnarError::Damaged`]: a panic hook can leave it
/// unprinted (the `linksieve` binary does), since the caller reports the error.
///
/// ```
/// assert!(!linksieve_columnar::reader_panic_is_caught());
/// ```
pub fn reader_panic_is_caught() -> bool {
    GUARDED.with(Cell::get)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Table;
    use std::io::{Seek, Write};

    /// Every single-bit flip of a small table (the shape of `graph --format parquet`'s edges):
    /// `read_table` returns (rows or an error) and never lets the `parquet` crate's panic out.
    /// Some flips do make that crate panic (parquet 57: an index out of bounds in its RLE
    /// decoder, an `unwrap` on a page header); they come back as `Damaged`. Should an upgrade
    /// stop every such panic, the last assertion says so: the guard may then be dropped.
    #[test]
    fn a_damaged_table_is_an_error_never_a_panic() {
        let cols = [Column::Int("s"), Column::Int("t")];
        let mut table = Table::new("edges", &cols).unwrap();
        let mut clean = Vec::new();
        for i in 0..300i64 {
            table
                .push(&[Value::Int(i / 5), Value::Int((i * 7) % 60)], &mut clean)
                .unwrap();
        }
        table.finish(&mut clean).unwrap();
        let mut file = tempfile::tempfile().unwrap();
        let (mut damaged, mut errors, mut read) = (0, 0, 0);
        for bit in 0..clean.len() * 8 {
            let mut bytes = clean.clone();
            bytes[bit / 8] ^= 1 << (bit % 8);
            file.set_len(0).unwrap();
            file.rewind().unwrap();
            file.write_all(&bytes).unwrap();
            file.rewind().unwrap();
            match read_table(file.try_clone().unwrap(), &cols, |_, _| Ok(())) {
                Ok(_) => read += 1,
                Err(ColumnarError::Damaged(_)) => damaged += 1,
                Err(_) => errors += 1,
            }
            assert!(
                !reader_panic_is_caught(),
                "the flag is cleared after each call"
            );
        }
        assert!(read > 0 && errors > 0, "{read} read, {errors} errors");
        assert!(
            damaged > 0,
            "no flip made the parquet crate panic: is the guard still needed?"
        );
    }
}
