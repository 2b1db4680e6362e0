"""Names under kustomize: the names the generated objects and their references end up with.

Generated objects refer to each other by name in places kustomize cannot rewrite: env values
(PET_MASTER_ADDR), the MPI hostfile, and fields of kinds kustomize does not know (a JobSet's
configMap volumes, the PodGroup label). So every name inside them must already be the one that
reaches the cluster.

Transformer form: kustomize runs namePrefix/nameSuffix/namespace before the function, so the
TrainJobs arrive with their final names and everything derived from them is final too. Runtimes
arrive renamed as well, while `spec.runtimeRef.name` (a field kustomize does not know) still names
them as written; kustomize records every earlier name of a renamed object in build annotations
(api/resource/resource.go, kustomize v4.5.4 and v5: `internal.config.kubernetes.io/previousNames`,
`.../prefixes`, `.../suffixes`, comma-separated, oldest first), which is how the runtime is found.

Generator form: kustomize renames the generated objects *after* the function ran. The function reads
the kustomization in its root directory, renders each TrainJob under the name and namespace it
would have had as a resource of that kustomization (so the output equals the transformer form's),
and then takes the prefix and suffix off every generated object's name again, for kustomize to put
back. A generated name that does not have that shape (a Secret named without the TrainJob's name,
a ConfigMap `<name>-mpi-hostfile` under a nameSuffix) cannot come out right: that is an error.
Renames by kustomizations that include this one (overlays) happen after the function and cannot be
seen from it.
"""

from __future__ import annotations

import os

from kpt_fn import resource as res
from kpt_fn.problems import WARNING, Problem, Rule

# The rules of kustomize's renaming (`expand-trainjobs rules`).
RULE_AMBIGUOUS_RUNTIME = "kustomize/ambiguous-runtime"
RULE_RENAMED_REFERENCES = "kustomize/renamed-references"
RULE_COMPONENT = "kustomize/component"
RULE_GENERATOR_RESOURCES = "kustomize/generator-resources"
RULES = [
    Rule(RULE_AMBIGUOUS_RUNTIME, "TrainJob", "a runtime name kustomize renamed names one runtime"),
    Rule(RULE_RENAMED_REFERENCES, "ExpandTrainJobs", "names kustomize changes in the generated objects change in the references between them too"),
    Rule(RULE_COMPONENT, "Kustomization", "the components of the kustomization can be read"),
    Rule(RULE_GENERATOR_RESOURCES, "Kustomization", "TrainJobs under a kustomization's resources reach the function (a transformer, or spec.files)"),
]

PREVIOUS_NAMES = "internal.config.kubernetes.io/previousNames"
PREFIXES = "internal.config.kubernetes.io/prefixes"
SUFFIXES = "internal.config.kubernetes.io/suffixes"

# The names kustomize looks for, in its order (api/konfig: RecognizedKustomizationFileNames).
KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")


def _csv(obj: dict, key: str) -> list:
    value = res.annotations(obj).get(key)
    return value.split(",") if isinstance(value, str) and value else []


def previous_names(obj: dict) -> list:
    return _csv(obj, PREVIOUS_NAMES)


def _same_ending(a: list, b: list) -> bool:
    """kustomize's SameEndingSubSlice: the shorter list is the tail of the longer (two empty lists
    are equal; an empty list is the tail of nothing else)."""
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    if not short:
        return not long_
    return long_[len(long_) - len(short) :] == short


def _affixes_match(runtime: dict, trainjob: dict, allow_empty: bool) -> bool:
    ok = True
    for key in (PREFIXES, SUFFIXES):
        r, t = _csv(runtime, key), _csv(trainjob, key)
        ok = ok and ((allow_empty and (not r or not t)) or _same_ending(r, t))
    return ok


def rename_explained(obj: dict, previous: str) -> bool:
    """Whether kustomize's own record explains `obj`'s name as `previous` renamed: the name is the
    previous name with some of the recorded prefixes before it and suffixes after it (kustomize adds
    both annotations with every namePrefix/nameSuffix it applies, oldest first: api/resource/
    resource.go AddNamePrefix/AddNameSuffix, v5). A previousNames annotation that nothing explains
    was written by hand (or by a patch that renamed the object): it may not take another runtime's place."""
    name = res.name(obj)
    if not isinstance(name, str) or previous not in previous_names(obj):
        return False
    prefixes, suffixes = _csv(obj, PREFIXES), _csv(obj, SUFFIXES)
    for i in range(len(prefixes) + 1):
        before = "".join(reversed(prefixes[i:]))
        for j in range(len(suffixes) + 1):
            after = "".join(suffixes[j:])
            if (before or after) and name == before + previous + after:
                return True
    return False


def select_renamed(trainjob: dict, candidates: list, ref_name: str) -> tuple:
    """(runtime, None) or (None, Problem): the runtime among `candidates` (runtimes kustomize renamed
    from `ref_name`) that the TrainJob means, chosen as kustomize's nameReference chooses a renamed
    target: the one renamed by the same prefixes and suffixes as the TrainJob."""
    found = candidates
    if len(found) > 1:
        found = [c for c in found if _affixes_match(c, trainjob, True)]
    if len(found) > 1:
        found = [c for c in found if _affixes_match(c, trainjob, False)]
    if len(found) == 1:
        return found[0], None
    names = ", ".join(f'"{res.name(c)}"' for c in candidates)
    return None, Problem(
        f'spec.runtimeRef.name "{ref_name}" names several runtimes kustomize renamed ({names}), and their '
        "name prefixes and suffixes do not tell which one this TrainJob means",
        "spec.runtimeRef.name", rule=RULE_AMBIGUOUS_RUNTIME
    )


# --- generator form ----------------------------------------------------------------------------------


class Renames:
    """What the kustomization at `path` does to the objects a generator emits: name = prefix + name +
    suffix, and the namespace (when it sets one)."""

    __slots__ = ("path", "prefix", "suffix", "namespace")

    def __init__(self, path: str, prefix: str = "", suffix: str = "", namespace: str = ""):
        self.path, self.prefix, self.suffix, self.namespace = path, prefix, suffix, namespace

    def __repr__(self):
        return f"Renames({self.path!r}, {self.prefix!r}, {self.suffix!r}, {self.namespace!r})"

    def final_name(self, name: str) -> str:
        return f"{self.prefix}{name}{self.suffix}"

    def trainjob(self, trainjob: dict) -> dict:
        """The TrainJob as it would be named had it been a resource of the kustomization."""
        md = dict(res.metadata(trainjob))
        md["name"] = self.final_name(md.get("name") or "")
        if self.namespace:
            md["namespace"] = self.namespace
        return {**trainjob, "metadata": md}

    def check(self, objects: list, trainjob: dict) -> list:
        """Errors for generated objects whose name kustomize cannot turn into the name they are
        referred to by."""
        problems = []
        for obj in objects:
            name = res.name(obj) or ""
            if self._unrenamed(name) is None:
                fields = " and ".join(f'{f} "{v}"' for f, v in (("namePrefix", self.prefix), ("nameSuffix", self.suffix)) if v)
                problems.append(
                    Problem(
                        f'{obj.get("kind")} "{name}" is generated for TrainJob "{res.name(trainjob)}" and referred '
                        f"to by that name inside the generated objects, but {self.path} sets {fields}, which "
                        f'kustomize applies to the generated objects and not to the references ("{name}" would '
                        f'become "{self.final_name(name)}"): list the function under transformers: instead of '
                        "generators: (a transformer runs after the renames and sees the final names)",
                        "metadata.name", rule=RULE_RENAMED_REFERENCES
                    )
                )
        return problems

    def restore(self, objects: list) -> list:
        """The generated objects named so that kustomize's rename gives the names they are referred to by."""
        out = []
        for obj in objects:
            md = dict(res.metadata(obj))
            md["name"] = self._unrenamed(md.get("name") or "")
            out.append({**obj, "metadata": md})
        return out

    def _unrenamed(self, name: str) -> str | None:
        p, s = self.prefix, self.suffix
        if len(name) <= len(p) + len(s) or not name.startswith(p) or not name.endswith(s):
            return None
        return name[len(p) : len(name) - len(s)]


def _load_kustomization(directory: str, load) -> tuple:
    """(path, dict) of the kustomization file in `directory`, or (None, None)."""
    for fname in KUSTOMIZATION_FILES:
        path = os.path.join(directory, fname)
        if os.path.isfile(path):
            docs, problems = load(path)
            if problems:
                return path, problems
            doc = docs[0] if len(docs) == 1 and isinstance(docs[0], dict) else {}
            return path, doc
    return None, None


def generator_renames(root: str, load) -> tuple:
    """(Renames or None, problems) for a generator listed in the kustomization at `root`.

    `load(path) -> (docs, problems)`. Components listed by the kustomization rename the generated
    objects too (each applies its transformers to everything accumulated so far, innermost name
    first), so their namePrefix/nameSuffix/namespace are read as well.
    """
    path, doc = _load_kustomization(root, load)
    if path is None:
        return None, [
            Problem(
                f"runs as a kustomize generator but finds no kustomization file in its working directory {root} "
                "(as in a container): a namePrefix, nameSuffix or namespace set there renames the generated objects "
                "but not the names they use for each other; list the function under transformers: to be safe",
                severity=WARNING, rule=RULE_RENAMED_REFERENCES
            )
        ]
    if isinstance(doc, list):  # problems reading it
        return None, doc
    label = os.path.relpath(path)
    prefix, suffix, namespace, problems = "", "", "", []
    layers = []
    for comp in doc.get("components") or ():
        cpath, cdoc = (None, None)
        if isinstance(comp, str):
            cpath, cdoc = _load_kustomization(os.path.join(root, comp), load)
        if not isinstance(cdoc, dict):
            problems.append(
                Problem(f"{label}: cannot read component {comp!r}; a name prefix, suffix or namespace it sets is not followed", severity=WARNING, rule=RULE_COMPONENT)
            )
            continue
        layers.append(cdoc)
    layers.append(doc)
    for layer in layers:
        prefix = _string(layer.get("namePrefix")) + prefix
        suffix = suffix + _string(layer.get("nameSuffix"))
        namespace = _string(layer.get("namespace")) or namespace
    if not (prefix or suffix or namespace):
        return None, problems
    return Renames(label, prefix, suffix, namespace), problems


def trainjobs_in_resources(root: str, load, rendered: set) -> list:
    """Errors for TrainJobs in the files that the kustomization at `root` lists under `resources:`,
    unless the generator renders them itself (`rendered`: their (namespace, name), from its config).

    kustomize hands a generator none of the kustomization's resources, so such a TrainJob is never
    expanded: marked local-config it vanishes from the output, else it goes out as it is -- either way
    the build succeeded. Only local files inside `root` are looked at (a directory is a kustomization
    of its own, a URL is remote)."""
    path, doc = _load_kustomization(root, load)
    if not isinstance(doc, dict) or not isinstance(doc.get("resources"), list):
        return []
    label = os.path.relpath(path)
    top = os.path.realpath(root)
    problems = []
    for entry in doc["resources"]:
        if not isinstance(entry, str) or "://" in entry:
            continue
        target = os.path.realpath(os.path.join(root, entry))
        if not os.path.isfile(target) or os.path.commonpath([top, target]) != top:
            continue
        docs, load_problems = load(target)
        for d in [] if load_problems else docs:
            if isinstance(d, dict) and res.is_trainjob(d) and (res.namespace(d) or "", res.name(d)) not in rendered:
                problems.append(Problem(
                    f"{res.display(d)} in {entry} (listed under resources: in {label}) is not expanded: a kustomize "
                    "generator never sees the kustomization's resources; list the function under transformers: "
                    "instead of generators:, or name the file in the function's spec.files instead of resources:",
                    "spec.files", rule=RULE_GENERATOR_RESOURCES
                ))
    return problems


def _string(value) -> str:
    return value if isinstance(value, str) else ""


def is_kustomize_generator_call(items: list, function_config) -> bool:
    """A KRM function run as a kustomize generator gets its own config as the only item (kustomize
    v4.5.4 and v5); kpt's configPath passes the config from a package file, with its path."""
    if len(items) != 1 or not isinstance(items[0], dict) or not isinstance(function_config, dict):
        return False
    item = items[0]
    same = all(item.get(k) == function_config.get(k) for k in ("apiVersion", "kind")) and res.name(item) == res.name(function_config)
    return same and res.file_path(item) is None
