"""Several apps in one command: which paths are apps, where a repository's apps are, and one view of them.

`validate apps/team-a apps/team-b` must judge each app exactly as `validate apps/team-a` alone does:
its own expand-trainjobs.yaml (namespace, policy, profile, trainerVersion, runtimeDirs, strict), its own
names. A single run over both directories would read neither app's config, and CI would go green on a
guardrail violation (issue 32). So every directory given is an app run on its own; what they found is
merged here only to be shown, each finding naming its app. Pure functions on plain data: the command
line runs the apps (kpt_fn.cli.plain) and hands their outputs here.
"""

from __future__ import annotations

import os

from kpt_fn.problems import WARNING, Problem, Rule
from kpt_fn.results import Summary
from kpt_fn.sources import MARKER_FILE
from kpt_fn.yamlio import DEFAULT_LIMITS, YAMLInputError, load_all

RULE_CONFIGS_IGNORED = "apps/configs-ignored"
RULES = [Rule(RULE_CONFIGS_IGNORED, MARKER_FILE, "apps below a directory read as one app are named: their configs do not apply there")]

STDIN = "-"
# The clients' files that name the function in an app that runs under them (kpt's pipeline, a
# kustomization's generators or transformers): such a directory is an app even when its
# functionConfig has another name.
CLIENT_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization", "Kptfile")
FUNCTION_NAMES = ("expand-trainjobs", "ExpandTrainJobs")


def groups(paths: list[str], cwd: str) -> list[list[str]]:
    """The runs `paths` stand for: each directory is an app of its own; files and `-` (stdin), if
    any, are one more run in the working directory, as before. A single path is one run."""
    named = [p for p in paths if p != STDIN]
    dirs = [p for p in named if os.path.isdir(os.path.join(cwd, p))]
    if len(paths) < 2 or not dirs:
        return [list(paths)]
    rest = [p for p in paths if p not in dirs]
    out = [[d] for d in dict.fromkeys(dirs)]
    return out + ([rest] if rest else [])


def _names_function(path: str) -> bool:
    """Whether a client file names the function anywhere in its values (an image, an exec, a
    generator's config file); comments do not count."""
    try:
        with open(path, "rb") as f:
            docs = load_all(f.read(DEFAULT_LIMITS.max_bytes), DEFAULT_LIMITS)
    except (OSError, YAMLInputError, ValueError):
        return False
    stack = list(docs)
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, str) and any(n in value for n in FUNCTION_NAMES):
            return True
    return False


def is_app(directory: str) -> bool:
    """A directory holding the function's config, or a kustomization or Kptfile that names the function."""
    if os.path.isfile(os.path.join(directory, MARKER_FILE)):
        return True
    return any(os.path.isfile(p) and _names_function(p) for p in (os.path.join(directory, n) for n in CLIENT_FILES))


def find(top: str, cwd: str) -> list[str]:
    """The apps below `top` (relative to `cwd`), sorted, as paths relative to `cwd`. An app's own
    subdirectories belong to it and are not searched; hidden directories (.git) are skipped; links
    are not followed (the apps are the repository's, not what it points to)."""
    found = []
    start = os.path.normpath(os.path.join(cwd, top))
    for here, dirs, _ in os.walk(start):
        if is_app(here):
            found.append(os.path.relpath(here, cwd).replace(os.sep, "/"))
            dirs[:] = []
            continue
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
    return sorted(found)


def configs_below(directory: str) -> list:
    """A warning when `directory`, read as one app, is no app itself but holds apps: walking it reads
    their files but never their configs (an app's marker is skipped as a file to render), so their
    namespace, policy and profile would silently not apply (issue 32: CI went green over a guardrail);
    `--find-apps` judges each by its own. Nothing when the directory is an app (its subdirectories
    belong to it) or holds none."""
    if is_app(directory):
        return []
    found = find(".", directory)
    if not found:
        return []
    shown = ", ".join(found[:3]) + (f" and {len(found) - 3} more" if len(found) > 3 else "")
    return [Problem(
        f"{len(found)} app(s) below this directory have their own {MARKER_FILE} ({shown}): read here as files of "
        "one app without a config, their configs (namespace, policy, profile, trainerVersion, runtimeDirs) do not "
        "apply; `--find-apps` checks each app by its own config (or name the app directories)",
        severity=WARNING, rule=RULE_CONFIGS_IGNORED,
    )]


def find_all(paths: list[str], cwd: str) -> tuple[list[str], list[str]]:
    """(the directories searched, the apps found below them): `--find-apps [PATH...]` (default `.`)."""
    tops = [p for p in paths if p != STDIN] or ["."]
    return tops, list(dict.fromkeys(a for top in tops for a in find(top, cwd)))


def found_line(tops: list[str], apps: list[str]) -> str:
    """What `--find-apps` says it found (stderr's second line)."""
    where = ", ".join(tops)
    if not apps:
        return f"  [error] found no app under {where} (no {MARKER_FILE}, and no kustomization or Kptfile naming the function)"
    return f"  [info] found {len(apps)} app(s) under {where}: {', '.join(apps)}"


def join_streams(outs: list[str]) -> str:
    """The apps' plain YAML streams as one stream: a document separator between non-empty ones."""
    kept = [o for o in outs if o]
    text = ""
    for o in kept:
        if text and not o.startswith("---"):
            text += "" if text.endswith("\n") else "\n"
            text += "---\n"
        text += o
    return text


def _with_app(line: str, app: str) -> str:
    """An app's stderr line as the merged stderr shows it: a finding (`path:line:col: severity: ...`,
    kpt_fn.formats.text) names its place under the app already (its file from the working directory,
    or the app directory itself) and stays as it is; an indented note is prefixed with the app."""
    if not line[:1].isspace():
        return line
    return f"  app {app}: {line.strip()}"


def merge_lines(runs: list[tuple[str, list, int]]) -> tuple[list, int]:
    """(stderr lines, exit code) of several apps' runs `(app, stderr lines, exit code)`: one summary
    first (how many apps failed, which), then each app's own summary and findings, the app named on
    each; the exit code is the worst of them."""
    failed = [app for app, _, code in runs if code]
    code = max((c for _, _, c in runs), default=0)
    detail = (f"{len(failed)} of {len(runs)} app(s) failed ({', '.join(failed)})" if failed
              else f"{len(runs)} app(s), each ok")
    lines: list = [Summary(not failed, detail)]
    for app, app_lines, _ in runs:
        if not app_lines:
            continue
        first, *rest = app_lines
        verdict = f"{'ok' if first.ok else 'FAILED'}: {first.detail}" if isinstance(first, Summary) else first.strip()
        lines.append(f"  app {app}: {verdict}")
        lines.extend(_with_app(line, app) for line in rest)
    return lines, code


def merge_reports(reports: list[tuple[str, dict]], summary: str) -> dict:
    """One findings report (kpt_fn.findings.collect) of several apps: the findings and TrainJobs of
    each, in order, each naming its `app` (a TrainJob's finding indexes moved along); counts summed;
    `summary` is the run's (merge_lines' first line: how many apps failed, which), the line a CI log
    ends with, not every app's summary run together."""
    findings, trainjobs = [], []
    for app, report in reports:
        offset = len(findings)
        findings.extend({**f, "app": app} for f in report["findings"])
        trainjobs.extend({**t, "app": app, "findings": [i + offset for i in t["findings"]]} for t in report["trainJobs"])
    return {
        "summary": str(summary),
        "errors": sum(r["errors"] for _, r in reports),
        "warnings": sum(r["warnings"] for _, r in reports),
        "apps": [app for app, _ in reports],
        "trainJobs": trainjobs,
        "findings": findings,
    }


def _from_cwd(app_dir: str, file: str | None):
    """A file an app's report names relative to the app directory, named from the working directory
    instead (`apps/team-b/trainjob.yaml`; `../../platform/runtimes/x.yaml` becomes `platform/runtimes/x.yaml`);
    absolute paths (an extra root's) and no file stay as they are."""
    if not file or os.path.isabs(file):
        return file
    return os.path.normpath(os.path.join(app_dir, file)).replace(os.sep, "/")


def _finding_of(app: str, app_dir: str, finding: dict) -> dict:
    return {**finding, "app": app, "file": _from_cwd(app_dir, finding.get("file"))}


def merge_review(reports: list[tuple[str, str, dict]]) -> dict:
    """One review report (kpt_fn.review.report) of several apps `(app, app directory from the working
    directory, report)`: every TrainJob and finding naming its `app` and its file from the working
    directory; the totals per namespace over all of them (apps sharing a namespace share its quota)."""
    from kpt_fn.review.report import namespace_totals  # report's data only: render never needs it

    jobs, general = [], []
    for app, app_dir, data in reports:
        for j in data["trainJobs"]:
            jobs.append({**j, "app": app, "file": _from_cwd(app_dir, j["file"]),
                         "findings": [_finding_of(app, app_dir, f) for f in j["findings"]]})
        general.extend(_finding_of(app, app_dir, f) for f in data["findings"])
    jobs.sort(key=lambda j: (j["namespace"], j["name"], j["app"]))
    return {
        "apps": [app for app, _, _ in reports],
        "trainJobs": jobs,
        "namespaces": namespace_totals(jobs),
        "findings": general,
        "errors": sum(d["errors"] for _, _, d in reports),
        "warnings": sum(d["warnings"] for _, _, d in reports),
    }
