//! What a node of the graph is: a page's key, or its host written as Common Crawl writes host
//! names in its host-level web graphs.

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
}

impl Graph {
    /// The node of a key at this level: the key itself ([`Graph::Page`]), or its
    /// [`host_node`] ([`Graph::Host`]; `None` for a URL with none).
    ///
    /// ```
    /// use linksieve_graph::{Graph, Www};
    /// assert_eq!(Graph::Page.node("http://a.example/x", Www::Keep).as_deref(), Some("http://a.example/x"));
    /// assert_eq!(Graph::Host.node("http://a.example/x", Www::Keep).as_deref(), Some("example.a"));
    /// ```
    pub fn node(self, key: &str, www: Www) -> Option<std::borrow::Cow<'_, str>> {
        match self {
            Graph::Page => Some(std::borrow::Cow::Borrowed(key)),
            Graph::Host => host_node(key, www).map(std::borrow::Cow::Owned),
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
    let host = authority_host(url)?;
    if host.is_empty() || host.len() > MAX_HOST || host.starts_with('[') {
        return None;
    }
    let host = host.to_ascii_lowercase();
    if is_ipv4(host.strip_prefix("www.").unwrap_or(&host)) {
        return None;
    }
    let mut labels: Vec<&str> = host.split('.').collect();
    if labels.last() == Some(&"") {
        labels.pop();
    }
    if labels.len() <= 1 {
        return None;
    }
    if www == Www::Strip && labels.len() > 2 && labels[0] == "www" {
        labels.remove(0);
    }
    let mut out = String::with_capacity(host.len());
    for label in labels.iter().rev() {
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
}
