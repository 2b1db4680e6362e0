"""Is a package's committed `<trainjob>.generated.yaml` output what the function renders now?

The kpt route (kpt fn render / eval) writes each TrainJob's objects into `<trainjob>.generated.yaml`
beside it, and the package is committed with them; a TrainJob or runtime edited without rendering
again leaves them stale, and whatever applies the package (kpt live apply, Argo CD on the directory)
deploys the old objects. This reads the package as the function sees it under kpt (every YAML file,
its own earlier output included), runs the function as kpt would, and compares the objects it
generates with the committed ones, as data: kpt formats the text it writes, so bytes are not the
contract. For the pre-commit hook and CI (`expand-trainjobs check-generated DIR`).
"""

from __future__ import annotations

import os

from kpt_fn import config, function, output, sources
from kpt_fn import resource as res
from kpt_fn.problems import ERROR, Problem, Rule

# The rules of `check-generated` (`expand-trainjobs rules`).
RULE_CONFIG_PATH = "generated/config-path"
RULE_DOES_NOT_RENDER = "generated/does-not-render"
RULE_NOT_COMMITTED = "generated/not-committed"
RULE_STALE = "generated/stale"
RULE_NO_LONGER_GENERATED = "generated/no-longer-generated"
RULES = [
    Rule(RULE_CONFIG_PATH, "Kptfile", "the Kptfile's configPath is one kpt accepts (validateFnConfigPathSyntax)"),
    Rule(RULE_DOES_NOT_RENDER, "Kptfile", "the package renders"),
    Rule(RULE_NOT_COMMITTED, "JobSet, PodGroup, ConfigMap, Secret", "every object the package renders is committed"),
    Rule(RULE_STALE, "JobSet, PodGroup, ConfigMap, Secret", "every committed generated object is what the package renders now"),
    Rule(RULE_NO_LONGER_GENERATED, "JobSet, PodGroup, ConfigMap, Secret", "no committed generated object is left that no TrainJob renders"),
]

# Annotations kpt and kustomize keep for their own bookkeeping: not part of what is applied.
_BOOKKEEPING = ("config.kubernetes.io/index", "internal.config.kubernetes.io/", "config.k8s.io/id",
                "kustomize.config.k8s.io/")
KPTFILE = "Kptfile"
FUNCTION_NAME = "expand-trainjobs"


def _key(item: dict) -> tuple:
    _, kind, ns, name = res.identity(item)
    return (res.file_path(item) or "", kind, ns, name)


def _applied_form(item: dict) -> dict:
    out = res.private_copy(item)
    ann = (out.get("metadata") or {}).get("annotations")
    if isinstance(ann, dict):
        for k in [k for k in ann if k.startswith(_BOOKKEEPING)]:
            del ann[k]
        if not ann:
            del out["metadata"]["annotations"]
    return out


def _differences(old, new, path: str = "", out=None, limit: int = 5) -> list:
    """Field paths where `old` and `new` differ (at most `limit`)."""
    out = [] if out is None else out
    if len(out) >= limit:
        return out
    if isinstance(old, dict) and isinstance(new, dict):
        for k in list(old) + [k for k in new if k not in old]:
            if old.get(k, None) != new.get(k, None) or (k in old) != (k in new):
                _differences(old.get(k), new.get(k), f"{path}.{k}" if path else str(k), out, limit)
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new)):
            if a != b:
                _differences(a, b, f"{path}[{i}]", out, limit)
    elif old != new:
        out.append(path or "(the whole object)")
    return out


def config_path_error(path) -> str | None:
    """Why kpt refuses a Kptfile step's `configPath` before reading it, or None (kpt's
    api/kptfile/v1/validation.go :138-155 at v1.0.0-beta.67, validateFnConfigPathSyntax: not empty,
    relative once cleaned, and no `..` anywhere in it -- kpt refuses even a name holding two dots, so
    that no YAML file on the consumer's machine outside the package can be read)."""
    if not isinstance(path, str) or not path.strip():
        return "path must not be empty"
    cleaned = os.path.normpath(path)
    if os.path.isabs(cleaned):
        return "path must be relative"
    if ".." in cleaned:
        return "path must not be outside the package"
    return None


def function_config_of(root: str, load, reader: sources.Reader | None = None) -> tuple[object, list]:
    """The functionConfig kpt would hand over: the app's marker file, else the config of the
    Kptfile pipeline step that runs this function (configPath, or configMap as a ConfigMap). Every
    file is read under `render`'s confinement (`reader`'s roots): a marker, Kptfile or configPath
    that is, or lies under, a link out of the package is refused unread, and so is a configPath
    kpt refuses; no message quotes what such a file holds."""
    reader = reader or sources.Reader(root, label=sources.APP_DIR)
    if os.path.lexists(os.path.join(root, sources.MARKER_FILE)):
        marker, problems = reader.confined(sources.MARKER_FILE, sources.MARKER_FILE)
        return (None, problems) if marker is None else load(marker)
    if not os.path.lexists(os.path.join(root, KPTFILE)):
        return None, []
    kptfile, problems = reader.confined(KPTFILE, KPTFILE)
    if kptfile is None:
        return None, problems
    docs, problems = sources.load_file(kptfile)
    pipeline = (docs[0].get("pipeline") if docs and isinstance(docs[0], dict) else None) or {}
    pipeline = pipeline if isinstance(pipeline, dict) else {}
    for kind in ("mutators", "validators"):
        steps = pipeline.get(kind)
        for i, step in enumerate(steps if isinstance(steps, list) else ()):
            if not isinstance(step, dict) or FUNCTION_NAME not in str(step.get("image") or step.get("exec") or ""):
                continue
            if "configPath" in step:
                where = f"{KPTFILE}: pipeline.{kind}[{i}].configPath {step['configPath']!r}"
                why = config_path_error(step["configPath"])
                if why is not None:
                    return None, [Problem(f"{where}: {why} (kpt refuses it, and so does check-generated)", rule=RULE_CONFIG_PATH)]
                path, refused = reader.confined(step["configPath"], where)
                return (None, refused) if path is None else load(path)
            if isinstance(step.get("configMap"), dict):
                return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "function-input"},
                        "data": step["configMap"]}, problems
    return None, problems


def check(root: str, env: dict, load) -> list:
    """Problems (errors) for every generated object of the package at `root` that is missing from,
    differs from, or is no longer rendered into its committed file; [] when the output is current."""
    reader = sources.Reader.from_env(root, env, label=sources.APP_DIR)
    fc, problems = function_config_of(root, load, reader)
    if problems:
        return problems
    items, problems = reader.read_paths(["."])
    if problems:
        return problems
    committed = {_key(i): _applied_form(i) for i in items if output.marker_of(i)}
    outcome = function.run(items, config.parse(fc), function.Door(base_dir=root, reader=reader))
    if outcome.exit_code:
        failed = [r for r in outcome.results if r.severity == ERROR]
        return [Problem(f"the package does not render, so its output cannot be current: {r.message}", rule=RULE_DOES_NOT_RENDER) for r in failed]
    # Earlier output that no TrainJob generates any more is named in the run's `stale` (and removed
    # from the items when it is in the function's own file): the committed file still holds it.
    stale = {_key(i) for i in outcome.stale}
    rendered = {_key(i): _applied_form(i) for i in outcome.items if output.marker_of(i) and _key(i) not in stale}
    out = []
    for key, obj in rendered.items():
        file, kind, ns, name = key
        who = f"{kind} {ns + '/' if ns else ''}{name}"
        if key not in committed:
            out.append(Problem(f"{file}: {who} is not committed; render the package (kpt fn render) and commit it", rule=RULE_NOT_COMMITTED))
        elif committed[key] != obj:
            fields = ", ".join(_differences(committed[key], obj))
            out.append(Problem(f"{file}: {who} is stale (differs at {fields}); render the package and commit it", rule=RULE_STALE))
    for key in committed.keys() - rendered.keys():
        file, kind, ns, name = key
        out.append(Problem(f"{file}: {kind} {ns + '/' if ns else ''}{name} is no longer generated by any TrainJob; "
                           "render the package (the function removes it from its file) and commit it", rule=RULE_NO_LONGER_GENERATED))
    return out
