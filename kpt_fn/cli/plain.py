"""Plain modes: YAML files in, plain manifests out (Argo CD CMP `render`, kustomize legacy exec plugin).

Neither client understands a ResourceList: Argo CD flattens anything with `items` and drops results,
and a kustomize legacy plugin speaks a plain `---` stream. So these modes print only objects to apply,
report through stderr and the exit code. Empty output is a result when the app is configured (its
expand-trainjobs.yaml, `--config FILE`, Argo CD parameters, the kustomize plugin's config) and holds no
TrainJob: ending a run's last TrainJob is a commit, and the client prunes (Argo CD's automated sync
itself refuses to prune every resource unless `allowEmpty` is set: argo-cd v3.5.1
controller/appcontroller.go:2431-2439). Without any configuration empty output is still a failure: a
mistyped path must not reach a client that prunes.
"""

from __future__ import annotations

import json
import os

from kpt_fn import config as config_mod
from kpt_fn import apps, argocd, function, output, sources
from kpt_fn import resource as res
from kpt_fn.problems import ERROR, WARNING, Problem
from kpt_fn.cli import stderr
from kpt_fn.results import Result, Summary, from_problem
from kpt_fn.yamlio import DEFAULT_LIMITS, YAMLInputError, dump_all, load_all

CONFIG_FILE = sources.MARKER_FILE
NOTHING_TO_APPLY = (
    f"no objects to apply and no {CONFIG_FILE} here (a mistyped path?): refusing to print empty output "
    f"(Argo CD would prune everything); an app that holds no TrainJob on purpose keeps its {CONFIG_FILE}"
)
# stderr's second line when a configured app renders nothing: a run ended by removing its last TrainJob.
EMPTY_RENDER = (
    "  [info] nothing to apply: no TrainJob here, so the output is empty (a run ended by removing its TrainJob; "
    "a pruning client deletes what was applied: Argo CD on a manual sync with prune, or automatically with "
    "syncPolicy.automated.allowEmpty: true; docs/lifecycle.md, \"End a run\")"
)
PARAMETERS_ENV = "ARGOCD_APP_PARAMETERS"


def _param_name(name: str) -> str:
    """The option's name as Argo CD spells a parameter's environment variable: upper case, every
    character but A-Z, 0-9 and _ replaced by _ (a loop: no regex compiled on every start-up for it)."""
    return "".join(c if c in _PARAM_CHARS else "_" for c in name.upper())


_PARAM_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def _parameter_values(raw: str) -> tuple[dict, list]:
    """Option values from ARGOCD_APP_PARAMETERS, and a problem for each parameter that cannot be one."""
    try:
        params = json.loads(raw)
    except ValueError as e:
        return {}, [Problem(f"{PARAMETERS_ENV} is not valid JSON ({e}); no parameter is used", rule=argocd.RULE_PARAMETER)]
    except RecursionError:  # json's decoder recurses once per level: a list nested 100,000 deep
        return {}, [Problem(f"{PARAMETERS_ENV} is nested too deeply to be read; no parameter is used", rule=argocd.RULE_PARAMETER)]
    if params is None:  # Argo CD's way of saying "no parameters"
        return {}, []
    if not isinstance(params, list):
        return {}, [Problem(f"{PARAMETERS_ENV} must be a JSON list of parameters, found {_json_type(params)}; no parameter is used", rule=argocd.RULE_PARAMETER)]
    data, problems = {}, []
    for i, p in enumerate(params):
        where = f"{PARAMETERS_ENV}[{i}]"
        if not isinstance(p, dict):
            problems.append(Problem(f"{where} must be an object with a name, found {_json_type(p)}; ignored", rule=argocd.RULE_PARAMETER))
            continue
        name = p.get("name")
        if not isinstance(name, str) or not name:
            problems.append(Problem(f"{where} has no name (a non-empty string), found {_json_type(name)}; ignored", rule=argocd.RULE_PARAMETER))
            continue
        where = f"parameter {name!r}"
        if p.get("map"):
            problems.append(Problem(f"{where} is a map parameter: expand-trainjobs takes string and array parameters only; ignored", rule=argocd.RULE_PARAMETER))
        elif "string" in p:
            if not isinstance(p["string"], str):
                problems.append(Problem(f"{where}: string must be a string, found {_json_type(p['string'])}; ignored", rule=argocd.RULE_PARAMETER))
                continue
            data[name] = p["string"]
        elif "array" in p:
            values = p["array"] if p["array"] is not None else []
            if not isinstance(values, list) or not all(isinstance(x, str) for x in values):
                problems.append(Problem(f"{where}: array must be a list of strings; ignored", rule=argocd.RULE_PARAMETER))
                continue
            data[name] = ",".join(values)
    return data, problems


_JSON_TYPES = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number", float: "a number", type(None): "null"}


def _json_type(value) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)


def config_from_argocd_env(env: dict) -> tuple[dict | None, list]:
    """A ConfigMap-shaped functionConfig from Argo CD plugin parameters (None when there are none),
    and errors for parameters that cannot be read.

    Argo CD sends only the parameters the Application sets (announced defaults are not sent), as
    ARGOCD_APP_PARAMETERS JSON; each option is a parameter of the same name. Arrays become
    comma-separated lists, as in a ConfigMap.
    """
    raw = env.get(PARAMETERS_ENV)
    data, problems = {}, []
    if raw:
        data, problems = _parameter_values(raw)
    else:
        for opt in config_mod.OPTIONS:
            key = f"PARAM_{_param_name(opt.name)}"
            if key in env:
                data[opt.name] = env[key]
    if not data:
        return None, problems
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "argocd-parameters"}, "data": data}, problems


def _ignored_parameters(env: dict) -> Problem | None:
    """A warning naming the Argo CD parameters that a functionConfig in the marker file overrides."""
    fc, _ = config_from_argocd_env(env)
    names = sorted((fc or {}).get("data") or {})
    if not names:
        return None
    return Problem(
        f"Argo CD parameter(s) {', '.join(names)} ignored: {CONFIG_FILE} holds the functionConfig "
        "(set the options there, or leave the file empty to use parameters)",
        severity=WARNING, rule=argocd.RULE_PARAMETERS_IGNORED
    )


def load_config_file(path: str) -> tuple[object, list]:
    docs, problems = sources.load_file(path, DEFAULT_LIMITS)
    docs = [d for d in docs if d]
    if problems:
        return None, problems
    if len(docs) > 1:
        return None, [Problem(f"{path}: expected one functionConfig object, found {len(docs)}", rule=config_mod.RULE_INVALID)]
    return (docs[0] if docs else None), []


def _in_file(fc, path: str):
    """The functionConfig marked with the file it came from (the annotation kpt uses), so that its
    problems name that file and line; objects without metadata are left as they are."""
    if not isinstance(fc, dict) or config_mod.is_placeholder(fc) or not isinstance(fc.get("metadata", {}), dict):
        return fc
    md = dict(fc.get("metadata") or {})
    ann = md.get("annotations")
    if ann is not None and not isinstance(ann, dict):
        return fc
    md["annotations"] = {**(ann or {}), res.PATH: path}
    return {**fc, "metadata": md}


def _emit(outcome, plain: list, root: str, may_be_empty: bool, name_from: str | None = None,
          cwd: str | None = None) -> tuple[str, list[str], int]:
    """(stdout, stderr lines, exit code); `may_be_empty`: empty output is the app's result, not a failure.
    Files are named relative to `cwd` (the directory the command ran in), else as the run names them
    (relative to the app directory `root`); `name_from`: one of several apps, named on its findings."""
    empty = not outcome.exit_code and not plain
    if empty and not may_be_empty:
        outcome.results.append(Result(NOTHING_TO_APPLY, rule=output.RULE_NOTHING_TO_APPLY))
    shown = [r for r in outcome.results if r.shown and r.file and not r.lineno]
    if shown:  # only then are files read again: each finding names its line (kpt_fn.lines)
        from kpt_fn import lines as file_lines

        file_lines.locate(shown, root)
    lines = stderr.lines(outcome, root, name_from or cwd, _app(root, name_from))
    if outcome.exit_code:
        return "", lines, outcome.exit_code
    if empty:
        lines.insert(1, EMPTY_RENDER)
    return dump_all(plain), lines, 0


def _app(root: str, name_from: str | None) -> str:
    """The app directory as findings name it when several apps are shown together ("" for one app)."""
    return os.path.relpath(root, name_from).replace(os.sep, "/") if name_from is not None else ""


def configured(root: str, env: dict, config: str | None) -> bool:
    """Whether the app says what it is: `--config FILE`, its marker file, or Argo CD parameters. Only a
    configured app may render nothing (the marker file is what opts an Argo CD app in)."""
    if config is not None or os.path.isfile(os.path.join(root, CONFIG_FILE)):
        return True
    return config_from_argocd_env(env)[0] is not None


def app_dir(paths: list[str], cwd: str) -> tuple[str, list[str]]:
    """(root, paths relative to it): `render DIR` renders DIR as Argo CD renders the app at DIR
    (its marker file, paths relative to it), from whatever working directory."""
    if len(paths) == 1 and os.path.isdir(os.path.join(cwd, paths[0])):
        return os.path.normpath(os.path.join(cwd, paths[0])), ["."]
    return cwd, paths or ["."]


STDIN = "-"  # `render -`, `validate -`: a YAML stream on stdin instead of files


def _stdin_items(data: bytes, limits) -> tuple[list, list]:
    """The objects of a YAML stream read from stdin (a List flattened), and what is wrong with it."""
    try:
        docs = load_all(data, limits)
    except YAMLInputError as e:
        return [], [Problem(f"stdin: not valid YAML: {e}", rule=sources.RULE_UNREADABLE)]
    items = []
    for d in docs:
        if sources.is_list(d):
            items.extend(d["items"])
        elif d is not None:
            items.append(d)
    return items, []


def expand(paths: list[str], cwd: str, env: dict, mode: str | None = None, strict: bool = False,
           trainer_version: str | None = None, *, namespace: str | None = None, config: str | None = None,
           stdin: bytes | None = None, checkout=None):
    """The Outcome of expanding the files under `paths` as `render` does (config marker, Argo CD
    parameters, default namespace), with the problems of reading them first among its results.
    A single directory is the app directory (app_dir). The command line's `--namespace`, `--config
    FILE` and `-` (the objects are `stdin`) come as keywords; `checkout`: a git revision's files
    (kpt_fn.review.sides.Side, for diff), whose root is the repository's and through which the reader
    writes each path before it reads it."""
    from_stdin = STDIN in paths
    named = [p for p in paths if p != STDIN]
    root, paths = app_dir(named, cwd)
    if from_stdin and not named:
        paths = []  # `render -`: stdin alone, not the working directory too
    # Under the Argo CD sidecar, configured paths may reach the whole repository (a monorepo's shared
    # runtimes), not only the app directory; in a git checkout the same (the working tree's top level:
    # CI and pre-commit judge the app as Argo CD will); anywhere else, the app directory is the root.
    # A revision that diff reads is a checkout of its own: its root is the repository's.
    repository = checkout.top if checkout is not None else argocd.repository_root(root, env)
    worktree = None  # the git working tree's top level, when that is what confines the app
    if repository is None:
        repository = worktree = argocd.git_top_level(root)
    confine = (repository, sources.REPOSITORY_ROOT) if repository is not None else None
    reader = sources.Reader.from_env(root, env, label=sources.APP_DIR, confine_to=confine,
                                     prepare=None if checkout is None else checkout.prepare)
    fc, problems = None, []
    if config is not None:  # --config FILE: this file is the functionConfig, whatever is in the app
        fc, problems = load_config_file(os.path.join(cwd, config))
        fc = _in_file(fc, os.path.relpath(os.path.join(cwd, config), root))
    elif os.path.isfile(os.path.join(root, CONFIG_FILE)):
        # A marker that links out of the app would make another file the functionConfig.
        marker, problems = reader.confined(CONFIG_FILE, CONFIG_FILE)
        if marker is not None:
            fc, problems = load_config_file(marker)
            fc = _in_file(fc, CONFIG_FILE)
    if config_mod.is_placeholder(fc) and not problems and config is None:
        # No marker, an empty one, or kpt's placeholder ConfigMap (`function-input` without data): no
        # config of its own, so the Application's parameters configure the run -- never dropped unseen.
        params, problems = config_from_argocd_env(env)
        fc = fc if params is None else params
    elif not config_mod.is_placeholder(fc):
        ignored = _ignored_parameters(env)
        problems += [ignored] if ignored else []
    if mode is not None:
        fc = _with_option(fc, "mode", mode)
    if strict:  # --strict: the command line can turn it on, never off
        fc = _with_option(fc, "strict", True)
    if trainer_version is not None:  # --trainer-version wins over the config's trainerVersion
        fc = _with_option(fc, "trainerVersion", trainer_version)
    if namespace is not None:  # --namespace wins over the config's namespace
        fc = _with_option(fc, "namespace", namespace)
    if config is None and paths == ["."]:
        problems += apps.configs_below(root)
    parsed = config_mod.parse(fc)  # once: the files' limits, then the function
    items, read_problems = reader.read_paths(paths, parsed.config.limits) if paths else ([], [])
    if from_stdin:
        more, stdin_problems = _stdin_items(stdin or b"", parsed.config.limits)
        items, read_problems = items + more, read_problems + stdin_problems
    outcome = function.run(items, parsed, function.Door(
        base_dir=root, default_namespace=env.get("ARGOCD_APP_NAMESPACE", ""), reader=reader,
        returns_inputs=parsed.config.mode == "validate" and _client_returns_inputs(root), env=env,
    ))
    outcome.results[:0] = [from_problem(p) for p in problems + read_problems]
    for r in outcome.results:
        if r.file and not r.field:  # a whole object: its line is where the read found its document
            r.lineno = reader.document_lines.get((r.file, r.index), 0)
            r.column = 1 if r.lineno else 0
    if worktree is not None:
        # What Argo CD's repo-server would refuse about the whole repository (kpt_fn.reposerver): in
        # a git working tree only; the sidecar runs after the repo-server has judged the checkout,
        # and a revision diff reads is judged by gitrev.read_tree.
        from kpt_fn import reposerver

        outcome.results[:0] = reposerver.refusals(worktree, root, env, parsed.config.limits.max_bytes)
    return outcome


# Files that make a directory a kustomization or a kpt package: their clients apply the input items
# along with what is rendered, so `validate` there reports TrainJobs and runtimes not marked local-config.
CLIENT_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization", "Kptfile")


def _client_returns_inputs(root: str) -> bool:
    return any(os.path.isfile(os.path.join(root, name)) for name in CLIENT_FILES)


def _unmarked_as_errors(outcome) -> None:
    """On kubectl's legacy exec plugin route the plugin's stderr is seen only when it fails, so a
    TrainJob or runtime that would reach the cluster unmarked is an error there, unless `output: all`
    says the inputs are meant for the cluster."""
    if outcome.config.output == "all":
        return
    field = f"metadata.annotations[{res.LOCAL_CONFIG}]"
    for i, r in enumerate(outcome.results):
        if r.severity == WARNING and r.field == field:
            outcome.results[i] = Result(
                r.message + "; an error on this route (kubectl shows a legacy plugin's messages only when it fails; "
                "`output: all` in the config keeps the inputs deliberately)",
                ERROR, r.resource, r.field, r.file, r.index, r.rule, r.count)


def render(paths: list[str], cwd: str, env: dict, mode: str | None = None, strict: bool = False,
           fmt: str = "text", trainer_version: str | None = None, name_from: str | None = None,
           find_apps: bool = False, **flags) -> tuple[str, list[str], int]:
    """(stdout, stderr lines, exit code) for `expand-trainjobs render|validate [--strict]
    [--trainer-version V] [-n NS] [--config FILE] [PATH...|-]`; `fmt` is validate's output format
    (kpt_fn.formats); `flags` are expand's keywords. Several directories are several apps (kpt_fn.apps);
    `name_from`: files are named relative to it (the working directory, when several apps are shown);
    `find_apps`: PATHS are searched for apps, and the output says which it found."""
    if find_apps:  # the apps below PATHS (default .), found as kpt_fn.apps.find finds them
        tops, found = apps.find_all(paths, cwd)
        if not found:
            return "", [Summary(False, "no app found"), apps.found_line(tops, [])], 1
        # Shown as several apps even when one is found: each finding names its app, and the JSON
        # report lists `apps` (what CI's diff step loops over).
        # and every TrainJob file below PATHS that no app found reads (kpt_fn.orphans): an error
        from kpt_fn import orphans  # only when searching for apps

        judged = orphans.judge(tops, found, cwd)
        out, lines, code = _several([[a] for a in found], cwd, env, mode, strict, fmt, trainer_version, judged, **flags)
        return out, [orphans.summary(lines[0], judged, strict), apps.found_line(tops, found)] + judged["lines"] + lines[1:], code
    runs = apps.groups(paths, cwd)
    if len(runs) > 1:
        return _several(runs, cwd, env, mode, strict, fmt, trainer_version, **flags)
    outcome = expand(paths, cwd, env, mode, strict, trainer_version, **flags)
    root = app_dir(paths, cwd)[0]
    if outcome.config.mode == "validate":
        return _validated(outcome, root, cwd, fmt, name_from)
    keep = outcome.config.output == "all"
    namespace = outcome.config.namespace or env.get("ARGOCD_APP_NAMESPACE", "")
    outcome.results += output.duplicates(outcome.items, namespace, keep, config_mod.is_config_object)
    out, lines, code = _emit(outcome, _plain_items(outcome), root, configured(root, env, flags.get("config")), name_from, cwd)
    return out + argocd_safe_end(out), lines, code


def _several(runs: list, cwd: str, env: dict, mode, strict, fmt, trainer_version, judged: dict | None = None,
             **flags) -> tuple[str, list[str], int]:
    """Several apps, each run exactly as if alone (its own config, names, root); merged only to be
    shown (kpt_fn.apps), files named from the working directory. A failing app fails the command:
    render then prints nothing at all, as a single failing app does. `judged`: what --find-apps found
    beside the apps (kpt_fn.orphans.judge): its errors fail the command too, its findings join the report."""
    judged = judged or {"findings": [], "errors": 0, "warnings": 0}
    failed_beside = 1 if judged["errors"] or (strict and judged["warnings"]) else 0
    if (mode or "") == "validate" and fmt != "text":
        reports, catalogs, done = [], [], []
        for paths in runs:
            outcome = expand(paths, cwd, env, mode, strict, trainer_version, **flags)
            report, catalog = _report(outcome, app_dir(paths, cwd)[0], cwd)
            reports.append((app_name(paths), report))
            catalogs.append(catalog)
            done.append((app_name(paths), [outcome.summary], outcome.exit_code))
        from kpt_fn import formats, orphans

        lines, code = apps.merge_lines(done)
        merged = orphans.with_findings(apps.merge_reports(reports, lines[0]), judged)
        catalog = _union_catalog(catalogs + [[r.as_dict() for r in orphans.RULES]])
        return formats.write("validate", fmt, merged, rules=catalog), lines, max(code, failed_beside)
    outs, done = [], []
    for paths in runs:
        out, lines, code = render(paths, cwd, env, mode, strict, fmt, trainer_version, name_from=cwd, **flags)
        outs.append(out)
        done.append((app_name(paths), lines, code))
    lines, code = apps.merge_lines(done)
    code = max(code, failed_beside)
    return ("" if code else apps.join_streams(outs)), lines, code


def app_name(paths: list[str]) -> str:
    """How an app is named in merged output: its directory as given (`(files)` for files and stdin)."""
    return paths[0].rstrip("/") if len(paths) == 1 and paths[0] != STDIN else "(files)"


END_LINE = "# end of the rendered objects\n"


def argocd_safe_end(out: str) -> str:
    """What to append so that Argo CD's trim of one trailing newline (cmpserver/plugin/plugin.go,
    runCommand: strings.TrimSuffix(output, "\n")) changes nothing: a comment line when the last
    document reads differently without its final line break (it ends with a block scalar that keeps
    its line break), nothing otherwise: no empty document at the end."""
    if not out:
        return ""
    at = out.rfind("\n---\n")
    last = out[at + 5:] if at >= 0 else (out[4:] if out.startswith("---\n") else out)
    if "|" not in last and ">" not in last:  # no block scalar can end it
        return ""
    return "" if load_all(last) == load_all(last[:-1]) else END_LINE


def _validated(outcome, root: str, cwd: str, fmt: str, name_from: str | None = None) -> tuple[str, list[str], int]:
    """validate's output: the findings with their lines, on stderr (text: the same lines as every
    mode's stderr) or stdout (the other formats)."""
    from kpt_fn import lines

    lines.locate([r for r in outcome.results if r.shown], root)
    shown = stderr.lines(outcome, root, name_from or cwd, _app(root, name_from))
    if fmt == "text":
        return "", shown, outcome.exit_code
    from kpt_fn import formats

    report, catalog = _report(outcome, root, cwd)
    return formats.write("validate", fmt, report, rules=catalog), shown, outcome.exit_code


def _report(outcome, root: str, cwd: str) -> tuple[dict, list]:
    """(the findings report of a run, the rules catalogue of its release)."""
    from kpt_fn import rules, upstream
    from kpt_fn.review import findings

    return findings.collect(outcome, root, cwd), rules.rules(upstream.bundle(outcome.config.trainerVersion))


def _union_catalog(catalogs: list[list]) -> list:
    """The rules of every app's release, each id once (apps may render for different releases)."""
    seen, out = set(), []
    for catalog in catalogs:
        for rule in catalog:
            if rule["id"] not in seen:
                seen.add(rule["id"])
                out.append(rule)
    return out


def _plain_items(outcome) -> list:
    return output.plain_items(outcome.items, outcome.config.output == "all", config_mod.is_config_object, outcome.stale)


def _with_option(fc, name: str, value):
    """`fc` with one option set by the command line (a ConfigMap holds it as a string)."""
    if fc is None or config_mod.is_placeholder(fc):
        return {"apiVersion": config_mod.CONFIG_API_VERSION, "kind": config_mod.CONFIG_KIND, "spec": {name: value}}
    fc = dict(fc)
    if fc.get("kind") == "ConfigMap":
        text = ("true" if value else "false") if isinstance(value, bool) else value
        fc["data"] = {**(fc.get("data") or {}), name: text}
    else:
        fc["spec"] = {**(fc.get("spec") or {}), name: value}
    return fc


def kustomize_plugin(config_path: str, stdin: bytes, env: dict, cwd: str) -> tuple[str, list[str], int]:
    """Legacy exec plugin: argv[1] is the config file; stdin is empty (generator) or a YAML stream."""
    fc, problems = load_config_file(config_path)
    base = env.get("KUSTOMIZE_PLUGIN_CONFIG_ROOT") or cwd
    parsed = config_mod.parse(fc)  # once: stdin's and the files' limits, then the function
    cfg = parsed.config
    items: list = []
    if stdin.strip():
        try:
            docs = load_all(stdin, cfg.limits)
        except YAMLInputError as e:
            return "", [Summary(False, f"input is not valid YAML: {e}")], 1
        for d in docs:
            if sources.is_list(d):
                items.extend(d["items"])
            elif d is not None:
                items.append(d)
    generator = not items
    reader = sources.Reader.from_env(base, env, label=sources.KUSTOMIZATION_DIR, limits=cfg.limits)
    outcome = function.run(items, parsed, function.Door(
        base_dir=base, default_namespace="", reader=reader, kustomization_root=base if generator else None, env=env,
    ))
    outcome.results[:0] = [from_problem(p) for p in problems]
    if not generator:
        # Transformer: inputs go back as they came (kustomize keeps its identity annotation), with the
        # generated objects after their TrainJobs.
        _unmarked_as_errors(outcome)
        return _emit(outcome, outcome.items, base, True)
    plain = _plain_items(outcome)
    if outcome.config.output == "all":
        plain += [res.without_client_annotations(r.origin) for r in outcome.rendered if r.position is None]
    return _emit(outcome, plain, base, True)  # argv[1] is its config: an empty generator is a result
