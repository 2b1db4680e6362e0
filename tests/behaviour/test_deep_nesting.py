"""Nesting just within maxDepth's maximum (1000 levels, docs/limits.md) goes through every walk of a run
without a RecursionError, and one level more is a clear error naming the field (issue 33 point 6).

Every route runs the console script as clients do: render, validate in each format, report, KRM mode
(stdin), diff between two revisions and admission with the cluster's policies. The deep value is a
TrainJob field the schema does not declare (found: `unknown field`, at its line) or an unrelated item that
passes through; a TrainJob itself cannot nest deeper than its schema and still render.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "fixtures" / "examples" / "torch-job"
PLATFORM = ROOT / "fixtures" / "admission" / "platform"
MAX = 1000  # config.LIMIT_MAXIMA["max_depth"]
CONFIG = "apiVersion: fn.kpt.dev/v1alpha1\nkind: ExpandTrainJobs\nspec:\n  maxDepth: 1000\n{more}"
BROKEN = ("internal error", "Recursion", "Traceback", "could not compare")


def nested(levels: int) -> str:
    """A flow mapping `levels` deep, on one line."""
    return "{a: " * levels + "leaf" + "}" * levels


def deep_trainjob(depth: int, name: str = "torch-job") -> str:
    # the document is level 1, spec 2, trainer 3, extra 4: its value's innermost map is level `depth`
    text = (EXAMPLE / "trainjob.yaml").read_text().replace("name: torch-job", f"name: {name}")
    return text.replace("    numNodes: 3\n", f"    numNodes: 3\n    extra: {nested(depth - 4)}\n")


def deep_passenger(depth: int, leaf: str = "leaf") -> str:
    # the document is level 1, spec 2: its value's innermost map is level `depth`
    return ("apiVersion: example.com/v1\nkind: Anything\nmetadata:\n  name: deep\nspec: "
            + nested(depth - 2).replace("leaf", leaf) + "\n")


def _app(root: Path, *files: tuple[str, str], more: str = "") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "runtime.yaml").write_text((EXAMPLE / "runtime.yaml").read_text())
    (root / "expand-trainjobs.yaml").write_text(CONFIG.format(more=more))
    for name, text in files:
        (root / name).write_text(text)
    return root


def _env(**more) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "EXPAND_TRAINJOBS_"))}
    return {**env, **more}


def _run(fn, args, cwd, stdin=None, env=None):
    return subprocess.run([fn, *args], cwd=cwd, input=stdin, capture_output=True, text=True, env=env or _env(),
                          timeout=600)


def _at_line_13(stderr: str) -> bool:
    """The finding names trainjob.yaml at line 13, however the stderr line places it."""
    return re.search(r"trainjob\.yaml(:| line |: line |\S*:)13\b", stderr) is not None


def _unbroken(done) -> str:
    both = done.stdout + done.stderr
    assert not any(b in both for b in BROKEN), both[-2000:]
    return both


ROUTES = [["render", "."], ["validate", "."], *(["validate", "--format", f, "."] for f in ("json", "sarif", "junit", "github")),
          ["report", "."], ["report", "--format", "json", "."]]


@pytest.mark.parametrize("args", ROUTES, ids=[" ".join(a) for a in ROUTES])
def test_a_trainjob_field_nested_to_the_limit_is_found_on_every_route(fn, tmp_path, args):
    app = _app(tmp_path / "app", ("trainjob.yaml", deep_trainjob(MAX)))
    done = _run(fn, args, app)
    both = _unbroken(done)
    assert done.returncode == 1
    assert 'unknown field \\"spec.trainer.extra\\"' in both or 'unknown field "spec.trainer.extra"' in both \
        or "unknown field &quot;spec.trainer.extra&quot;" in both, both[-2000:]
    if args == ["render", "."]:
        assert _at_line_13(done.stderr)  # the line too, in a file that deep


@pytest.mark.parametrize("args", ROUTES, ids=[" ".join(a) for a in ROUTES])
def test_an_unrelated_item_nested_to_the_limit_passes_every_route(fn, tmp_path, args):
    app = _app(tmp_path / "app", ("trainjob.yaml", (EXAMPLE / "trainjob.yaml").read_text()),
               ("other.yaml", deep_passenger(MAX)))
    done = _run(fn, args, app)
    _unbroken(done)
    assert done.returncode == 0, done.stderr


def test_one_level_more_is_an_error_naming_the_field(fn, tmp_path):
    app = _app(tmp_path / "app", ("trainjob.yaml", deep_trainjob(MAX + 1)))
    done = _run(fn, ["render", "."], app)
    _unbroken(done)
    assert done.returncode == 1
    assert "nesting deeper than 1000 levels (maxDepth) under spec.trainer.extra.a.a.a…" in done.stderr
    assert _at_line_13(done.stderr)
    # the default maxDepth, 100, the same way
    (app / "expand-trainjobs.yaml").unlink()
    (app / "trainjob.yaml").write_text(deep_trainjob(101))
    done = _run(fn, ["render", "."], app)
    assert "nesting deeper than 100 levels (maxDepth) under spec.trainer.extra.a.a.a…" in done.stderr
    assert _at_line_13(done.stderr)


def _item(text: str) -> str:
    lines = text.strip().splitlines()
    return "- " + lines[0] + "\n" + "".join("  " + line + "\n" for line in lines[1:])


def test_krm_mode_keeps_every_item_and_names_the_deep_field(fn, tmp_path):
    # the ResourceList and its items list take two levels of the limit
    items = [(EXAMPLE / "trainjob.yaml").read_text(), (EXAMPLE / "runtime.yaml").read_text(),
             deep_passenger(MAX - 2), deep_trainjob(MAX - 2, name="bad-job")]
    stdin = ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + "".join(map(_item, items))
             + "functionConfig:\n  apiVersion: fn.kpt.dev/v1alpha1\n  kind: ExpandTrainJobs\n  spec:\n    maxDepth: 1000\n")
    done = _run(fn, [], tmp_path, stdin=stdin, env=_env(EXPAND_TRAINJOBS_MAX_DEPTH="1000"))
    _unbroken(done)
    assert done.returncode == 1
    assert 'unknown field "spec.trainer.extra"' in done.stderr
    for name in ("torch-job", "torch-runtime", "deep", "bad-job"):  # every item comes back
        assert f"name: {name}\n" in done.stdout, name


@pytest.mark.skipif(shutil.which("git") is None, reason="git is needed on PATH")
def test_diff_reads_both_revisions_of_an_app_nested_to_the_limit(fn, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = _env(HOME=str(home), GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.com")
    repo = _app(tmp_path / "repo", ("trainjob.yaml", (EXAMPLE / "trainjob.yaml").read_text()),
                ("other.yaml", deep_passenger(MAX)))
    git = ["git", "-C", str(repo)]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True, env=env)
    subprocess.run([*git, "add", "-A"], check=True, env=env)
    subprocess.run([*git, "commit", "-q", "-m", "v1"], check=True, env=env)
    (repo / "other.yaml").write_text(deep_passenger(MAX, leaf="changed"))
    (repo / "trainjob.yaml").write_text((EXAMPLE / "trainjob.yaml").read_text().replace("numNodes: 3", "numNodes: 2"))
    subprocess.run([*git, "commit", "-q", "-am", "v2"], check=True, env=env)
    done = _run(fn, ["diff", "HEAD~1", "HEAD", "--format", "json"], repo, env=env)
    _unbroken(done)
    assert done.returncode in (0, 1), done.stderr
    assert [j["trainJob"] for j in json.loads(done.stdout)["trainJobs"]] == ["default/torch-job"]


def test_admission_runs_beside_an_item_nested_to_the_limit(fn, tmp_path):
    app = _app(tmp_path / "app", ("trainjob.yaml", (EXAMPLE / "trainjob.yaml").read_text()),
               ("other.yaml", deep_passenger(MAX)), more="  policyDirs: [policies]\n")
    (app / "policies").mkdir()
    for f in PLATFORM.glob("*.yaml"):
        if f.name != "runtime.yaml":
            (app / "policies" / f.name).write_text(f.read_text())
    done = _run(fn, ["validate", "--format", "json", "."], app)
    _unbroken(done)
    assert done.returncode in (0, 1), done.stderr


DEEP_PARAM_POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: deep-param}
spec:
  paramKind: {apiVersion: example.com/v1, kind: Anything}
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  validations:
  - expression: "has(params.spec) && params.spec {op} params.spec && params.spec != object.spec"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: deep-param}
spec:
  policyName: deep-param
  validationActions: [Deny]
  paramRef: {name: deep, namespace: default, parameterNotFoundAction: Deny}
"""


@pytest.mark.parametrize("op,code", [("==", 0), ("!=", 1)])
def test_a_policy_param_nested_to_the_limit_is_compared_whole(fn, tmp_path, op, code):
    # CEL's equality walks the param to its innermost level, for each Pod the policy admits (or denies)
    app = _app(tmp_path / "app", ("trainjob.yaml", (EXAMPLE / "trainjob.yaml").read_text()),
               more="  policyDirs: [policies]\n")
    (app / "policies").mkdir()
    (app / "policies" / "policy.yaml").write_text(DEEP_PARAM_POLICY.replace("{op}", op) + "---\n"
                                                  + deep_passenger(MAX).replace("name: deep", "name: deep\n  namespace: default"))
    done = _run(fn, ["validate", "."], app)
    _unbroken(done)
    assert done.returncode == code, done.stderr
    assert ("'deep-param' with binding 'deep-param' denied request" in done.stderr) == bool(code)
