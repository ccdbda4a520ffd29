//! The `normalize` target: the comparison ladder at every rung, in every key form.
//!
//! The properties are those of crates/iri/LADDER.md and crates/iri/tests/ladder_properties.rs:
//!
//! - `string` is the input as read (strict: the text itself; LEIRI: `leiri_to_iri` of it);
//! - idempotence of the `uri` and `iri` forms, `n(n(x)) == n(x)`; for `surt`, whose keys are
//!   not IRIs, `surt(n(n_uri(x))) == surt(n_uri(x))`, and `from_surt` inverts it;
//! - the `iri` key's `uri` key is the `uri` key (from `syntax` up);
//! - composition `n_{L+1}(n_L(x)) == n_{L+1}(x)`, and monotonicity on pairs: two inputs (the
//!   fuzz input split at its first line feed) with equal `uri` keys at a rung have equal keys
//!   at every rung above;
//! - `uri` keys from `syntax` up are ASCII and parse with `Grammar::Uri`;
//! - `compare` stops at the first rung where the keys are equal;
//! - `normalize_str` (the fused fast path on text) equals `normalize` of the parsed reference.

use linksieve_iri::{
    Grammar, InputMode, IriRef, KeyForm, NormalizeOptions, Rules, Rung, compare_str, from_surt,
    leiri_to_iri, normalize_str,
};
use std::sync::{Arc, OnceLock};

fn rules() -> Arc<Rules> {
    static RULES: OnceLock<Arc<Rules>> = OnceLock::new();
    RULES
        .get_or_init(|| {
            Arc::new(
                Rules::from_toml(
                    r#"
                    version = 1
                    sort_query = true
                    remove_params = ["jsessionid", "sid", "utm_source"]
                    strip_www = true
                    index_files = ["index.html", "index.htm"]
                    "#,
                )
                .expect("rules"),
            )
        })
        .clone()
}

/// Runs every ladder oracle on `data`. The first byte picks NFC, the rules and the input mode.
pub fn run(data: &[u8]) {
    let (flags, rest) = data.split_first().map_or((0, data), |(f, r)| (*f, r));
    let s = crate::text(rest);
    let mode = match flags >> 2 & 3 {
        0 | 3 => InputMode::Strict,
        1 => InputMode::Leiri,
        _ => InputMode::Web,
    };
    let base = NormalizeOptions {
        nfc: flags & 1 != 0,
        rules: (flags & 2 != 0).then(rules),
        ..Default::default()
    };
    text_path_equals_parsed_path(&s, &base);
    let (a, b) = crate::split_pair(&s);
    let ka = one(a, mode, &base);
    let kb = one(b, mode, &base);
    pair(a, b, &ka, &kb, mode, &base);
}

/// Reading the text (`normalize_str`, which may answer from the fused fast path before any
/// parse) gives the key of the parsed reference (`normalize`), at every rung, or both fail.
fn text_path_equals_parsed_path(s: &str, o: &NormalizeOptions) {
    for rung in Rung::ALL {
        let o = NormalizeOptions {
            rung,
            form: KeyForm::Uri,
            ..o.clone()
        };
        let by_text = normalize_str(s, InputMode::Strict, &o).ok();
        let parsed = IriRef::parse(s)
            .ok()
            .and_then(|iri| linksieve_iri::normalize(&iri, &o).ok());
        assert_eq!(by_text, parsed, "{s:?} at {rung}");
    }
}

/// The key of `s` read in `mode`, at `rung`, in `form`.
fn key(
    s: &str,
    mode: InputMode,
    o: &NormalizeOptions,
    rung: Rung,
    form: KeyForm,
) -> Option<String> {
    let o = NormalizeOptions {
        rung,
        form,
        ..o.clone()
    };
    normalize_str(s, mode, &o).ok()
}

/// Checks one input at every rung; returns its `uri` keys, lowest rung first.
fn one(s: &str, mode: InputMode, o: &NormalizeOptions) -> [Option<String>; 4] {
    let strict = InputMode::Strict;
    let ctx = |what: &str, rung: Rung| {
        format!(
            "{what} at {rung} (mode {mode:?}, nfc={}, rules={}) for {s:?}",
            o.nfc,
            o.rules.is_some()
        )
    };
    let mut keys: [Option<String>; 4] = Default::default();
    let mut below: Option<String> = None;
    let mut missing: Option<Rung> = None;
    for (n, rung) in Rung::ALL.into_iter().enumerate() {
        let uri = key(s, mode, o, rung, KeyForm::Uri);
        // Every form has a key exactly when the uri form has one.
        let ik = key(s, mode, o, rung, KeyForm::Iri);
        let sk = key(s, mode, o, rung, KeyForm::Surt);
        assert_eq!(
            ik.is_some(),
            uri.is_some(),
            "{}",
            ctx("iri key vs uri key", rung)
        );
        assert_eq!(
            sk.is_some(),
            uri.is_some(),
            "{}",
            ctx("surt key vs uri key", rung)
        );
        let Some(uri) = uri else {
            missing.get_or_insert(rung);
            below = None;
            continue;
        };
        // Once a rung has no key, no rung above has one.
        assert!(
            missing.is_none(),
            "{}",
            ctx(&format!("a key but none at {missing:?}"), rung)
        );
        if rung == Rung::String {
            match mode {
                InputMode::Strict => {
                    assert_eq!(uri, s, "{}", ctx("string rung is not the identity", rung))
                }
                InputMode::Leiri => {
                    assert_eq!(uri, leiri_to_iri(s), "{}", ctx("string rung", rung))
                }
                InputMode::Web => {}
            }
        } else {
            assert!(
                uri.is_ascii() && IriRef::parse_with(uri.as_str(), Grammar::Uri).is_ok(),
                "{}",
                ctx(&format!("uri key {uri:?} is not a URI"), rung)
            );
        }
        // Idempotence of the uri form (the key is an IRI: read strictly).
        let again = key(&uri, strict, o, rung, KeyForm::Uri);
        assert_eq!(
            again.as_deref(),
            Some(uri.as_str()),
            "{}",
            ctx(&format!("uri not idempotent: {uri:?}"), rung)
        );
        // Composition: this rung sees only the key of the rung below.
        if let Some(b) = &below {
            let via = key(b, strict, o, rung, KeyForm::Uri);
            assert_eq!(
                via.as_deref(),
                Some(uri.as_str()),
                "{}",
                ctx(&format!("n(n_below({b:?})) != n = {uri:?}"), rung)
            );
        }
        below = Some(uri.clone());
        // The iri form: an IRI, idempotent, and the same IRI as the uri key.
        let ik = ik.unwrap_or_default();
        let ii = key(&ik, strict, o, rung, KeyForm::Iri);
        assert_eq!(
            ii.as_deref(),
            Some(ik.as_str()),
            "{}",
            ctx(&format!("iri key {ik:?} not idempotent"), rung)
        );
        if rung >= Rung::Syntax {
            let iu = key(&ik, strict, o, rung, KeyForm::Uri);
            assert_eq!(
                iu.as_deref(),
                Some(uri.as_str()),
                "{}",
                ctx(&format!("iri key {ik:?} has another uri key"), rung)
            );
        }
        // The surt form: a function of the uri key, and one-to-one.
        let sk = sk.unwrap_or_default();
        let ss = key(&uri, strict, o, rung, KeyForm::Surt);
        assert_eq!(
            ss.as_deref(),
            Some(sk.as_str()),
            "{}",
            ctx(&format!("surt(n(n_uri)) != surt key {sk:?}"), rung)
        );
        assert_eq!(
            from_surt(&sk).as_deref(),
            Some(uri.as_str()),
            "{}",
            ctx(&format!("from_surt({sk:?}) is not the uri key"), rung)
        );
        keys[n] = Some(uri);
    }
    keys
}

/// Monotonicity on the pair, and `compare` against the keys.
fn pair(
    a: &str,
    b: &str,
    ka: &[Option<String>; 4],
    kb: &[Option<String>; 4],
    mode: InputMode,
    o: &NormalizeOptions,
) {
    let mut first_equal = None;
    for (n, rung) in Rung::ALL.into_iter().enumerate() {
        let (Some(x), Some(y)) = (&ka[n], &kb[n]) else {
            break;
        };
        if first_equal.is_some() {
            assert_eq!(x, y, "{a:?} and {b:?} are equal below {rung} but not at it");
        } else if x == y {
            first_equal = Some(rung);
        }
    }
    let opts = NormalizeOptions {
        rung: Rung::Protocol,
        ..o.clone()
    };
    if let Ok(c) = compare_str(a, b, mode, &opts) {
        // compare reads with parse_input, normalize_str in place: the same keys.
        assert_eq!(
            c.equivalent_at, first_equal,
            "compare({a:?}, {b:?}) in {mode:?} says {:?}, the keys say {first_equal:?}",
            c.equivalent_at
        );
        for r in &c.rungs {
            let n = r.rung as usize;
            assert_eq!(
                ka[n].as_deref(),
                Some(r.keys[0].as_str()),
                "compare key of {a:?} at {}",
                r.rung
            );
            assert_eq!(
                kb[n].as_deref(),
                Some(r.keys[1].as_str()),
                "compare key of {b:?} at {}",
                r.rung
            );
        }
    }
}
