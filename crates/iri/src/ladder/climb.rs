//! The climb: the keys of one reference at every rung up to the one asked for, each computed
//! from the key of the rung below (CMP 4: `scheme(x) = f(syntax(x))`). [`normalize`](super::normalize),
//! [`compare`](super::compare) and the pipeline's worker all key through [`climb_with`]; the
//! worker's [`climb_str`] first tries the fused one-pass path, rung by rung ([`fused_climb`]).

use super::{
    Key, KeyForm, NormalizeError, NormalizeOptions, Rung, fast, fast_text_key, forms, fused,
    protocol, redirected, scheme_rung, syntax, with_parsed,
};
use crate::input::InputMode;
use crate::parse::IriRef;

/// The climb itself. Calls `step` with the `uri` key of each rung from `string` up to
/// `opts.rung`, in that order, and returns the key of the top rung. Each rung is computed from
/// the key of the rung below (CMP 4); the protocol rung's learned redirects (CMP 4.4) apply to
/// its key last, so the key `step` sees at the top is the one returned.
///
/// The fast path: a reference that [`fast::is_normal`] finds already normal at the top rung is
/// its own key there and at every rung below (a fixed point propagates down the ladder, which
/// `crates/iri/tests/ladder_properties.rs` checks), and nothing is built.
pub(super) fn climb_with<'a>(
    iri: IriRef<&'a str>,
    opts: &NormalizeOptions,
    mut step: impl FnMut(Rung, IriRef<&str>),
) -> Result<Key<'a>, NormalizeError> {
    let top = opts.rung;
    if top >= Rung::Scheme && !iri.is_absolute() {
        // CMP 2: the scheme rules cannot apply without a scheme; compare resolved targets.
        return Err(NormalizeError::Relative {
            rung: top,
            offset: 0,
        });
    }
    if top == Rung::String {
        step(Rung::String, iri);
        return Ok(Key::Same(iri));
    }
    let rules = opts.rules.as_deref().filter(|r| !r.is_empty());
    let below_top = Rung::ALL.into_iter().take_while(|r| *r < top);
    let key = if fast::is_normal(iri, top, opts.nfc, rules.is_some()) {
        for rung in below_top {
            step(rung, iri);
        }
        Key::Same(iri)
    } else {
        Key::Built(general(iri, top, opts.nfc, rules, &mut step))
    };
    // CMP 4.4: equivalences learned from redirects, on the protocol key.
    let key = match opts.redirects.as_ref() {
        Some(r) if top == Rung::Protocol => match r.target(key.as_ref().as_str()) {
            Some(to) => Key::Built(to.clone()),
            None => key,
        },
        _ => key,
    };
    step(top, key.as_ref());
    Ok(key)
}

/// The general path of the climb (no fast path): the `uri` key of `iri` at `top` (above
/// `string`), without redirects, calling `step` with the key of each rung below `top`.
pub(super) fn general(
    iri: IriRef<&str>,
    top: Rung,
    nfc: bool,
    rules: Option<&protocol::Rules>,
    mut step: impl FnMut(Rung, IriRef<&str>),
) -> IriRef<String> {
    step(Rung::String, iri);
    // CMP 4.2 (3987bis 3.3 IRI -> URI, case, percent-encoding, dot segments)
    let mut k = syntax::normalize(iri, nfc);
    if top >= Rung::Scheme {
        step(Rung::Syntax, k.as_ref());
        // CMP 4.3, from the syntax key
        k = scheme_rung::normalize(k);
    }
    if top >= Rung::Protocol {
        step(Rung::Scheme, k.as_ref());
        // CMP 4.4, from the scheme key
        k = protocol::normalize(k, rules);
    }
    k
}

/// The keys of one reference on the ladder, filled by [`climb`] or [`climb_str`]: its `uri`
/// key at every rung from `string` up to the rung asked for, each computed from the key of the
/// rung below (CMP 4), and the top key in the form asked for. One `Climb` can be reused for
/// many references: its buffers are kept, and a key equal to the one below it is not copied.
///
/// ```
/// use linksieve_iri::{climb_str, Climb, InputMode, KeyForm, Rung, NormalizeOptions};
/// let opts = NormalizeOptions { rung: Rung::Protocol, form: KeyForm::Surt, ..Default::default() };
/// let mut c = Climb::default();
/// climb_str("HTTP://Example.COM:80/a#top", InputMode::Strict, &opts, &mut c).unwrap();
/// assert_eq!(c.key(Rung::String), Some("HTTP://Example.COM:80/a#top"));
/// assert_eq!(c.key(Rung::Syntax), Some("http://example.com:80/a#top"));
/// assert_eq!(c.key(Rung::Scheme), Some("http://example.com/a#top"));
/// assert_eq!(c.key(Rung::Protocol), Some("http://example.com/a"));
/// assert_eq!(c.top(), "http://(com,example,)/a");
/// ```
#[derive(Clone, Debug, Default)]
pub struct Climb {
    /// How many rungs of [`Rung::ALL`] have a key.
    filled: usize,
    /// The `uri` key at each rung, where it differs from the rung below (`fresh`).
    keys: [String; 4],
    /// Whether the key at a rung differs from the key below it (always so for `string`).
    fresh: [bool; 4],
    /// The form of the top key, and the top key in that form when it is not `uri`.
    form: KeyForm,
    formed: String,
}

impl Climb {
    /// The highest rung with a key (the rung asked for, after a successful climb).
    ///
    /// ```
    /// use linksieve_iri::{climb_str, Climb, NormalizeOptions, Rung};
    /// let mut c = Climb::default();
    /// climb_str("a:b", Default::default(), &NormalizeOptions::default(), &mut c).unwrap();
    /// assert_eq!(c.rung(), Some(Rung::Scheme));
    /// assert_eq!(Climb::default().rung(), None);
    /// ```
    pub fn rung(&self) -> Option<Rung> {
        self.filled.checked_sub(1).map(|i| Rung::ALL[i])
    }

    /// The `uri` key at `rung`; `None` above the top rung (or after a failed climb).
    ///
    /// ```
    /// use linksieve_iri::{climb_str, Climb, NormalizeOptions, Rung};
    /// let mut c = Climb::default();
    /// climb_str("http://h/%7e", Default::default(), &NormalizeOptions::default(), &mut c).unwrap();
    /// assert_eq!(c.key(Rung::Syntax), Some("http://h/~"));
    /// assert_eq!(c.key(Rung::Protocol), None);
    /// ```
    #[inline]
    pub fn key(&self, rung: Rung) -> Option<&str> {
        let i = rung as usize;
        (i < self.filled).then(|| self.key_at(i))
    }

    /// True when the key at `rung` differs from the key at the rung below (false at `string`
    /// and above the top rung).
    ///
    /// ```
    /// use linksieve_iri::{climb_str, Climb, NormalizeOptions, Rung};
    /// let mut c = Climb::default();
    /// climb_str("http://h", Default::default(), &NormalizeOptions::default(), &mut c).unwrap();
    /// assert!(!c.changed(Rung::Syntax));
    /// assert!(c.changed(Rung::Scheme));
    /// ```
    pub fn changed(&self, rung: Rung) -> bool {
        let i = rung as usize;
        i > 0 && i < self.filled && self.fresh[i]
    }

    /// The key at the top rung, in the form asked for (empty after a failed climb).
    ///
    /// ```
    /// use linksieve_iri::{climb_str, Climb, KeyForm, NormalizeOptions};
    /// let opts = NormalizeOptions { form: KeyForm::Iri, ..Default::default() };
    /// let mut c = Climb::default();
    /// climb_str("http://h/r%C3%A9", Default::default(), &opts, &mut c).unwrap();
    /// assert_eq!(c.top(), "http://h/ré");
    /// ```
    #[inline]
    pub fn top(&self) -> &str {
        match (self.form, self.filled) {
            (_, 0) => "",
            (KeyForm::Uri, n) => self.key_at(n - 1),
            _ => &self.formed,
        }
    }

    /// The key at index `i` of [`Rung::ALL`] (`i < filled`): the nearest fresh one at or below.
    #[inline]
    fn key_at(&self, i: usize) -> &str {
        let j = (0..=i).rev().find(|&j| self.fresh[j]).unwrap_or(0);
        &self.keys[j]
    }

    /// Forgets the last climb.
    fn reset(&mut self, form: KeyForm) {
        self.filled = 0;
        self.form = form;
        self.formed.clear();
    }

    /// Records the key of the next rung.
    fn push(&mut self, key: &str) {
        let i = self.filled;
        let fresh = i == 0 || self.key_at(i - 1) != key;
        if fresh {
            self.keys[i].clear();
            self.keys[i].push_str(key);
        }
        self.fresh[i] = fresh;
        self.filled = i + 1;
    }
}

/// Climbs the ladder with `iri` up to `opts.rung` and writes every rung's key into `out`
/// (whose earlier content is dropped). On an error `out` holds no key.
///
/// ```
/// use linksieve_iri::{climb, Climb, IriRef, Rung, NormalizeOptions};
/// let iri = IriRef::parse("HTTP://h/a/../b").unwrap();
/// let mut c = Climb::default();
/// climb(&iri, &NormalizeOptions::default(), &mut c).unwrap();
/// assert_eq!((c.key(Rung::Syntax), c.top()), (Some("http://h/b"), "http://h/b"));
/// let relative = IriRef::parse("../b").unwrap();
/// assert!(climb(&relative, &NormalizeOptions::default(), &mut c).is_err());
/// assert_eq!(c.rung(), None);
/// ```
pub fn climb<S: AsRef<str>>(
    iri: &IriRef<S>,
    opts: &NormalizeOptions,
    out: &mut Climb,
) -> Result<(), NormalizeError> {
    out.reset(opts.form);
    let k = climb_with(iri.as_ref(), opts, |_, key| out.push(key.as_str())).inspect_err(|_| {
        out.filled = 0;
    })?;
    match opts.form {
        KeyForm::Uri => {}
        KeyForm::Iri => out.formed = forms::iri(k.as_ref(), opts.rung),
        KeyForm::Surt => out.formed = forms::surt(k.as_ref()),
    }
    Ok(())
}

/// The fast path of [`climb_str`], for callers that can use it without a [`Climb`]: `Some`
/// when `input` (read in `mode`) is its own `uri` key at `opts.rung` and so at every rung below
/// it (a fixed point of the ladder), found in one pass over the text without parsing. The
/// answer is the key at `opts.rung`: `input` itself or, at the protocol rung, the target of a
/// learned redirect. `None` says nothing: climb to know the keys. Only for the `uri` form.
///
/// ```
/// use linksieve_iri::{fixed_point, InputMode, KeyForm, NormalizeOptions};
/// let opts = NormalizeOptions::default();
/// assert_eq!(fixed_point("http://h/a", InputMode::Strict, &opts), Some("http://h/a"));
/// assert_eq!(fixed_point("HTTP://h/a", InputMode::Strict, &opts), None);
/// let iri = NormalizeOptions { form: KeyForm::Iri, ..Default::default() };
/// assert_eq!(fixed_point("http://h/a", InputMode::Strict, &iri), None);
/// ```
pub fn fixed_point<'a>(
    input: &'a str,
    mode: InputMode,
    opts: &'a NormalizeOptions,
) -> Option<&'a str> {
    fast_text_key(input, mode, opts)
}

/// Reads `input` in `mode` (3987bis 6) and climbs with it, as [`climb`] does. The `string`
/// key is the reference as read (in LEIRI mode with the characters an IRI lacks encoded; in
/// web mode the WHATWG serialization). Where most inputs are already normal, try
/// [`fixed_point`] first: it answers for those in one pass without parsing (the pipeline's
/// worker does so).
///
/// ```
/// use linksieve_iri::{climb_str, Climb, InputMode, Rung, NormalizeOptions};
/// let mut c = Climb::default();
/// climb_str("http://h/a b", InputMode::Leiri, &NormalizeOptions::default(), &mut c).unwrap();
/// assert_eq!(c.key(Rung::String), Some("http://h/a%20b"));
/// assert_eq!(c.top(), "http://h/a%20b");
/// ```
pub fn climb_str(
    input: &str,
    mode: InputMode,
    opts: &NormalizeOptions,
    out: &mut Climb,
) -> Result<(), NormalizeError> {
    if fused_climb(input, mode, opts, out) {
        return Ok(());
    }
    with_parsed(input, mode, opts.rung, |iri| climb(&iri, opts, out)).inspect_err(|_| {
        out.filled = 0;
    })
}

/// The climb of [`climb_str`] by the fused general path ([`fused`]): each rung's `uri` key
/// above `string` written by one pass over the unparsed text, for a text of the shape that path
/// takes (an ASCII absolute URI: its own reference as read, in strict and LEIRI mode alike,
/// 3987bis 6.1), strict or LEIRI input, the `uri` form, and no crawler rules (CMP 4.4). The pass
/// at a rung gives the general path's key at that rung (`fused/tests.rs`), which is the key the
/// climb computes from the rung below (CMP 4: `scheme(x) = f(syntax(x))`), so the keys are the
/// climb's. The protocol rung's learned redirects apply to its key last, as in [`climb_with`].
/// Answers `false`, with `out` holding no key, where the shape is not covered at some rung: the
/// general climb then runs.
fn fused_climb(input: &str, mode: InputMode, opts: &NormalizeOptions, out: &mut Climb) -> bool {
    let top = opts.rung;
    if !fused::covers(mode, opts) {
        return false;
    }
    out.reset(KeyForm::Uri);
    out.push(input);
    // the `iri` and `surt` forms' buffer, unused in the `uri` form: the pass's output
    let mut key = std::mem::take(&mut out.formed);
    let mut covered = true;
    for rung in [Rung::Syntax, Rung::Scheme, Rung::Protocol] {
        if rung > top {
            break;
        }
        key.clear();
        if !fused::rewrite(input, rung, opts.nfc, &mut key) {
            covered = false;
            break;
        }
        // the top rung's key only (redirects apply at protocol, the highest rung)
        let to = if rung == top {
            redirected(&key, opts)
        } else {
            None
        };
        out.push(to.unwrap_or(&key));
    }
    key.clear();
    out.formed = key;
    if !covered {
        out.filled = 0;
    }
    covered
}
