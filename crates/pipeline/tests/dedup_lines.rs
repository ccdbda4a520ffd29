//! `linksieve dedup` (`dedup_lines`) under bad input: issue #18 item 13, a very long line costs
//! work linear in its length. Before the fix each 1 MiB read copied and searched the whole
//! carried line: 16 MiB vs 64 MiB took 11.6x the time (linear is 4x). The test counts the work
//! (`DedupStats::work`: the bytes read, searched, copied and moved), not the time, so a busy
//! machine cannot fail it.

use linksieve_pipeline::{InputSpec, dedup_lines};
use std::path::{Path, PathBuf};

fn tempdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ls-dedup-lines-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The work of one `dedup_lines` over `file` (and its bytes read); checks the output.
fn work_of(file: &Path, expect_len: usize) -> (u64, u64) {
    let mut out = Vec::new();
    let stats = dedup_lines(
        &[InputSpec::File(file.to_path_buf())],
        &mut linksieve_dedup::MemorySet::new(),
        &mut out,
        &Default::default(),
        None,
        linksieve_pipeline::seen::DEFAULT_COMMIT,
    )
    .unwrap();
    assert_eq!((stats.lines, stats.unique, stats.duplicates), (4, 3, 1));
    assert_eq!(out.len(), expect_len);
    (stats.work, stats.bytes_read)
}

#[test]
fn a_long_line_costs_work_linear_in_its_length() {
    let dir = tempdir("long");
    let mut works = Vec::new();
    for mb in [16usize, 64] {
        // a short line, the long line (no LF for `mb` MiB), the short line again, a last one
        let mut data = b"http://a/\n".to_vec();
        data.extend(std::iter::repeat_n(b'x', mb << 20));
        data.extend_from_slice(b"\nhttp://a/\nhttp://b/");
        let f = dir.join(format!("{mb}.txt"));
        std::fs::write(&f, &data).unwrap();
        let expect_len = data.len() - b"http://a/\n".len() + 1;
        let (work, read) = work_of(&f, expect_len);
        assert_eq!(read, data.len() as u64);
        // each byte read once, searched once, fingerprinted and searched in its batch, moved
        // at most once per doubling of the buffer (twice in all): at most 6 times
        assert!(
            work <= 6 * read,
            "{mb} MiB: {work} bytes of work for {read} read"
        );
        works.push(work);
    }
    std::fs::remove_dir_all(&dir).unwrap();
    let ratio = works[1] as f64 / works[0] as f64;
    assert!(
        (3.5..4.5).contains(&ratio),
        "a 4x longer line took {ratio:.2}x the work ({} and {} bytes; linear is 4x)",
        works[0],
        works[1]
    );
}
