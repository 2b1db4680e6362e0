"""A hostile environment around the console script: stdout left non-blocking by the parent,
closed, full or abandoned; numbers in the input that would drive huge loops; limit options beyond
what memory allows; a secret seed of every YAML type and tag. Each runs the installed console script,
as kpt, kustomize and Argo CD do. No timings are asserted; the sleeps only make the pipe fill up.
"""

from __future__ import annotations

import fcntl
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from kpt_fn.cli import stderr
from kpt_fn import yamlio
from support.door import run_with

ROOT = Path(__file__).resolve().parents[2]
BAD = ROOT / "fixtures" / "bad"
RL_HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"


def _env(extra: dict | None = None) -> dict:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C"}
    env.update(extra or {})
    return env


def _config_maps(n: int) -> str:
    return "".join(
        f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm-{i}\n    namespace: ml\n  data:\n    k: {'x' * 200}\n"
        for i in range(n)
    )


def _first_line(stderr: bytes) -> str:
    return stderr.decode("utf-8", "replace").split("\n", 1)[0]


# --- output integrity ---------------------------------------------------------------------------------


def _run_nonblocking_stdout(argv: list[str], stdin: bytes, cwd, extra_env: dict) -> tuple[int, bytes, bytes]:
    """Run with a stdout pipe whose write end is O_NONBLOCK (as a Node.js or Go parent may leave it)
    and a reader that starts late and reads slowly, so the writer meets a full pipe again and again."""
    r, w = os.pipe()
    fcntl.fcntl(w, fcntl.F_SETFL, fcntl.fcntl(w, fcntl.F_GETFL) | os.O_NONBLOCK)
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=w, stderr=subprocess.PIPE, cwd=cwd, env=_env(extra_env))
    os.close(w)
    err: list[bytes] = []
    t = threading.Thread(target=lambda: err.append(p.stderr.read()))
    t.start()
    p.stdin.write(stdin)
    p.stdin.close()
    time.sleep(0.5)  # the pipe (64 KiB) fills up long before the reader starts
    chunks = []
    with os.fdopen(r, "rb", buffering=0) as reader:
        while True:
            chunk = reader.read(4096)
            if not chunk:
                break
            chunks.append(chunk)
            time.sleep(0.0005)
    code = p.wait(timeout=120)
    t.join()
    return code, b"".join(chunks), err[0]


@pytest.mark.parametrize("unbuffered", ["", "1"], ids=["buffered", "PYTHONUNBUFFERED"])
def test_nonblocking_stdout_pipe_gets_the_whole_output_krm(fn, tmp_path, unbuffered):
    n = 1000
    data = (RL_HEAD + "items:\n" + _config_maps(n)).encode()
    code, out, err = _run_nonblocking_stdout([fn], data, tmp_path, {"PYTHONUNBUFFERED": unbuffered})
    assert code == 0, err
    rl = yamlio.load(out)
    assert [i["metadata"]["name"] for i in rl["items"]] == [f"cm-{i}" for i in range(n)]
    assert len(out) > 200_000  # several times the pipe's buffer
    assert _first_line(err).startswith("expand-trainjobs: ok:")
    assert b"Exception ignored" not in err and b"Traceback" not in err


def test_nonblocking_stdout_pipe_gets_the_whole_output_render(fn, tmp_path):
    (tmp_path / "cms.yaml").write_text(yamlio.dump_all(yamlio.load(_config_maps(1000))))
    code, out, err = _run_nonblocking_stdout([fn, "render"], b"", tmp_path, {})
    assert code == 0, err
    docs = [d for d in yamlio.load_all(out) if d]
    assert len(docs) == 1000 and docs[-1]["metadata"]["name"] == "cm-999"
    assert b"Exception ignored" not in err


def test_nonblocking_stdin_is_read_to_the_end(fn, tmp_path):
    # The read end of stdin left non-blocking, the input arriving in bursts: no early "end of input".
    n = 500
    data = (RL_HEAD + "items:\n" + _config_maps(n)).encode()
    r, w = os.pipe()
    fcntl.fcntl(r, fcntl.F_SETFL, fcntl.fcntl(r, fcntl.F_GETFL) | os.O_NONBLOCK)
    p = subprocess.Popen([fn], stdin=r, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path, env=_env())
    os.close(r)

    def feed():
        with os.fdopen(w, "wb", buffering=0) as writer:
            for i in range(0, len(data), 16384):
                writer.write(data[i:i + 16384])
                time.sleep(0.02)

    t = threading.Thread(target=feed)
    t.start()
    out, err = p.communicate(timeout=120)
    t.join()
    assert p.returncode == 0, err
    assert len(yamlio.load(out)["items"]) == n


def test_closed_stdout_is_a_failure(fn, tmp_path):
    data = (RL_HEAD + "items:\n" + _config_maps(3)).encode()
    for argv in ([fn], [fn, "render"]):
        (tmp_path / "cms.yaml").write_text(_config_maps(3).replace("- apiVersion", "---\napiVersion").replace("\n  ", "\n"))
        p = subprocess.run(argv, input=data, stderr=subprocess.PIPE, cwd=tmp_path, env=_env(),
                           preexec_fn=lambda: os.close(1), timeout=60)  # `cmd >&-`
        assert p.returncode == 1, p.stderr
        lines = p.stderr.decode().splitlines()
        assert lines[0].startswith("expand-trainjobs: FAILED: could not write the output to stdout"), lines
        assert "closed" in lines[0]
        assert "(the run itself: " in lines[1]


def test_full_device_is_a_failure_with_a_message(fn, tmp_path):
    data = (RL_HEAD + "items:\n" + _config_maps(3)).encode()
    with open("/dev/full", "wb") as full:
        p = subprocess.run([fn], input=data, stdout=full, stderr=subprocess.PIPE, cwd=tmp_path, env=_env(), timeout=60)
    assert p.returncode == 1
    first = _first_line(p.stderr)
    assert first.startswith("expand-trainjobs: FAILED: could not write the output to stdout") and "ENOSPC" in first
    assert b"Exception ignored" not in p.stderr


def test_reader_going_away_is_a_failure(fn, tmp_path):
    data = (RL_HEAD + "items:\n" + _config_maps(1000)).encode()
    r, w = os.pipe()
    p = subprocess.Popen([fn], stdin=subprocess.PIPE, stdout=w, stderr=subprocess.PIPE, cwd=tmp_path, env=_env())
    os.close(w)
    os.close(r)  # nobody will read: the first write meets a broken pipe
    _, err = p.communicate(data, timeout=120)
    assert p.returncode == 1
    assert _first_line(err).startswith("expand-trainjobs: FAILED: could not write the output to stdout (the reader closed the pipe)")
    assert b"Traceback" not in err and b"Exception ignored" not in err


# The shipped example the stdout campaign renders: a runtime and a TrainJob.
EXAMPLE = ROOT / "fixtures" / "examples" / "torch-job"


def _stdout_app(tmp_path: Path) -> None:
    """Two apps (the second one changed) and a kustomize exec plugin config reading the first."""
    for name, nodes in (("app", "3"), ("app2", "4")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "runtime.yaml").write_text((EXAMPLE / "runtime.yaml").read_text())
        (tmp_path / name / "trainjob.yaml").write_text((EXAMPLE / "trainjob.yaml").read_text().replace("numNodes: 3", f"numNodes: {nodes}"))
    (tmp_path / "cfg.yaml").write_text("apiVersion: fn.kpt.dev/v1alpha1\nkind: ExpandTrainJobs\nmetadata:\n  name: x\n"
                                       "spec:\n  files: [app]\n")


_KRM_INPUT = "items:\n" + "".join(
    "- " + (EXAMPLE / name).read_text().replace("\n", "\n  ").rstrip() + "\n"
    for name in ("runtime.yaml", "trainjob.yaml"))
# Every mode that writes stdout, by how it is called (a KRM function with a ResourceList on stdin, with
# and without the streamed output), and the exit status its failures have.
STDOUT_MODES = {
    "krm (streamed)": ([], RL_HEAD + _KRM_INPUT, 1),
    "krm with a report (not streamed)": ([], RL_HEAD + _KRM_INPUT + "functionConfig: {apiVersion: v1, kind: ConfigMap, "
                                         "metadata: {name: c}, data: {report: json}}\n", 1),
    "render": (["render", "app"], "", 1),
    "render -": (["render", "-"], "---\n".join((EXAMPLE / name).read_text()
                                               for name in ("runtime.yaml", "trainjob.yaml")), 1),
    "validate --format json": (["validate", "--format", "json", "app"], "", 1),
    "kustomize-plugin": (["kustomize-plugin", "cfg.yaml"], "", 1),
    "rules": (["rules"], "", 1),
    "runtimes": (["runtimes"], "", 1),
    "argocd-kueue-patch": (["argocd-kueue-patch"], "", 1),
    "report": (["report", "app"], "", 1),
    "diff": (["diff", "app", "app2"], "", 2),
    "diff --trainer-version": (["diff", "--trainer-version", "v2.2.1..v2.3.0", "app"], "", 2),
    "install-kustomize-plugin": (["install-kustomize-plugin", "--dir", "plugins"], "", 1),
}
STDOUT_FAILURES = ["closed", "full", "broken pipe"]
# Each mode with one of the failures, in turn: they are three paths of kpt_fn.stdio, the same for all modes.
STDOUT_CASES = [(mode, STDOUT_FAILURES[i % len(STDOUT_FAILURES)]) for i, mode in enumerate(STDOUT_MODES)]


def _run_failing_stdout(argv: list[str], stdin: bytes, cwd: Path, failure: str) -> subprocess.CompletedProcess:
    if failure == "closed":  # `cmd >&-`
        return subprocess.run(argv, input=stdin, stderr=subprocess.PIPE, cwd=cwd, env=_env(),
                              preexec_fn=lambda: os.close(1), timeout=120)
    if failure == "full":
        with open("/dev/full", "wb") as full:
            return subprocess.run(argv, input=stdin, stdout=full, stderr=subprocess.PIPE, cwd=cwd, env=_env(), timeout=120)
    r, w = os.pipe()
    os.close(r)  # nobody will ever read: the first write meets a broken pipe
    try:
        return subprocess.run(argv, input=stdin, stdout=w, stderr=subprocess.PIPE, cwd=cwd, env=_env(), timeout=120)
    finally:
        os.close(w)


@pytest.mark.parametrize("mode, failure", STDOUT_CASES)
def test_stdout_that_cannot_be_written_fails_every_mode(fn, tmp_path, mode, failure):
    # kpt, kustomize and Argo CD keep what a function writes when it exits 0: in every mode that
    # writes stdout, output that did not all reach it is a failure, said first on stderr, in one line.
    args, stdin, code = STDOUT_MODES[mode]
    _stdout_app(tmp_path)
    p = _run_failing_stdout([fn, *args], stdin.encode(), tmp_path, failure)
    first = _first_line(p.stderr)
    assert p.returncode == code, p.stderr.decode()
    assert first.startswith("expand-trainjobs: FAILED: could not write the output to stdout ("), p.stderr.decode()
    assert first.endswith(": the output is incomplete"), first
    assert b"Traceback" not in p.stderr and b"Exception ignored" not in p.stderr, p.stderr.decode()


def test_every_mode_writing_stdout_is_in_the_stdout_failure_campaign():
    # A new command that writes stdout joins STDOUT_MODES (check-generated writes stderr only).
    from kpt_fn.cli import dispatch

    covered = {mode.split()[0] for mode in STDOUT_MODES} | {"check-generated"}
    assert set(dispatch.COMMANDS) - covered == set()
    assert {failure for _, failure in STDOUT_CASES} == set(STDOUT_FAILURES)


# --- sizes bounded before anything is built ------------------------------------------------------------


def _limited_memory():
    limit = 512 << 20  # the old hostfile for numNodes 2^31-1 took 5.9 GB
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


@pytest.mark.parametrize("case, message", [
    ("mpi-huge-num-nodes", "more than fit in 1048576 bytes"),
    ("flux-huge-num-nodes", "must be less than or equal to 100000"),
])
def test_huge_num_nodes_fail_cleanly_in_bounded_memory(fn, tmp_path, case, message):
    data = (BAD / case / "input.yaml").read_bytes()
    p = subprocess.run([fn], input=data, capture_output=True, cwd=tmp_path, env=_env(), preexec_fn=_limited_memory, timeout=120)
    err = p.stderr.decode()
    assert p.returncode == 1, err
    assert err.startswith("expand-trainjobs: FAILED: 1 error(s)"), err
    assert message in err and "Traceback" not in err and "internal error" not in err
    # render mode, from files
    for item in yamlio.load(data)["items"]:
        name = item["metadata"]["annotations"]["config.kubernetes.io/path"]
        (tmp_path / name).write_text(yamlio.dump(item))
    p = subprocess.run([fn, "render"], capture_output=True, cwd=tmp_path, env=_env(), preexec_fn=_limited_memory, timeout=120)
    assert p.returncode == 1 and p.stdout == b""
    assert message in p.stderr.decode() and b"Traceback" not in p.stderr


def test_hostfile_stops_growing_at_the_configmap_limit(fn, tmp_path):
    # 50,000 hosts pass the first check (at least 10 bytes a line: 500 kB) and the JobSet's own limit
    # (100,000), but their real lines (~30 bytes) do not fit: the text stops growing at 1 MiB.
    rl = yamlio.load((BAD / "mpi-huge-num-nodes" / "input.yaml").read_bytes())
    rl["items"][1]["spec"]["trainer"]["numNodes"] = 50_000
    p = subprocess.run([fn], input=yamlio.dump(rl).encode(), capture_output=True, cwd=tmp_path, env=_env(),
                       preexec_fn=_limited_memory, timeout=120)
    assert p.returncode == 1
    assert "the MPI hostfile ConfigMap would list 50000 hosts" in p.stderr.decode()


# --- limit options and variables -----------------------------------------------------------------------


@pytest.mark.parametrize("option, value, bound", [
    ("maxInputBytes", "100000000000", "1073741824 (1 GiB)"),
    ("maxInputBytes", "1" + "0" * 40, "1073741824 (1 GiB)"),
    ("maxDepth", "1000000000000", "1000"),
    ("maxAliasNodes", "1" + "0" * 900, "100000000"),  # longer integers are YAML errors already
])
@pytest.mark.parametrize("form", ["ExpandTrainJobs", "ConfigMap"])
def test_limit_options_beyond_their_bound_are_errors_naming_the_option(fn, tmp_path, option, value, bound, form):
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "a.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
    if form == "ConfigMap":
        fc = f"  apiVersion: v1\n  kind: ConfigMap\n  metadata: {{name: x}}\n  data:\n    runtimeDirs: r\n    {option}: '{value}'\n"
        prefix = "data"
    else:
        fc = f"  apiVersion: fn.kpt.dev/v1alpha1\n  kind: ExpandTrainJobs\n  metadata: {{name: x}}\n  spec:\n    runtimeDirs: [r]\n    {option}: {value}\n"
        prefix = "spec"
    data = (RL_HEAD + "items: []\nfunctionConfig:\n" + fc).encode()
    p = subprocess.run([fn], input=data, capture_output=True, cwd=tmp_path, env=_env(), preexec_fn=_limited_memory, timeout=60)
    err = p.stderr.decode()
    assert p.returncode == 1 and "internal error" not in err, err
    results = yamlio.load(p.stdout)["results"]
    assert [r["field"]["path"] for r in results if r["severity"] == "error"] == [f"{prefix}.{option}"], results
    # A plain scalar beyond float64's range is a string to every Go reader (go-yaml keeps it so), as
    # it is here; a ConfigMap value is a string of digits, measured as a number.
    beyond_float64 = form == "ExpandTrainJobs" and len(value) > 309
    assert ("must be a positive integer" if beyond_float64 else f"must be at most {bound}") in results[0]["message"]


@pytest.mark.parametrize("variable, value, bound", [
    ("EXPAND_TRAINJOBS_MAX_INPUT_BYTES", "100000000000", "1073741824 (1 GiB)"),
    ("EXPAND_TRAINJOBS_MAX_DEPTH", "1" + "0" * 30, "1000"),
    ("EXPAND_TRAINJOBS_MAX_ALIAS_NODES", "1000000000", "100000000"),
    ("EXPAND_TRAINJOBS_MAX_ALIASES", "9" * 5000, "1000000"),
])
def test_limit_variables_beyond_their_bound_are_errors_naming_the_variable(fn, tmp_path, variable, value, bound):
    data = (RL_HEAD + "items: []\n").encode()
    p = subprocess.run([fn], input=data, capture_output=True, cwd=tmp_path, env=_env({variable: value}), timeout=60)
    assert p.returncode == 1
    first = _first_line(p.stderr)
    assert first.startswith(f"expand-trainjobs: FAILED: {variable}=") and first.endswith(f"must be at most {bound}"), first


# --- the secret seed never appears in any output -------------------------------------------------------

SEED = "s3cr3tSEEDvalue0123"
NUM = "918273645546372819283746"
SEED_VALUES = {
    "int": NUM,
    "float": "918273645546.372819283746",
    "list": f"[{SEED}, {SEED}]",
    "map-value": f"{{k: {SEED}}}",
    "map-key": f"{{{SEED}: v}}",
    "tag-int": f"!!int {SEED}",
    "tag-float": f"!!float {SEED}",
    "tag-bool": f"!!bool {SEED}",
    "tag-timestamp": f"!!timestamp {SEED}",
    "tag-binary": f"!!binary {SEED}!",
    "tag-int-valid": f"!!int {NUM}",
    "tag-str-valid": f"!!str {NUM}",
    "local-tag": f"!seed {SEED}",
    "too-short": "s3cr3tSHORT",
    "string-valid": SEED,
}


def _leaks(blob: bytes) -> list[str]:
    text = blob.decode("utf-8", "replace").lower()
    fragments = [SEED.lower(), "s3cr3t", NUM[:10], NUM[-10:], "372819283746", "918273645546"]
    return [f for f in fragments if f in text]


def _mpi_docs() -> list[dict]:
    # An MPI TrainJob on the shipped deepspeed-distributed runtime.
    return [yamlio.load((ROOT / "fixtures" / "golden" / "v2.3.0" / "mpi" / "mpi-generate-ssh-secret" / "trainjob.yaml").read_text())]


def _config(value: str, kind: str, inline: bool = False) -> str:
    docs = "\n".join("  " + line for line in yamlio.dump({"trainJobs": _mpi_docs()}).splitlines()) + "\n" if inline else ""
    if kind == "ConfigMap":
        return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  mpiSSHSecret: generate\n  secretSeed: {value}\n"
    return (f"apiVersion: fn.kpt.dev/v1alpha1\nkind: ExpandTrainJobs\nmetadata:\n  name: x\nspec:\n"
            f"  mpiSSHSecret: generate\n  secretSeed: {value}\n{docs}")


def _invocation(tmp_path: Path, mode: str, value: str) -> tuple[list[str], bytes]:
    """(arguments, stdin) of a run in `mode` whose functionConfig sets secretSeed to `value` (YAML text)."""
    if mode.startswith("krm"):
        kind = "ConfigMap" if mode == "krm-configmap" else "ExpandTrainJobs"
        items = "".join("- " + yamlio.dump(d).replace("\n", "\n  ").rstrip() + "\n" for d in _mpi_docs())
        fc = "".join("  " + line + "\n" for line in _config(value, kind).splitlines())
        return [], (RL_HEAD + "items:\n" + items + "functionConfig:\n" + fc).encode()
    if mode in ("render", "validate"):
        for i, d in enumerate(_mpi_docs()):
            (tmp_path / f"{i}.yaml").write_text(yamlio.dump(d))
        (tmp_path / "expand-trainjobs.yaml").write_text(_config(value, "ExpandTrainJobs"))
        return [mode], b""
    assert mode == "kustomize-plugin"
    (tmp_path / "cfg.yaml").write_text(_config(value, "ExpandTrainJobs", inline=True))
    return ["kustomize-plugin", "cfg.yaml"], b""


def _in_process(args: list[str], stdin: bytes, cwd: Path) -> tuple[bytes, bytes, int]:
    from kpt_fn.cli import krm, plain

    if not args:
        out, lines, code = krm.process(stdin, base_dir=str(cwd), env={})
    elif args[0] in ("render", "validate"):
        out, lines, code = plain.render([], str(cwd), {}, *(["validate"] if args[0] == "validate" else []))
    else:
        out, lines, code = plain.kustomize_plugin(str(cwd / args[1]), stdin, {}, str(cwd))
    return out.encode(), "".join(line + "\n" for line in lines).encode(), code


MODES = ["krm", "krm-configmap", "render", "validate", "kustomize-plugin"]


def _check_no_seed(label: str, stdout: bytes, stderr: bytes, code: int) -> None:
    assert _leaks(stdout + stderr) == [], (stdout + stderr).decode()[-2000:]
    assert b"Traceback" not in stderr and b"internal error" not in stderr, stderr
    if label in ("string-valid", "tag-str-valid"):
        # A usable seed: the Secret is generated from it, and the seed itself is still nowhere.
        assert code == 0, stderr
    else:
        assert code == 1, stderr


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("label", list(SEED_VALUES))
def test_secret_seed_never_appears_in_any_mode(tmp_path, label, mode):
    # Every type and tag in every mode, in-process (the console script adds no message of its own
    # but the ones the next test checks).
    args, stdin = _invocation(tmp_path, mode, SEED_VALUES[label])
    stdout, stderr, code = _in_process(args, stdin, tmp_path)
    _check_no_seed(label, stdout, stderr, code)
    if code == 0 and mode != "validate":
        assert b"kind: Secret" in stdout


@pytest.mark.parametrize("label, mode", [(label, MODES[i % len(MODES)]) for i, label in enumerate(SEED_VALUES)])
def test_secret_seed_never_appears_through_the_console_script(fn, tmp_path, label, mode):
    args, stdin = _invocation(tmp_path, mode, SEED_VALUES[label])
    p = subprocess.run([fn, *args], input=stdin, capture_output=True, cwd=tmp_path, env=_env(), timeout=60)
    _check_no_seed(label, p.stdout, p.stderr, p.returncode)


def test_sensitive_options_are_marked_on_their_definition():
    from kpt_fn.config import OPTIONS, SENSITIVE, FunctionConfig

    assert SENSITIVE == {"secretSeed"}
    assert SEED not in repr(FunctionConfig(secretSeed=SEED))
    assert SEED not in repr([o for o in OPTIONS if o.sensitive])


# --- start-up: the plain forms need neither click nor an import cycle ----------------------------------

_PROBE = """
import io, json, sys
sys.argv = ["expand-trainjobs"] + sys.argv[1:]
real_stdout = sys.stdout
sys.stdout = io.TextIOWrapper(io.BytesIO())
sys.stdin = io.TextIOWrapper(io.BytesIO(b""))
from kpt_fn import cli
try:
    cli.main()
except SystemExit as e:
    code = e.code
real_stdout.write(json.dumps({"code": code, "click": "click" in sys.modules, "commands": "kpt_fn.cli.commands" in sys.modules}))
"""


@pytest.mark.parametrize("args, uses_click", [
    (["render"], False),
    (["validate"], False),
    (["kustomize-plugin", "cfg.yaml"], False),
    (["cfg.yaml"], False),
    (["rules"], True),
    (["render", "--help"], True),
])
def test_plain_forms_start_without_click(tmp_path, args, uses_click):
    import json

    for i, d in enumerate(_mpi_docs()):
        (tmp_path / f"{i}.yaml").write_text(yamlio.dump(d))
    (tmp_path / "cfg.yaml").write_text(_config(SEED, "ExpandTrainJobs", inline=True))
    p = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, cwd=tmp_path,
                       env=_env({"PYTHONPATH": str(ROOT)}), timeout=60)
    report = json.loads(p.stdout)
    assert (report["click"], report["commands"]) == (uses_click, uses_click), (report, p.stderr.decode())


def test_the_cli_package_does_not_import_the_click_group():
    code = "import sys, kpt_fn.cli; print('kpt_fn.cli.commands' in sys.modules, 'click' in sys.modules)"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert p.stdout.split() == ["False", "False"]


def test_stray_stderr_text_comes_after_the_summary(monkeypatch, capsys):
    # What a library prints to stderr during a run (a warning) must not push the summary off line 1.
    from kpt_fn.cli import modes

    monkeypatch.setattr(sys, "stderr", modes.HeldStderr(sys.stderr))
    print("SomeWarning: from a library", file=sys.stderr)
    with pytest.raises(SystemExit) as e:
        modes.finish("out\n", ["expand-trainjobs: ok: all good"], 0)
    assert e.value.code == 0
    captured = capsys.readouterr()
    assert captured.out == "out\n"
    assert captured.err == "expand-trainjobs: ok: all good\nSomeWarning: from a library\n"


def test_limit_at_its_maximum_reserves_no_memory_for_it(fn, tmp_path):
    # maxInputBytes 1 GiB under a 512 MiB address-space limit: files are read in chunks, not into a
    # buffer of the limit's size.
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "a.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
    fc = "  apiVersion: fn.kpt.dev/v1alpha1\n  kind: ExpandTrainJobs\n  metadata: {name: x}\n  spec:\n    runtimeDirs: [r]\n    maxInputBytes: 1073741824\n"
    data = (RL_HEAD + "items: []\nfunctionConfig:\n" + fc).encode()
    p = subprocess.run([fn], input=data, capture_output=True, cwd=tmp_path, env=_env(), preexec_fn=_limited_memory, timeout=60)
    assert p.returncode == 0, p.stderr


def test_internal_error_never_quotes_the_secret_seed(monkeypatch):
    """A bug whose exception text holds the seed (any value it handled) is reported without it."""
    from kpt_fn import engine

    seed = "s3cr3t-seed-0123456789abcdef"

    def expand(trainjob, runtime, options=None, form=None):
        raise ValueError(f"cannot use {seed!r} here")

    monkeypatch.setattr(engine, "expand", expand)
    monkeypatch.delenv("EXPAND_TRAINJOBS_DEBUG", raising=False)
    tj = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": {"name": "t", "namespace": "n"},
          "spec": {"runtimeRef": {"name": "torch-distributed"}}}
    fc = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"secretSeed": seed}}
    outcome = run_with([tj], fc)
    text = repr([r.krm() for r in outcome.results]) + "\n".join(stderr.lines(outcome))
    assert "internal error: ValueError" in text and "<redacted>" in text and seed not in text


@pytest.mark.parametrize("args, code", [
    (["render"], 1), (["validate"], 1), (["validate", "--format", "json"], 1), (["check-generated"], 1),
    (["kustomize-plugin", "/nonexistent/config.yaml"], 1), (["diff", "a", "b"], 2),
])
def test_a_deleted_working_directory_is_a_clear_failure(tmp_path, args, code):
    # A CI step may run in a directory an earlier step removed: say so, no internal error.
    gone = tmp_path / "gone"
    gone.mkdir()
    script = 'cd "$1" && rmdir "$1" && shift && exec "$@"'
    function = str(Path(sys.executable).parent / "expand-trainjobs")
    p = subprocess.run(["sh", "-c", script, "sh", str(gone), function, *args], env=_env(), stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=120)
    assert p.returncode == code, p.stderr
    first = _first_line(p.stderr)
    assert first.startswith("expand-trainjobs: FAILED: the working directory cannot be read"), first
    assert b"internal error" not in p.stderr
