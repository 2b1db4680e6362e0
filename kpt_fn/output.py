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
    existing: dict[tuple, int] = {}
    for i, item in enumerate(items):
        if isinstance(item, dict) and not res.is_trainjob(item):
            existing.setdefault(res.identity(item), i)
    out = list(items)
    after: dict[int, list] = {}  # input position -> new objects to insert after it
    tail: list = []  # new objects of TrainJobs given in the config (no position)
    # Next free index per file, from one pass over the items (not one pass per file: a repository
    # has thousands of files). Replacements below keep their item's path and index.
    next_index: dict[str, int] = {}
    for it in items:
        if isinstance(it, dict):
            p = res.file_path(it)
            if p:
                i = res.file_index(it) + 1
                next_index[p] = max(next_index.get(p, i), i)

    def index_for(path: str) -> int:
        n = next_index.get(path, 0)
        next_index[path] = n + 1
        return n

    replaced: set[int] = set()
    for entry in rendered:
        for obj in entry.objects:
            pos = existing.get(res.identity(obj))
            if pos is not None:
                replaced.add(pos)
                previous = out[pos]
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
                out[pos] = replacement
                continue
            path = _generated_path(entry.origin) if entry.position is not None else None
            if path:
                idx = str(index_for(path))
                obj = res.with_annotations(
                    obj, {res.PATH: path, res.INDEX: idx, res.LEGACY_PATH: path, res.LEGACY_INDEX: idx}
                )
            if entry.position is None:
                tail.append(obj)
            else:
                after.setdefault(entry.position, []).append(obj)
    results.extend(_orphans(items, rendered, replaced))
    if not after and not tail:
        return out
    merged = []
    for i, item in enumerate(out):
        merged.append(item)
        merged.extend(after.get(i, ()))
    return merged + tail


def _orphans(items: list, rendered: list, replaced: set) -> list:
    """Warnings for objects in `*.generated.yaml` files that no TrainJob generates any more.

    KRM mode never deletes inputs, so a deleted TrainJob (or one whose runtime no longer needs, say, a
    hostfile) leaves its earlier output behind, and a GitOps tool would keep applying it. Objects of a
    TrainJob that failed this run are left alone silently: its errors say why nothing was rendered.
    """
    by_file = {}  # generated file -> entry of the TrainJob it belongs to
    for entry in rendered:
        if entry.position is not None and _generated_path(entry.origin):
            by_file[_generated_path(entry.origin)] = entry
    out = []
    for i, item in enumerate(items):
        path = res.file_path(item) if isinstance(item, dict) else None
        if i in replaced or not path or not path.endswith(GENERATED_SUFFIX) or res.is_trainjob(item):
            continue
        entry = by_file.get(path)
        if entry is not None and not entry.objects:
            continue
        why = (
            f"{res.display(entry.origin)} no longer generates it"
            if entry is not None
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
