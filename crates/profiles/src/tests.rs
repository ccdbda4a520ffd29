//! The profile names and options; each profile's rules are tested in its own module and on
//! the peer vectors (`crates/profiles/tests/vectors.rs`).

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
