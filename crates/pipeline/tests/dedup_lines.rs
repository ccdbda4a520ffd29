//! `linksieve dedup` (`dedup_lines`) under bad input: issue #18 item 13, a very long line costs
//! time linear in its length (4x the line must cost less than 10x the time; linear is 4x). Before the fix
//! each 1 MiB read copied and searched the whole carried line: 16 MiB vs 64 MiB took 11.6x.

use linksieve_pipeline::{InputSpec, dedup_lines};
use std::path::{Path, PathBuf};
use std::time::Instant;

fn tempdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ls-dedup-lines-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Seconds of one `dedup_lines` over `file`, the median of 3; checks the output each time.
fn time_dedup(file: &Path, expect_len: usize) -> f64 {
    let mut t = Vec::new();
    for _ in 0..3 {
        let mut out = Vec::new();
        let start = Instant::now();
        let stats = dedup_lines(
            &[InputSpec::File(file.to_path_buf())],
            &mut linksieve_dedup::MemorySet::new(),
            &mut out,
            &Default::default(),
            None,
            linksieve_pipeline::seen::DEFAULT_COMMIT,
        )
        .unwrap();
        t.push(start.elapsed().as_secs_f64());
        assert_eq!((stats.lines, stats.unique, stats.duplicates), (4, 3, 1));
        assert_eq!(out.len(), expect_len);
    }
    t.sort_by(f64::total_cmp);
    t[1]
}

#[test]
fn a_long_line_costs_time_linear_in_its_length() {
    let dir = tempdir("long");
    let mut times = Vec::new();
    for mb in [16usize, 64] {
        // a short line, the long line (no LF for `mb` MiB), the short line again, a last one
        let mut data = b"http://a/\n".to_vec();
        data.extend(std::iter::repeat_n(b'x', mb << 20));
        data.extend_from_slice(b"\nhttp://a/\nhttp://b/");
        let f = dir.join(format!("{mb}.txt"));
        std::fs::write(&f, &data).unwrap();
        let expect_len = data.len() - b"http://a/\n".len() + 1;
        times.push(time_dedup(&f, expect_len));
    }
    std::fs::remove_dir_all(&dir).unwrap();
    let ratio = times[1] / times[0].max(0.000_5);
    assert!(
        ratio < 10.0,
        "a 4x longer line took {ratio:.1}x the time ({:.4}s for 16 MiB, {:.4}s for 64 MiB; linear is 4x)",
        times[0],
        times[1]
    );
}
