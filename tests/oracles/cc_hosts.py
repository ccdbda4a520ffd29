"""cc-pyspark's host rule, the oracle of `linksieve run --format edges --graph host`.

`get_surt_host` is copied from cc-pyspark's `wat_extract_links.py` (class
`ExtractHostLinksJob`, https://github.com/commoncrawl/cc-pyspark, commit 49daea0, MIT licence,
Copyright (c) 2017 Common Crawl), the function that makes Common Crawl's host graphs; the only
change is the `strip_www` parameter: the copied commit always strips a leading `www.`, and
cc-pyspark's PR #57 keeps it (linksieve's `--www keep`, the default).
"""

import re
from urllib.parse import urlparse

import idna

# match IP addresses
# - including IPs with leading `www.' (stripped)
ip_pattern = re.compile(r'^(?:www\.)?\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\Z')

# valid host names, relaxed allowing underscore, allowing also IDNAs
# https://en.wikipedia.org/wiki/Hostname#Restrictions_on_valid_hostnames
host_part_pattern = re.compile(r'^[a-z0-9]([a-z0-9_-]{0,61}[a-z0-9])?\Z',
                               re.IGNORECASE | re.ASCII)

# simple pattern to match many but not all host names in URLs
url_parse_host_pattern = re.compile(r'^https?://([a-z0-9_.-]{2,253})(?:[/?#]|\Z)',
                                    re.IGNORECASE | re.ASCII)


def get_surt_host(url, strip_www=False):
    m = url_parse_host_pattern.match(url)
    if m:
        host = m.group(1)
    else:
        try:
            host = urlparse(url).hostname
        except Exception:
            return None
        if not host:
            return None
    host = host.strip().lower()
    if len(host) < 1 or len(host) > 253:
        return None
    if ip_pattern.match(host):
        return None
    parts = host.split('.')
    if parts[-1] == '':
        # trailing dot is allowed, strip it
        parts = parts[0:-1]
    if len(parts) <= 1:
        # do not accept single-word hosts, must be at least `domain.tld'
        return None
    if strip_www and len(parts) > 2 and parts[0] == 'www':
        # strip leading 'www' to reduce number of "duplicate" hosts,
        # but leave at least 2 trailing parts (www.com is a valid domain)
        parts = parts[1:]
    for (i, part) in enumerate(parts):
        if len(part) > 63:
            return None
        if not host_part_pattern.match(part):
            try:
                idn = idna.encode(part).decode('ascii')
            except (idna.IDNAError, idna.core.InvalidCodepoint, UnicodeError, IndexError, Exception):
                return None
            if host_part_pattern.match(idn):
                parts[i] = idn
            else:
                return None
    parts.reverse()
    return '.'.join(parts)
