//! `parse`, `resolve`, `to-uri`, `to-iri` and `check`: thin wrappers over `linksieve_iri`'s
//! string operations.

use crate::line_io::{self, LineArgs, Reply};
use anyhow::{Result, bail};
use clap::Args;
use linksieve_iri::{
    HostKind, HostMapping, InputError, InputMode, IriError, IriRef, Severity, Strictness,
    ToUriOptions, WebHost, WebUrl,
};
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

/// `linksieve to-uri`.
#[derive(Args, Debug)]
pub struct ToUriArgs {
    /// Host mapping.
    #[arg(long, value_enum, default_value = "percent")]
    host: HostMapping,
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
    fields_reply(&[
        ("scheme", r.scheme()),
        ("authority", r.authority()),
        ("userinfo", r.userinfo()),
        ("host", r.host()),
        ("host_kind", host_kind(r.host_kind())),
        ("port", r.port()),
        ("path", Some(r.path())),
        ("query", r.query()),
        ("fragment", r.fragment()),
    ])
}

/// The components of a WHATWG URL record, as the URL Standard has them (a stray `%` stays).
fn describe_web(u: &WebUrl) -> Reply {
    let mut userinfo = u.username().to_owned();
    if !u.password().is_empty() {
        userinfo.push(':');
        userinfo.push_str(u.password());
    }
    let userinfo = (!userinfo.is_empty()).then_some(userinfo);
    let port = u.port().map(|p| p.to_string());
    let authority = u.host_str().map(|h| {
        let mut a = userinfo
            .as_ref()
            .map_or(String::new(), |ui| format!("{ui}@"));
        a.push_str(h);
        if let Some(p) = &port {
            a.push(':');
            a.push_str(p);
        }
        a
    });
    let kind = u.host().map(|h| match h {
        WebHost::Domain(_) => "domain",
        WebHost::Ipv4(_) => "ipv4",
        WebHost::Ipv6(_) => "ipv6",
        WebHost::Opaque(_) => "opaque",
        WebHost::Empty => "empty",
    });
    fields_reply(&[
        ("scheme", Some(u.scheme())),
        ("authority", authority.as_deref()),
        ("userinfo", userinfo.as_deref()),
        ("host", u.host_str()),
        ("host_kind", kind),
        ("port", port.as_deref()),
        ("path", Some(u.path())),
        ("query", u.query()),
        ("fragment", u.fragment()),
    ])
}

fn fields_reply(fields: &[(&str, Option<&str>)]) -> Reply {
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

/// Runs `linksieve parse`; in web mode the components are the URL record's.
pub fn parse(a: &ParseArgs) -> Result<ExitCode> {
    let mode = a.lines.input.mode;
    line_io::run(&a.items, &a.lines, |s| {
        if mode == InputMode::Web {
            return linksieve_iri::parse_web(s, None, None)
                .map(|u| describe_web(&u))
                .map_err(|e| IriError::Input(InputError::Web(e)));
        }
        linksieve_iri::parse_str(s, mode).map(|r| describe(&r))
    })
}

/// Runs `linksieve resolve`.
pub fn resolve(a: &ResolveArgs) -> Result<ExitCode> {
    let mode = a.lines.input.mode;
    let strictness = if a.non_strict {
        Strictness::NonStrict
    } else {
        Strictness::Strict
    };
    // A bad base is a usage error, reported once. A WHATWG base is checked on its own: an
    // empty reference against a base with an opaque path (about:blank) is a failure.
    let base = if mode == InputMode::Web {
        linksieve_iri::parse_web(&a.base, None, None)
            .map(drop)
            .map_err(|e| IriError::Base(e.into()))
    } else {
        linksieve_iri::resolve_str(&a.base, "", mode, strictness).map(drop)
    };
    if let Err(e) = base {
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
    let opts = ToUriOptions {
        host: a.host,
        charset,
    };
    let mode = a.lines.input.mode;
    line_io::run(&a.items, &a.lines, |s| {
        linksieve_iri::to_uri_str(s, mode, &opts).map(Reply::text)
    })
}

/// Runs `linksieve to-iri`.
pub fn to_iri(a: &PlainArgs) -> Result<ExitCode> {
    let mode = a.lines.input.mode;
    line_io::run(&a.items, &a.lines, |s| {
        linksieve_iri::to_iri_str(s, mode).map(Reply::text)
    })
}

/// Runs `linksieve check`: `ok`, or the diagnostics; an item with an error counts as rejected.
pub fn check(a: &PlainArgs) -> Result<ExitCode> {
    let mode = a.lines.input.mode;
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
