//! `rediss://`: `RedisSet` over TLS (feature `redis-tls`, run by `.ci/run`) against a real
//! redis-server with a certificate made for the test (openssl), trusted through
//! `SSL_CERT_FILE` in a child process; a certificate the client does not trust is refused.
#![cfg(all(unix, feature = "redis-tls"))]

use crate::redis_support;

use linksieve_dedup::{DedupError, Fingerprint, RedisSet, SeenSet};
use redis_support::Server;
use std::path::Path;
use std::process::Command;

const CHILD_ENV: &str = "LINKSIEVE_REDIS_TLS_CHILD";

fn openssl(dir: &Path, args: &[&str]) {
    let ok = Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("openssl is needed by the TLS test")
        .status
        .success();
    assert!(ok, "openssl {args:?}");
}

/// A CA and a server certificate for 127.0.0.1, in `dir`.
fn certificates(dir: &Path) {
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=test CA",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
        ],
    );
    openssl(
        dir,
        &[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-subj",
            "/CN=127.0.0.1",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
        ],
    );
    std::fs::write(dir.join("ext.cnf"), "subjectAltName=IP:127.0.0.1\n").unwrap();
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            "2",
            "-extfile",
            "ext.cnf",
            "-out",
            "server.pem",
        ],
    );
}

/// The child: opens the URL and inserts, with the CA trusted by the parent's environment.
#[test]
#[ignore = "the child process that the other tests of this file run with --ignored"]
fn tls_child() {
    let Ok(url) = std::env::var(CHILD_ENV) else {
        return;
    };
    let mut set = RedisSet::open(&url, "tls").unwrap();
    let mut new = Vec::new();
    set.insert_batch(&[Fingerprint(1), Fingerprint(2), Fingerprint(1)], &mut new)
        .unwrap();
    assert_eq!(new, [true, true, false]);
    set.finish().unwrap();
    println!("TLS OK");
}

#[test]
fn rediss_connects_with_a_trusted_certificate_only() {
    let certs = tempfile::tempdir().unwrap();
    let d = certs.path();
    certificates(d);
    let tls_port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let file = |f: &str| d.join(f).to_string_lossy().into_owned();
    let server = Server::start_with(&[
        "--save",
        "",
        "--tls-port",
        &tls_port.to_string(),
        "--tls-cert-file",
        &file("server.pem"),
        "--tls-key-file",
        &file("server.key"),
        "--tls-ca-cert-file",
        &file("ca.pem"),
        "--tls-auth-clients",
        "no",
    ]);
    let url = format!("rediss://127.0.0.1:{tls_port}/0?prefix=tls");
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "redis_tls::tls_child",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, &url)
        .env("SSL_CERT_FILE", file("ca.pem"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("TLS OK"),
        "{stdout}"
    );
    assert_eq!(server.cli(&["HLEN", "tls:{000}:0"]).trim(), "2");
    // not trusted here (the system's store): refused, a clear error
    let e = RedisSet::open(&url, "tls").err().unwrap();
    assert!(matches!(e, DedupError::Remote { op: "connect", .. }), "{e}");
}
