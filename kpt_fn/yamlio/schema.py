"""How YAML scalars are read and written so that every reader in the pipeline agrees.

kpt and kustomize speak YAML 1.2, PyYAML speaks 1.1 and Argo CD reads with a 1.1 parser that also takes
y/n as booleans. Reading with the 1.2 core schema keeps `on`, `yes`, `2024-01-01` and `0755`-style
scalars that kpt sends unquoted as the strings they are; dumping quotes every string that *any* of
those readers would take for something else (go-yaml v3's resolve.go for kpt and kustomize,
go-yaml v2 through sigs.k8s.io/yaml for Argo CD; docs/yaml.md has the table). Loader and PyLoader
read, Dumper is the writer's oracle for each scalar's text (kpt_fn.yamlio.write).
"""

from __future__ import annotations

import re

import yaml

_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_BaseDumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

STR = "tag:yaml.org,2002:str"
MAP = "tag:yaml.org,2002:map"
SEQ = "tag:yaml.org,2002:seq"
BOOL = "tag:yaml.org,2002:bool"
INT = "tag:yaml.org,2002:int"
FLOAT = "tag:yaml.org,2002:float"
NULL = "tag:yaml.org,2002:null"
MERGE = "tag:yaml.org,2002:merge"
CORE = "tag:yaml.org,2002:"
# The only tags input may carry: plain, JSON-compatible data.
CORE_TAGS = frozenset(CORE + t for t in ("str", "int", "float", "bool", "null", "map", "seq", "merge"))
_1_1_ONLY = {
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:timestamp",
    "tag:yaml.org,2002:value",
}


def _without(resolvers: dict, tags: set) -> dict:
    return {ch: [(tag, rx) for tag, rx in lst if tag not in tags] for ch, lst in resolvers.items()}


class Pattern:
    """A regular expression compiled when it is first needed. PyYAML's resolver tables only ask
    `.match(text)` of what they hold, and only whether the answer is true; go-yaml's number
    expressions below cost about a millisecond of every run to compile, and most scalars that start
    with a digit or a dash are no number (`8Gi`, `-f`). So, each when given: `words`, the only texts
    that match (an alternation of words); `chars`, all the characters a match can hold; `needs`,
    characters of which a match holds at least one; `exact`, a function that answers for the
    expression on every text (then nothing else is asked). tests/unit/yamlio/test_schema.py holds
    every Pattern to its expression."""

    __slots__ = ("pattern", "words", "chars", "needs", "exact", "_compiled")

    def __init__(self, pattern: str, chars: str | None = None, needs: str | None = None,
                 words: tuple | None = None, exact=None):
        self.pattern = pattern
        self.exact = exact
        self.words = frozenset(words) if words is not None else None
        self.chars = frozenset(chars) if chars is not None else None
        self.needs = frozenset(needs) if needs is not None else None
        self._compiled = None

    def match(self, text: str):
        if self.exact is not None:
            return self.exact(text)
        if self.words is not None:
            return text in self.words
        if self.chars is not None and not self.chars.issuperset(text):
            return None
        if self.needs is not None and self.needs.isdisjoint(text):
            return None
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self.pattern)
        return compiled.match(text)


def _add(resolvers: dict, tag: str, regexp, first: str) -> None:
    for ch in first:
        resolvers.setdefault(ch, []).append((tag, regexp))


_BOOL_1_2 = Pattern(r"^(?:true|True|TRUE|false|False|FALSE)$", words=("true", "True", "TRUE", "false", "False", "FALSE"))
# Numbers as go-yaml (v2 and v3 alike: kpt, kustomize, kubectl, Argo CD) reads them: a scalar that
# starts with a sign or a digit is a number if it is one once every "_" is dropped, with Go's prefixes
# 0x, 0o, 0b and the YAML 1.1 octal 0777 (so `defaultMode: 0400` is 256 to every Go client); one that
# starts with "." is a float only as written (.5, .5e3). `_*` between the characters is "underscores
# anywhere".
#
# The two expressions are the definition; _go_int and _go_float answer for them without compiling one
# (compiling the float's cost ~1 ms of every run that meets a learning rate such as `5e-4`).
_DIGIT = frozenset("0123456789")
_DIGIT_ = _DIGIT | {"_"}
_PREFIXED = {"x": frozenset("0123456789abcdefABCDEF_"), "o": frozenset("01234567_"), "b": frozenset("01_")}
_SPECIAL = frozenset((".inf", ".Inf", ".INF"))


def _digits_(text: str) -> bool:
    """A digit, then digits and underscores."""
    return text[:1] in _DIGIT and _DIGIT_.issuperset(text)


def _go_int(text: str) -> bool:
    if text[-1:] == "\n":  # `$` also matches before a final line break
        text = text[:-1]
    if text[:1] in ("+", "-"):
        text = text[1:]
    elif text[:1] not in _DIGIT:
        return False
    body = text.lstrip("_")  # underscores anywhere after the sign
    if body[:1] == "0" and len(body) > 1:
        rest = body[1:].lstrip("_")
        allowed = _PREFIXED.get(rest[:1].lower())
        if allowed is not None:
            digits = rest[1:].lstrip("_")
            return digits[:1] not in ("", "_") and allowed.issuperset(digits)
    return _digits_(body)


def _go_float(text: str) -> bool:
    if text[-1:] == "\n":  # `$` also matches before a final line break
        text = text[:-1]
    if text[:1] == ".":  # only as written: .5, .5e3, .inf, .nan
        if text in _SPECIAL or text[1:] in ("nan", "NaN", "NAN"):
            return True
        mantissa, e, exponent = text[1:].replace("E", "e").partition("e")
        return mantissa.isascii() and mantissa.isdigit() and (
            not e or (exponent[1:] if exponent[:1] in ("+", "-") else exponent).isdigit()
            and exponent.isascii())
    if text[:1] in ("+", "-"):
        text = text[1:]
        if text in _SPECIAL:
            return True
    elif text[:1] not in _DIGIT:
        return False
    mantissa, e, exponent = text.lstrip("_").replace("E", "e").partition("e")
    if mantissa[:1] == ".":
        if not _digits_(mantissa[1:]):  # no underscore right after a leading point
            return False
    else:
        whole, _, fraction = mantissa.partition(".")
        if not _digits_(whole) or not _DIGIT_.issuperset(fraction):
            return False
    if not e:
        return True
    exponent = exponent.lstrip("_")
    if exponent[:1] in ("+", "-"):
        exponent = exponent[1:].lstrip("_")
    return _digits_(exponent)


_INT_GO = Pattern(
    r"^(?=[-+0-9])[-+]?_*(?:0_*[xX]_*(?:[0-9a-fA-F]_*)+|0_*[oO]_*(?:[0-7]_*)+|0_*[bB]_*(?:[01]_*)+|(?:[0-9]_*)+)$",
    exact=_go_int,
)
_FLOAT_GO = Pattern(
    r"^(?:(?=[-+0-9])[-+]?_*(?:\.(?:[0-9]_*)+|(?:[0-9]_*)+(?:\._*(?:[0-9]_*)*)?)(?:[eE]_*[-+]?_*(?:[0-9]_*)+)?"
    r"|\.[0-9]+(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
    exact=_go_float,
)
_DIGITS = "-+0123456789."
_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(1 << 63), (1 << 63) - 1, (1 << 64) - 1
_INF = float("inf")


# Integers longer than this are refused: Python cannot print back a decimal of more than 4300 digits
# by default, and no Kubernetes field holds one.
MAX_INT_DIGITS = 1000


class Loader(_BaseLoader):
    """Safe loader with the YAML 1.2 core schema (no 1.1 booleans, sexagesimals or timestamps)."""

    yaml_implicit_resolvers = _without(_BaseLoader.yaml_implicit_resolvers, _1_1_ONLY)


class PyLoader(yaml.SafeLoader):
    """The same loader in pure Python, for text that might nest deeper than the C composer can take."""

    yaml_implicit_resolvers = _without(yaml.SafeLoader.yaml_implicit_resolvers, _1_1_ONLY)


def int_1_2(text: str):
    """The number go-yaml reads from a scalar _INT_GO matches. Raises ValueError (also for more than
    MAX_INT_DIGITS characters).

    Where Go gives up on an integer, the result follows it too: a prefixed number beyond 64 bits stays
    the string it is, a 0777-style one beyond 64 bits is read as the decimal float Go falls back to.
    `08` and `09` (not octal) are the integers 8 and 9 (Go: the floats 8.0 and 9.0, the same number)."""
    if len(text) > MAX_INT_DIGITS:
        raise ValueError(f"integer of {len(text)} digits is too large (at most {MAX_INT_DIGITS})")
    plain = text.replace("_", "")
    body = plain.lstrip("+-")
    sign = -1 if plain[0] == "-" else 1
    prefix = body[:2].lower()
    if prefix in ("0x", "0o", "0b"):
        value = sign * int(body[2:], {"x": 16, "o": 8, "b": 2}[prefix[1]])
        return _as_stored(value) if _INT64_MIN <= value <= _UINT64_MAX else text
    if len(body) > 1 and body[0] == "0" and body.isdigit() and "8" not in body and "9" not in body:
        value = sign * int(body, 8)
        if _INT64_MIN <= value <= _UINT64_MAX:
            return _as_stored(value)
        # Go's decimal float fallback; beyond float64's range strconv.ParseFloat fails and go-yaml
        # keeps the scalar a string, as for a decimal (below) and a float (float_1_2).
        as_float = float(plain)
        return text if as_float in (_INF, -_INF) else as_float
    value = sign * int(body)
    if _INT64_MIN <= value <= _INT64_MAX:
        return value
    # Beyond int64 Go reads a uint64, then a float64; either way the API server's JSON decoder
    # (apimachinery util/json: int64 first, then float64) keeps the float64, which an integer field
    # refuses beyond 2^53. Beyond float64's range go-yaml keeps the scalar a string.
    try:
        return float(value)
    except OverflowError:
        return text


def _as_stored(value: int) -> int | float:
    """A prefixed or 0777-style integer as the API server keeps it: beyond int64 (a Go uint64), the
    float64 its JSON decoder falls back to."""
    return value if value <= _INT64_MAX else float(value)


def float_1_2(text: str) -> float | str:
    """The float go-yaml reads from a scalar _FLOAT_GO matches; one beyond float64's range (`1e400`)
    stays the string it is, as in Go: strconv.ParseFloat fails on it and go-yaml's resolve (v2 and v3,
    resolve.go) then keeps the scalar a string. Only `.inf` is infinite."""
    low = text.lower()
    if low.endswith(".inf"):
        return float("-inf") if low.startswith("-") else float("inf")
    if low.endswith(".nan"):
        return float("nan")
    value = float(text.replace("_", ""))
    return text if value in (_INF, -_INF) else value


def _construct_int_1_2(loader, node):
    text = loader.construct_scalar(node)
    if len(text) > MAX_INT_DIGITS:
        raise yaml.constructor.ConstructorError(
            None, None, f"integer of {len(text)} digits is too large (at most {MAX_INT_DIGITS})", node.start_mark
        )
    return int_1_2(text)


def _construct_float_1_2(loader, node):
    return float_1_2(loader.construct_scalar(node))


def _construct_mapping(loader, node, deep=False):
    """Mappings with string keys only, each key the text it is written as: `True:`, `~:` or `0x1F:`
    stay "True", "~" and "0x1F", as kpt and kustomize (which keep a key's text) read them.

    Kubernetes objects are JSON, whose keys are strings; a Python int or bool key would also break
    validation and dumping. Keys that kubectl and Argo CD (go-yaml v2, then JSON) would read as the same
    key (`true` and `True`) are refused by check_graph before anything is constructed.
    """
    if isinstance(node, yaml.MappingNode):
        loader.flatten_mapping(node)
    mapping = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if not isinstance(key, str) or key_node.tag != STR:
            if not isinstance(key_node, yaml.ScalarNode):
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping", node.start_mark, "found a non-scalar key", key_node.start_mark
                )
            key = key_node.value
        mapping[key] = loader.construct_object(value_node, deep=deep)
    return mapping


KEY_CANON = {
    "tag:yaml.org,2002:null": lambda text: "null",
    "tag:yaml.org,2002:bool": lambda text: text.lower(),
    "tag:yaml.org,2002:int": lambda text: str(int_1_2(text)),
    "tag:yaml.org,2002:float": lambda text: text,
}


def key_canon(tag: str, text: str) -> str:
    """The JSON key kubectl and Argo CD make of a scalar key (go-yaml v2 types it, sigs.k8s.io/yaml
    prints the value): `True` and `true` are both "true", `~` and `null` "null", `0x1F` "31"."""
    canon = KEY_CANON.get(tag)
    return text if canon is None else canon(text)



for _cls in (Loader, PyLoader):
    _cls.construct_mapping = _construct_mapping
    _add(_cls.yaml_implicit_resolvers, "tag:yaml.org,2002:bool", _BOOL_1_2, "tTfF")
    _add(_cls.yaml_implicit_resolvers, "tag:yaml.org,2002:int", _INT_GO, _DIGITS)
    _add(_cls.yaml_implicit_resolvers, "tag:yaml.org,2002:float", _FLOAT_GO, _DIGITS)
    _cls.add_constructor("tag:yaml.org,2002:int", _construct_int_1_2)
    _cls.add_constructor("tag:yaml.org,2002:float", _construct_float_1_2)


class Dumper(_BaseDumper):
    """Safe dumper that quotes any string a YAML 1.1, 1.2 or sigs.k8s.io/yaml reader would retype."""

    yaml_implicit_resolvers = {ch: list(lst) for ch, lst in _BaseDumper.yaml_implicit_resolvers.items()}

    def ignore_aliases(self, data):
        # Shared sub-objects must be written out in full: kpt, kustomize and Argo CD all read plain
        # documents, and anchors in rendered manifests only confuse review.
        return True


_add(Dumper.yaml_implicit_resolvers, "tag:yaml.org,2002:bool", Pattern(r"^(?:y|Y|n|N)$", words=("y", "Y", "n", "N")), "yYnN")
_add(Dumper.yaml_implicit_resolvers, "tag:yaml.org,2002:float", _FLOAT_GO, _DIGITS)
_add(Dumper.yaml_implicit_resolvers, "tag:yaml.org,2002:int", _INT_GO, _DIGITS)
_add(Dumper.yaml_implicit_resolvers, "tag:yaml.org,2002:int", Pattern(r"^(?:0o[0-7]+|[-+]?0[0-9]+)$", "+-o0123456789", needs="0"), "-+0")
# go-yaml v2 (sigs.k8s.io/yaml, Argo CD) drops every "_" before trying a number, so "0_E0" or "1_0"
# read as numbers there; quote anything that is a number once its underscores are gone.
_add(
    Dumper.yaml_implicit_resolvers,
    "tag:yaml.org,2002:float",
    Pattern(r"^[-+]?[0-9._]*_[0-9._]*(?:[eE][-+]?[0-9_]+)?$|^[-+]?0[xXoObB][0-9a-fA-F_]+$",
            "+-_.0123456789eExXoObBabcdefABCDEF", needs="_xXoObB"),
    _DIGITS + "_",
)


def _represent_str(dumper, data):
    if "\n" in data:
        return dumper.represent_scalar(STR, data, style="|")
    return dumper.represent_scalar(STR, data)


Dumper.add_representer(str, _represent_str)

