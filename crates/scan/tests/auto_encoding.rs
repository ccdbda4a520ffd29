//! `--encoding auto` (issue #18 item 9): ISO-2022-JP found by its escape sequences, and a UTF-8
//! file cut in the middle of its last character read as UTF-8 with one malformed sequence.
//! The ISO-2022-JP bytes were made by Python's `iso2022_jp` codec (an encoder other than
//! `encoding_rs`): `'ソースはhttps://example.com/docs を参照。\n'.encode('iso2022_jp')`.

use linksieve_scan::{EncodingChoice, ScanOptions, detect_encoding, scan_bytes};

const JIS: &[u8] =
    b"\x1b$B%=!<%9$O\x1b(Bhttps://example.com/docs \x1b$B$r;2>H!#\x1b(B\n\x1b$BF|K\\8l$N%F%-%9%H\x1b(B\n";

fn auto() -> ScanOptions {
    ScanOptions {
        encoding: EncodingChoice::Auto,
        ..ScanOptions::default()
    }
}

#[test]
fn iso_2022_jp_is_detected_by_its_escapes() {
    let (enc, bom) = detect_encoding(EncodingChoice::Auto, JIS, true).expect("decided");
    assert_eq!((enc.name(), bom), ("ISO-2022-JP", 0));
    let r = scan_bytes(JIS, &auto());
    assert_eq!(r.encoding.name(), "ISO-2022-JP");
    let links: Vec<&str> = r.hits.iter().map(|h| h.text.as_str()).collect();
    assert_eq!(links, ["https://example.com/docs"]);
    assert_eq!(r.stats.malformed_sequences, 0);
}

#[test]
fn ascii_with_a_stray_escape_stays_utf8() {
    // an ANSI colour sequence is not a designation
    let text = b"\x1b[31mred\x1b[0m http://example.com/\n";
    let (enc, _) = detect_encoding(EncodingChoice::Auto, text, true).expect("decided");
    assert_eq!(enc.name(), "UTF-8");
}

#[test]
fn utf8_cut_mid_character_is_utf8_with_one_malformed_sequence() {
    // "café → http://example.com/ 日" with the last character's third byte cut off
    let full = "café → http://example.com/ 日".as_bytes();
    let cut = &full[..full.len() - 1];
    let (enc, _) = detect_encoding(EncodingChoice::Auto, cut, true).expect("decided");
    assert_eq!(enc.name(), "UTF-8");
    let r = scan_bytes(cut, &auto());
    assert_eq!(r.encoding.name(), "UTF-8");
    assert_eq!(r.stats.malformed_sequences, 1);
    let links: Vec<&str> = r.hits.iter().map(|h| h.text.as_str()).collect();
    assert_eq!(links, ["http://example.com/"]);
}

#[test]
fn ascii_ending_in_one_high_byte_is_still_guessed() {
    // no UTF-8 evidence before the cut: "caf\xe9" is windows-1252's "café", not a cut "é…"
    let text = b"see http://example.com/ and caf\xe9";
    let (enc, _) = detect_encoding(EncodingChoice::Auto, text, true).expect("decided");
    assert_ne!(enc.name(), "UTF-8");
}
