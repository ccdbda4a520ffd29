# Type stubs of the Rust extension (crates/python/src); the docstrings with examples are the
# extension's own (help(linksieve.normalize)). Checked against the module by mypy.stubtest in
# tests/python/test_types.py.
from collections.abc import Iterable
from os import PathLike
from types import TracebackType
from typing import Final, Literal, final, overload

from typing_extensions import Self

_Rung = Literal["string", "syntax", "scheme", "protocol"]
_Form = Literal["uri", "iri", "surt"]
_InputMode = Literal["strict", "leiri", "web"]
_Kind = Literal["memory", "approx", "spill", "persistent", "redis"]

__all__ = [
    "normalize",
    "normalize_many",
    "_normalize_arrow",
    "compare",
    "fingerprint",
    "identity",
    "resolve",
    "extract",
    "Link",
    "records",
    "Record",
    "Records",
    "Outlink",
    "Normalizer",
    "SeenSet",
    "NormalizeError",
    "StoreError",
    "RUNGS",
    "PARALLEL_THRESHOLD",
    "__version__",
]

__version__: Final[str]
RUNGS: Final[list[str]]
PARALLEL_THRESHOLD: Final[int]

class NormalizeError(ValueError):
    """An input with no key: the input, the rung, the rule that failed, the byte offset."""

    input: str
    rung: str
    rule: str
    offset: int | None

class StoreError(RuntimeError):
    """A seen-set that cannot go on (store identity, damage, lock, disk; a closed set)."""

def resolve(
    base: str,
    reference: str,
    *,
    input_mode: _InputMode | None = None,
    input: _InputMode | None = None,
    strict: bool = True,
) -> str:
    """A reference resolved against a base IRI (RFC 3986 5.2); raises ValueError."""

def normalize(
    url: str,
    *,
    rung: _Rung | None = None,
    level: _Rung | None = None,
    form: _Form = "uri",
    input_mode: _InputMode | None = None,
    input: _InputMode | None = None,
    profile: str | None = None,
    nfc: bool = False,
) -> str:
    """The key of one URL or IRI; raises NormalizeError when it has none."""

@overload
def normalize_many(  # type: ignore[overload-overlap]
    urls: tuple[str | None, ...],
    *,
    rung: _Rung | None = None,
    level: _Rung | None = None,
    form: _Form = "uri",
    input_mode: _InputMode | None = None,
    input: _InputMode | None = None,
    profile: str | None = None,
    nfc: bool = False,
    threads: int | None = None,
    errors: list[tuple[int, NormalizeError]] | None = None,
) -> tuple[str | None, ...]: ...
@overload
def normalize_many(
    urls: Iterable[str | None],
    *,
    rung: _Rung | None = None,
    level: _Rung | None = None,
    form: _Form = "uri",
    input_mode: _InputMode | None = None,
    input: _InputMode | None = None,
    profile: str | None = None,
    nfc: bool = False,
    threads: int | None = None,
    errors: list[tuple[int, NormalizeError]] | None = None,
) -> list[str | None]: ...
def _normalize_arrow(
    validity: bytes | None,
    offsets: bytes,
    data: bytes,
    offset: int,
    length: int,
    large: bool,
    data_start: int = 0,
    *,
    rung: _Rung | None = None,
    level: _Rung | None = None,
    form: _Form = "uri",
    input_mode: _InputMode | None = None,
    input: _InputMode | None = None,
    profile: str | None = None,
    nfc: bool = False,
    threads: int | None = None,
    errors: list[tuple[int, NormalizeError]] | None = None,
) -> tuple[bytes | None, bytes, bytes, int]: ...
@final
class Normalizer:
    """normalize() with its options read once."""

    def __new__(
        cls,
        *,
        rung: _Rung | None = None,
        level: _Rung | None = None,
        form: _Form = "uri",
        input_mode: _InputMode | None = None,
        input: _InputMode | None = None,
        profile: str | None = None,
        nfc: bool = False,
    ) -> Self: ...
    def __call__(self, url: str) -> str: ...
    @overload
    def many(  # type: ignore[overload-overlap]
        self,
        urls: tuple[str | None, ...],
        *,
        threads: int | None = None,
        errors: list[tuple[int, NormalizeError]] | None = None,
    ) -> tuple[str | None, ...]: ...
    @overload
    def many(
        self,
        urls: Iterable[str | None],
        *,
        threads: int | None = None,
        errors: list[tuple[int, NormalizeError]] | None = None,
    ) -> list[str | None]: ...
    @property
    def options(self) -> dict[str, str | bool | None]: ...

def compare(
    a: str,
    b: str,
    *,
    rung: _Rung | None = None,
    level: _Rung | None = None,
    input_mode: _InputMode | None = None,
    input: _InputMode | None = None,
    profile: str | None = None,
    nfc: bool = False,
) -> Literal["string", "syntax", "scheme", "protocol", "profile"] | None:
    """The lowest rung at which a and b are equivalent ("profile": only under the profile)."""

def fingerprint(key: str | bytes) -> bytes:
    """The 16-byte (big-endian) XXH3-128 fingerprint the seen-sets keep of a key."""

def identity(
    *, rung: _Rung | None = None, level: _Rung | None = None, form: _Form = "uri",
    profile: str | None = None
) -> dict[str, str | int | None]:
    """What keys made with these options are, as `linksieve identity` prints it."""

@final
class Link:
    """A link found by extract()."""

    @property
    def text(self) -> str: ...
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def line(self) -> int: ...
    @property
    def kind(self) -> Literal["scheme", "opaque", "bare", "ip", "email", "attribute"]: ...
    @property
    def tag(self) -> str | None: ...
    @property
    def attr(self) -> str | None: ...
    @property
    def rel(self) -> str | None: ...
    @property
    def url(self) -> str | None: ...
    @property
    def error(self) -> str | None: ...
    @property
    def encoding(self) -> str: ...
    @property
    def from_legacy(self) -> bool: ...
    @property
    def key(self) -> str | None: ...
    @property
    def key_error(self) -> str | None: ...
    @property
    def element_text(self) -> str | None: ...
    def __eq__(self, value: object, /) -> bool: ...

def extract(
    data: bytes | str,
    *,
    encoding: str | None = None,
    schemeless: bool = False,
    email: bool = False,
    html: bool = False,
    base: str | None = None,
    key: bool | Normalizer | None = None,
    element_text: bool = False,
) -> list[Link]:
    """The links in data (text, or an HTML document with html=True), in input order."""

_LinkType = Literal[
    "a", "img", "script", "style", "canonical", "link", "refresh", "frame", "other", "text",
    "redirect-301", "redirect-302", "redirect-303", "redirect-307", "redirect-308",
    "link-header", "sitemap",
]

@final
class Outlink:
    """One outlink of a record (Record.links)."""

    @property
    def type(self) -> _LinkType: ...
    @property
    def value(self) -> str: ...
    @property
    def url(self) -> str | None: ...
    @property
    def key(self) -> str | None: ...
    @property
    def key_error(self) -> str | None: ...
    @property
    def tag(self) -> str | None: ...
    @property
    def attr(self) -> str | None: ...
    @property
    def rel(self) -> str | None: ...
    @property
    def offset(self) -> int: ...
    def __eq__(self, value: object, /) -> bool: ...

@final
class Record:
    """One record of a WARC or WAT file, with its outlinks."""

    @property
    def offset(self) -> int: ...
    @property
    def type(self) -> str: ...
    @property
    def target_uri(self) -> str | None: ...
    @property
    def page(self) -> str | None: ...
    @property
    def links(self) -> tuple[Outlink, ...]: ...
    @property
    def error(self) -> str | None: ...
    def edges(
        self,
        graph: Literal["page", "host", "domain"] = "page",
        www: Literal["keep", "strip"] = "keep",
    ) -> list[tuple[str, str]]:
        """(source node, target node) pairs, each once, as run --format edges counts them
        (a visited page's own node first, as (source, source))."""

@final
class Records:
    """The iterator records() answers."""

    def __iter__(self) -> Self: ...
    def __next__(self) -> Record: ...

def records(
    source: str | PathLike[str] | bytes,
    *,
    key: bool | Normalizer | None = None,
    record_links: bool = True,
    all_records: bool = False,
) -> Records:
    """The records of a WARC or WAT file, each with its outlinks, read on a thread of its own."""

@final
class SeenSet:
    """A set of keys that answers "new or seen", keeping a 16-byte fingerprint a key."""

    def __new__(
        cls,
        kind: _Kind = "memory",
        path: str | PathLike[str] | None = None,
        *,
        expected: int = 10_000_000,
        fp_rate: float = 0.001,
        memory: int | None = None,
        rung: _Rung | None = None,
        level: _Rung | None = None,
        form: _Form = "uri",
        profile: str | None = None,
        namespace: str | None = None,
        commit: str | int | None = None,
        abandoned: Literal["seen", "new"] = "seen",
        url: str | None = None,
    ) -> Self: ...
    @property
    def kind(self) -> _Kind: ...
    @property
    def memory_bytes(self) -> int: ...
    @property
    def warning(self) -> str | None: ...
    @property
    def commit(self) -> str: ...
    @property
    def unsynced(self) -> int: ...
    def add(
        self,
        key: str | bytes,
        chain: Iterable[tuple[str | bytes, int | str | None]] | None = None,
    ) -> bool: ...
    def add_edge(self, source: str | bytes, target: str | bytes, status: int | str) -> int: ...
    def sync(self) -> None: ...
    def clear(self) -> None: ...
    def add_many(self, keys: Iterable[str | bytes]) -> list[bool]: ...
    def __contains__(self, key: str | bytes, /) -> bool: ...
    def __len__(self) -> int: ...
    def close(self) -> None: ...
    def __enter__(self) -> Self: ...
    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool: ...
