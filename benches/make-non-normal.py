#!/usr/bin/env python3
"""Make the "non-normal" URL list of the normalize benchmark from a real one.

    python3 benches/make-non-normal.py [IN] [OUT] [--seed N]

IN defaults to testdata/corpora/data/url-list-kasztp.txt (48,010 https URLs, a UTF-8 BOM on
line 1, which is dropped), OUT to testdata/corpora/data/url-list-kasztp-non-normal.txt. Every
URL of IN is written to OUT once, in order, changed the way real links are un-normalized, so
that none of them is already its own key at the syntax or scheme rung of the comparison ladder
(draft-ietf-iri-comparison-00 4.2, 4.3) and every one takes the ladder's general path:

- the scheme in upper case, whole (`HTTPS`) or its first letter (`Https`) (CMP 4.2.1);
- the host, or one label of it, in upper case or capitalized (`WWW.Example.com`, CMP 4.2.1);
- an explicit default port, `:443` for https and `:80` for http (RFC 3986 6.2.3, CMP 4.3);
- a dot segment in the path: `./` or `x/../` after one of its `/` (RFC 3986 5.2.4, CMP 4.2.4);
- a lower-case percent-escape (`%2f` for `%2F`, RFC 3986 6.2.2.1), or an unreserved
  character of the path percent-encoded in lower case (`%7e` for `~`, RFC 3986 6.2.2.2).

Each URL gets one to three of these, picked by a hash of the seed and the line number
(SHA-256, so the output is the same on every Python version and machine); the scheme change is
added whenever the picks leave the URL as it was (a host without letters, say). Lines that
are not `scheme://...` URLs are copied unchanged. The default seed is 1; the committed list was
made with it.
"""

import hashlib
import re
import sys

DEFAULT_IN = "testdata/corpora/data/url-list-kasztp.txt"
DEFAULT_OUT = "testdata/corpora/data/url-list-kasztp-non-normal.txt"
DEFAULT_PORTS = {"http": "80", "https": "443", "ws": "80", "wss": "443", "ftp": "21"}
URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://([^/?#]*)([^?#]*)(.*)$")


class Draw:
    """Deterministic numbers from SHA-256(seed, line number, counter)."""

    def __init__(self, seed, line):
        self.key = f"{seed}:{line}:".encode()
        self.n = 0

    def below(self, n):
        self.n += 1
        h = hashlib.sha256(self.key + str(self.n).encode()).digest()
        return int.from_bytes(h[:8], "little") % n


def upper_scheme(scheme, d):
    return scheme.upper() if d.below(2) else scheme[:1].upper() + scheme[1:]


def upper_host(host, d):
    """One label (or the whole host) upper-cased or capitalized; None when it has no letter."""
    labels = host.split(".")
    lettered = [i for i, l in enumerate(labels) if any(c.isalpha() for c in l)]
    if not lettered:
        return None
    if d.below(4) == 0:
        return host.upper()
    i = lettered[d.below(len(lettered))]
    labels[i] = labels[i].upper() if d.below(2) else labels[i][:1].upper() + labels[i][1:]
    up = ".".join(labels)
    return up if up != host else host.upper()


def dot_segment(path, d):
    """`./` or `x/../` after one of the path's `/` (the path is `/` when it was empty)."""
    path = path or "/"
    slashes = [i for i, c in enumerate(path) if c == "/"]
    at = slashes[d.below(len(slashes))] + 1
    piece = "./" if d.below(2) else "x/../"
    return path[:at] + piece + path[at:]


def lower_escape(path, rest, d):
    """A `%HH` with letters lower-cased, else an unreserved path character as lower-case
    `%hh`; None when there is neither."""
    text = path + rest
    escapes = [m.start() for m in re.finditer(r"%[0-9A-F]{2}", text) if re.search("[A-F]", m.group())]
    if escapes:
        i = escapes[d.below(len(escapes))]
        text = text[:i] + text[i : i + 3].lower() + text[i + 3 :]
        return text[: len(path)], text[len(path) :]
    spots = [i for i, c in enumerate(path) if c in "~-._" or c.isalpha()]
    if not spots:
        return None
    i = spots[d.below(len(spots))]
    return path[:i] + "%" + format(ord(path[i]), "02x") + path[i + 1 :], rest


def un_normalize(url, seed, line):
    m = URL.match(url)
    if not m:
        return url
    scheme, authority, path, rest = m.groups()
    d = Draw(seed, line)
    picks = {d.below(5)}
    for _ in range(d.below(3)):
        picks.add(d.below(5))
    changed = False
    if 1 in picks and "@" not in authority and not authority.startswith("["):
        host, colon, port = authority.partition(":")
        up = upper_host(host, d)
        if up is not None:
            authority, changed = up + colon + port, True
    if 2 in picks and ":" not in authority and scheme.lower() in DEFAULT_PORTS:
        authority, changed = authority + ":" + DEFAULT_PORTS[scheme.lower()], True
    if 3 in picks:
        path, changed = dot_segment(path, d), True
    if 4 in picks:
        r = lower_escape(path, rest, d)
        if r is not None:
            (path, rest), changed = r, True
    if 0 in picks or not changed or f"{scheme}://{authority}{path}{rest}" == url:
        scheme = upper_scheme(scheme, d)
    return f"{scheme}://{authority}{path}{rest}"


def main(argv):
    args, seed = [], 1
    it = iter(argv)
    for a in it:
        if a == "--seed":
            seed = int(next(it))
        elif a in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            args.append(a)
    src = args[0] if args else DEFAULT_IN
    dst = args[1] if len(args) > 1 else DEFAULT_OUT
    with open(src, encoding="utf-8") as f:
        text = f.read().removeprefix("\ufeff")
    lines = [l.rstrip() for l in text.splitlines()]
    out = [un_normalize(u, seed, n) for n, u in enumerate(lines) if u]
    with open(dst, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(out) + "\n")
    print(f"{dst}: {len(out)} URLs from {src} (seed {seed})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
