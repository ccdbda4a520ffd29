//! The `profile` target: every profile on arbitrary bytes (the first byte picks the options).
//!
//! - no panic, on bytes (`canonicalize_bytes_into`) and on text;
//! - the output contract: on success the key is appended to what `out` held, on an error `out`
//!   is left as it was, and an error's offset lies inside the input;
//! - text and bytes agree: the key of a string is the key of its UTF-8 bytes.
//!
//! Idempotence is a property of the libraries the profiles reproduce only on URL-shaped input;
//! it is checked on the real lists and generated URLs in
//! crates/profiles/tests/properties.rs, not here.

use linksieve_profiles::{Profile, ProfileKind};

/// Runs the profile oracles on `data`.
pub fn run(data: &[u8]) {
    let (flags, rest) = data.split_first().map_or((0, data), |(f, r)| (*f, r));
    let s = crate::text(rest);
    for kind in ProfileKind::ALL {
        let mut p = Profile::new(kind);
        match kind {
            ProfileKind::W3lib => {
                p.options.keep_fragments = flags & 1 != 0;
                p.options.keep_blank_values = flags & 2 == 0;
                if flags & 4 != 0 {
                    p.options.encoding = encoding_rs::WINDOWS_1251;
                }
            }
            ProfileKind::SurtIa => {
                p.options.host_massage = flags & 1 == 0;
                p.options.with_scheme = flags & 2 != 0;
                p.options.trailing_comma = flags & 4 != 0;
            }
            _ => {}
        }
        let mut out = String::from("before|");
        match p.canonicalize_bytes_into(rest, &mut out) {
            Ok(()) => assert!(out.starts_with("before|"), "{p}: {rest:?}"),
            Err(e) => {
                assert_eq!(out, "before|", "{p}: an error left output: {rest:?}");
                assert!(
                    e.offset.is_none_or(|o| o <= rest.len()),
                    "{p}: {e:?} on {rest:?}"
                );
            }
        }
        let bytes = p
            .canonicalize_bytes_into(s.as_bytes(), &mut String::new())
            .is_ok();
        let text = p.canonicalize(&s);
        assert_eq!(bytes, text.is_ok(), "{p}: text and bytes disagree on {s:?}");
    }
}
