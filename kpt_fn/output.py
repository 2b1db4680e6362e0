"""Where generated objects go among the items, and which items are the function's own earlier output.

Output policy (docs/output.md has the whole of it):
- Input items are never dropped or reordered in KRM mode.
- Every generated object carries the annotation MARKER (`expand-trainjobs.fn.kpt.dev/trainjob`)
  naming the TrainJob that generated it: that is how the function recognises its own earlier output
  whichever client hands it back (kpt keeps files and annotations; kustomize and Argo CD keep no state
  but read committed `*.generated.yaml` files along with the TrainJobs, annotations included).
- A generated object whose identity (API group, kind, namespace, name; an item without a namespace
  counts as being in the default namespace) is held by an item carrying MARKER replaces that item
  *in place*, keeping its client annotations (file path, index, comment ids), so a second run is
  byte-identical and kpt keeps the file and its comments.
- Any other item with that identity was written by someone else: it is never replaced. `conflicts`
  reports it, and the TrainJob is not rendered.
- A new generated object goes right after its TrainJob (after the ones placed before it), in the
  engine's order (Secrets, ConfigMaps, PodGroups, JobSet), with its own file
  `<TrainJob's directory>/<TrainJob name>.generated.yaml` when the TrainJob has a file, and never
  with the TrainJob's path, index or id annotations.
- Under `jobSetNames: contentHash` an item the same TrainJob generated under another content hash
  counts as the same object (kpt_fn/lifecycle/naming.earlier_run) and is replaced in place.
- Earlier output that no TrainJob generates any more (stale: the TrainJob was removed or renamed,
  `jobSetNames` or the profile changed) is removed from the output when it is in a file the function
  writes (`*.generated.yaml`), with an info result naming it and its file: kpt then deletes it (and
  the file, once empty), and `kpt live apply` prunes it. Anywhere else (an object the function wrote
  that someone moved into a file of their own, or an item without a path) it is kept and warned
  about. Only items carrying MARKER are ever called stale; the items of other authors, in whatever
  file, are never touched.
"""

from __future__ import annotations

import posixpath

from kpt_fn import resource as res
from kpt_fn import results as results_mod
from kpt_fn.problems import ERROR, INFO, WARNING, Problem, Rule

# The rules of placing the output (`expand-trainjobs rules`).
RULE_ALREADY_DEFINED = "output/already-defined"
RULE_REPLACED = "output/replaced"
RULE_NOT_OURS = "output/not-ours"
RULE_STALE = "output/stale"
RULE_SAME_OBJECT = "output/same-object"
RULE_NOTHING_TO_APPLY = "output/nothing-to-apply"
RULES = [
    Rule(RULE_ALREADY_DEFINED, "JobSet, PodGroup, ConfigMap, Secret", "a generated object does not replace an object the function did not generate"),
    Rule(RULE_REPLACED, "JobSet, PodGroup, ConfigMap, Secret", "the function's earlier output is replaced in place (info)"),
    Rule(RULE_NOT_OURS, "ConfigMap", "an object the function would write over (report, status) is its own"),
    Rule(RULE_STALE, "JobSet, PodGroup, ConfigMap, Secret", "earlier output that no TrainJob generates any more is removed or named"),
    Rule(RULE_SAME_OBJECT, "items", "no two objects of the output are the same object"),
    Rule(RULE_NOTHING_TO_APPLY, "files", "a render without configuration prints no empty output (a client would prune everything)"),
]

GENERATED_SUFFIX = ".generated.yaml"
# On every generated object: the name of the TrainJob that generated it (in the object's namespace).
MARKER = "expand-trainjobs.fn.kpt.dev/trainjob"


def marker_of(item) -> str | None:
    """The TrainJob named by an item's MARKER, or None when the item is not the function's output."""
    if not isinstance(item, dict) or res.is_trainjob(item) or res.is_runtime(item):
        return None
    value = res.annotations(item).get(MARKER)
    return value if isinstance(value, str) and value else None


def _generated_path(trainjob: dict) -> str | None:
    path = res.file_path(trainjob)
    if not path:
        return None
    return posixpath.join(posixpath.dirname(path), f"{res.name(trainjob)}{GENERATED_SUFFIX}")


def show(obj: dict) -> str:
    """`Kind namespace/name` of any item, however malformed its metadata (res.display wants strings)."""
    _, kind, ns, name = res.identity(obj)
    return res.named(kind, ns, name)


def _where(item: dict) -> str:
    path = res.file_path(item)
    return f" (in {path})" if path else ""


class Placement:
    """The output items, built one TrainJob at a time (function.run asks `conflicts`, then `add`s), so
    that each TrainJob's objects can be handed on (frozen to text, see yamlio.freeze) as soon as they
    are placed instead of all being held as dicts until the end. Everything it needs of the items is taken up front (identities, earlier output, next free
    file indexes, the TrainJobs present), so the items it is given may themselves be frozen
    afterwards, except the ones that `add` replaces."""

    def __init__(self, items: list, namespace: str = ""):
        self._namespace = namespace  # where items without a namespace end up (Argo CD, kustomize, config)
        self._existing: dict[tuple, int] = {}
        self._own: dict[int, str] = {}  # position of earlier output -> the TrainJob its MARKER names
        self._trainjobs: set[tuple] = set()  # (namespace, name) of the TrainJob items
        # Next free index per file, from one pass over the items (not one pass per file: a repository
        # has thousands of files). Replacements keep their item's path and index.
        self._next_index: dict[str, int] = {}
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                continue
            if res.is_trainjob(item):
                self._trainjobs.add(self._owner_key(item, res.name(item)))
            else:
                owner = marker_of(item)
                if owner is not None:
                    self._own[i] = owner
                key = self._key(item)
                first = self._existing.get(key)
                # An identity held by someone else's item is theirs, even next to earlier output.
                if first is None or (first in self._own and owner is None):
                    self._existing[key] = i
            p = res.file_path(item)
            if p:
                n = res.file_index(item) + 1
                self._next_index[p] = max(self._next_index.get(p, n), n)
        self.out = list(items)
        self._first_own = min(self._own, default=len(items))  # release stops there
        self._after: dict[int, list] = {}  # input position -> new objects to insert after it
        self._tail: list = []  # new objects of TrainJobs given in the config (no position)
        self._replaced: set[int] = set()
        self._released = 0  # positions before this one have been handed out (release)
        self.stale: list = []  # earlier output no TrainJob generates any more (set by finish)
        self._rendered: dict[tuple, bool] = {}  # TrainJob (namespace, name) -> it placed objects
        self._stale_done = False
        self._removed: set[int] = set()  # stale positions in the function's own files: left out by finish

    def _key(self, obj: dict) -> tuple:
        group, kind, ns, name = res.identity(obj)
        return (group, kind, ns or self._namespace, name)

    def _owner_key(self, obj: dict, trainjob_name) -> tuple:
        """(namespace, name) of a TrainJob, or of the one that generated `obj` (same namespace)."""
        return (res.identity(obj)[2] or self._namespace, trainjob_name if isinstance(trainjob_name, str) else None)

    def _index_for(self, path: str) -> int:
        n = self._next_index.get(path, 0)
        self._next_index[path] = n + 1
        return n

    def conflicts(self, objects: list) -> list:
        """Errors for generated objects whose identity an item of someone else's already holds (the
        TrainJob's problems: the caller renders nothing of it)."""
        problems = []
        for obj in objects:
            pos = self._existing.get(self._key(obj))
            if pos is None or pos in self._own:
                continue
            item = self.out[pos]
            problems.append(Problem(
                f"this TrainJob generates {res.display(obj)}, but {show(item)}{_where(item)} is already "
                f"defined and was not generated by expand-trainjobs (it has no {MARKER} annotation): it is left "
                "as it is and this TrainJob is not rendered; rename the TrainJob or that object (or, if it is "
                "output of an earlier version of this function, delete it and render again)",
                "metadata.name", rule=RULE_ALREADY_DEFINED
            ))
        return problems

    def add(self, entry, results: list, freeze=None) -> list:
        """Place one TrainJob's objects; "updated" results go to `results`. Returns the placed objects,
        each passed through `freeze` when given (what is placed in the output is then the frozen form).
        Objects that `conflicts` reports are never placed (the caller is expected to have asked)."""
        placed = []
        trainjob_name = getattr(entry, "name", None) or res.name(entry.origin)
        self._rendered[self._owner_key(entry.origin, trainjob_name)] = bool(entry.objects)
        path = _generated_path(entry.origin) if entry.position is not None else None
        for obj in entry.objects:
            obj = res.with_annotations(obj, {MARKER: trainjob_name})
            pos = self._existing.get(self._key(obj))
            if pos is None:
                pos = self._earlier_run(obj, trainjob_name)  # jobSetNames: contentHash (kpt_fn/lifecycle/naming)
            if pos is not None:
                if pos not in self._own:
                    continue
                self._replaced.add(pos)
                previous = self.out[pos]
                kept = res.client_annotations(previous)
                replacement = res.with_annotations(obj, kept) if kept else obj
                if res.without_client_annotations(previous) != obj:
                    results.append(results_mod.about(previous, _replacement(previous, obj, entry.origin), INFO, rule=RULE_REPLACED))
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
        return placed

    def own(self, obj: dict, marker: str, path: str, what: str) -> list:
        """Place an object of the function's own that belongs to no TrainJob (the review report): in
        place of its copy from an earlier run (the first item of its identity, without a namespace,
        when it carries `marker`; its client annotations kept), else at the end, in file `path` at the
        next free index (the file may hold the user's own objects, and kpt refuses a taken index).
        An item of that identity without `marker` is someone else's: left as it is, and an error
        (`what` names the object and the option that asks for it)."""
        pos = self._existing.get(self._key(obj))
        previous = self.out[pos] if pos is not None else None
        if previous is not None and not res.namespace(previous):
            if marker not in res.annotations(previous):
                return [results_mod.about(
                    previous, f"{res.display(previous)} is not a {what} of this function (no {marker} annotation): "
                    f"left as it is; rename it, or drop the `{what}` option", ERROR, rule=RULE_NOT_OURS)]
            self.out[pos] = res.with_annotations(obj, res.client_annotations(previous))
            return []
        idx = str(self._index_for(path))
        self._tail.append(res.with_annotations(obj, {res.PATH: path, res.INDEX: idx, res.LEGACY_PATH: path,
                                                     res.LEGACY_INDEX: idx}))
        return []

    def _earlier_run(self, obj: dict, trainjob_name) -> int | None:
        """The position of this TrainJob's own earlier output that `obj` renames under a new content
        hash (same kind and namespace, not yet replaced), or None."""
        from kpt_fn.lifecycle import naming

        group, kind, ns, name = self._key(obj)
        if not isinstance(trainjob_name, str) or naming.hashed_parts(trainjob_name, name or "") is None:
            return None
        for pos, owner in self._own.items():
            if owner != trainjob_name or pos in self._replaced or not isinstance(self.out[pos], dict):
                continue
            g, k, n, earlier = self._key(self.out[pos])
            if (g, k, n) == (group, kind, ns) and naming.earlier_run(trainjob_name, name, earlier):
                return pos
        return None

    def release(self, limit: int | None) -> list:
        """The output items of the positions before `limit` (None: all of them) not handed out yet,
        each followed by the objects placed after it, when they are final: the caller has placed every
        TrainJob before `limit`, and none of those positions is earlier output (which any later TrainJob may still
        replace: from the first one on, everything waits for `finish`). What is handed out is
        forgotten here (an item someone else wrote is kept for `conflicts` to name)."""
        start = self._released
        end = self._first_own if limit is None else min(limit, self._first_own)
        if end <= start:
            return []
        ready = []
        for i in range(start, end):
            item = self.out[i]
            ready.append(item)
            ready.extend(self._after.pop(i, ()))
            if not isinstance(item, dict):
                self.out[i] = None
        self._released = end
        return ready

    def finish(self, results: list) -> list:
        """The output items (from the first one `release` has not handed out); stale-object warnings
        go to `results` (unless `stale_results` gave them)."""
        results.extend(self.stale_results())
        out, after, tail = self.out, self._after, self._tail
        start = self._released
        if start:
            out = out[start:]
            after = {i - start: objs for i, objs in after.items()}
        if not after and not tail and not self._removed:
            return out
        merged = []
        for i, item in enumerate(out):
            if i + start not in self._removed:
                merged.append(item)
            merged.extend(after.get(i, ()))
        return merged + tail

    def stale_results(self) -> list:
        """Results for earlier output (items carrying MARKER) that no TrainJob generates any more;
        given once (finish gives them unless this was asked first).

        A deleted or renamed TrainJob (or one whose runtime, profile or jobSetNames no longer makes,
        say, a hostfile or a JobSet of that name) leaves its earlier output behind, and a GitOps tool
        would keep applying it. What is in a file the function writes (`*.generated.yaml`) is removed
        by `finish` (an info result); what is anywhere else is the user's file: kept, and a warning to
        delete it. Earlier output of a TrainJob that failed this run (or is among the items but could
        not be read) is left alone silently: its errors say why nothing was rendered. Items without
        MARKER are someone else's, wherever they are.
        """
        out = []
        if self._stale_done:
            return out
        self._stale_done = True
        for i, owner in self._own.items():
            if i in self._replaced:
                continue
            item = self.out[i]
            key = self._owner_key(item, owner)
            rendered = self._rendered.get(key)
            if rendered is False or (rendered is None and key in self._trainjobs):
                continue
            trainjob = f"TrainJob {key[0] + '/' if key[0] else ''}{owner}"
            why = f"{trainjob} no longer generates it" if rendered else f"no {trainjob} is left to generate it"
            path = res.file_path(item)
            self.stale.append(item)
            if path and path.endswith(GENERATED_SUFFIX):
                self._removed.add(i)
                out.append(results_mod.about(
                    item, f"removed {show(item)} from {path}, which this function writes: {why}", INFO, rule=RULE_STALE))
                continue
            where = f" in {path}" if path else ""
            out.append(results_mod.about(
                item,
                f"stale generated object {show(item)}{where}: {why}; delete it" + (" from that file" if path else "")
                + (" (a file this function does not write: it is left as it is)" if path else ""),
                WARNING, rule=RULE_STALE
            ))
        return out


def _replacement(previous: dict, obj: dict, trainjob: dict) -> str:
    """The info result for earlier output replaced in place, in the direction it happened: an object
    under a new name (jobSetNames: contentHash after an edit) replaces the earlier one, it does not
    "update" it."""
    if res.identity(previous)[3] == res.identity(obj)[3]:
        return f"updated {res.display(obj)} rendered earlier from {res.display(trainjob)}"
    return (f"replaced {show(previous)}, rendered earlier from {res.display(trainjob)}, by {show(obj)}: "
            "the TrainJob's content changed, and under jobSetNames: contentHash that is a new object (a new run)")


def _applied(item, keep_trainer_inputs: bool, is_config) -> bool:
    if not isinstance(item, dict) or is_config(item):
        return False
    if res.is_trainjob(item) or res.is_runtime(item):
        return keep_trainer_inputs
    return not res.is_local_config(item)


def plain_items(items: list, keep_trainer_inputs: bool, is_config=lambda item: False, stale=()) -> list:
    """What a plain-manifest consumer (Argo CD, kustomize legacy plugin) should apply.

    Local-config objects and the function's own config (`is_config`) are never applied, except that
    `output: all` (keep_trainer_inputs) prints TrainJobs and runtimes whether or not they are marked.
    Stale earlier output (`stale`: its TrainJob is gone from Git, or no longer needs it) is not applied
    either: a GitOps tool then prunes it, as it would the TrainJob's own objects.
    """
    gone = {id(i) for i in stale}
    return [res.without_client_annotations(i) for i in items
            if id(i) not in gone and _applied(i, keep_trainer_inputs, is_config)]


def duplicates(items: list, namespace: str, keep_trainer_inputs: bool, is_config=lambda item: False) -> list:
    """Errors for objects plain_items would print twice: two items that end up with one identity once
    the items without a namespace are put into `namespace` (what Argo CD does with
    ARGOCD_APP_NAMESPACE). Two copies of one object never go to a cluster."""
    first: dict[tuple, dict] = {}
    out = []
    for item in items:
        if not _applied(item, keep_trainer_inputs, is_config):
            continue
        group, kind, ns, name = res.identity(item)
        key = (group, kind, ns or namespace, name)
        other = first.setdefault(key, item)
        if other is item:
            continue
        out.append(results_mod.about(
            item,
            f"{show(item)}{_where(item)} and {show(other)}{_where(other)} are the same object"
            + (f" once namespace {namespace!r} is applied" if namespace and not (ns and res.namespace(other)) else "")
            + ": remove one of them (nothing is printed, so that no copy of it goes to the cluster)",
            field="metadata.name", rule=RULE_SAME_OBJECT
        ))
    return out
