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
