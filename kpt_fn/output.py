"""Where generated objects go, and how problems become KRM results.

Output policy (the README repeats it):
- Input items are never dropped or reordered in KRM mode.
- A generated object that already exists among the items (same API group, kind, namespace and name:
  typically this function's own output from an earlier run) is replaced *in place*, keeping that
  item's client annotations (file path, index, comment ids), so a second run is byte-identical and
  kpt keeps the file and its comments.
- A new generated object goes right after its TrainJob (after the ones placed before it), in the
  engine's order (Secrets, ConfigMaps, PodGroups, JobSet), with its own file
  `<TrainJob's directory>/<TrainJob name>.generated.yaml` when the TrainJob has a file, and never
  with the TrainJob's path, index or id annotations.
"""

from __future__ import annotations

import posixpath

from kpt_fn import resource as res
from kpt_fn.problems import INFO, WARNING, Problem

GENERATED_SUFFIX = ".generated.yaml"


def result(problem: Problem, trainjob: dict | None) -> dict:
    """A KRM result for `problem`; `trainjob` names the resource when the problem has no subject."""
    subject = problem.subject if isinstance(problem.subject, dict) else trainjob
    message = problem.message
    out: dict = {"message": message, "severity": problem.severity}
    if isinstance(subject, dict):
        out["resourceRef"] = res.resource_ref(subject)
        if problem.path:
            out["field"] = {"path": problem.path}
        # Generated objects have no file of their own yet: point at the TrainJob that produced them.
        where = subject if res.file_path(subject) else (trainjob if isinstance(trainjob, dict) else None)
        if where is not None and res.file_path(where):
            out["file"] = {"path": res.file_path(where), "index": res.file_index(where)}
            out["message"] = f"{message} (in {res.file_path(where)})"
    elif problem.path:
        out["message"] = f"{problem.path}: {message}"
    if problem.rule:
        out["tags"] = {"rule": problem.rule}
    return out


def summary_result(text: str) -> dict:
    return {"message": text, "severity": INFO}


def _generated_path(trainjob: dict) -> str | None:
    path = res.file_path(trainjob)
    if not path:
        return None
    return posixpath.join(posixpath.dirname(path), f"{res.name(trainjob)}{GENERATED_SUFFIX}")


def place(items: list, rendered: list, results: list) -> list:
    """The output items: inputs in order, generated objects replacing or following (see module doc)."""
    placement = Placement(items)
    for entry in rendered:
        placement.add(entry, results)
    return placement.finish(results)


class Placement:
    """place(), one TrainJob at a time, so that each TrainJob's objects can be handed on (frozen to
    text, see yamlio.freeze) as soon as they are placed instead of all being held as dicts until the
    end. Everything it needs of the items is taken up front (identities, next free file indexes, the
    generated files), so the items it is given may themselves be frozen afterwards, except the ones
    that `add` replaces."""

    def __init__(self, items: list):
        self._existing: dict[tuple, int] = {}
        # Next free index per file, from one pass over the items (not one pass per file: a repository
        # has thousands of files). Replacements keep their item's path and index.
        self._next_index: dict[str, int] = {}
        self._generated: list = []  # (position, identity-free facts) of items in *.generated.yaml files
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                continue
            trainjob = res.is_trainjob(item)
            if not trainjob:
                self._existing.setdefault(res.identity(item), i)
            p = res.file_path(item)
            if p:
                n = res.file_index(item) + 1
                self._next_index[p] = max(self._next_index.get(p, n), n)
                if p.endswith(GENERATED_SUFFIX) and not trainjob:
                    self._generated.append((i, p))
        self.out = list(items)
        self._after: dict[int, list] = {}  # input position -> new objects to insert after it
        self._tail: list = []  # new objects of TrainJobs given in the config (no position)
        self._replaced: set[int] = set()
        self._by_file: dict[str, tuple] = {}  # generated file -> (TrainJob display, objects?)

    def _index_for(self, path: str) -> int:
        n = self._next_index.get(path, 0)
        self._next_index[path] = n + 1
        return n

    def add(self, entry, results: list, freeze=None) -> list:
        """Place one TrainJob's objects; "updated" results go to `results`. Returns the placed objects,
        each passed through `freeze` when given (what is placed in the output is then the frozen form)."""
        placed = []
        path = _generated_path(entry.origin) if entry.position is not None else None
        for obj in entry.objects:
            pos = self._existing.get(res.identity(obj))
            if pos is not None:
                self._replaced.add(pos)
                previous = self.out[pos]
                kept = res.client_annotations(previous)
                replacement = res.with_annotations(obj, kept) if kept else obj
                if res.without_client_annotations(previous) != obj:
                    results.append(
                        {
                            "message": f"updated {res.display(obj)} rendered earlier from {res.display(entry.origin)}",
                            "severity": INFO,
                            "resourceRef": res.resource_ref(obj),
                        }
                    )
                if freeze is not None:
                    replacement = freeze(replacement)
                self.out[pos] = replacement
                placed.append(replacement)
                continue
            if path:
                idx = str(self._index_for(path))
                obj = res.with_annotations(
                    obj, {res.PATH: path, res.INDEX: idx, res.LEGACY_PATH: path, res.LEGACY_INDEX: idx}
                )
            if freeze is not None:
                obj = freeze(obj)
            if entry.position is None:
                self._tail.append(obj)
            else:
                self._after.setdefault(entry.position, []).append(obj)
            placed.append(obj)
        if path:
            self._by_file[path] = (res.display(entry.origin), bool(entry.objects))
        return placed

    def finish(self, results: list) -> list:
        """The output items; stale-object warnings go to `results`."""
        results.extend(self._orphans())
        out, after, tail = self.out, self._after, self._tail
        if not after and not tail:
            return out
        merged = []
        for i, item in enumerate(out):
            merged.append(item)
            merged.extend(after.get(i, ()))
        return merged + tail

    def _orphans(self) -> list:
        """Warnings for objects in `*.generated.yaml` files that no TrainJob generates any more.

        KRM mode never deletes inputs, so a deleted TrainJob (or one whose runtime no longer needs,
        say, a hostfile) leaves its earlier output behind, and a GitOps tool would keep applying it.
        Objects of a TrainJob that failed this run are left alone silently: its errors say why nothing
        was rendered.
        """
        out = []
        for i, path in self._generated:
            if i in self._replaced:
                continue
            owner = self._by_file.get(path)
            if owner is not None and not owner[1]:
                continue
            item = self.out[i]
            why = (
                f"{owner[0]} no longer generates it"
                if owner is not None
                else f"no TrainJob named {posixpath.basename(path)[: -len(GENERATED_SUFFIX)]!r} is left beside {path}"
            )
            out.append(
                {
                    "message": f"stale generated object {res.display(item)} in {path}: {why}; delete it from that file",
                    "severity": WARNING,
                    "resourceRef": res.resource_ref(item),
                    "file": {"path": path, "index": res.file_index(item)},
                }
            )
        return out


def plain_items(items: list, keep_trainer_inputs: bool) -> list:
    """What a plain-manifest consumer (Argo CD, kustomize legacy plugin) should apply.

    Local-config objects are never applied, except that `output: all` (keep_trainer_inputs) prints
    TrainJobs and runtimes whether or not they are marked.
    """
    from kpt_fn.config import is_config_object

    out = []
    for item in items:
        if not isinstance(item, dict) or is_config_object(item):
            continue
        trainer_input = res.is_trainjob(item) or res.is_runtime(item)
        if trainer_input and not keep_trainer_inputs:
            continue
        if res.is_local_config(item) and not trainer_input:
            continue
        out.append(res.without_client_annotations(item))
    return out
