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
from kpt_fn.problems import INFO, Problem

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

    for entry in rendered:
        for obj in entry.objects:
            pos = existing.get(res.identity(obj))
            if pos is not None:
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
    if not after and not tail:
        return out
    merged = []
    for i, item in enumerate(out):
        merged.append(item)
        merged.extend(after.get(i, ()))
    return merged + tail


def plain_items(items: list, keep_trainer_inputs: bool) -> list:
    """What a plain-manifest consumer (Argo CD, kustomize legacy plugin) should apply."""
    from kpt_fn.config import is_config_object

    out = []
    for item in items:
        if not isinstance(item, dict) or res.is_local_config(item) or is_config_object(item):
            continue
        if not keep_trainer_inputs and (res.is_trainjob(item) or res.is_runtime(item)):
            continue
        out.append(res.without_client_annotations(item))
    return out
