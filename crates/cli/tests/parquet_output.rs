//! `run --format parquet` (issue 34) and durable seen-sets: a Parquet table is readable only
//! once its footer is written, so a store records its keys only after that. (The table's rows
//! are checked against the text formats by DuckDB: `tests/oracles/test_parquet.py`.)

use crate::common;
use crate::edges::record_links_warc;
use common::{linksieve, run_paths, tempdir};

/// `--format parquet` with a durable seen-set: the table is readable only once its footer is
/// written, so the store records nothing before; a run whose output fails records nothing.
#[cfg(target_os = "linux")]
#[test]
fn a_parquet_run_records_its_keys_only_once_the_table_is_whole() {
    let d = tempdir("parquet-seen");
    let input = d.join("r.warc");
    std::fs::write(&input, record_links_warc()).unwrap();
    let store = d.join("seen.redb");
    let (s, i) = (store.to_str().unwrap(), input.to_str().unwrap());
    let out = common::to_full_output(["run", "-q", "--format", "parquet", "--seen", s, i]);
    assert_eq!(out.status.code(), Some(4));
    // nothing was recorded: every key is still new
    let (code, keys, err) = run_paths(&["-q", "--seen", s], &[&input]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(keys.lines().count(), 7, "{keys}");
    // a whole table: its keys recorded (none new the next time)
    let table = d.join("t.parquet");
    let fresh = d.join("fresh.redb");
    let args = [
        "-q",
        "--format",
        "parquet",
        "--seen",
        fresh.to_str().unwrap(),
        "--out",
    ];
    let (code, _, err) = run_paths(&[&args[..], &[table.to_str().unwrap()]].concat(), &[&input]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read(&table).unwrap().ends_with(b"PAR1"));
    let (_, again, _) = run_paths(&["-q", "--seen", fresh.to_str().unwrap()], &[&input]);
    assert_eq!(again, "");
    assert_eq!(
        linksieve(&["run", "--format", "parquet", "--counts"], "").code,
        2
    );
}

/// `graph --check` on a Parquet table damaged so that the `parquet` crate panics as it reads
/// (it does on some single-bit flips): exit 1 with the file named, and no panic printed (the
/// reader's panic is caught and returned as an error).
#[test]
fn a_damaged_parquet_table_is_an_error_not_a_panic() {
    use linksieve_columnar::{Column, ColumnarError, read_table};
    let d = tempdir("parquet-damaged");
    let rows: String = (0..300)
        .map(|i| format!("h{:03}\th{:03}\t1\ta\n", i % 50, (i * 7) % 60))
        .collect();
    let g = d.join("g");
    let dir = g.to_str().unwrap();
    let r = linksieve(&["graph", "--format", "parquet", "--out", dir], &rows);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(linksieve(&["graph", "--check", dir], "").code, 0);
    let path = g.join("edges.parquet");
    let clean = std::fs::read(&path).unwrap();
    let cols = [Column::Int("s"), Column::Int("t")];
    // the first flip the parquet crate panics on, found in this process (where it is caught)
    let panics = (0..clean.len() * 8).find(|&bit| {
        let mut bytes = clean.clone();
        bytes[bit / 8] ^= 1 << (bit % 8);
        std::fs::write(&path, &bytes).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        matches!(
            read_table(file, &cols, |_, _| Ok(())),
            Err(ColumnarError::Damaged(_))
        )
    });
    assert!(panics.is_some(), "no flip makes the parquet crate panic");
    let r = linksieve(&["graph", "--check", dir], "");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("edges.parquet: a damaged Parquet file: "),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
}
