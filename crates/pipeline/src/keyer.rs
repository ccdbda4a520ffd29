//! How a link found by the scanner gets its key, the same for `run` and `scan --format tsv`.

use linksieve_iri::{
    InputMode, KeyForm, Level, NormalizeError, NormalizeOptions, normalize_str, normalize_str_into,
};

/// Keys found links: in the chosen rung and form, and in the `uri` form at every rung (for the
/// per-rung duplicate counts). A link transcoded from a legacy encoding is keyed with NFC
/// (RFC 3987 3.1 variant B; CMP 4.2.2). The option sets are made once, not per link.
///
/// ```
/// use linksieve_iri::{InputMode, Level, NormalizeOptions};
/// let k = linksieve_pipeline::Keyer::new(InputMode::Leiri, &NormalizeOptions::default());
/// assert_eq!(k.key("HTTP://Example.COM:80", false).unwrap(), "http://example.com/");
/// let mut syntax = String::new();
/// k.uri_key_into("HTTP://Example.COM:80", false, Level::Syntax, &mut syntax).unwrap();
/// assert_eq!(syntax, "http://example.com:80");
/// ```
#[derive(Clone, Debug)]
pub struct Keyer {
    input: InputMode,
    /// The chosen rung and form: for Unicode text, for text from a legacy encoding (NFC).
    chosen: [NormalizeOptions; 2],
    /// The `uri` form at each rung of [`Level::ALL`], split the same way.
    uri: [[NormalizeOptions; 4]; 2],
}

impl Keyer {
    /// A keyer for links read in `input` mode and keyed with `opts`.
    ///
    /// ```
    /// use linksieve_iri::{InputMode, KeyForm, NormalizeOptions};
    /// let k = linksieve_pipeline::Keyer::new(InputMode::Strict, &NormalizeOptions::default());
    /// assert_eq!(k.options().form, KeyForm::Uri);
    /// ```
    pub fn new(input: InputMode, opts: &NormalizeOptions) -> Keyer {
        let with_nfc = |legacy: bool| NormalizeOptions {
            nfc: opts.nfc || legacy,
            ..opts.clone()
        };
        let chosen = [with_nfc(false), with_nfc(true)];
        let uri = [false, true].map(|legacy| {
            Level::ALL.map(|level| NormalizeOptions {
                level,
                form: KeyForm::Uri,
                ..with_nfc(legacy)
            })
        });
        Keyer { input, chosen, uri }
    }

    /// The options of the chosen rung and form (for Unicode text).
    ///
    /// ```
    /// use linksieve_iri::{InputMode, Level, NormalizeOptions};
    /// let k = linksieve_pipeline::Keyer::new(InputMode::Strict, &NormalizeOptions::default());
    /// assert_eq!(k.options().level, Level::Scheme);
    /// ```
    pub fn options(&self) -> &NormalizeOptions {
        &self.chosen[0]
    }

    /// The key of `text` at the chosen rung and form; `legacy`: transcoded from a legacy
    /// encoding.
    ///
    /// ```
    /// use linksieve_iri::{InputMode, NormalizeOptions};
    /// let k = linksieve_pipeline::Keyer::new(InputMode::Leiri, &NormalizeOptions::default());
    /// assert!(k.key("http://%zz", false).is_err());
    /// ```
    pub fn key(&self, text: &str, legacy: bool) -> Result<String, NormalizeError> {
        normalize_str(text, self.input, &self.chosen[usize::from(legacy)])
    }

    /// [`Keyer::key`], appended to `out` (left as it was on an error): many keys in one buffer.
    ///
    /// ```
    /// use linksieve_iri::{InputMode, NormalizeOptions};
    /// let k = linksieve_pipeline::Keyer::new(InputMode::Leiri, &NormalizeOptions::default());
    /// let mut buf = String::new();
    /// k.key_into("HTTP://A.example", false, &mut buf).unwrap();
    /// assert!(k.key_into("http://%zz", false, &mut buf).is_err());
    /// assert_eq!(buf, "http://a.example/");
    /// ```
    pub fn key_into(
        &self,
        text: &str,
        legacy: bool,
        out: &mut String,
    ) -> Result<(), NormalizeError> {
        normalize_str_into(text, self.input, &self.chosen[usize::from(legacy)], out)
    }

    /// The `uri`-form key of `text` at `level`, appended to `out` (left as it was on an error).
    ///
    /// ```
    /// use linksieve_iri::{InputMode, Level, NormalizeOptions};
    /// let k = linksieve_pipeline::Keyer::new(InputMode::Leiri, &NormalizeOptions::default());
    /// let mut buf = String::new();
    /// k.uri_key_into("HTTP://A.example", false, Level::Syntax, &mut buf).unwrap();
    /// assert_eq!(buf, "http://a.example");
    /// ```
    pub fn uri_key_into(
        &self,
        text: &str,
        legacy: bool,
        level: Level,
        out: &mut String,
    ) -> Result<(), NormalizeError> {
        normalize_str_into(text, self.input, self.uri_options(legacy, level), out)
    }

    fn uri_options(&self, legacy: bool, level: Level) -> &NormalizeOptions {
        let rung = Level::ALL.iter().position(|&l| l == level).unwrap_or(0);
        &self.uri[usize::from(legacy)][rung]
    }
}
