//! `run` keys the registered-scheme finds of issue #18 item 9 (`mailto:` with `%40`, `data:`
//! with an empty media type, `news://`) and takes no `info:` key from a log line. Expected keys
//! written by hand.

use crate::common;
use common::linksieve;

#[test]
fn run_keys_percent_encoded_mailto_empty_data_and_news() {
    let r = linksieve(
        &["run", "-q", "-"],
        "mailto:jane%40example.org mailto:a%20b@x.org data:,text data:;base64,SGVsbG8=\n\
         news://Host.example/g news:comp.lang\nINFO:root:Started\n",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout.lines().collect::<Vec<_>>(),
        [
            "mailto:jane%40example.org",
            "mailto:a%20b@x.org",
            "data:,text",
            "data:;base64,SGVsbG8=",
            "news://host.example/g",
            "news:comp.lang",
        ]
    );
}
