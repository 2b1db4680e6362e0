"""kpt's function test runner, emulated: the Go package github.com/kptdev/kpt pkg/test/runner (at the
kpt release the tests use, v1.0.0-beta.56) is a library for `go test`, which cannot run here, so this
module does what it does, step for step, with the same files and commands.

What the runner does (pkg/test/runner/runner.go, config.go and util.go at v1.0.0-beta.56):
* a test case is any directory with a `.expected/` directory (config.go isTestCase, ScanTestCases);
* `.expected/config.yaml` holds the case's settings, all optional (config.go TestCaseConfig and
  EvalTestCaseConfig; the keys are their json names, KNOWN_KEYS below): unknown keys are a mistake here
  (the Go decoder would ignore them silently);
* the case is copied (`cp -r`) to a temporary directory, made a git repository and committed; then
  `.expected/setup.sh`, if any, runs there; then `.expected/exec.sh` (run with bash in the copy) or else
  `kpt fn render|eval` of the copy with the flags the settings ask for; the command runs twice in the
  same copy (runFnRender / runFnEval, RunCount 2): the package must be idempotent;
* after each run: the exit code must be `exitCode`; stdout and stderr must contain `stdOut` and
  `stdErr` and match `stdErrRegEx` (first run only); `.expected/results.yaml` must equal the results
  file when present; and `git diff` of the initial commit against everything now in the copy (added and
  committed) must equal `.expected/diff.patch`, both with surrounding whitespace trimmed;
* `.expected/teardown.sh` runs after each run; a failing run (expected) ends the case.
KPT_E2E_UPDATE_EXPECTED=true rewrites diff.patch (and results.yaml) from the first run, as the runner
does; the test calling run_case() then fails, so that an update run is reviewed, never passed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import yaml

EXPECTED = ".expected"
UPDATE_ENV = "KPT_E2E_UPDATE_EXPECTED"
# The json names of TestCaseConfig and its inlined EvalTestCaseConfig (config.go at v1.0.0-beta.56).
KNOWN_KEYS = {
    "exitCode", "stdErr", "stdErrRegEx", "stdOut", "sequential", "imagePullPolicy", "runtimes", "allowExec",
    "allowNetwork", "allowWasm", "skip", "debug", "testType", "disableOutputTruncate", "env",
    "execPath", "image", "args", "network", "includeMetaResources", "fnConfig",
}


class CaseFailed(AssertionError):
    pass


def scan(root: Path) -> list[Path]:
    """Every test case under root (directories holding a `.expected/` directory), sorted."""
    return sorted(p.parent for p in root.rglob(EXPECTED) if p.is_dir())


def config(case: Path) -> dict:
    path = case / EXPECTED / "config.yaml"
    data = (yaml.safe_load(path.read_text()) if path.is_file() else None) or {}
    unknown = sorted(set(data) - KNOWN_KEYS)
    if unknown:
        raise CaseFailed(f"{path}: keys kpt's test runner does not know: {', '.join(unknown)}")
    data.setdefault("testType", "render")
    return data


def _git(pkg: Path, *args: str, env: dict | None = None) -> str:
    p = subprocess.run(["git", *args], cwd=pkg, capture_output=True, text=True, env=env, timeout=60)
    if p.returncode != 0:
        raise CaseFailed(f"git {' '.join(args)} failed in {pkg}: {p.stderr.strip()}")
    return p.stdout


def _commit(pkg: Path, message: str) -> None:
    _git(pkg, "config", "user.name", "none")
    _git(pkg, "config", "user.email", "none")
    _git(pkg, "commit", "-m", message, "--allow-empty")


def _actual_diff(pkg: Path, first: str) -> str:
    _git(pkg, "add", "--all")
    _commit(pkg, "second")
    # util.go gitDiff: the environment is GIT_DIFF_OPTS= and nothing else.
    return _git(pkg, "diff", first, "HEAD", env={"GIT_DIFF_OPTS": ""}).strip()


def _script(case: Path, name: str, pkg: Path, env: dict) -> None:
    script = (case / EXPECTED / name).resolve()
    if script.is_file():
        p = subprocess.run(["bash", str(script)], cwd=pkg, capture_output=True, text=True, env=env, timeout=300)
        if p.returncode != 0:
            raise CaseFailed(f"{name} of {case.name} failed: {p.stdout}{p.stderr}")


def _command(case: Path, cfg: dict, pkg: Path, kpt: str, results_dir: Path | None) -> tuple[list[str], Path | None]:
    exec_sh = (case / EXPECTED / "exec.sh").resolve()
    if exec_sh.is_file():
        return ["bash", str(exec_sh)], pkg
    args = [kpt, "fn", cfg["testType"], str(pkg)]
    if results_dir is not None:
        args += ["--results-dir", str(results_dir)]
    if (case / "out").is_dir():
        args += ["-o", str(pkg / "out")]
    if cfg["testType"] == "render":
        if cfg.get("imagePullPolicy"):
            args += ["--image-pull-policy", cfg["imagePullPolicy"]]
        if cfg.get("allowExec"):
            args.append("--allow-exec")
        if cfg.get("allowWasm"):
            args.append("--allow-alpha-wasm")
        if cfg.get("disableOutputTruncate"):
            args.append("--truncate-output=false")
        return args, None
    if cfg.get("allowWasm"):
        args.append("--allow-alpha-wasm")
    if cfg.get("imagePullPolicy"):
        args += ["--image-pull-policy", cfg["imagePullPolicy"]]
    if cfg.get("network"):
        args.append("--network")
    base = (case / EXPECTED).resolve()
    if cfg.get("image"):
        args += ["--image", cfg["image"]]
    elif cfg.get("execPath"):
        args += ["--exec", str(base / cfg["execPath"])]
    if cfg.get("fnConfig"):
        args += ["--fn-config", str(base / cfg["fnConfig"])]
    if cfg.get("includeMetaResources"):
        args.append("--include-meta-resources")
    if cfg.get("args"):
        args += ["--", *(f"{k}={v}" for k, v in cfg["args"].items())]
    return args, None


def _read_results(results_dir: Path | None) -> str:
    if results_dir is None or not results_dir.is_dir():
        return ""
    files = sorted(results_dir.iterdir())
    if len(files) > 1:
        raise CaseFailed(f"unexpected results files number {len(files)}, should be 0 or 1")
    return files[0].read_text().strip() if files else ""


def run_case(case: Path, kpt: str, env: dict) -> None:
    """Run one case as kpt's test runner does; raises CaseFailed with the runner's kind of message."""
    cfg = config(case)
    if cfg.get("skip"):
        return
    expected_dir = case / EXPECTED
    expected_diff = (expected_dir / "diff.patch").read_text().strip() if (expected_dir / "diff.patch").is_file() else ""
    expected_results = (expected_dir / "results.yaml").read_text().strip() if (expected_dir / "results.yaml").is_file() else ""
    env = {**env, **{k: str(v) for k, v in (cfg.get("env") or {}).items()}}
    tmp = Path(tempfile.mkdtemp(prefix=f"kpt-{'pipeline' if cfg['testType'] == 'render' else 'fn'}-e2e-"))
    try:
        pkg = tmp / case.name
        subprocess.run(["cp", "-r", str(case), str(pkg)], check=True)
        _git(pkg, "init")
        _git(pkg, "add", "--all")
        _commit(pkg, "first")
        first = _git(pkg, "log", "-n", "1", "--pretty=format:%h")
        results_dir = tmp / "results" if (expected_dir / "results.yaml").is_file() else None
        _script(case, "setup.sh", pkg, env)
        for run in range(2):
            args, cwd = _command(case, cfg, pkg, kpt, results_dir)
            p = subprocess.run(args, cwd=cwd, capture_output=True, text=True, env=env, timeout=300)
            if os.environ.get(UPDATE_ENV, "").lower() == "true":
                diff = _actual_diff(pkg, first)
                if diff:
                    (expected_dir / "diff.patch").write_text(diff + "\n")
                if _read_results(results_dir):
                    (expected_dir / "results.yaml").write_text(_read_results(results_dir) + "\n")
                raise CaseFailed(f"{UPDATE_ENV}=true: rewrote {expected_dir}; review the diff and run again without it")
            if p.returncode != cfg.get("exitCode", 0):
                raise CaseFailed(f"{case.name}: actual exit code {p.returncode} doesn't match expected "
                                 f"{cfg.get('exitCode', 0)}\nstdout: {p.stdout[-2000:]}\nstderr: {p.stderr[-4000:]}")
            if run == 0:
                stderr = re.sub(r"/?\w+/kpt-pipeline-e2e-\d+/", "", p.stderr)
                if cfg.get("stdErr", "") not in stderr:
                    raise CaseFailed(f"{case.name}: wanted stderr {cfg['stdErr']!r}, got {stderr!r}")
                if cfg.get("stdErrRegEx") and not re.search(cfg["stdErrRegEx"], stderr):
                    raise CaseFailed(f"{case.name}: unable to match regular expression {cfg['stdErrRegEx']!r}, got {stderr!r}")
                if cfg.get("stdOut", "") not in p.stdout:
                    raise CaseFailed(f"{case.name}: wanted stdout {cfg['stdOut']!r}, got {p.stdout!r}")
                if _read_results(results_dir) != expected_results:
                    raise CaseFailed(f"{case.name}: actual results doesn't match expected\n{_read_results(results_dir)}")
            actual = _actual_diff(pkg, first)
            if actual != expected_diff:
                import difflib

                diff = "\n".join(difflib.unified_diff(expected_diff.splitlines(), actual.splitlines(), "expected", "actual", lineterm=""))
                raise CaseFailed(f"{case.name} (run {run + 1}): actual diff doesn't match expected "
                                 f"({UPDATE_ENV}=true rewrites it):\n{diff}")
            _script(case, "teardown.sh", pkg, env)
            if p.returncode != 0:
                break
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def added_file(diff: str, path: str) -> str:
    """The text of a file the diff adds (`new file` in git's format), e.g. an exec.sh route's output."""
    m = re.search(rf"^diff --git a/{re.escape(path)} b/{re.escape(path)}\nnew file mode \d+\n(?:index .*\n)?"
                  rf"--- /dev/null\n\+\+\+ b/{re.escape(path)}\n@@ -0,0 \+1(?:,\d+)? @@\n((?:[+\\].*\n?)*)", diff, re.M)
    if m is None:
        raise CaseFailed(f"the diff adds no file {path}")
    text, lines = "", m.group(1).splitlines(True)
    for line in lines:
        if line.startswith("\\"):  # "\ No newline at end of file"
            text = text[:-1] if text.endswith("\n") else text
            continue
        text += line[1:]
    return text if text.endswith("\n") or not lines else text
