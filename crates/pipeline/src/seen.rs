//! The one factory of seen-sets: the CLI's `--dedup`, `--memory`, `--fp-rate`, `--expected`,
//! `--seen` and `--commit`, Python's `SeenSet` (and through it the Spark jobs) open their set
//! here, with the persistent store's crash policy; and the identity of the keys a store (or any
//! engine's own key set) holds.

use crate::Keying;
use linksieve_dedup::{
    Abandoned, BloomSet, CommitPolicy, DedupError, FINGERPRINT_VERSION, MemorySet,
    PersistentOptions, PersistentSet, SeenSet, SpillConfig, SpillSet, StoreIdentity,
};
use linksieve_iri::InputMode;
use std::path::PathBuf;

/// The in-process seen-sets.
///
/// ```
/// assert_eq!(linksieve_pipeline::seen::SeenKind::default(), linksieve_pipeline::seen::SeenKind::Memory);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum SeenKind {
    /// Exact, in memory ([`MemorySet`]).
    #[default]
    #[cfg_attr(feature = "clap", value(help = "Exact, in RAM"))]
    Memory,
    /// Exact for any number of keys, within a memory budget: sorted runs on disk
    /// ([`SpillSet`]).
    #[cfg_attr(
        feature = "clap",
        value(
            help = "Exact for any number of keys: sorted runs on disk, k-way merge (with --memory)"
        )
    )]
    Spill,
    /// A Bloom filter that may drop new keys, with the expected number reported
    /// ([`BloomSet`]).
    #[cfg_attr(
        feature = "clap",
        value(
            help = "A Bloom filter (with --fp-rate): may drop new keys; the expected number is reported"
        )
    )]
    Approx,
}

/// The range of a seen-set's memory (`--memory`, `SeenSet(memory=)`): 64 KiB to 1 TiB.
///
/// ```
/// assert!(linksieve_pipeline::seen::MEMORY_RANGE.contains(&(512 << 20)));
/// ```
pub const MEMORY_RANGE: std::ops::RangeInclusive<usize> = (64 << 10)..=(1 << 40);

/// The spill set's budget when none is given: 512 MiB.
///
/// ```
/// assert_eq!(linksieve_pipeline::seen::DEFAULT_SPILL_BUDGET, 512 << 20);
/// ```
pub const DEFAULT_SPILL_BUDGET: usize = 512 << 20;

/// Which seen-set a run uses and how it is sized.
///
/// ```
/// use linksieve_pipeline::seen::{SeenKind, SeenOptions};
/// use linksieve_dedup::StoreIdentity;
/// let o = SeenOptions { kind: SeenKind::Approx, expected: 1000, ..SeenOptions::default() };
/// let d = o.open(&StoreIdentity::new("scheme uri 0"), false).unwrap();
/// assert!(d.report().expected_false_drops.is_some());
/// ```
#[derive(Clone, Debug)]
pub struct SeenOptions {
    /// The in-process set (ignored with `store`).
    pub kind: SeenKind,
    /// The spill set's budget ([`DEFAULT_SPILL_BUDGET`] when `None`), or the most an approx
    /// filter may grow to (no limit when `None`). Only for those two.
    pub memory: Option<usize>,
    /// The approx filter's false-positive rate.
    pub fp_rate: f64,
    /// The keys the approx filter is first sized for (it grows past them).
    pub expected: u64,
    /// A persistent store: only keys no earlier run wrote are new.
    pub store: Option<PathBuf>,
    /// Where the spill set writes its runs (the system's temporary folder when `None`).
    pub spill_dir: Option<PathBuf>,
    /// A seen-set shared by many processes on a Redis or Valkey server (its URL, see
    /// [`linksieve_dedup::RedisSet::open`]): only keys no process recorded are new.
    pub shared: Option<String>,
    /// When a durable set records the keys it answered new (its caller syncs after delivering
    /// them); `None`: [`DEFAULT_COMMIT`] for a stream, [`ATOMIC_COMMIT`] for an output renamed
    /// into place at the end.
    pub commit: Option<CommitPolicy>,
}

/// The commit policy of a store written to a stream when none is asked: every 100,000 keys or
/// every second, whichever comes first (a kill costs at most that many keys written twice).
///
/// ```
/// assert_eq!(linksieve_pipeline::seen::DEFAULT_COMMIT.to_string(), "100000,1s");
/// ```
pub const DEFAULT_COMMIT: CommitPolicy = CommitPolicy {
    keys: Some(100_000),
    time: Some(std::time::Duration::from_secs(1)),
};

/// The commit policy of a store whose output is renamed into place at the end: the keys count
/// only once the output is in place, so commits only bound the memory of unsynced keys.
///
/// ```
/// assert_eq!(linksieve_pipeline::seen::ATOMIC_COMMIT.to_string(), "1000000");
/// ```
pub const ATOMIC_COMMIT: CommitPolicy = CommitPolicy {
    keys: Some(1_000_000),
    time: None,
};

impl Default for SeenOptions {
    fn default() -> Self {
        SeenOptions {
            kind: SeenKind::Memory,
            memory: None,
            fp_rate: 0.001,
            expected: 10_000_000,
            store: None,
            spill_dir: None,
            shared: None,
            commit: None,
        }
    }
}

impl SeenOptions {
    /// Opens the seen-set. A persistent store is opened with `id` (and refuses a store made
    /// with another). `atomic`: the output goes to a file renamed into place at the end
    /// ([`AtomicOutput`](crate::output::AtomicOutput)) rather than to a stream, which decides
    /// the store's crash policy: with a file, the output of a killed run is never put in place,
    /// so the keys it recorded count as new again ([`Abandoned::New`]); on a stream, a key is
    /// recorded only once it was delivered ([`SeenSet::sync`]), so it counts as seen.
    ///
    /// ```
    /// use linksieve_pipeline::seen::{SeenKind, SeenOptions};
    /// use linksieve_dedup::StoreIdentity;
    /// let id = StoreIdentity::new("scheme uri 0");
    /// let bad = SeenOptions { memory: Some(1 << 20), ..SeenOptions::default() };
    /// assert!(bad.open(&id, false).is_err()); // --memory is for spill and approx
    /// ```
    pub fn open(&self, id: &StoreIdentity, atomic: bool) -> Result<Box<dyn SeenSet>, DedupError> {
        self.check()?;
        if let Some(url) = &self.shared {
            return Ok(Box::new(linksieve_dedup::RedisSet::open(url, id.text())?));
        }
        let Some(path) = &self.store else {
            return Ok(match self.kind {
                SeenKind::Memory => Box::new(MemorySet::new()),
                SeenKind::Spill => {
                    let mut config = SpillConfig::new(self.memory.unwrap_or(DEFAULT_SPILL_BUDGET));
                    if let Some(dir) = &self.spill_dir {
                        config = config.temp_dir(dir);
                    }
                    Box::new(SpillSet::<()>::new(config)?)
                }
                SeenKind::Approx => Box::new(self.approx(machine_memory())?),
            });
        };
        let abandoned = if atomic {
            Abandoned::New
        } else {
            Abandoned::Seen
        };
        let set = PersistentSet::open(
            path,
            id,
            PersistentOptions {
                abandoned,
                ..Default::default()
            },
        )?;
        Ok(Box::new(set))
    }

    /// The limits every surface shares (the CLI's flags, Python's arguments): `memory` only
    /// for spill and approx, within [`MEMORY_RANGE`]; `expected` at most
    /// [`linksieve_dedup::MAX_EXPECTED_ITEMS`]; `fp_rate` is the filter's own check.
    ///
    /// ```
    /// use linksieve_pipeline::seen::{SeenKind, SeenOptions};
    /// let o = SeenOptions { kind: SeenKind::Spill, memory: Some(1000), ..SeenOptions::default() };
    /// assert!(o.check().unwrap_err().to_string().contains("64K"));
    /// ```
    pub fn check(&self) -> Result<(), DedupError> {
        let bad = |m: String| Err(DedupError::InvalidConfig(m));
        if let Some(m) = self.memory {
            let durable = self.store.is_some() || self.shared.is_some();
            if !matches!(self.kind, SeenKind::Spill | SeenKind::Approx) || durable {
                return bad("memory sets the budget of the spill or approx kind".into());
            }
            if !MEMORY_RANGE.contains(&m) {
                return bad(format!(
                    "memory {m} is outside 64K..=1T (65536 to 2^40 bytes)"
                ));
            }
        }
        if self.expected > linksieve_dedup::MAX_EXPECTED_ITEMS {
            return bad(format!(
                "expected {} is above {}",
                self.expected,
                linksieve_dedup::MAX_EXPECTED_ITEMS
            ));
        }
        Ok(())
    }

    /// The commit policy a caller of the opened set follows: the one asked, or the default
    /// for its output (see [`DEFAULT_COMMIT`], [`ATOMIC_COMMIT`]; a shared set writing to a
    /// file renamed into place at the end records at the end).
    ///
    /// ```
    /// use linksieve_pipeline::seen::{SeenOptions, ATOMIC_COMMIT, DEFAULT_COMMIT};
    /// assert_eq!(SeenOptions::default().commit_policy(false), DEFAULT_COMMIT);
    /// assert_eq!(SeenOptions::default().commit_policy(true), ATOMIC_COMMIT);
    /// ```
    pub fn commit_policy(&self, atomic: bool) -> CommitPolicy {
        match self.commit {
            Some(c) => c,
            // a shared set cannot discard what it recorded: it records once the file is in place
            None if atomic && self.shared.is_some() => CommitPolicy::END,
            None if atomic => ATOMIC_COMMIT,
            None => DEFAULT_COMMIT,
        }
    }
}

impl SeenOptions {
    /// The approximate filter, held to `--memory` (its bits, all stages included), or without
    /// it to the machine's memory `machine` (bytes; `None`: unknown, no limit). A first stage
    /// that would pass the machine's memory is refused before any work (an invalid
    /// configuration, naming the size and the options to change); one that passes `--memory`
    /// is cut to fit (see [`linksieve_dedup::BloomSet::bounded`]).
    ///
    /// ```
    /// use linksieve_pipeline::seen::{SeenKind, SeenOptions};
    /// let o = SeenOptions { kind: SeenKind::Approx, expected: 1_000_000_000, fp_rate: 1e-12, ..SeenOptions::default() };
    /// let e = o.approx(Some(16 << 30)).err().unwrap().to_string();
    /// assert!(e.contains("--expected") && e.contains("--memory"), "{e}");
    /// let o = SeenOptions { memory: Some(1 << 20), ..o };
    /// assert!(o.approx(Some(16 << 30)).unwrap().bits() / 8 <= 1 << 20);
    /// ```
    pub fn approx(&self, machine: Option<u64>) -> Result<BloomSet, DedupError> {
        let first = linksieve_dedup::BloomSet::first_stage_bytes(self.expected, self.fp_rate)?;
        let asked = match self.memory {
            Some(m) => first.min(m as u64),
            None => first,
        };
        if let Some(machine) = machine
            && asked > machine
        {
            let what = match self.memory {
                Some(m) if (m as u64) < first => format!("--memory {m}"),
                _ => format!(
                    "--expected {} at --fp-rate {} (a first filter stage of {first} bytes)",
                    self.expected, self.fp_rate
                ),
            };
            return Err(DedupError::InvalidConfig(format!(
                "--dedup approx: {what} asks for more than this machine's memory ({machine} \
                 bytes): lower --expected, raise --fp-rate, or bound the filter with a smaller \
                 --memory (past the keys it has room for it drops more new keys, and the \
                 summary estimates how many)"
            )));
        }
        let limit = self
            .memory
            .or_else(|| machine.map(|m| usize::try_from(m).unwrap_or(usize::MAX)));
        BloomSet::bounded(self.expected, self.fp_rate, limit)
    }
}

/// The machine's physical memory in bytes (`MemTotal` of `/proc/meminfo`; `None` where the
/// system does not say).
fn machine_memory() -> Option<u64> {
    crate::stats::proc_kib("/proc/meminfo", "MemTotal:")
}

/// What the keys made with some options are: every option that changes a key (the fingerprint
/// hash and its version, the rung, the form, the rule set's version, the profile, `--nfc` and
/// the input mode), but the `--redirects` file, which a crawler grows run after run (see the
/// guide's "The persistent store"). Two key sets can be compared (or one store used) only
/// when their identities are equal; `linksieve identity` prints it, a `--seen` store records
/// it, and the Spark driver keeps it beside its Parquet key set.
///
/// ```
/// use linksieve_iri::InputMode;
/// use linksieve_pipeline::seen::KeyIdentity;
/// let id = KeyIdentity::of(&Default::default(), InputMode::Leiri);
/// assert_eq!((id.hash, id.rung.as_str(), id.form.as_str()), ("xxh3-128", "scheme", "uri"));
/// assert!(id.to_json().contains("\"hash\":\"xxh3-128\""));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyIdentity {
    /// The fingerprint hash (`xxh3-128`).
    pub hash: &'static str,
    /// [`FINGERPRINT_VERSION`].
    pub hash_version: u32,
    /// The ladder rung of the keys.
    pub rung: String,
    /// The key form (`uri`, `iri`, `surt`...).
    pub form: String,
    /// The `version` of the `--rules` file (0 without one).
    pub ruleset_version: u32,
    /// The profile, its options and the version it reproduces ([`Profile::identity`]), when
    /// the keys are a profile's.
    ///
    /// [`Profile::identity`]: linksieve_profiles::Profile::identity
    pub profile: Option<String>,
    /// `--nfc`: links of legacy-encoded text brought to NFC before keying.
    pub nfc: bool,
    /// The input mode links were read in (`strict`, `leiri`, `web`).
    pub input: &'static str,
}

impl KeyIdentity {
    /// The identity of the keys `keying` makes of links read in `input` mode.
    ///
    /// ```
    /// use linksieve_iri::{InputMode, Rung};
    /// let k = linksieve_pipeline::Keying::default().at(Rung::Syntax);
    /// assert_eq!(linksieve_pipeline::seen::KeyIdentity::of(&k, InputMode::Web).rung, "syntax");
    /// ```
    pub fn of(keying: &Keying, input: InputMode) -> KeyIdentity {
        let opts = &keying.ladder;
        KeyIdentity {
            hash: "xxh3-128",
            hash_version: FINGERPRINT_VERSION,
            rung: opts.rung.name().to_owned(),
            form: opts.form.name().to_owned(),
            ruleset_version: opts.rules.as_ref().map_or(0, |r| r.version),
            profile: keying.profile.as_ref().map(|p| p.identity()),
            nfc: opts.nfc,
            input: match input {
                InputMode::Strict => "strict",
                InputMode::Leiri => "leiri",
                InputMode::Web => "web",
            },
        }
    }

    /// What a persistent store records of it: [`to_json`](KeyIdentity::to_json), and for a
    /// store made before it recorded the identity whole, the fields that store kept (the rung,
    /// or `profile <identity>` for a profile's keys; the form; the rule set's version).
    ///
    /// ```
    /// use linksieve_iri::InputMode;
    /// use linksieve_pipeline::{Keying, seen::KeyIdentity};
    /// let id = KeyIdentity::of(&Default::default(), InputMode::Leiri);
    /// assert_eq!(id.store().text(), id.to_json());
    /// assert_eq!(id.store().legacy(), Some(("scheme", "uri", 0)));
    /// let o = Keying { profile: Some("w3lib".parse().unwrap()), ..Default::default() };
    /// let store = KeyIdentity::of(&o, InputMode::Leiri).store();
    /// let (rung, ..) = store.legacy().unwrap();
    /// assert!(rung.starts_with("profile w3lib@w3lib 2.5.0"));
    /// ```
    pub fn store(&self) -> StoreIdentity {
        let id = StoreIdentity::new(self.to_json());
        match &self.profile {
            Some(p) => id.with_legacy(&format!("profile {p}"), "profile", 0),
            None => id.with_legacy(&self.rung, &self.form, self.ruleset_version),
        }
    }

    /// One JSON object: `hash`, `hash_version`, `rung`, `form`, `ruleset_version`,
    /// `profile` (`null`, or the profile's name, options and version), `nfc` and `input` (the
    /// output of `linksieve identity`, which the Spark driver compares field by field).
    ///
    /// ```
    /// let id = linksieve_pipeline::seen::KeyIdentity::of(&Default::default(), linksieve_iri::InputMode::Leiri);
    /// let v: serde_json::Value = serde_json::from_str(&id.to_json()).unwrap();
    /// assert_eq!((v["ruleset_version"].as_u64(), v["nfc"].as_bool(), v["input"].as_str()), (Some(0), Some(false), Some("leiri")));
    /// ```
    pub fn to_json(&self) -> String {
        serde_json::json!({
            "hash": self.hash,
            "hash_version": self.hash_version,
            "rung": self.rung,
            "form": self.form,
            "ruleset_version": self.ruleset_version,
            "profile": self.profile,
            "nfc": self.nfc,
            "input": self.input,
        })
        .to_string()
    }
}
