//! Choosing and opening a run's seen-set (the CLI's `--dedup`, `--memory`, `--fp-rate`,
//! `--expected`, `--seen`), with the persistent store's crash policy, and the identity of the
//! keys a store (or any engine's own key set) holds.

use crate::dedup::{
    ApproxDedup, Dedup, MemoryDedup, PERSISTENT_BATCH, PersistentDedup, SpillDedup,
};
use linksieve_dedup::{
    Abandoned, DedupError, FINGERPRINT_VERSION, PersistentOptions, PersistentSet, SpillConfig,
    StoreIdentity,
};
use linksieve_iri::NormalizeOptions;
use std::path::PathBuf;

/// The in-process seen-sets.
///
/// ```
/// assert_eq!(linksieve_pipeline::seen::SeenKind::default(), linksieve_pipeline::seen::SeenKind::Memory);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SeenKind {
    /// Exact, in memory ([`MemoryDedup`]).
    #[default]
    Memory,
    /// Exact for any number of keys, within a memory budget: sorted runs on disk
    /// ([`SpillDedup`]).
    Spill,
    /// A Bloom filter that may drop new keys, with the expected number reported
    /// ([`ApproxDedup`]).
    Approx,
}

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
/// let d = o.open(&StoreIdentity::new("scheme", "uri", 0), false).unwrap();
/// assert!(d.expected_false_drops().is_some());
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
}

impl Default for SeenOptions {
    fn default() -> Self {
        SeenOptions {
            kind: SeenKind::Memory,
            memory: None,
            fp_rate: 0.001,
            expected: 10_000_000,
            store: None,
        }
    }
}

impl SeenOptions {
    /// Opens the seen-set. A persistent store is opened with `id` (and refuses a store made
    /// with another). `atomic`: the output goes to a file renamed into place at the end
    /// ([`AtomicOutput`](crate::output::AtomicOutput)) rather than to a stream, which decides
    /// the store's crash policy: with a file, the output of a killed run is never put in place,
    /// so the keys it committed count as new again ([`Abandoned::New`]) and batches are large;
    /// on a stream they were (probably) written ([`Abandoned::Seen`]) and each chunk is
    /// committed before its keys are written, so that a `kill -9` leaves at most one chunk's
    /// keys committed but not written.
    ///
    /// ```
    /// use linksieve_pipeline::seen::{SeenKind, SeenOptions};
    /// use linksieve_dedup::StoreIdentity;
    /// let id = StoreIdentity::new("scheme", "uri", 0);
    /// let bad = SeenOptions { memory: Some(1 << 20), ..SeenOptions::default() };
    /// assert!(bad.open(&id, false).is_err()); // --memory is for spill and approx
    /// ```
    pub fn open(&self, id: &StoreIdentity, atomic: bool) -> Result<Box<dyn Dedup>, DedupError> {
        if self.memory.is_some() && !matches!(self.kind, SeenKind::Spill | SeenKind::Approx) {
            return Err(DedupError::InvalidConfig(
                "--memory sets the budget of --dedup spill or approx".into(),
            ));
        }
        let Some(path) = &self.store else {
            return Ok(match self.kind {
                SeenKind::Memory => Box::new(MemoryDedup::default()),
                SeenKind::Spill => Box::new(SpillDedup::new(SpillConfig::new(
                    self.memory.unwrap_or(DEFAULT_SPILL_BUDGET),
                ))?),
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
        let batch = if atomic { PERSISTENT_BATCH } else { 0 };
        Ok(Box::new(PersistentDedup::new(set, batch)))
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
    /// assert!(o.approx(Some(16 << 30)).unwrap().0.bits() / 8 <= 1 << 20);
    /// ```
    pub fn approx(&self, machine: Option<u64>) -> Result<ApproxDedup, DedupError> {
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
        ApproxDedup::bounded(self.expected, self.fp_rate, limit)
    }
}

/// The machine's physical memory in bytes (`MemTotal` of `/proc/meminfo`; `None` where the
/// system does not say).
fn machine_memory() -> Option<u64> {
    crate::stats::proc_kib("/proc/meminfo", "MemTotal:")
}

/// What the keys made with some options are: the fingerprint hash and its version, the rung,
/// the form and the rule set's version. Two key sets can be compared (or one store used) only
/// when their identities are equal; `linksieve identity` prints it and the Spark driver keeps
/// it beside its Parquet key set.
///
/// ```
/// use linksieve_pipeline::seen::KeyIdentity;
/// let id = KeyIdentity::of(&linksieve_iri::NormalizeOptions::default());
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
    /// [`Profile::identity`]: linksieve_iri::Profile::identity
    pub profile: Option<String>,
}

impl KeyIdentity {
    /// The identity of the keys `opts` make.
    ///
    /// ```
    /// use linksieve_iri::{Rung, NormalizeOptions};
    /// let o = NormalizeOptions { rung: Rung::Syntax, ..Default::default() };
    /// assert_eq!(linksieve_pipeline::seen::KeyIdentity::of(&o).rung, "syntax");
    /// ```
    pub fn of(opts: &NormalizeOptions) -> KeyIdentity {
        KeyIdentity {
            hash: "xxh3-128",
            hash_version: FINGERPRINT_VERSION,
            rung: opts.rung.name().to_owned(),
            form: opts.form.name().to_owned(),
            ruleset_version: opts.rules.as_ref().map_or(0, |r| r.version),
            profile: opts.profile.as_ref().map(|p| p.identity()),
        }
    }

    /// What a persistent store records of it (the hash version is the store's own). The keys
    /// of a profile are recorded with the rung `profile <identity>` and the form `profile`:
    /// the profile's name, options and version, which a store of ladder keys never matches.
    ///
    /// ```
    /// use linksieve_iri::NormalizeOptions;
    /// use linksieve_pipeline::seen::KeyIdentity;
    /// assert_eq!(KeyIdentity::of(&Default::default()).store().rung, "scheme");
    /// let o = NormalizeOptions { profile: Some("w3lib".parse().unwrap()), ..Default::default() };
    /// assert!(KeyIdentity::of(&o).store().rung.starts_with("profile w3lib@w3lib 2.5.0"));
    /// ```
    pub fn store(&self) -> StoreIdentity {
        match &self.profile {
            Some(p) => StoreIdentity::new(format!("profile {p}"), "profile", 0),
            None => StoreIdentity::new(&self.rung, &self.form, self.ruleset_version),
        }
    }

    /// One JSON object: `hash`, `hash_version`, `rung`, `form`, `ruleset_version` and
    /// `profile` (`null`, or the profile's name, options and version) (the output of
    /// `linksieve identity`, which the Spark driver compares field by field).
    ///
    /// ```
    /// let id = linksieve_pipeline::seen::KeyIdentity::of(&Default::default());
    /// let v: serde_json::Value = serde_json::from_str(&id.to_json()).unwrap();
    /// assert_eq!(v["ruleset_version"], 0);
    /// ```
    pub fn to_json(&self) -> String {
        serde_json::json!({
            "hash": self.hash,
            "hash_version": self.hash_version,
            "rung": self.rung,
            "form": self.form,
            "ruleset_version": self.ruleset_version,
            "profile": self.profile,
        })
        .to_string()
    }
}
