"""Plain modes: YAML files in, plain manifests out (Argo CD CMP `render`, kustomize legacy exec plugin).

Neither client understands a ResourceList: Argo CD flattens anything with `items` and drops results,
and a kustomize legacy plugin speaks a plain `---` stream. So these modes print only objects to apply,
report through stderr and the exit code, and treat empty output as a failure (Argo CD with auto-sync
prune would otherwise delete everything).
"""

from __future__ import annotations

import json
import os
import re

from kpt_fn import config as config_mod
from kpt_fn import function, output
from kpt_fn import resource as res
from kpt_fn.krm import stderr_lines
from kpt_fn.problems import ERROR, WARNING, Problem
from kpt_fn.yamlio import DEFAULT_LIMITS, YAMLInputError, dump_all, load_all

CONFIG_FILE = "expand-trainjobs.yaml"
NOTHING_TO_APPLY = "no objects to apply: refusing to print empty output (Argo CD would prune everything)"
_SKIPPED_FILES = {CONFIG_FILE, "kustomization.yaml", "kustomization.yml", "Kustomization", "Kptfile"}


def _yaml_files(path: str) -> list[str]:
    if os.path.isfile(path):
        return [path]
    found = []
    for root, dirs, files in os.walk(path, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for f in sorted(files):
            if f.endswith((".yaml", ".yml", ".json")) and not f.startswith(".") and f not in _SKIPPED_FILES:
                found.append(os.path.join(root, f))
    return found


def read_items(paths: list[str], base: str, limits=DEFAULT_LIMITS) -> tuple[list, list]:
    """Objects of every YAML/JSON file under `paths`, annotated with their file and index."""
    items, problems = [], []
    for p in paths:
        full = p if os.path.isabs(p) else os.path.join(base, p)
        if not os.path.exists(full):
            problems.append(Problem(f"{p}: no such file or directory"))
            continue
        for fpath in _yaml_files(full):
            rel = os.path.relpath(fpath, base).replace(os.sep, "/")
            docs, file_problems = function.load_file(fpath, limits)
            problems += [Problem(f"{rel}: {pr.message.split(': ', 1)[-1]}") for pr in file_problems]
            for i, doc in enumerate(docs):
                if not (isinstance(doc, dict) and doc.get("apiVersion") and doc.get("kind")):
                    problems.append(Problem(f"{rel}: document {i} is not a Kubernetes object; skipped", severity=WARNING))
                    continue
                items.append(res.with_annotations(doc, {res.PATH: rel, res.INDEX: str(i)}))
    return items, problems


def _param_name(name: str) -> str:
    return re.sub(r"[^A-Z0-9_]", "_", name.upper())


def config_from_argocd_env(env: dict) -> dict | None:
    """A ConfigMap-shaped functionConfig from Argo CD plugin parameters, or None when there are none.

    Argo CD sends only the parameters the Application sets (announced defaults are not sent), as
    ARGOCD_APP_PARAMETERS JSON; each option is a parameter of the same name. Arrays become
    comma-separated lists, as in a ConfigMap.
    """
    raw = env.get("ARGOCD_APP_PARAMETERS")
    data = {}
    if raw:
        try:
            params = json.loads(raw)
        except ValueError:
            params = []
        for p in params if isinstance(params, list) else []:
            if not isinstance(p, dict) or "name" not in p:
                continue
            if "string" in p:
                data[p["name"]] = str(p["string"])
            elif "array" in p:
                data[p["name"]] = ",".join(str(x) for x in p["array"] or [])
    else:
        for opt in config_mod.OPTIONS:
            key = f"PARAM_{_param_name(opt.name)}"
            if key in env:
                data[opt.name] = env[key]
    if not data:
        return None
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "argocd-parameters"}, "data": data}


def load_config_file(path: str) -> tuple[object, list]:
    docs, problems = function.load_file(path, DEFAULT_LIMITS)
    docs = [d for d in docs if d]
    if problems:
        return None, problems
    if len(docs) > 1:
        return None, [Problem(f"{path}: expected one functionConfig object, found {len(docs)}")]
    return (docs[0] if docs else None), []


def _emit(outcome, plain: list) -> tuple[str, list[str], int]:
    lines = stderr_lines(outcome)
    if outcome.exit_code:
        return "", lines, outcome.exit_code
    if not plain:
        outcome.results.append({"message": NOTHING_TO_APPLY, "severity": ERROR})
        lines = stderr_lines(outcome)
        return "", lines, 1
    return dump_all(plain), lines, 0


def expand(paths: list[str], cwd: str, env: dict, mode: str | None = None):
    """The Outcome of expanding the files under `paths` as `render` does (config marker, Argo CD
    parameters, default namespace), with the problems of reading them first among its results."""
    fc, problems = None, []
    marker = os.path.join(cwd, CONFIG_FILE)
    if os.path.isfile(marker):
        fc, problems = load_config_file(marker)
    if fc is None and not problems:
        fc = config_from_argocd_env(env)
    cfg, _ = config_mod.parse(fc)
    items, read_problems = read_items(paths or ["."], cwd, cfg.limits)
    if mode is not None:
        fc = _with_mode(fc, mode)
    outcome = function.run(items, fc, base_dir=cwd, default_namespace=env.get("ARGOCD_APP_NAMESPACE", ""))
    outcome.results[:0] = [output.result(p, None) for p in problems + read_problems]
    return outcome


def render(paths: list[str], cwd: str, env: dict, mode: str | None = None) -> tuple[str, list[str], int]:
    """(stdout, stderr lines, exit code) for `expand-trainjobs render|validate [PATH...]`."""
    outcome = expand(paths, cwd, env, mode)
    if outcome.config.mode == "validate":
        lines = stderr_lines(outcome)
        return "", lines, outcome.exit_code
    out, lines, code = _emit(outcome, output.plain_items(outcome.items, outcome.config.output == "all"))
    # Argo CD trims one trailing newline from a plugin's stdout, which would take the final line
    # break of a literal block ending the last document with it. A closing `---` line absorbs the
    # trim; every reader skips the empty document it opens.
    return (out + "---\n" if out else out), lines, code


def _with_mode(fc, mode: str):
    if fc is None or config_mod.is_placeholder(fc):
        return {"apiVersion": config_mod.CONFIG_API_VERSION, "kind": config_mod.CONFIG_KIND, "spec": {"mode": mode}}
    fc = dict(fc)
    if fc.get("kind") == "ConfigMap":
        fc["data"] = {**(fc.get("data") or {}), "mode": mode}
    else:
        fc["spec"] = {**(fc.get("spec") or {}), "mode": mode}
    return fc


def kustomize_plugin(config_path: str, stdin: bytes, env: dict, cwd: str) -> tuple[str, list[str], int]:
    """Legacy exec plugin: argv[1] is the config file; stdin is empty (generator) or a YAML stream."""
    fc, problems = load_config_file(config_path)
    base = env.get("KUSTOMIZE_PLUGIN_CONFIG_ROOT") or cwd
    cfg, _ = config_mod.parse(fc)
    items: list = []
    if stdin.strip():
        try:
            docs = load_all(stdin, cfg.limits)
        except YAMLInputError as e:
            return "", [f"expand-trainjobs: FAILED: input is not valid YAML: {e}"], 1
        for d in docs:
            if isinstance(d, dict) and isinstance(d.get("items"), list) and str(d.get("kind", "")).endswith("List"):
                items.extend(d["items"])
            elif d is not None:
                items.append(d)
    generator = not items
    outcome = function.run(items, fc, base_dir=base, default_namespace="")
    outcome.results[:0] = [output.result(p, None) for p in problems]
    if not generator:
        # Transformer: inputs go back as they came (kustomize keeps its identity annotation), with the
        # generated objects after their TrainJobs.
        return _emit(outcome, outcome.items)
    plain = output.plain_items(outcome.items, outcome.config.output == "all")
    if outcome.config.output == "all":
        plain += [res.without_client_annotations(r.origin) for r in outcome.rendered if r.position is None]
    return _emit(outcome, plain)
