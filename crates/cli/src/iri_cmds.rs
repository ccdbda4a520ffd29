//! `parse`, `resolve`, `to-uri`, `to-iri` and `check`: thin wrappers over `linksieve_iri`'s
//! string operations.

use crate::line_io::{self, LineArgs, Reply};
use anyhow::{Result, bail};
use clap::{Args, ValueEnum};
use linksieve_iri::{HostKind, HostMapping, IriRef, Severity, Strictness, ToUriOptions};
use serde_json::json;
use std::process::ExitCode;

/// `linksieve parse`.
#[derive(Args, Debug)]
pub struct ParseArgs {
    #[command(flatten)]
    lines: LineArgs,
    /// IRI references (none, or `-`: read stdin).
    items: Vec<String>,
}

/// `linksieve resolve`.
#[derive(Args, Debug)]
pub struct ResolveArgs {
    /// The base IRI (absolute).
    #[arg(long)]
    base: String,
    /// Non-strict resolution (RFC 3986 5.2.2): a reference with the base's scheme is relative.
    #[arg(long)]
    non_strict: bool,
    #[command(flatten)]
    lines: LineArgs,
    /// References to resolve (none, or `-`: read stdin).
    items: Vec<String>,
}

/// How to map hosts in `to-uri` (3987bis 3.4).
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum HostArg {
    /// Percent-encode the UTF-8 (3.4.1).
    Percent,
    /// IDNA ToASCII (3.4.2, UTS 46).
    Punycode,
}

/// `linksieve to-uri`.
#[derive(Args, Debug)]
pub struct ToUriArgs {
    /// Host mapping.
    #[arg(long, value_enum, default_value = "percent")]
    host: HostArg,
    /// Document charset (a WHATWG label) for the query of http/https IRIs (3987bis 3.5).
    #[arg(long, value_name = "LABEL")]
    charset: Option<String>,
    #[command(flatten)]
    lines: LineArgs,
    /// IRI references (none, or `-`: read stdin).
    items: Vec<String>,
}

/// `linksieve to-iri` and `linksieve check`.
#[derive(Args, Debug)]
pub struct PlainArgs {
    #[command(flatten)]
    lines: LineArgs,
    /// References (none, or `-`: read stdin).
    items: Vec<String>,
}

fn host_kind(k: Option<HostKind>) -> Option<&'static str> {
    k.map(|k| match k {
        HostKind::Ipv6 => "ipv6",
        HostKind::IpFuture => "ipvfuture",
        HostKind::Ipv4 => "ipv4",
        HostKind::RegName => "reg-name",
    })
}

fn describe(r: &IriRef<String>) -> Reply {
    let fields = [
        ("scheme", r.scheme()),
        ("authority", r.authority()),
        ("userinfo", r.userinfo()),
        ("host", r.host()),
        ("host_kind", host_kind(r.host_kind())),
        ("port", r.port()),
        ("path", Some(r.path())),
        ("query", r.query()),
        ("fragment", r.fragment()),
    ];
    let text = fields
        .iter()
        .filter_map(|(k, v)| v.map(|v| format!("{k}={v}")))
        .collect::<Vec<_>>()
        .join("\t");
    let json = serde_json::Value::Object(
        fields
            .iter()
            .map(|(k, v)| ((*k).to_owned(), json!(v)))
            .collect(),
    );
    Reply {
        text,
        json,
        rejected: false,
    }
}

/// Runs `linksieve parse`.
pub fn parse(a: &ParseArgs) -> Result<ExitCode> {
    let mode = a.lines.input.into();
    line_io::run(&a.items, &a.lines, |s| {
        linksieve_iri::parse_str(s, mode).map(|r| describe(&r))
    })
}

/// Runs `linksieve resolve`.
pub fn resolve(a: &ResolveArgs) -> Result<ExitCode> {
    let mode = a.lines.input.into();
    let strictness = if a.non_strict {
        Strictness::NonStrict
    } else {
        Strictness::Strict
    };
    // A bad base is a usage error, reported once.
    if let Err(e) = linksieve_iri::resolve_str(&a.base, "", mode, strictness) {
        bail!("--base {:?}: {e}", a.base);
    }
    line_io::run(&a.items, &a.lines, |s| {
        linksieve_iri::resolve_str(&a.base, s, mode, strictness).map(Reply::text)
    })
}

/// Runs `linksieve to-uri`.
pub fn to_uri(a: &ToUriArgs) -> Result<ExitCode> {
    let charset = match &a.charset {
        Some(label) => match encoding_rs::Encoding::for_label(label.as_bytes()) {
            Some(e) => Some(e),
            None => bail!("--charset {label:?} is not a WHATWG encoding label"),
        },
        None => None,
    };
    let host = match a.host {
        HostArg::Percent => HostMapping::Percent,
        HostArg::Punycode => HostMapping::Punycode,
    };
    let opts = ToUriOptions { host, charset };
    let mode = a.lines.input.into();
    line_io::run(&a.items, &a.lines, |s| {
        linksieve_iri::to_uri_str(s, mode, &opts).map(Reply::text)
    })
}

/// Runs `linksieve to-iri`.
pub fn to_iri(a: &PlainArgs) -> Result<ExitCode> {
    let mode = a.lines.input.into();
    line_io::run(&a.items, &a.lines, |s| {
        linksieve_iri::to_iri_str(s, mode).map(Reply::text)
    })
}

/// Runs `linksieve check`: `ok`, or the diagnostics; an item with an error counts as rejected.
pub fn check(a: &PlainArgs) -> Result<ExitCode> {
    let mode = a.lines.input.into();
    line_io::run(&a.items, &a.lines, |s| {
        let (_, diags) = linksieve_iri::check_str(s, mode)?;
        let text = if diags.is_empty() {
            "ok".to_owned()
        } else {
            diags
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        };
        let list: Vec<_> = diags
            .iter()
            .map(|d| {
                json!({
                    "severity": if d.severity == Severity::Error { "error" } else { "warning" },
                    "code": d.code.name(),
                    "section": d.code.section(),
                    "component": d.component.rule(),
                    "offset": d.offset,
                    "char": d.ch.map(|c| format!("U+{:04X}", c as u32)),
                    "message": d.to_string(),
                })
            })
            .collect();
        let rejected = linksieve_iri::has_errors(&diags);
        Ok::<_, linksieve_iri::IriError>(Reply {
            text,
            json: json!({"valid": !rejected, "diagnostics": list}),
            rejected,
        })
    })
}
