"""Bad and hostile input (fixtures/bad/<case>/): clear errors, nothing lost, nothing executed.

Each case directory holds the input (`input.yaml`, `input.json` or `input.bin`, or a `generate:` recipe
in expected.yaml for inputs too big to store) and `expected.yaml`:

    description: what is wrong with the input
    exit_code: 1
    stdin_error: true        # stdin is not a ResourceList: no items, one error result, one stderr line
    items_preserved: true    # every input item comes back, in order, unchanged
    results:                 # each must match one actual result
    - severity: error
      message: exact text    # or message_contains: a substring
      field: spec.trainer.numNodes          # or field_contains
      resourceRef: {kind: TrainJob, name: train}
      file: trainjobs.yaml
      pending: reason        # not reported yet by code owned elsewhere: an unmatched pending result
                             # (and then a different exit code) makes the case xfail instead of fail;
                             # every other check still applies
    env: {EXPAND_TRAINJOBS_MAX_INPUT_BYTES: "1000"}
    generate: {prefix: ..., repeat: "[", times: 100000, suffix: ...}
    subprocess: true         # also run through the console script (same stdout, no traceback)
    must_not_exist: /tmp/... # a file the input would create if anything in it were executed
    output_contains: [...]   # text some string value of the output ResourceList must (not) hold
    output_not_contains: [...]

Relative paths in the functionConfig (runtimeDirs) are relative to the case directory.
"""

from __future__ import annotations

import builtins
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from kpt_fn.cli import krm
from kpt_fn import resource as res
from kpt_fn import yamlio
from kpt_fn.yamlio import read as yamlio_read
from kpt_fn.yamlio.limits import may_nest_deeply

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "fixtures" / "bad"
INPUT_NAMES = ("input.yaml", "input.json", "input.bin")


# --- shared with test_random_input.py -----------------------------------------------------------------------


def _limits(env: dict | None):
    try:
        return krm.limits_from_env(env or {})
    except krm.InputError:
        return krm.DEFAULT_LIMITS


def input_items(data: bytes, env: dict | None = None) -> list | None:
    """The items of `data` as the function parses them, or None when stdin is not a ResourceList."""
    try:
        krm.limits_from_env(env or {})
        return krm.parse_resource_list(data, _limits(env))["items"]
    except krm.InputError:
        return None


def _same_item(given, returned) -> bool:
    if given == returned or repr(given) == repr(returned):  # repr: a NaN (YAML .nan) is equal to nothing
        return True
    # A generated object found among the inputs is replaced in place by its new rendering (output.py).
    return (
        isinstance(given, dict)
        and isinstance(returned, dict)
        and not res.is_trainjob(given)
        and res.identity(given) == res.identity(returned)
    )


def missing_items(given: list, returned: list) -> list[int]:
    """Indexes of input items that do not come back, in order, in `returned`."""
    missing, j = [], 0
    for i, item in enumerate(given):
        k = j
        while k < len(returned) and not _same_item(item, returned[k]):
            k += 1
        if k == len(returned):
            missing.append(i)
        else:
            j = k + 1
    return missing


def check_invariants(data: bytes, stdout: str, stderr: list[str], code: int, env: dict | None = None) -> dict:
    """What holds for every input: a ResourceList on stdout whose results agree with the exit code, no
    traceback, and every parseable input item back. Returns the output ResourceList."""
    assert code in (0, 1), code
    text = "\n".join(stderr)
    assert "Traceback" not in text and "internal error" not in text, text
    out = yamlio.load(stdout, _limits(env))
    assert isinstance(out, dict) and out.get("kind") == "ResourceList", stdout[:500]
    assert out.get("apiVersion") in krm.RESOURCE_LIST_VERSIONS
    results, items = out.get("results"), out.get("items")
    assert isinstance(results, list) and isinstance(items, list)
    errors = [r for r in results if r.get("severity") == "error"]
    assert (code == 1) == bool(errors), (code, results)
    for r in results:
        assert isinstance(r.get("message"), str) and r["message"], r
        assert r.get("severity") in ("error", "warning", "info"), r
    given = input_items(data, env)
    if given is None:
        assert code == 1 and items == [] and len(results) == 1, results
        assert stderr == [f"expand-trainjobs: FAILED: {results[0]['message']}"], stderr
    else:
        missing = missing_items(given, items)
        assert not missing, f"input items {missing} did not come back"
    return out


# --- the corpus ---------------------------------------------------------------------------------------


def case_dirs() -> list[Path]:
    return sorted(p for p in CORPUS.iterdir() if (p / "expected.yaml").is_file())


def load_spec(case: Path) -> dict:
    return yamlio.load((case / "expected.yaml").read_bytes())


def load_case(case: Path) -> tuple[dict, bytes]:
    spec = load_spec(case)
    gen = spec.get("generate")
    if gen:
        data = (gen.get("prefix", "") + gen["repeat"] * gen["times"] + gen.get("suffix", "")).encode()
    else:
        found = [case / n for n in INPUT_NAMES if (case / n).is_file()]
        assert len(found) == 1, f"{case.name}: expected exactly one of {INPUT_NAMES}"
        data = found[0].read_bytes()
    return spec, data


def _matches(actual: dict, want: dict) -> bool:
    if actual.get("severity") != want.get("severity", actual.get("severity")):
        return False
    msg = actual.get("message", "")
    if "message" in want and msg != want["message"]:
        return False
    if "message_contains" in want and want["message_contains"] not in msg:
        return False
    path = (actual.get("field") or {}).get("path", "")
    if "field" in want and path != want["field"]:
        return False
    if "field_contains" in want and want["field_contains"] not in path:
        return False
    ref = actual.get("resourceRef") or {}
    if any(ref.get(k) != v for k, v in (want.get("resourceRef") or {}).items()):
        return False
    if "file" in want and (actual.get("file") or {}).get("path") != want["file"]:
        return False
    return True


def check_case(spec: dict, data: bytes, stdout: str, stderr: list[str], code: int) -> list[str]:
    """Assert the case's expectations; returns the reasons of pending results that did not match."""
    out = check_invariants(data, stdout, stderr, code, spec.get("env"))
    pending = []
    if code != spec["exit_code"]:
        # A pending result usually decides the exit code too.
        waiting = [w["pending"] for w in spec.get("results") or [] if w.get("pending")]
        assert waiting, (code, out["results"])
        pending.append(f"exit code {code}, not {spec['exit_code']}")
    if spec.get("stdin_error"):
        assert input_items(data, spec.get("env")) is None, "stdin_error case whose input parses"
    if spec.get("items_preserved"):
        # check_invariants has checked that they all came back.
        assert input_items(data, spec.get("env")) is not None, "items_preserved case whose input does not parse"
    for want in spec.get("results") or []:
        if not any(_matches(r, want) for r in out["results"]):
            if want.get("pending"):
                pending.append(want["pending"])
                continue
            raise AssertionError(f"no result matches {want}\nactual results:\n" + yamlio.dump(out["results"]))
    strings = "\n".join(_strings(out))
    for text in spec.get("output_contains") or []:
        assert text in strings, text
    for text in spec.get("output_not_contains") or []:
        assert text not in strings, text
    return pending


def _strings(value):
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            yield v
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)


def _params():
    out = []
    for case in case_dirs():
        spec = load_spec(case)
        marks = [pytest.mark.xfail(reason=spec["xfail"], strict=False)] if spec.get("xfail") else []
        out.append(pytest.param(case, id=case.name, marks=marks))
    return out


@pytest.fixture
def nothing_runs_or_connects(monkeypatch):
    """Records any attempt to start a process or open a network connection from inside the function."""
    attempts: list[str] = []

    def refuse(what):
        def _refused(*args, **kwargs):
            attempts.append(f"{what}{args[:2]!r}")
            raise PermissionError(f"{what} is not allowed in this test")

        return _refused

    for mod, name in [
        (subprocess, "Popen"),
        (os, "system"),
        (os, "popen"),
        (os, "execv"),
        (os, "execve"),
        (os, "posix_spawn"),
        (os, "fork"),
        (socket, "create_connection"),
        (socket, "getaddrinfo"),
        (socket.socket, "connect"),
        (socket.socket, "connect_ex"),
        (socket.socket, "sendto"),
    ]:
        if hasattr(mod, name):
            monkeypatch.setattr(mod, name, refuse(f"{getattr(mod, '__name__', mod)}.{name}"))
    real_import = builtins.__import__

    def guarded_import(name, *args, **kwargs):
        if name.split(".")[0] in ("urllib3", "requests", "http", "ftplib", "smtplib", "ctypes"):
            attempts.append(f"import {name}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", guarded_import)
    return attempts


def test_corpus_is_complete():
    names = {p.name for p in case_dirs()}
    for wanted in (
        "invalid-yaml", "missing-apiversion-kind", "non-mapping-items", "duplicate-keys", "trainjob-numnodes-string",
        "trainjob-negative-nodes", "trainjob-null-runtimeref", "runtime-missing-injection-job",
        "runtime-missing-trainer-container", "runtime-source-conflict", "runtime-dir-symlink-loop",
        "duplicate-trainjob-names", "generated-name-too-long", "non-utf8", "huge-input", "deep-flow-nesting",
        "deep-block-nesting", "deep-json-nesting", "billion-laughs", "local-tag", "python-object-tag",
        "functionconfig-wrong-kind",
    ):
        assert wanted in names


@pytest.mark.parametrize("case", _params())
def test_case(case: Path, nothing_runs_or_connects):
    spec, data = load_case(case)
    marker = spec.get("must_not_exist")
    if marker and os.path.exists(marker):
        os.unlink(marker)
    stdout, stderr, code = krm.process(data, base_dir=str(case), env=spec.get("env") or {})
    assert nothing_runs_or_connects == []
    if marker:
        assert not os.path.exists(marker), f"{marker} was created: something in the input was executed"
    pending = check_case(spec, data, stdout, stderr, code)
    if pending:
        pytest.xfail("; ".join(pending))


def _clean_env(extra: dict | None = None) -> dict:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C"}
    env.update(extra or {})
    return env


@pytest.mark.parametrize("case", [p for p in _params() if load_spec(p.values[0]).get("subprocess")])
def test_case_through_console_script(case: Path, fn: str):
    spec, data = load_case(case)
    p = subprocess.run([fn], input=data, capture_output=True, cwd=case, env=_clean_env(spec.get("env")), timeout=120)
    stderr = p.stderr.decode("utf-8").splitlines()
    stdout = p.stdout.decode("utf-8")
    check_case(spec, data, stdout, stderr, p.returncode)
    in_process = krm.process(data, base_dir=str(case), env=spec.get("env") or {})
    assert stdout == in_process[0]


def test_debug_flag_shows_tracebacks_only_when_asked(fn: str, tmp_path: Path):
    # An internal error: a functionConfig whose runtimeDirs entry is not a string cannot reach the
    # engine (config rejects it), so provoke one by making the package unimportable instead.
    broken = tmp_path / "kpt_fn"
    (broken / "cli").mkdir(parents=True)
    (broken / "__init__.py").write_text("__version__ = '0'\n")
    (broken / "cli" / "krm.py").write_text("raise RuntimeError('boom')\n")
    for name in ("cli/__init__.py", "cli/dispatch.py", "cli/modes.py", "stdio.py", "trainer_names.py"):  # the fallback needs no other module
        shutil.copy(ROOT / "kpt_fn" / name, broken / name)
    data = b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n"
    code = "import sys; sys.path.insert(0, sys.argv[1]); from kpt_fn.cli import main; sys.argv[1:] = []; main()"
    for debug, traceback_shown in (("", False), ("1", True)):
        env = _clean_env({"EXPAND_TRAINJOBS_DEBUG": debug})
        p = subprocess.run([sys.executable, "-c", code, str(tmp_path)], input=data, capture_output=True, env=env, timeout=60)
        assert p.returncode == 1
        err = p.stderr.decode()
        assert "internal error: RuntimeError: boom" in err
        assert ("Traceback" in err) == traceback_shown, err
        out = yamlio.load(p.stdout)
        assert out["kind"] == "ResourceList" and out["results"][0]["severity"] == "error"


# --- deep nesting without libyaml's own limit ---------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000 + "]" * 100_000,
        "{a: " * 100_000 + "1" + "}" * 100_000,
        "- " * 5_000 + "x\n",
        "".join(" " * i + "k:\n" for i in range(1_200)),
    ],
    ids=["flow-seq", "flow-map", "compact-seq", "block-map"],
)
def test_deep_nesting_is_an_error_even_if_libyaml_had_no_limit(text, monkeypatch):
    # With a libyaml that does not stop at 1000 levels, the C composer would recurse once per level;
    # the pre-scan must send such text to the pure-Python loader, whose recursion is bounded.
    monkeypatch.setattr(yamlio_read, "loader_bounds_nesting", lambda: False)
    assert may_nest_deeply(text)
    with pytest.raises(yamlio.YAMLInputError, match="nesting deeper than"):
        yamlio.load_all(text)


def test_prescan_keeps_ordinary_documents_on_the_c_loader():
    text = (ROOT / "fixtures" / "bad" / "runtime-defined-twice" / "input.yaml").read_text()
    assert not may_nest_deeply(text)
    script = "- |\n  if [[ -f x ]]; then echo {ok}; fi\n" * 2_000
    assert not may_nest_deeply(script)


def test_prescan_false_alarm_still_parses(monkeypatch):
    # Brackets in strings are counted too: an unlucky document takes the slow path and still loads.
    monkeypatch.setattr(yamlio_read, "loader_bounds_nesting", lambda: False)
    text = "- echo '[' \n" * 400
    assert may_nest_deeply(text)
    assert yamlio.load_all(text) == [["echo '['"] * 400]


def test_yaml_duplicate_and_alias_limits_apply_to_files_read_by_the_function(tmp_path: Path):
    # runtimeDirs are read with the functionConfig's limits.
    (tmp_path / "runtimes").mkdir()
    (tmp_path / "runtimes" / "r.yaml").write_text("a: &a [1, 2, 3, 4, 5]\nb: [*a, *a, *a, *a]\n")
    data = (
        b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig:\n"
        b"  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cfg\n  data:\n"
        b"    runtimeDirs: runtimes\n    maxAliasNodes: '10'\n"
    )
    stdout, stderr, code = krm.process(data, base_dir=str(tmp_path), env={})
    out = check_invariants(data, stdout, stderr, code)
    assert code == 1
    assert any("document expands to more than 10 nodes through aliases" in r["message"] for r in out["results"])


def test_fifo_in_a_runtime_directory_does_not_hang(tmp_path: Path):
    (tmp_path / "runtimes").mkdir()
    os.mkfifo(tmp_path / "runtimes" / "pipe.yaml")
    data = (
        b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig:\n"
        b"  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cfg\n  data:\n    runtimeDirs: runtimes\n"
    )
    stdout, stderr, code = krm.process(data, base_dir=str(tmp_path), env={})
    out = check_invariants(data, stdout, stderr, code)
    assert any(r["message"].endswith("pipe.yaml: not a regular file") for r in out["results"])


def test_env_limits_can_raise_the_stdin_limit():
    spec, data = load_case(CORPUS / "input-over-env-limit")
    _, _, code = krm.process(data, base_dir=str(CORPUS / "input-over-env-limit"), env={"EXPAND_TRAINJOBS_MAX_INPUT_BYTES": "2000"})
    assert code == 0
    deep = b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- " + b"[" * 150 + b"]" * 150 + b"\n"
    assert krm.process(deep, env={})[2] == 1
    stdout, stderr, code = krm.process(deep, env={"EXPAND_TRAINJOBS_MAX_DEPTH": "200"})
    out = check_invariants(deep, stdout, stderr, code, {"EXPAND_TRAINJOBS_MAX_DEPTH": "200"})
    assert code == 1 and out["results"][0]["message"].startswith("items[0]: not an object")


def test_stdin_beyond_the_limit_is_not_read_to_the_end(fn: str):
    # 8 MiB more than a 1 KiB limit: the function reads limit + 1 bytes and answers.
    data = b"#" * (8 << 20)
    p = subprocess.run([fn], input=data, capture_output=True, env=_clean_env({"EXPAND_TRAINJOBS_MAX_INPUT_BYTES": "1024"}), timeout=60)
    assert p.returncode == 1
    assert p.stderr.decode().startswith("expand-trainjobs: FAILED: input is 1025 bytes, more than the limit of 1024")


def test_output_is_utf8_whatever_the_locale(fn: str):
    data = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: café\n".encode()
    env = _clean_env({"LANG": "en_US.ISO-8859-1", "LC_ALL": "en_US.ISO-8859-1", "PYTHONIOENCODING": "latin-1", "PYTHONUTF8": "0"})
    p = subprocess.run([fn], input=data, capture_output=True, env=env, timeout=60)
    assert p.returncode == 0, p.stderr.decode()
    assert "name: café".encode() in p.stdout


def test_broken_pipe_is_quiet(fn: str):
    spec, data = load_case(CORPUS / "runtime-source-conflict")
    p = subprocess.Popen([fn], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=CORPUS / "runtime-source-conflict", env=_clean_env())
    p.stdout.close()  # the reader is gone before the function writes
    _, err = p.communicate(data, timeout=60)
    assert b"Traceback" not in err and b"Exception ignored" not in err, err.decode()


# --- no network, unprivileged, read-only working directory -----------------------------------------


GOOD_CASE = "runtime-dir-symlink-loop"  # renders (exit 0) and reads a runtime directory
BAD_CASE = "python-object-tag"


def _sandboxed_runs(prefix: list[str], fn: str, workdir: Path | None = None):
    """Run a good and a hostile case under `prefix`; compare with the in-process result."""
    for name in (GOOD_CASE, BAD_CASE):
        case = CORPUS / name
        spec, data = load_case(case)
        cwd = case
        if workdir is not None:
            cwd = workdir / name
            shutil.copytree(case, cwd, symlinks=True)
            for d, _, _ in os.walk(cwd):
                os.chmod(d, 0o555)
        env = _clean_env({"HOME": "/nonexistent"})
        p = subprocess.run([*prefix, fn], input=data, capture_output=True, cwd=cwd, env=env, timeout=120)
        stderr = p.stderr.decode("utf-8").splitlines()
        check_case(spec, data, p.stdout.decode("utf-8"), stderr, p.returncode)
        assert p.stdout.decode("utf-8") == krm.process(data, base_dir=str(case), env={})[0]


def _unshare_net() -> list[str]:
    if shutil.which("unshare") is None:
        pytest.skip("unshare is not installed")
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True, timeout=30)
    if probe.returncode != 0:
        pytest.skip(f"unshare -n is not permitted here: {probe.stderr.decode().strip()}")
    return ["unshare", "-n", "--"]


def _as_nobody(fn: str, request) -> tuple[list[str], str]:
    """setpriv to uid/gid 65534 and an interpreter that uid can read (else the shared fixture's)."""
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv is not installed")
    if os.geteuid() != 0:
        pytest.skip("needs root to switch to uid 65534")
    prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
    probe = subprocess.run([*prefix, fn, "--version"], capture_output=True, cwd="/", timeout=60, env=_clean_env())
    if probe.returncode != 0:
        # The project venv is not readable by uid 65534: use the world-readable install (may skip).
        fn = request.getfixturevalue("readable_fn")
    return prefix, fn


def test_runs_without_network(fn: str):
    _sandboxed_runs(_unshare_net(), fn)


def test_runs_unprivileged_in_a_read_only_directory(fn: str, request):
    prefix, fn = _as_nobody(fn, request)
    # Not under pytest's tmp_path: its parents are 0700, and the function resolves runtimeDirs from
    # the absolute working directory.
    workdir = Path(tempfile.mkdtemp(prefix="expand-trainjobs-ro-"))
    try:
        workdir.chmod(0o755)
        _sandboxed_runs(prefix, fn, workdir=workdir)
    finally:
        for d, _, _ in os.walk(workdir):
            os.chmod(d, 0o755)
        shutil.rmtree(workdir)


def test_runs_unprivileged_without_network_in_read_only_root(fn: str, request):
    prefix, fn = _as_nobody(fn, request)
    net = _unshare_net()
    _, data = load_case(CORPUS / "non-mapping-items")
    p = subprocess.run([*net, *prefix, fn], input=data, capture_output=True, cwd="/", env=_clean_env({"HOME": "/nonexistent"}), timeout=120)
    check_invariants(data, p.stdout.decode(), p.stderr.decode().splitlines(), p.returncode)
    assert p.returncode == 1


def test_a_crash_costs_one_trainjob_not_the_package(monkeypatch):
    from kpt_fn import engine

    real = engine.expand

    def expand(trainjob, runtime, options=None, form=None):
        if trainjob["metadata"]["name"] == "second":
            raise KeyError("boom")
        return real(trainjob, runtime, options)

    monkeypatch.setattr(engine, "expand", expand)
    _, data = load_case(CORPUS / "runtime-missing-trainer-container")
    data = data.replace(b"name: worker", b"name: node").replace(b"name: main", b"name: node")
    stdout, stderr, code = krm.process(data, env={})
    assert code == 1
    out = yamlio.load(stdout)
    assert not missing_items(krm.parse_resource_list(data)["items"], out["items"])
    assert [o["metadata"]["name"] for o in out["items"] if o["kind"] == "JobSet"] == ["train"]
    [bad] = [r for r in out["results"] if r["severity"] == "error"]
    assert bad["resourceRef"]["name"] == "second"
    assert bad["message"].startswith("internal error: KeyError: 'boom'; this TrainJob is not rendered")
    with pytest.raises(KeyError):  # the environment is the caller's (the CLI passes os.environ)
        krm.process(data, env={"EXPAND_TRAINJOBS_DEBUG": "1"})
