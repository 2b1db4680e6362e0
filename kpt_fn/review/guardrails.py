"""What a pull request changes in the guardrails that judge it: the review must show those apart from
the rendered objects, because a change that raises a limit renders nothing different and would read
"No rendered object changes" (issue 32 point 1, issue 33).

Guardrails are what decides whether a TrainJob passes, rather than what it renders:
- the options of the app's config that check or scope the checks (`policy` setting by setting,
  `strict`, `profile`, `trainerVersion`, `runtimeDirs`, `policyDirs`, `namespace`, `admissionUsers`,
  `knownPriorityClasses`, `builtinRuntimes`);
- the shared runtimes: a ClusterTrainingRuntime (every namespace's TrainJobs may use it) or any runtime
  read from outside the app directory (`runtimeDirs: [../../platform/runtimes]`);
- the objects read from `policyDirs` (ValidatingAdmissionPolicies, their bindings, params, Namespaces);
- the waiver annotations of the TrainJobs (`waive.expand-trainjobs.kpt.dev/<rule>`), each with its reason.

Pure functions over the two rendered sides (kpt_fn.function's outcomes) and the directories they were
read from; the command (kpt_fn.cli.modes.diff_command) adds the result to the diff's data as
`guardrails`, and the writers (kpt_fn/formats/diff.py) put it first.
"""

from __future__ import annotations

import os

from kpt_fn import resource as res
from kpt_fn.config import POLICY_SETTINGS
from kpt_fn.sources import EXTENSIONS
from kpt_fn.trainer_names import WAIVER_PREFIX
from kpt_fn.yamlio import DEFAULT_LIMITS, YAMLInputError, load_all

# The options, besides `policy`, that decide what is checked or how strictly, in the order shown.
OPTIONS = ("strict", "profile", "trainerVersion", "runtimeDirs", "policyDirs", "namespace", "admissionUsers",
           "knownPriorityClasses", "builtinRuntimes")
KEYS = ("options", "runtimes", "policies", "waivers")


def _plain(value):
    return list(value) if isinstance(value, tuple) else value


def options(old_cfg, new_cfg) -> list[dict]:
    """[{option, old, new}] of the guardrail options that differ; a policy setting as `policy.<name>`,
    None where it is not set."""
    out = []
    old_policy, new_policy = dict(old_cfg.policy or ()), dict(new_cfg.policy or ())
    for name in POLICY_SETTINGS:
        a, b = _plain(old_policy.get(name)), _plain(new_policy.get(name))
        if a != b:
            out.append({"option": f"policy.{name}", "old": a, "new": b})
    for name in OPTIONS:
        a, b = _plain(getattr(old_cfg, name)), _plain(getattr(new_cfg, name))
        if a != b:
            out.append({"option": name, "old": a, "new": b})
    return out


def _change(a, b) -> str | None:
    if a == b:
        return None
    return "added" if a is None else "removed" if b is None else "changed"


def _outside(file, root: str | None) -> bool:
    """Whether a file an object was read from (relative to the app directory, or absolute) is outside it."""
    if not file:
        return False
    if os.path.isabs(file):
        return root is None or os.path.relpath(file, root).startswith(os.pardir)
    return os.path.normpath(file).startswith(os.pardir)


def _shared_runtimes(outcome, root) -> dict:
    """{display: (runtime, file)} of the shared runtimes of a side: among its items, and those its
    TrainJobs were expanded against from a file (runtimeDirs), not the built-in catalog's (they change
    with trainerVersion, an option shown on its own)."""
    out = {}
    found = [i for i in outcome.items if isinstance(i, dict)] + \
        [r.runtime for r in outcome.rendered if isinstance(r.runtime, dict) and res.file_path(r.runtime)]
    for item in found:
        if res.is_runtime(item) and (res.kind(item) == res.CLUSTER_TRAINING_RUNTIME or _outside(res.file_path(item), root)):
            out.setdefault(res.display(item), (res.without_client_annotations(item), res.file_path(item)))
    return out


def runtimes(old_outcome, new_outcome, old_root=None, new_root=None) -> list[dict]:
    """[{runtime, change, file}] of the shared runtimes added, removed or changed (file: NEW's, else OLD's)."""
    a, b = _shared_runtimes(old_outcome, old_root), _shared_runtimes(new_outcome, new_root)
    out = []
    for key in sorted(set(a) | set(b)):
        change = _change(a.get(key, (None,))[0], b.get(key, (None,))[0])
        if change:
            out.append({"runtime": key, "change": change, "file": (b.get(key) or a.get(key))[1]})
    return out


def _policy_objects(cfg, root: str | None) -> dict:
    """{display: object} of the YAML and JSON files below the config's policyDirs (non-hidden, as render
    walks them); read only after render read them, under the same limits."""
    out: dict = {}
    if root is None:
        return out
    for d in cfg.policyDirs or ():
        top = os.path.normpath(os.path.join(root, d))
        for here, dirs, files in os.walk(top):
            dirs[:] = sorted(x for x in dirs if not x.startswith("."))
            for name in sorted(f for f in files if f.endswith(EXTENSIONS) and not f.startswith(".")):
                try:
                    with open(os.path.join(here, name), "rb") as f:
                        docs = load_all(f.read(DEFAULT_LIMITS.max_bytes + 1), DEFAULT_LIMITS)
                except (OSError, YAMLInputError, ValueError, RecursionError):
                    continue  # render said what is wrong with it
                for doc in docs:
                    if isinstance(doc, dict) and doc.get("kind"):
                        out[res.display(doc)] = doc
    return out


def policies(old_outcome, new_outcome, old_root=None, new_root=None) -> list[dict]:
    """[{object, change}] of the objects in policyDirs added, removed or changed."""
    a, b = _policy_objects(old_outcome.config, old_root), _policy_objects(new_outcome.config, new_root)
    out = []
    for key in sorted(set(a) | set(b)):
        change = _change(a.get(key), b.get(key))
        if change:
            out.append({"object": key, "change": change})
    return out


def _waivers(outcome) -> dict:
    out = {}
    for entry in outcome.rendered:
        tj = entry.origin
        if not isinstance(tj, dict):
            continue
        who = f"{res.namespace(tj) or entry.namespace or ''}/{res.name(tj)}".lstrip("/")
        for key, reason in res.annotations(tj).items():
            if isinstance(key, str) and key.startswith(WAIVER_PREFIX):
                out[(who, key)] = reason if isinstance(reason, str) else str(reason)
    return out


def waivers(old_outcome, new_outcome) -> list[dict]:
    """[{trainJob, annotation, rule, change, old, new}] of the waiver annotations added, removed or whose
    reason changed; `new` is the reason at NEW (None when removed)."""
    a, b = _waivers(old_outcome), _waivers(new_outcome)
    out = []
    for who, key in sorted(set(a) | set(b)):
        change = _change(a.get((who, key)), b.get((who, key)))
        if change:
            out.append({"trainJob": who, "annotation": key, "rule": "policy/" + key[len(WAIVER_PREFIX):],
                        "change": change, "old": a.get((who, key)), "new": b.get((who, key))})
    return out


def changed(old_outcome, new_outcome, old_root=None, new_root=None) -> dict:
    """Every guardrail the change touches: {options, runtimes, policies, waivers}, each a list."""
    return {"options": options(old_outcome.config, new_outcome.config),
            "runtimes": runtimes(old_outcome, new_outcome, old_root, new_root),
            "policies": policies(old_outcome, new_outcome, old_root, new_root),
            "waivers": waivers(old_outcome, new_outcome)}


def count(data: dict) -> int:
    """How many guardrails a diff's data says changed (0 without the key: an upgrade preview)."""
    g = data.get("guardrails") or {}
    return sum(len(g.get(k) or ()) for k in KEYS)
