//! The profile names and options; each profile's rules are tested in its own module and on
//! the peer vectors (`crates/iri/tests/profile_vectors.rs`).

use super::*;

#[test]
fn every_name_reads_back() {
    for k in ProfileKind::ALL {
        assert_eq!(k.name().parse::<ProfileKind>().unwrap(), k);
        assert_eq!(Profile::new(k).to_string(), k.name());
        assert!(Profile::new(k).identity().contains(k.version()));
    }
}

#[test]
fn options_read_back_and_are_checked() {
    let p =
        Profile::parse("surt-ia:with_scheme=true,trailing_comma=true,host_massage=false").unwrap();
    assert_eq!(
        p.to_string(),
        "surt-ia:host_massage=false,with_scheme=true,trailing_comma=true"
    );
    assert_eq!(Profile::parse(&p.to_string()).unwrap(), p);
    let p = Profile::parse("w3lib:encoding=cp1251").unwrap();
    assert_eq!(p.to_string(), "w3lib:encoding=windows-1251");
    assert!(matches!(
        Profile::parse("urlcanon-semantic:host_massage=false"),
        Err(ProfileSpecError::UnknownOption { .. })
    ));
    assert!(matches!(
        Profile::parse("w3lib:encoding=klingon"),
        Err(ProfileSpecError::BadValue { .. })
    ));
    assert!(matches!(
        Profile::parse("W3LIB"),
        Err(ProfileSpecError::UnknownProfile(_))
    ));
}

#[test]
fn the_ladder_functions_take_the_profile() {
    use crate::{
        Climb, InputMode, NormalizeError, NormalizeOptions, Rung, climb_str, compare_str,
        fixed_point, normalize_str, normalize_str_into,
    };
    let opts = NormalizeOptions {
        profile: Some(Profile::parse("w3lib").unwrap()),
        ..Default::default()
    };
    let input = "HTTP://Example.com/?b=1&a=2#f";
    let key = "http://example.com/?a=2&b=1";
    // the profile reads the text as given, in every input mode
    for mode in [InputMode::Strict, InputMode::Leiri, InputMode::Web] {
        assert_eq!(normalize_str(input, mode, &opts).unwrap(), key);
    }
    let mut buf = String::from("x ");
    normalize_str_into(input, InputMode::Strict, &opts, &mut buf).unwrap();
    assert_eq!(buf, format!("x {key}"));
    // no ladder fast path: an input that is its own ladder key is still the profile's
    assert_eq!(fixed_point("http://h/?b&a", InputMode::Strict, &opts), None);
    let mut c = Climb::default();
    climb_str(input, InputMode::Strict, &opts, &mut c).unwrap();
    assert_eq!((c.key(Rung::String), c.top()), (Some(input), key));
    // an input the library raises on: the profile's error, at the rung asked for
    let e = normalize_str("http://[::1/", InputMode::Strict, &opts).unwrap_err();
    assert!(
        matches!(
            e,
            NormalizeError::Profile {
                rung: Rung::Scheme,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(climb_str("http://[::1/", InputMode::Strict, &opts, &mut c).is_err());
    assert_eq!(c.rung(), None);
    // compare: the ladder first, then the profile
    let cmp = compare_str(
        "http://h/?b=1&a=2",
        "http://h/?a=2&b=1",
        InputMode::Strict,
        &opts,
    )
    .unwrap();
    assert_eq!(cmp.equivalent_at, None);
    assert!(cmp.equivalent());
    let cmp = compare_str("HTTP://h/", "http://h/", InputMode::Strict, &opts).unwrap();
    assert_eq!((cmp.equivalent_at, cmp.profile), (Some(Rung::Syntax), None));
}
