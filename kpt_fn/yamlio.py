"""YAML that means the same thing to every reader in the pipeline.

kpt and kustomize speak YAML 1.2, PyYAML speaks 1.1 and Argo CD reads with a 1.1 parser that also takes
y/n as booleans. Reading with the 1.2 core schema keeps `on`, `yes`, `2024-01-01` and `0755`-style
scalars that kpt sends unquoted as the strings they are; dumping quotes every string that *any* of
those readers would take for something else (krm-clients.md §5.4).

Loading is also where hostile input is stopped: size, nesting depth, alias expansion and duplicate keys
are checked on the composed node graph before any Python object is built.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_BaseDumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

_STR = "tag:yaml.org,2002:str"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_1_1_ONLY = {
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:timestamp",
    "tag:yaml.org,2002:value",
}


def _without(resolvers: dict, tags: set) -> dict:
    return {ch: [(tag, rx) for tag, rx in lst if tag not in tags] for ch, lst in resolvers.items()}


def _add(resolvers: dict, tag: str, regexp: re.Pattern, first: str) -> None:
    for ch in first:
        resolvers.setdefault(ch, []).append((tag, regexp))


_BOOL_1_2 = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_INT_1_2 = re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
_FLOAT_1_2 = re.compile(
    r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
_DIGITS = "-+0123456789."


class Loader(_BaseLoader):
    """Safe loader with the YAML 1.2 core schema (no 1.1 booleans, sexagesimals or timestamps)."""

    yaml_implicit_resolvers = _without(_BaseLoader.yaml_implicit_resolvers, _1_1_ONLY)


_add(Loader.yaml_implicit_resolvers, "tag:yaml.org,2002:bool", _BOOL_1_2, "tTfF")
_add(Loader.yaml_implicit_resolvers, "tag:yaml.org,2002:int", _INT_1_2, _DIGITS)
_add(Loader.yaml_implicit_resolvers, "tag:yaml.org,2002:float", _FLOAT_1_2, _DIGITS + "")


def _construct_int_1_2(loader, node):
    text = loader.construct_scalar(node)
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text)


def _construct_float_1_2(loader, node):
    text = loader.construct_scalar(node).lower()
    if text.endswith(".inf"):
        return float("-inf") if text.startswith("-") else float("inf")
    if text.endswith(".nan"):
        return float("nan")
    return float(text)


Loader.add_constructor("tag:yaml.org,2002:int", _construct_int_1_2)
Loader.add_constructor("tag:yaml.org,2002:float", _construct_float_1_2)


class Dumper(_BaseDumper):
    """Safe dumper that quotes any string a YAML 1.1, 1.2 or sigs.k8s.io/yaml reader would retype."""

    yaml_implicit_resolvers = {ch: list(lst) for ch, lst in _BaseDumper.yaml_implicit_resolvers.items()}

    def ignore_aliases(self, data):
        # Shared sub-objects must be written out in full: kpt, kustomize and Argo CD all read plain
        # documents, and anchors in rendered manifests only confuse review.
        return True


_add(Dumper.yaml_implicit_resolvers, "tag:yaml.org,2002:bool", re.compile(r"^(?:y|Y|n|N)$"), "yYnN")
_add(Dumper.yaml_implicit_resolvers, "tag:yaml.org,2002:float", _FLOAT_1_2, _DIGITS)
_add(Dumper.yaml_implicit_resolvers, "tag:yaml.org,2002:int", re.compile(r"^(?:0o[0-7]+|[-+]?0[0-9]+)$"), "-+0")


def _represent_str(dumper, data):
    if "\n" in data:
        return dumper.represent_scalar(_STR, data, style="|")
    return dumper.represent_scalar(_STR, data)


Dumper.add_representer(str, _represent_str)


class YAMLInputError(ValueError):
    """Input that is not acceptable YAML; `line` is 1-based when known."""

    def __init__(self, message: str, line: int | None = None):
        super().__init__(message)
        self.line = line

    def __str__(self) -> str:
        msg = self.args[0]
        return f"line {self.line}: {msg}" if self.line else msg


@dataclass(frozen=True)
class Limits:
    max_bytes: int = 64 * 1024 * 1024
    max_depth: int = 100
    # Nodes the document would have once every alias is expanded: stops "billion laughs" documents
    # that are tiny on disk but explode in anything that copies or re-serialises them.
    max_nodes: int = 5_000_000
    max_aliases: int = 10_000


DEFAULT_LIMITS = Limits()


def _check_graph(root, limits: Limits) -> None:
    """Depth, expanded size, alias count and duplicate keys of one composed document, iteratively."""
    expanded: dict[int, int] = {}
    seen_ids: set[int] = set()
    aliases = 0
    # Post-order walk with an explicit stack so hostile nesting cannot exhaust the Python stack.
    stack = [(root, 1, False)]
    while stack:
        node, depth, done = stack.pop()
        nid = id(node)
        if done:
            if isinstance(node, yaml.MappingNode):
                size = 1 + sum(expanded[id(k)] + expanded[id(v)] for k, v in node.value)
            else:
                size = 1 + sum(expanded[id(v)] for v in node.value)
            if size > limits.max_nodes:
                raise YAMLInputError(
                    f"document expands to more than {limits.max_nodes} nodes (alias expansion limit)",
                    node.start_mark.line + 1,
                )
            expanded[nid] = size
            continue
        if nid in seen_ids:
            aliases += 1
            if aliases > limits.max_aliases:
                raise YAMLInputError(f"more than {limits.max_aliases} aliases", node.start_mark.line + 1)
            if nid not in expanded:
                # Seen but not finished: a node that contains itself.
                raise YAMLInputError("recursive alias", node.start_mark.line + 1)
            continue
        seen_ids.add(nid)
        if depth > limits.max_depth:
            raise YAMLInputError(f"nesting deeper than {limits.max_depth} levels", node.start_mark.line + 1)
        if isinstance(node, yaml.ScalarNode):
            expanded[nid] = 1
            continue
        stack.append((node, depth, True))
        if isinstance(node, yaml.MappingNode):
            keys = set()
            for k, v in node.value:
                if isinstance(k, yaml.ScalarNode) and k.tag != "tag:yaml.org,2002:merge":
                    if k.value in keys:
                        raise YAMLInputError(f"duplicate key {k.value!r}", k.start_mark.line + 1)
                    keys.add(k.value)
                elif not isinstance(k, yaml.ScalarNode):
                    raise YAMLInputError("mapping keys must be scalars", k.start_mark.line + 1)
                stack.append((k, depth + 1, False))
                stack.append((v, depth + 1, False))
        else:
            for v in node.value:
                stack.append((v, depth + 1, False))


def load_all(text: str | bytes, limits: Limits = DEFAULT_LIMITS) -> list:
    """Every document of a YAML stream, checked against `limits`. Raises YAMLInputError."""
    if isinstance(text, bytes):
        if len(text) > limits.max_bytes:
            raise YAMLInputError(f"input is {len(text)} bytes, more than the limit of {limits.max_bytes}")
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as e:
            raise YAMLInputError(f"input is not UTF-8 (byte {e.start})") from None
    elif len(text) > limits.max_bytes:
        raise YAMLInputError(f"input is {len(text)} characters, more than the limit of {limits.max_bytes}")
    loader = Loader(text)
    docs = []
    try:
        while loader.check_node():
            node = loader.get_node()
            _check_graph(node, limits)
            docs.append(loader.construct_document(node))
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        msg = " ".join(x for x in (e.context, e.problem) if x) or str(e)
        raise YAMLInputError(msg, mark.line + 1 if mark else None) from None
    except yaml.YAMLError as e:
        raise YAMLInputError(str(e)) from None
    except RecursionError:
        raise YAMLInputError(f"nesting deeper than the parser can follow (limit {limits.max_depth})") from None
    finally:
        loader.dispose()
    return docs


def load(text: str | bytes, limits: Limits = DEFAULT_LIMITS):
    docs = load_all(text, limits)
    if len(docs) != 1:
        raise YAMLInputError(f"expected one YAML document, found {len(docs)}")
    return docs[0]


def dump(data) -> str:
    return yaml.dump(
        data, Dumper=Dumper, sort_keys=False, default_flow_style=False, width=1 << 30, allow_unicode=True
    )


def dump_all(docs) -> str:
    return yaml.dump_all(
        docs,
        Dumper=Dumper,
        sort_keys=False,
        default_flow_style=False,
        width=1 << 30,
        allow_unicode=True,
        explicit_start=True,
    )
