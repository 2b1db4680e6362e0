"""`scripts/generate.py omitempty`: omitempty.json of a release bundle, the fields the controller's
typed round-trip drops when zero.

Trainer reads runtimes and TrainJobs into Go structs, marshals every runtimePatch before the
strategic merge and converts the merged JobSet spec to an unstructured map (encoding/json and
apimachinery's runtime.DefaultUnstructuredConverter). Both leave out a field whose json tag says
`omitempty` when its value is the zero value of its Go type: "" for strings, 0 for numbers, false for
bools, an empty list or map. Pointer fields (`*int32`, `*bool`, `*string`) are only left out when nil,
so an explicit 0/false/"" survives; structs are never "empty" (and types with their own JSON
encoding, such as resource.Quantity or intstr.IntOrString, are opaque here).

This target reads the Go type declarations from local copies of the upstream repositories (git
mirrors under --mirrors, at the tags the release names in scripts/generators/releases.py) and writes, for every struct type reachable from the roots, only what the
engine needs:

    {"zero": "string"|"number"|"bool"|"list"|"map"}   an omitempty non-pointer field
    {"type": T}                                          a field whose value (or list items) is struct T
                                                         with such fields inside
    {"values": T}                                        a map field whose values are such structs

Type names are the OpenAPI names Trainer's swagger.json uses, so tests can check the table against
that document (tests/unit/engine/test_omitempty.py). The bundle's manifest.json records every source
file with its repository, tag, git blob id and sha256; the output is deterministic (re-running
reproduces it byte for byte).
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess

PER_RELEASE = True
NEEDS_MIRRORS = True

# Go import path -> (mirror directory name, tag (the release's, in releases.py, wins), files holding the package's type declarations,
#                    prefix of the OpenAPI names of its types)
PACKAGES = {
    "github.com/kubeflow/trainer/v2/pkg/apis/trainer/v1alpha1": (
        "kubeflow+trainer", "v2.3.0",
        ["pkg/apis/trainer/v1alpha1/trainjob_types.go", "pkg/apis/trainer/v1alpha1/trainingruntime_types.go"],
        "trainer.v1alpha1."),
    "sigs.k8s.io/jobset/api/jobset/v1alpha2": (
        "kubernetes-sigs+jobset", "v0.12.0", ["api/jobset/v1alpha2/jobset_types.go"], "jobset.v1alpha2."),
    "k8s.io/api/core/v1": ("kubernetes+api", "v0.36.2", ["core/v1/types.go"], "io.k8s.api.core.v1."),
    "k8s.io/api/batch/v1": ("kubernetes+api", "v0.36.2", ["batch/v1/types.go"], "io.k8s.api.batch.v1."),
    "k8s.io/apimachinery/pkg/apis/meta/v1": (
        "kubernetes+apimachinery", "v0.36.2",
        ["pkg/apis/meta/v1/types.go", "pkg/apis/meta/v1/time.go", "pkg/apis/meta/v1/micro_time.go",
         "pkg/apis/meta/v1/duration.go", "pkg/apis/meta/v1/fieldsv1_string.go", "pkg/apis/meta/v1/helpers.go"],
        "io.k8s.apimachinery.pkg.apis.meta.v1."),
    "k8s.io/apimachinery/pkg/api/resource": (
        "kubernetes+apimachinery", "v0.36.2", ["pkg/api/resource/quantity.go"],
        "io.k8s.apimachinery.pkg.api.resource."),
    "k8s.io/apimachinery/pkg/util/intstr": (
        "kubernetes+apimachinery", "v0.36.2", ["pkg/util/intstr/intstr.go"], "io.k8s.apimachinery.pkg.util.intstr."),
    "k8s.io/apimachinery/pkg/types": (
        "kubernetes+apimachinery", "v0.36.2", ["pkg/types/uid.go", "pkg/types/nodename.go"],
        "io.k8s.apimachinery.pkg.types."),
}

# Short names used by kpt_fn.engine.omitempty.strip(root=...): the runtime template's JobSet spec
# (also what the merged spec is decoded into) and a runtimePatch's template spec.
ROOTS = {
    "JobSetSpec": ("sigs.k8s.io/jobset/api/jobset/v1alpha2", "JobSetSpec"),
    "JobSetSpecPatch": ("github.com/kubeflow/trainer/v2/pkg/apis/trainer/v1alpha1", "JobSetSpecPatch"),
}

SCALARS = {"string": "string", "bool": "bool"}
SCALARS.update({t: "number" for t in (
    "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
    "byte", "rune")})


class GoPackage:
    def __init__(self, path: str, texts: list[str]):
        self.path = path
        self.decls: dict[str, str] = {}  # type name -> type expression ("struct{...}" body for structs)
        self.structs: dict[str, list] = {}  # struct name -> [(field name or None, type expr, json tag)]
        self.imports: dict[str, str] = {}
        self.marshalers: set[str] = set()
        for text in texts:
            self._parse(_strip_comments(text))

    def _parse(self, text: str) -> None:
        for m in re.finditer(r'^import\s*\(([^)]*)\)', text, re.M):
            for line in m.group(1).splitlines():
                im = re.match(r'\s*(\w+)?\s*"([^"]+)"', line)
                if im:
                    self.imports[im.group(1) or im.group(2).rsplit("/", 1)[-1]] = im.group(2)
        for m in re.finditer(r'^import\s+(\w+)?\s*"([^"]+)"', text, re.M):
            self.imports[m.group(1) or m.group(2).rsplit("/", 1)[-1]] = m.group(2)
        for m in re.finditer(r'^func\s*\(\s*\w*\s*\*?(\w+)\s*\)\s*MarshalJSON\s*\(', text, re.M):
            self.marshalers.add(m.group(1))
        for m in re.finditer(r'^type\s+(\w+)\s+struct\s*\{', text, re.M):
            body = _braced(text, m.end() - 1)
            self.structs[m.group(1)] = _fields(body)
        for m in re.finditer(r'^type\s+(\w+)\s+(?!struct\b)(\S[^\n]*)$', text, re.M):
            self.decls[m.group(1)] = m.group(2).strip()


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    # Line comments, but not inside struct tags (backquoted) or strings.
    out = []
    for line in text.splitlines():
        in_tag = in_str = False
        for i, ch in enumerate(line):
            if ch == "`" and not in_str:
                in_tag = not in_tag
            elif ch == '"' and not in_tag:
                in_str = not in_str
            elif ch == "/" and not in_tag and not in_str and line[i:i + 2] == "//":
                line = line[:i]
                break
        out.append(line)
    return "\n".join(out)


def _braced(text: str, start: int) -> str:
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[start + 1:i]
    raise ValueError("unbalanced braces")


def _fields(body: str) -> list:
    fields = []
    for line in body.splitlines():
        line = line.strip()
        if not line:
            continue
        tag_m = re.search(r"`([^`]*)`", line)
        tag = ""
        if tag_m:
            jm = re.search(r'json:"([^"]*)"', tag_m.group(1))
            tag = jm.group(1) if jm else ""
            line = line[:tag_m.start()].strip()
        parts = line.split(None, 1)
        if len(parts) == 1:
            fields.append((None, parts[0], tag))  # embedded
        else:
            if re.search(r"\bstruct\s*\{", parts[1]):
                raise ValueError(f"anonymous struct fields are not supported: {line}")
            fields.append((parts[0], parts[1].strip(), tag))
    return fields


class Resolver:
    def __init__(self, packages: dict[str, GoPackage]):
        self.packages = packages

    def openapi_name(self, pkg: str, name: str) -> str:
        return PACKAGES[pkg][3] + name

    def named(self, pkg: str, expr: str) -> tuple[str, str]:
        if "." in expr:
            alias, name = expr.split(".", 1)
            return self.packages[pkg].imports[alias], name
        return pkg, expr

    def kind(self, pkg: str, expr: str) -> tuple:
        """("pointer", inner) | ("list", item) | ("map", value) | ("scalar", zero) | ("struct", pkg, name)
        | ("opaque",): what encoding a value of this type gets, resolving named types."""
        expr = expr.strip()
        if expr.startswith("*"):
            return ("pointer", (pkg, expr[1:]))
        if expr.startswith("[]"):
            return ("list", (pkg, expr[2:]))
        if expr.startswith("map["):
            depth, i = 0, 3
            for i in range(3, len(expr)):
                depth += {"[": 1, "]": -1}.get(expr[i], 0)
                if depth == 0:
                    break
            return ("map", (pkg, expr[i + 1:]))
        if expr in SCALARS:
            return ("scalar", SCALARS[expr])
        if expr in ("any", "interface{}"):
            return ("opaque",)
        tpkg, name = self.named(pkg, expr)
        package = self.packages.get(tpkg)
        if package is None:
            raise KeyError(f"package {tpkg} (type {expr}) is not among the sources")
        if name in package.structs:
            if name in package.marshalers:
                return ("opaque",)
            return ("struct", tpkg, name)
        if name in package.decls:
            return self.kind(tpkg, package.decls[name])
        raise KeyError(f"type {name} not found in {tpkg}")

    def struct_fields(self, pkg: str, name: str) -> list:
        """(json name, type expr, options, declaring package) for each encoded field, inline fields expanded."""
        out = []
        for fname, expr, tag in self.packages[pkg].structs[name]:
            jname, _, opts = tag.partition(",")
            options = set(opts.split(",")) if opts else set()
            if jname == "-":
                continue
            if fname is None or (jname == "" and "inline" in options):
                inner = self.kind(pkg, expr.lstrip("*"))
                if inner[0] != "struct" or (fname is not None and jname):
                    raise ValueError(f"unexpected embedded field {expr} in {name}")
                if fname is None and jname:
                    out.append((jname, expr, options, pkg))
                else:
                    out.extend(self.struct_fields(inner[1], inner[2]))
                continue
            out.append((jname or fname, expr, options, pkg))
        return out


def table(packages: dict[str, GoPackage]) -> dict:
    res = Resolver(packages)
    types: dict[str, dict] = {}
    pending = [pkg_name for pkg_name in ROOTS.values()]
    seen = set(pending)
    while pending:
        pkg, name = pending.pop()
        fields: dict[str, dict] = {}
        for jname, expr, options, fpkg in res.struct_fields(pkg, name):
            kind = res.kind(fpkg, expr)
            meta: dict = {}
            if "omitzero" in options and kind[0] == "struct":
                # Only opaque types (metav1.Time) carry omitzero below the roots today; a zero struct
                # would need its own entry kind.
                raise ValueError(f"omitzero on struct field {name}.{jname} is not supported")
            if "omitzero" in options and kind[0] == "scalar":
                meta["zero"] = kind[1]  # a scalar's zero is its omitzero zero as well
            if "omitempty" in options:
                if kind[0] == "scalar":
                    meta["zero"] = kind[1]
                elif kind[0] in ("list", "map"):
                    meta["zero"] = kind[0]
            # Descend to the struct the value holds (through one pointer, list or map level).
            inner = kind
            if inner[0] in ("pointer", "list", "map"):
                inner = res.kind(*inner[1])
                if inner[0] == "pointer":
                    inner = res.kind(*inner[1])
            if inner[0] == "struct":
                child = (inner[1], inner[2])
                meta["values" if kind[0] == "map" else "type"] = res.openapi_name(*child)
                if child not in seen:
                    seen.add(child)
                    pending.append(child)
            if meta:
                fields[jname] = meta
        types[res.openapi_name(pkg, name)] = fields
    _prune(types, {res.openapi_name(*r) for r in ROOTS.values()})
    roots = {short: res.openapi_name(*r) for short, r in ROOTS.items()}
    return {"roots": dict(sorted(roots.items())), "types": dict(sorted(types.items()))}


def _prune(types: dict, roots: set) -> None:
    """Leave out types below which nothing is ever dropped, and the references to them."""
    while True:
        trivial = {n for n, f in types.items() if n not in roots and not f}
        if not trivial:
            return
        for fields in types.values():
            for field in list(fields):
                for slot in ("type", "values"):
                    if fields[field].get(slot) in trivial:
                        del fields[field][slot]
                if not fields[field]:
                    del fields[field]
        for name in trivial:
            del types[name]


def load_sources(ctx) -> dict:
    packages = {}
    for pkg, (mirror, _tag, files, _prefix) in sorted(PACKAGES.items()):
        tag = ctx.release.go_sources[mirror]
        git = ctx.mirrors / mirror / "repo"
        texts = []
        for path in files:
            raw = subprocess.run(["git", "--git-dir", str(git), "show", f"{tag}:{path}"], check=True,
                                 capture_output=True).stdout
            blob = subprocess.run(["git", "--git-dir", str(git), "rev-parse", f"{tag}:{path}"], check=True,
                                  capture_output=True, text=True).stdout.strip()
            ctx.record({"repository": mirror.replace("+", "/"), "tag": tag, "path": path, "blob": blob,
                        "sha256": hashlib.sha256(raw).hexdigest()})
            texts.append(raw.decode())
        packages[pkg] = GoPackage(pkg, texts)
    return packages


def render(table: dict, marker: str) -> str:
    dump = lambda v: json.dumps(v, sort_keys=True, separators=(",", ":"))  # noqa: E731
    lines = ["{", f'"generated":{dump(marker)},', f'"roots":{dump(table["roots"])},', '"types":{']
    items = list(table["types"].items())
    for i, (name, fields) in enumerate(items):
        lines.append(f"{dump(name)}:{dump(fields)}{',' if i < len(items) - 1 else ''}")
    lines += ["}", "}"]
    return "\n".join(lines) + "\n"


def build(ctx) -> dict[str, str]:
    return {ctx.output("omitempty.json"): render(table(load_sources(ctx)), ctx.marker)}
