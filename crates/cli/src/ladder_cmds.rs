//! `normalize` and `compare`: thin wrappers over the keying choice of `linksieve_pipeline`
//! ([`Keying`]: the comparison ladder of draft-ietf-iri-comparison-00 section 4, or a profile).

use crate::line_io::{self, LineArgs, Reply};
use anyhow::{Context, Result, bail};
use clap::Args;
use linksieve_iri::{InputMode, KeyForm, NormalizeOptions, Redirects, Rules, Rung};
use linksieve_pipeline::{Compared, Keying};
use linksieve_profiles::Profile;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// Options of every command that makes keys.
#[derive(Args, Debug, Clone)]
pub struct LadderArgs {
    /// Rung of the comparison ladder (draft-ietf-iri-comparison-00 4.1-4.4).
    // `--level`: its old name, kept for users' scripts (issue 32: one name per concept)
    #[arg(
        long = "rung",
        visible_alias = "level",
        value_name = "RUNG",
        value_enum,
        default_value_t = Rung::Scheme
    )]
    rung: Rung,
    /// Unicode NFC at the syntax rung: for text transcoded from a legacy encoding (CMP 4.2.2).
    #[arg(long)]
    nfc: bool,
    /// Protocol-rung rules, a TOML file (needs --rung protocol).
    #[arg(long, value_name = "FILE")]
    rules: Option<PathBuf>,
    /// Redirects seen by a crawler, `FROM<TAB>TO` per line (needs --rung protocol).
    #[arg(long, value_name = "FILE")]
    redirects: Option<PathBuf>,
    /// Make the keys another canonicalizer makes, byte for byte: w3lib, urlcanon-semantic,
    /// urlcanon-aggressive, surt-ia, crawler-commons or gsb, with options as
    /// `NAME:KEY=VALUE,...` (docs/profiles.md). The profile reads each link as its library
    /// does; with `compare` it is the last step after the ladder.
    #[arg(long, value_name = "NAME[:OPTS]", value_parser = parse_profile)]
    profile: Option<Profile>,
}

/// `--input-mode` of the commands that read found links (`run`, `scan`, `dedup --seen`,
/// `identity`): LEIRI by default. `--input` is its old name, kept for users' scripts (issue 32:
/// "input" also names the files a command reads).
#[derive(Args, Debug, Clone, Copy)]
pub struct LinkInputMode {
    /// How found links are read before parsing (3987bis 6); LEIRI accepts what text often
    /// holds (`|`, `{`). It changes keys: a `--seen` store and `identity` record it.
    #[arg(
        long = "input-mode",
        visible_alias = "input",
        value_name = "MODE",
        value_enum,
        default_value_t = InputMode::Leiri
    )]
    pub mode: InputMode,
}

/// `--input-mode` of the commands that read IRIs one by one (`normalize`, `compare` and the
/// line commands): the IRI grammar by default. `--input` is its old name, as above.
#[derive(Args, Debug, Clone, Copy)]
pub struct IriInputMode {
    /// How the IRIs given are read before parsing (3987bis 6).
    #[arg(
        long = "input-mode",
        visible_alias = "input",
        value_name = "MODE",
        value_enum,
        default_value_t = InputMode::Strict
    )]
    pub mode: InputMode,
}

/// `--profile`'s value, checked by clap (an unknown name or option is a usage error).
fn parse_profile(s: &str) -> Result<Profile, String> {
    Profile::parse(s).map_err(|e| e.to_string())
}

/// `linksieve normalize`.
#[derive(Args, Debug)]
pub struct NormalizeArgs {
    #[command(flatten)]
    ladder: LadderArgs,
    /// Form of the key.
    #[arg(long, value_enum, default_value_t = KeyForm::Uri)]
    form: KeyForm,
    #[command(flatten)]
    lines: LineArgs,
    /// IRIs (none, or `-`: read stdin).
    items: Vec<String>,
}

/// `linksieve compare`.
#[derive(Args, Debug)]
pub struct CompareArgs {
    #[command(flatten)]
    ladder: LadderArgs,
    /// List, for each rung climbed, the two keys and the components the rung changed.
    #[arg(long)]
    explain: bool,
    #[command(flatten)]
    input: IriInputMode,
    /// The first IRI.
    a: String,
    /// The second IRI.
    b: String,
}

/// `linksieve identity`.
#[derive(Args, Debug)]
pub struct IdentityArgs {
    #[command(flatten)]
    ladder: LadderArgs,
    /// Form of the keys.
    #[arg(long, value_enum, default_value_t = KeyForm::Uri)]
    form: KeyForm,
    #[command(flatten)]
    input: LinkInputMode,
}

/// Runs `linksieve identity`: prints, as one JSON object, the identity of the keys these options
/// make (hash, hash version, rung, form, rule-set version), for engines that keep their own
/// seen-set and must refuse to mix keys of different kinds.
pub fn identity(a: &IdentityArgs) -> Result<ExitCode> {
    let mode = a.input.mode;
    let keying = options(&a.ladder, mode, a.form)?;
    let id = linksieve_pipeline::seen::KeyIdentity::of(&keying, mode);
    writeln!(std::io::stdout().lock(), "{}", id.to_json())?;
    Ok(ExitCode::SUCCESS)
}

/// Builds the keying choice; reports the redirect file's counts on stderr.
pub(crate) fn options(l: &LadderArgs, mode: InputMode, form: KeyForm) -> Result<Keying> {
    let rung: Rung = l.rung;
    if rung != Rung::Protocol && (l.rules.is_some() || l.redirects.is_some()) {
        bail!("--rules and --redirects apply at the protocol rung: add --rung protocol");
    }
    if l.profile.is_some() && form != KeyForm::Uri {
        bail!("--profile makes keys in its library's own form: leave out --form");
    }
    let mut opts = NormalizeOptions {
        rung,
        form,
        nfc: l.nfc,
        ..Default::default()
    };
    if let Some(path) = &l.rules {
        let text = read_limited(path, MAX_RULES_BYTES)?;
        let rules = Rules::from_toml(&text).with_context(|| path.display().to_string())?;
        opts.rules = Some(Arc::new(rules));
    }
    if let Some(path) = &l.redirects {
        let text = read_limited(path, MAX_REDIRECTS_BYTES)?;
        let r = Redirects::parse(&text, mode, &opts);
        let s = r.stats();
        eprintln!(
            "linksieve: {}: {} redirects: {} learned, {} already equal, {} ignored (more than a trailing slash differs, CMP 4.4), {} invalid",
            path.display(),
            s.lines,
            s.learned,
            s.same,
            s.ignored,
            s.invalid
        );
        for p in r.problems() {
            eprintln!("linksieve: {}: {p}", path.display());
        }
        opts.redirects = Some(Arc::new(r));
    }
    Ok(Keying {
        ladder: opts,
        profile: l.profile,
    })
}

/// Runs `linksieve normalize`.
pub fn normalize(a: &NormalizeArgs) -> Result<ExitCode> {
    let mode = a.lines.input.mode;
    let keying = options(&a.ladder, mode, a.form)?;
    line_io::run(&a.items, &a.lines, |s| keying.key(s, mode).map(Reply::text))
}

/// Runs `linksieve compare`: `equivalent at <rung>` (exit 0), `different up to <rung>` (exit
/// 1); with `--profile`, keys that differ up to the rung are compared under the profile last
/// (`equivalent under profile <name>`, exit 0, or `different up to profile <name>`, exit 1);
/// an input without a key is reported on stderr (exit 2).
pub fn compare(a: &CompareArgs) -> Result<ExitCode> {
    let mode: InputMode = a.input.mode;
    let keying = options(&a.ladder, mode, KeyForm::Uri)?;
    let c = match keying.compare(&a.a, &a.b, mode) {
        Ok(c) => c,
        Err(e) => {
            let mut named = false;
            for (name, s) in [("A", &a.a), ("B", &a.b)] {
                if let Err(e) = keying.at(e.rung()).key(s, mode) {
                    eprintln!("linksieve: {name}: {e}");
                    named = true;
                }
            }
            if !named {
                eprintln!("linksieve: {e}");
            }
            return Ok(ExitCode::from(2));
        }
    };
    let mut out = std::io::stdout().lock();
    if a.explain {
        write!(out, "{}", explain(&c))?;
    }
    Ok(match (c.ladder.equivalent_at, &c.profile) {
        (Some(rung), _) => {
            writeln!(out, "equivalent at {rung}")?;
            ExitCode::SUCCESS
        }
        (None, Some(p)) if p.equal() => {
            writeln!(out, "equivalent under profile {}", p.profile)?;
            ExitCode::SUCCESS
        }
        (None, Some(p)) => {
            writeln!(out, "different up to profile {}", p.profile)?;
            ExitCode::from(1)
        }
        (None, None) => {
            writeln!(out, "different up to {}", keying.ladder.rung)?;
            ExitCode::from(1)
        }
    })
}

/// The `--explain` listing: per rung, both keys and what the rung changed in each.
fn explain(c: &Compared) -> String {
    let mut out = String::new();
    for r in &c.ladder.rungs {
        for (i, name) in ["A", "B"].into_iter().enumerate() {
            let rung = if i == 0 { r.rung.name() } else { "" };
            let changed = if r.changed[i].is_empty() {
                String::new()
            } else {
                let names: Vec<_> = r.changed[i].iter().map(|c| c.rule()).collect();
                format!("\t(changed: {})", names.join(", "))
            };
            out.push_str(&format!("{rung:<9} {name}  {}{changed}\n", r.keys[i]));
        }
        let verdict = if r.equal() { "equal" } else { "different" };
        out.push_str(&format!("{:<9} => {verdict}\n", ""));
    }
    // the profile, last: above the ladder
    if let Some(p) = &c.profile {
        out.push_str(&format!(
            "profile {} ({})\n",
            p.profile,
            p.profile.kind.version()
        ));
        for (i, name) in ["A", "B"].into_iter().enumerate() {
            out.push_str(&format!("{:<9} {name}  {}\n", "", p.keys[i]));
        }
        let verdict = if p.equal() { "equal" } else { "different" };
        out.push_str(&format!("{:<9} => {verdict}\n", ""));
    }
    out
}

/// The largest `--rules` file: 16 MiB (a rule set is a few KB; the limit keeps a wrong path,
/// `/dev/zero` say, from eating memory).
pub const MAX_RULES_BYTES: u64 = 16 << 20;
/// The largest `--redirects` file: 256 MiB (a few million redirect pairs, all held in memory).
pub const MAX_REDIRECTS_BYTES: u64 = 256 << 20;

/// Reads a text file of at most `max` bytes; a larger one (or an endless device) is an error
/// that says the limit.
fn read_limited(path: &std::path::Path, max: u64) -> Result<String> {
    use std::io::Read;
    let f = std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut text = String::new();
    f.take(max + 1)
        .read_to_string(&mut text)
        .with_context(|| format!("cannot read {}", path.display()))?;
    if text.len() as u64 > max {
        bail!("{} is larger than {max} bytes, the limit", path.display());
    }
    Ok(text)
}
