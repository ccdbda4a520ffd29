//! What a node of the graph is: a page's key, its host written as Common Crawl writes host
//! names in its host-level web graphs, or its registered domain written so.

/// The level of a graph (`--graph`): what a node is.
///
/// ```
/// assert_eq!(linksieve_graph::Graph::default(), linksieve_graph::Graph::Page);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Graph {
    /// A node is a page: its key (the rung and form chosen).
    #[default]
    #[cfg_attr(feature = "clap", value(help = "Nodes are pages (their keys)"))]
    Page,
    /// A node is a host name, reversed (`www.example.com` -> `com.example.www`), as Common
    /// Crawl's host graphs write it ([`host_node`]); links within a host are no edge.
    #[cfg_attr(
        feature = "clap",
        value(help = "Nodes are reversed host names, as Common Crawl's host graphs")
    )]
    Host,
    /// A node is a registered domain (one label above a public suffix of the full Public
    /// Suffix List, private suffixes included), reversed ([`domain_node`]); links within a
    /// domain are no edge.
    #[cfg_attr(
        feature = "clap",
        value(help = "Nodes are reversed registered domains (the Public Suffix List)")
    )]
    Domain,
}

impl Graph {
    /// The node of a key at this level: the key itself ([`Graph::Page`]), its [`host_node`]
    /// ([`Graph::Host`]) or its [`domain_node`] ([`Graph::Domain`]; `www` plays no part);
    /// `None` for a URL with none.
    ///
    /// ```
    /// use linksieve_graph::{Graph, Www};
    /// assert_eq!(Graph::Page.node("http://a.example/x", Www::Keep).as_deref(), Some("http://a.example/x"));
    /// assert_eq!(Graph::Host.node("http://a.example/x", Www::Keep).as_deref(), Some("example.a"));
    /// assert_eq!(Graph::Domain.node("http://www.a.co.uk/", Www::Keep).as_deref(), Some("uk.co.a"));
    /// ```
    pub fn node(self, key: &str, www: Www) -> Option<std::borrow::Cow<'_, str>> {
        match self {
            Graph::Page => Some(std::borrow::Cow::Borrowed(key)),
            Graph::Host => host_node(key, www).map(std::borrow::Cow::Owned),
            Graph::Domain => domain_node(key).map(std::borrow::Cow::Owned),
        }
    }
}

/// What becomes of a leading `www.` label of a host name (`--www`).
///
/// ```
/// use linksieve_graph::{host_node, Www};
/// assert_eq!(host_node("http://www.example.com/", Www::Keep).as_deref(), Some("com.example.www"));
/// assert_eq!(host_node("http://www.example.com/", Www::Strip).as_deref(), Some("com.example"));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Www {
    /// Kept: `www.example.com` and `example.com` are two nodes (cc-pyspark since its PR #57).
    #[default]
    #[cfg_attr(feature = "clap", value(help = "Keep a leading www. label"))]
    Keep,
    /// Dropped when at least two labels remain (cc-pyspark before its PR #57: `www.com` stays).
    #[cfg_attr(
        feature = "clap",
        value(help = "Drop a leading www. label when two labels remain")
    )]
    Strip,
}

/// The most bytes of a host name (RFC 1035 2.3.4, as cc-pyspark checks it).
const MAX_HOST: usize = 253;
/// The most bytes of one label (RFC 1035 2.3.4).
const MAX_LABEL: usize = 63;

/// The host node of a URL (a key): its host name, lower case, each label in ASCII, the labels
/// reversed and joined by dots; `None` for a URL that names no host node. The rules are
/// cc-pyspark's `ExtractHostLinksJob.get_surt_host` (wat_extract_links.py, commit 49daea0,
/// MIT licence), the function that makes Common Crawl's host graphs:
/// - the host of the authority (`scheme://[userinfo@]host[:port]`); a URL without an
///   authority has none;
/// - 1 to 253 bytes; not an IPv4 address (with or without a leading `www.`) nor an IP literal;
/// - a trailing dot dropped; at least two labels (`localhost` has no node);
/// - with [`Www::Strip`], a leading `www` label dropped when two labels remain;
/// - each label at most 63 bytes, letters, digits, `-` and `_` (not first or last); a label
///   that is not is converted with IDNA (UTS 46, STD3 rules) and must then be.
///
/// ```
/// use linksieve_graph::{host_node, Www};
/// assert_eq!(host_node("https://User@Sub.Example.org.:8080/p", Www::Keep).as_deref(), Some("org.example.sub"));
/// assert_eq!(host_node("http://b\u{fc}cher.example/", Www::Keep).as_deref(), Some("example.xn--bcher-kva"));
/// assert_eq!(host_node("http://192.0.2.1/", Www::Keep), None);
/// assert_eq!(host_node("http://localhost/", Www::Keep), None);
/// assert_eq!(host_node("mailto:a@example.com", Www::Keep), None);
/// ```
pub fn host_node(url: &str, www: Www) -> Option<String> {
    let host = host_name(url)?;
    let mut labels: Vec<&str> = host.split('.').collect();
    if www == Www::Strip && labels.len() > 2 && labels[0] == "www" {
        labels.remove(0);
    }
    Some(reversed(&labels))
}

/// The domain node of a URL (a key): the registered domain of its host name, reversed
/// (`www.example.co.uk` -> `uk.co.example`); `None` for a URL with no host node
/// ([`host_node`]'s rules) or whose host has no registered domain. A registered domain is
/// the label above the longest public suffix of the Public Suffix List, wildcard and exception
/// rules applied (publicsuffix.org/list, "Algorithm"), private suffixes included
/// (`github.io`, `blogspot.com`): the list compiled into the `psl` crate. Common Crawl's
/// domain graphs fold host names so (cc-webgraph `HostToDomainGraph`, whose `private-domain`
/// aggregation includes the private suffixes; its default, ICANN suffixes only, does not), and
/// as there (`strict`), a host that is a public suffix itself, or whose suffix is on no rule
/// of the list (an unknown top-level domain), has no domain.
///
/// ```
/// use linksieve_graph::domain_node;
/// assert_eq!(domain_node("https://www.Example.co.uk/a").as_deref(), Some("uk.co.example"));
/// assert_eq!(domain_node("https://me.github.io/").as_deref(), Some("io.github.me"));
/// assert_eq!(domain_node("https://github.io/"), None);
/// assert_eq!(domain_node("http://a.b.unknown-tld/"), None);
/// ```
pub fn domain_node(url: &str) -> Option<String> {
    let domain = registered_domain(url)?;
    Some(reversed(&domain.split('.').collect::<Vec<_>>()))
}

/// The registered domain of a URL's host, not reversed: what [`domain_node`] reverses (Common
/// Crawl's `url_host_registered_domain`).
///
/// ```
/// use linksieve_graph::registered_domain;
/// assert_eq!(registered_domain("https://www.Example.co.uk/a").as_deref(), Some("example.co.uk"));
/// assert_eq!(registered_domain("http://co.uk/"), None);
/// ```
pub fn registered_domain(url: &str) -> Option<String> {
    let host = host_name(url)?;
    let domain = psl::domain(host.as_bytes())?;
    if !domain.suffix().is_known() {
        return None;
    }
    std::str::from_utf8(domain.as_bytes())
        .ok()
        .map(str::to_owned)
}

/// The host of a URL's authority, lower case, a trailing dot dropped (Common Crawl's
/// `url_host_name`): any host, IP addresses and single labels included; `None` for a URL
/// without an authority or with an empty host.
///
/// ```
/// use linksieve_graph::url_host_name;
/// assert_eq!(url_host_name("https://u@WWW.Example.com.:8080/a").as_deref(), Some("www.example.com"));
/// assert_eq!(url_host_name("http://192.0.2.1/").as_deref(), Some("192.0.2.1"));
/// assert_eq!(url_host_name("mailto:a@b.example"), None);
/// ```
pub fn url_host_name(url: &str) -> Option<String> {
    let host = authority_host(url)?;
    let host = host.strip_suffix('.').unwrap_or(host);
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// The labels joined by dots in reverse order.
fn reversed(labels: &[&str]) -> String {
    let mut out = String::with_capacity(labels.iter().map(|l| l.len() + 1).sum());
    for label in labels.iter().rev() {
        if !out.is_empty() {
            out.push('.');
        }
        out.push_str(label);
    }
    out
}

/// The host name of a URL as [`host_node`] takes it, not reversed: lower case, each label
/// ASCII, no trailing dot, at least two labels; `None` where [`host_node`] has no node.
fn host_name(url: &str) -> Option<String> {
    let host = authority_host(url)?;
    if host.is_empty() || host.len() > MAX_HOST || host.starts_with('[') {
        return None;
    }
    let host = host.to_ascii_lowercase();
    if is_ipv4(host.strip_prefix("www.").unwrap_or(&host)) {
        return None;
    }
    let host = host.strip_suffix('.').unwrap_or(&host);
    if !host.contains('.') {
        return None;
    }
    let mut out = String::with_capacity(host.len());
    for label in host.split('.') {
        if label.len() > MAX_LABEL {
            return None;
        }
        if !out.is_empty() {
            out.push('.');
        }
        if is_host_label(label) {
            out.push_str(label);
        } else {
            let ascii = idna::domain_to_ascii_strict(label).ok()?;
            if !is_host_label(&ascii) {
                return None;
            }
            out.push_str(&ascii);
        }
    }
    Some(out)
}

/// The host of a URL's authority, as written: after `scheme://` and any `userinfo@`, up to
/// the port or the path (RFC 3986 3.2).
fn authority_host(url: &str) -> Option<&str> {
    let colon = url.find(':')?;
    let rest = url[colon + 1..].strip_prefix("//")?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if host_port.starts_with('[') {
        return Some(host_port);
    }
    Some(host_port.split_once(':').map_or(host_port, |(h, _)| h))
}

/// cc-pyspark's `ip_pattern` without its `www.`: four groups of one to three digits.
fn is_ipv4(s: &str) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    parts.len() == 4
        && parts
            .iter()
            .all(|p| (1..=3).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()))
}

/// cc-pyspark's `host_part_pattern`: `^[a-z0-9]([a-z0-9_-]{0,61}[a-z0-9])?$`, ignoring case.
fn is_host_label(s: &str) -> bool {
    let b = s.as_bytes();
    let end_ok = |c: &u8| c.is_ascii_alphanumeric();
    !b.is_empty()
        && b.len() <= MAX_LABEL
        && b.first().is_some_and(end_ok)
        && b.last().is_some_and(end_ok)
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || *c == b'-' || *c == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(url: &str) -> Option<String> {
        host_node(url, Www::Keep)
    }

    #[test]
    fn cc_pyspark_rules() {
        // IPv4 with www., IP literals, single labels, empty hosts: no node
        assert_eq!(node("http://www.10.0.0.1/"), None);
        assert_eq!(node("http://[2001:db8::1]/"), None);
        assert_eq!(node("http://example./"), None);
        assert_eq!(node("file:///etc/passwd"), None);
        assert_eq!(node("http:///x"), None);
        // five digit groups are a host name, not an IPv4 address
        assert_eq!(node("http://1.2.3.4.5/").as_deref(), Some("5.4.3.2.1"));
        assert_eq!(node("http://1234.2.3.4/").as_deref(), Some("4.3.2.1234"));
        // www. kept or stripped; never below two labels
        assert_eq!(
            host_node("http://www.com/", Www::Strip).as_deref(),
            Some("com.www")
        );
        assert_eq!(
            host_node("http://www.a.b.com/", Www::Strip).as_deref(),
            Some("com.b.a")
        );
        // labels: underscores allowed inside, not at the ends; hyphens likewise
        assert_eq!(node("http://a_b.example/").as_deref(), Some("example.a_b"));
        assert_eq!(node("http://_a.example/"), None);
        assert_eq!(node("http://a-.example/"), None);
        assert_eq!(node("http://a..example/"), None);
        assert_eq!(node(&format!("http://{}.example/", "a".repeat(64))), None);
        assert!(node(&format!("http://{}.example/", "a".repeat(63))).is_some());
        assert_eq!(node(&format!("http://{}.example/", "a.".repeat(124))), None);
        // percent-encoded bytes in a host are no label
        assert_eq!(node("http://a%20b.example/"), None);
        // any scheme with an authority, userinfo and port dropped
        assert_eq!(
            node("ftp://u:p@FTP.Example.net:21/").as_deref(),
            Some("net.example.ftp")
        );
        assert_eq!(node("//cdn.example.org/x").as_deref(), None);
    }

    #[test]
    fn domains_by_the_public_suffix_list() {
        let d = |u: &str| domain_node(u);
        // ICANN suffixes, one and several labels; a wildcard rule (*.ck) and its exception
        assert_eq!(d("http://a.b.example.com/").as_deref(), Some("com.example"));
        assert_eq!(
            d("http://x.y.example.co.uk/").as_deref(),
            Some("uk.co.example")
        );
        assert_eq!(d("http://a.b.c.ck/").as_deref(), Some("ck.c.b"));
        assert_eq!(d("http://www.ck/").as_deref(), Some("ck.www"));
        // private suffixes count: each github.io or blogspot.com site is a domain
        assert_eq!(d("https://a.github.io/").as_deref(), Some("io.github.a"));
        assert_eq!(
            d("http://x.b.s3.amazonaws.com/").as_deref(),
            Some("com.amazonaws.s3.b")
        );
        // a public suffix itself, an unknown top-level domain, no host node: none
        assert_eq!(d("http://co.uk/"), None);
        assert_eq!(d("http://blogspot.com/"), None);
        assert_eq!(d("http://intranet.corp/"), None);
        assert_eq!(d("http://192.0.2.1/"), None);
        assert_eq!(d("http://localhost/"), None);
        // IDNA first, then the list (its rules are in ASCII): b\u{fc}cher.de, \u{516c}\u{53f8}.cn
        assert_eq!(
            d("http://www.b\u{fc}cher.de/").as_deref(),
            Some("de.xn--bcher-kva")
        );
        assert_eq!(
            d("http://a.\u{98df}\u{72ee}.\u{516c}\u{53f8}.cn/").as_deref(),
            Some("cn.xn--55qx5d.xn--85x722f")
        );
        // a trailing dot and upper case change nothing
        assert_eq!(
            d("http://WWW.Example.COM./").as_deref(),
            Some("com.example")
        );
    }
}
