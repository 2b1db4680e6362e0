"""Finding the runtime a TrainJob refers to, as the controller's runtime registry would.

Sources are searched in order: the ResourceList items, the configured runtime directories, the
built-in catalog of runtimes shipped with the selected Trainer release (its bundle's runtimes.json). A namespaced TrainingRuntime only serves
TrainJobs of its own namespace; a ClusterTrainingRuntime is matched by name.
"""

from __future__ import annotations

from kpt_fn import kustomize_names, upstream
from kpt_fn import resource as res
from kpt_fn.registry import registered_kind, registry_key, runtime_ref
from kpt_fn.problems import ERROR, WARNING, Problem, Rule

# The rules of runtime resolution (`expand-trainjobs rules`); a runtime not found is the Trainer
# webhook's error (_UPSTREAM_NOT_FOUND below), an unsupported runtime kind the engine's rule.
RULE_DUPLICATE_RUNTIME = "input/duplicate-runtime"
RULE_RENAMED_RUNTIME = "kustomize/renamed-runtime"
RULE_NOT_FOUND = "trainer-webhook/runtime-not-found"
RULE_UNSUPPORTED_RUNTIME = "trainer-webhook/unsupported-runtime"
RULE_SHADOWED = "input/shadowed-runtime"
RULES = [
    Rule(RULE_DUPLICATE_RUNTIME, "TrainingRuntime, ClusterTrainingRuntime", "a runtime is defined once per source"),
    Rule(RULE_RENAMED_RUNTIME, "TrainJob", "a TrainJob's runtimeRef names the runtime as kustomize renamed it"),
    Rule(RULE_NOT_FOUND, "TrainJob", "the runtime a TrainJob refers to exists (among the items, runtimeDirs or the catalogue)"),
    # RULE_UNSUPPORTED_RUNTIME is declared with the engine's check of the same (engine.RULES)
    Rule(RULE_SHADOWED, "TrainingRuntime, ClusterTrainingRuntime", "a runtime of the items or runtimeDirs that shadows another is named"),
]

ITEMS = "the ResourceList items"
CATALOG = "the built-in catalog"


# Plain classes: creating dataclasses cost a noticeable part of start-up.
class Source:
    __slots__ = ("label", "_runtimes", "_load", "renamed")

    def __init__(self, label: str, runtimes: dict | None = None, load=None):
        self.label = label  # how results name this source
        # (kind, namespace, name) -> runtime dict; `load()` makes it on first use (the built-in
        # catalog: most runs find every runtime before they get to it, and need not read it)
        self._runtimes = {} if runtimes is None and load is None else runtimes
        self._load = load
        # (kind, namespace, previous name) -> [runtimes kustomize renamed from that name]
        self.renamed: dict = {}

    @property
    def runtimes(self) -> dict:
        if self._runtimes is None:
            self._runtimes = self._load()
        return self._runtimes


class RuntimeIndex:
    __slots__ = ("sources", "problems", "bundle")

    def __init__(self, sources: list, problems: list, bundle: upstream.Bundle):
        self.sources = sources  # list[Source], in search order
        self.problems = problems  # conflicts found while indexing
        self.bundle = bundle  # the release whose CRD defaults a runtimeRef (and whose catalogue it searched)

    def describe(self) -> str:
        return ", ".join(s.label for s in self.sources) or "nothing"


def _key(obj: dict, default_namespace: str) -> tuple:
    kind = obj.get("kind")
    ns = (res.namespace(obj) or default_namespace) if kind == res.TRAINING_RUNTIME else ""
    return (kind, ns, res.name(obj))


def _add(source: Source, obj: dict, default_namespace: str, problems: list) -> None:
    key = _key(obj, default_namespace)
    for previous in dict.fromkeys(kustomize_names.previous_names(obj)):
        if previous != key[2]:
            source.renamed.setdefault((key[0], key[1], previous), []).append(obj)
    first = source.runtimes.get(key)
    if first is None:
        source.runtimes[key] = obj
        return
    where = res.file_path(first)
    problems.append(
        Problem(
            f"{res.display(obj)} is defined more than once in {source.label}"
            + (f" (first in {where})" if where else "")
            + "; the first definition is used",
            "metadata.name",
            subject=obj, rule=RULE_DUPLICATE_RUNTIME
        )
    )


def build_index(items: list, dir_runtimes: list, default_namespace: str, use_catalog: bool,
                bundle: upstream.Bundle) -> RuntimeIndex:
    """Index runtimes by source. `dir_runtimes` is [(dir label, [runtime dicts])] in search order."""
    problems: list = []
    sources = [Source(ITEMS)]
    for obj in items:
        if res.is_runtime(obj):
            _add(sources[0], obj, default_namespace, problems)
    for label, objs in dir_runtimes:
        src = Source(f"runtime directory {label}")
        for obj in objs:
            _add(src, obj, default_namespace, problems)
        sources.append(src)
    if use_catalog:
        sources.append(Source(CATALOG, load=lambda: {_key(o, ""): o for o in bundle.catalog()}))
    # One runtime identity defined twice with different content -- in the package and in a runtime
    # directory, or in two runtime directories -- is an error: the first definition would silently
    # replace the platform's (its image, service account, policies). The built-in catalog is
    # Trainer's defaults, which a package or a directory may replace.
    for i, src in enumerate(sources[:-1]):
        for key, obj in src.runtimes.items():
            for later in sources[i + 1 :]:
                if later.label == CATALOG:
                    continue
                other = later.runtimes.get(key)
                if other is not None and other.get("spec") != obj.get("spec"):
                    problems.append(Problem(_shadow_message(obj, src.label, other, later.label), "spec", subject=obj, rule=RULE_SHADOWED))
    return RuntimeIndex(sources, problems, bundle)


def _where(obj: dict, label: str) -> str:
    path = res.file_path(obj)
    return f"{label} ({path})" if path else label


def _shadow_message(obj: dict, label: str, other: dict, other_label: str) -> str:
    return (f"{res.display(obj)} from {_where(obj, label)} shadows a different definition of the same runtime in "
            f"{_where(other, other_label)}: the first would be used in its place; remove one, or give one another name")


def _shadowed(index, found_in: Source, key: tuple):
    """(runtime, source label) of a runtime of exactly `key` in a source after `found_in` (the
    catalog aside), or None."""
    after = False
    for src in index.sources:
        if src is found_in:
            after = True
        elif after and src.label != CATALOG and key in src.runtimes:
            return src.runtimes[key], src.label
    return None


def _renamed_problems(runtime: dict, src: Source, index, key: tuple, ref_name: str) -> list:
    """A runtime found by a previous name must not take the place of a different runtime that has
    that very name in a later source (a runtime directory): an error when no kustomize rename
    explains the previous name (a hand-written previousNames annotation), else a warning naming both."""
    shadowed = _shadowed(index, src, key)
    if shadowed is None or shadowed[0].get("spec") == runtime.get("spec"):
        return []
    other, label = shadowed
    if kustomize_names.rename_explained(runtime, ref_name):
        return [Problem(
            f'spec.runtimeRef.name "{ref_name}" is served by {res.display(runtime)} from {_where(runtime, src.label)}, '
            f'which kustomize renamed from "{ref_name}"; it shadows the different {res.display(other)} of '
            f"{_where(other, label)}", "spec.runtimeRef.name", severity=WARNING, rule=RULE_RENAMED_RUNTIME)]
    return [Problem(
        f'spec.runtimeRef.name "{ref_name}" would be served by {res.display(runtime)} from {_where(runtime, src.label)} '
        f"through its {kustomize_names.PREVIOUS_NAMES} annotation, which no kustomize namePrefix or nameSuffix "
        f"explains, in place of {res.display(other)} of {_where(other, label)}: refusing to let a hand-written "
        "annotation replace a runtime", "spec.runtimeRef.name", severity=ERROR, rule=RULE_RENAMED_RUNTIME)]


def resolve(trainjob: dict, index: RuntimeIndex, default_namespace: str) -> tuple[dict | None, str, list]:
    """(runtime, source label, problems) for one TrainJob."""
    key = registry_key(trainjob, index.bundle)
    kind = registered_kind(key)
    if kind is None:
        return None, "", [Problem(f"unsupported runtime: {key}{_key_hint(trainjob)}", "spec.runtimeRef", rule=RULE_UNSUPPORTED_RUNTIME)]
    ref_name = (((trainjob.get("spec") or {}).get("runtimeRef")) or {}).get("name")
    ns = (res.namespace(trainjob) or default_namespace) if kind == res.TRAINING_RUNTIME else ""
    for src in index.sources:
        runtime = src.runtimes.get((kind, ns, ref_name))
        if runtime is not None:
            return runtime, src.label, []
        renamed = src.renamed.get((kind, ns, ref_name))
        if renamed:
            # A kustomize transformer sees the runtimes after namePrefix/nameSuffix; the TrainJob's
            # runtimeRef (a field kustomize does not know) still names the runtime as written.
            runtime, problem = kustomize_names.select_renamed(trainjob, renamed, ref_name)
            if problem is not None:
                return None, src.label, [problem]
            problems = _renamed_problems(runtime, src, index, (kind, ns, ref_name), ref_name)
            if any(p.severity == ERROR for p in problems):
                return None, src.label, problems
            return runtime, src.label, problems
    tj_ns = res.namespace(trainjob) or default_namespace
    return None, "", [Problem(_not_found(kind, ref_name, ns, index, tj_ns), _UPSTREAM_NOT_FOUND[kind][1], rule=RULE_NOT_FOUND)]


# What a user applying the TrainJob is told when its runtime is missing: the TrainJob admission
# webhook's error (Trainer v2.3.0 pkg/runtime/core/trainingruntime.go and clustertrainingruntime.go
# ValidateObjects: the field path, written `spec.RuntimeRef` for a ClusterTrainingRuntime, and the
# detail). It wraps the NotFound error of the webhook's cached client, which names the Kind, not the
# resource (controller-runtime's cache reader): `TrainingRuntime.trainer.kubeflow.org "x" not found`.
# The field error's value, the RuntimeRef struct printed with %#v (pointer addresses included), is
# left out.
_UPSTREAM_NOT_FOUND = {
    res.TRAINING_RUNTIME: ("specified trainingRuntime must be created before the TrainJob is created", "spec.runtimeRef"),
    res.CLUSTER_TRAINING_RUNTIME: ("specified clusterTrainingRuntime must be created before the TrainJob is created",
                                   "spec.RuntimeRef"),
}


def _not_found(kind: str, name, ns: str, index: RuntimeIndex, trainjob_ns: str) -> str:
    text = _UPSTREAM_NOT_FOUND[kind][0]
    where = f' in namespace "{ns}"' if kind == res.TRAINING_RUNTIME else ""
    message = f'{kind}.{res.TRAINER_GROUP} "{name}" not found: {text}; no {kind} "{name}"{where} in {index.describe()}'
    known = [(k, n, nm, obj) for src in index.sources for (k, n, nm), obj in src.runtimes.items()]
    hints = []
    # The right name in the wrong namespace, or under the other kind.
    elsewhere = [(n, obj) for k, n, nm, obj in known if k == kind and nm == name and n != ns]
    if elsewhere:
        places = ", ".join(f'"{n}"' + (f" ({res.file_path(o)})" if res.file_path(o) else "") for n, o in elsewhere)
        hints.append(f"a {kind} of that name exists in namespace {places}, but a TrainingRuntime is only used by "
                     f"TrainJobs in its own namespace")
    other = res.CLUSTER_TRAINING_RUNTIME if kind == res.TRAINING_RUNTIME else res.TRAINING_RUNTIME
    twins = [(n, obj) for k, n, nm, obj in known if k == other and nm == name and (other != res.TRAINING_RUNTIME or n == trainjob_ns)]
    if twins:
        there = f' in namespace "{twins[0][0]}"' if other == res.TRAINING_RUNTIME else ""
        hints.append(f"a {other} \"{name}\"{there} exists: set spec.runtimeRef.kind to {other}")
    if not elsewhere and not twins and isinstance(name, str):
        import difflib  # only on an error: difflib (and heapq) cost ~3 ms of every start-up

        candidates = sorted({nm for k, n, nm, _ in known if k == kind and n == ns and isinstance(nm, str)})
        close = difflib.get_close_matches(name, candidates, n=3, cutoff=0.75)
        close += [c for c in candidates if c.startswith(name) and c not in close][: 3 - len(close)]
        if close:
            hints.append("did you mean " + " or ".join(f'"{c}"' for c in close) + "?")
        elif kind == res.TRAINING_RUNTIME:
            hints.append("a TrainingRuntime is only used by TrainJobs in its own namespace")
    return message + "".join(f"; {h}" for h in hints)


def _key_hint(trainjob: dict) -> str:
    """What a misspelt spec.runtimeRef kind or apiGroup was probably meant to be."""
    import difflib  # only on an error (see _not_found)

    ref = runtime_ref(trainjob)
    hints = []
    kind, group = ref.get("kind"), ref.get("apiGroup")
    if isinstance(kind, str) and kind not in res.RUNTIME_KINDS:
        close = [k for k in res.RUNTIME_KINDS if k.lower() == kind.lower()] or difflib.get_close_matches(kind, res.RUNTIME_KINDS, n=1, cutoff=0.6)
        if close:
            hints.append(f'kind "{kind}": did you mean "{close[0]}"?')
    if isinstance(group, str) and group not in ("", res.TRAINER_GROUP) and difflib.get_close_matches(group, [res.TRAINER_GROUP], cutoff=0.6):
        hints.append(f'apiGroup "{group}": did you mean "{res.TRAINER_GROUP}"?')
    return "; spec.runtimeRef must name a TrainingRuntime or ClusterTrainingRuntime of trainer.kubeflow.org" + "".join(f"; {h}" for h in hints)


def read_runtime_dirs(dirs, reader, limits=None) -> tuple[list, list]:
    """[(label, [runtimes])] for each directory, and problems. `reader` is the run's sources.Reader:
    directories are found, walked and confined as every file the function reads (docs/sources.md);
    only the runtimes of their files are kept."""
    out, problems = [], []
    for d in dirs:
        objs, dir_problems = reader.read_dir(d, "runtimeDirs", limits)
        problems.extend(dir_problems)
        if objs is not None:
            out.append((d, [o for o in objs if res.is_runtime(o)]))
    return out, problems
