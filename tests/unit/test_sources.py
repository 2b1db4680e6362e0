"""File discovery and confinement in a hostile environment (kpt_fn/sources.py, docs/sources.md).

Each case of fixtures/sources/<case>/ is an app (`app/`, or `root:`) with a `case.yaml`:

    description: what the case is about
    mode: render | krm       # `expand-trainjobs render` in-process (Argo CD CMP), or a ResourceList
    root: app                # the root directory inside the case (default app)
    config: {...}            # krm: the ExpandTrainJobs spec of the functionConfig (items are empty)
    env: {...}               # environment; "{case}" is the case's directory (a temporary copy)
    setup: [{fifo: path}]    # what git cannot hold, made in the copy before the run
    exit_code: 0 | 1
    generated: [Kind/name]   # objects the run must produce
    errors: [...]            # substrings each found in an error result; "{root}" is the root
    max_errors: 1            # no more error results than this
    absent: [...]            # text that must appear nowhere in stdout or stderr (another tenant's
                             # object, the content of a file outside the root)

render cases run twice: `render` in the root (as the Argo CD sidecar does) and `render ROOT` from
another working directory; both must print the same.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from kpt_fn import sources
from kpt_fn.cli import krm, plain
from kpt_fn import resource as res
from kpt_fn.problems import ERROR
from kpt_fn.sources import Reader
from kpt_fn.yamlio import DEFAULT_LIMITS, dump, dump_all, load, load_all

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "fixtures" / "sources"


def _cases():
    return sorted(p.name for p in CASES.iterdir() if (p / "case.yaml").is_file())


def _copy(case: str, tmp_path: Path) -> Path:
    dst = tmp_path / case
    shutil.copytree(CASES / case, dst, symlinks=True)
    return dst


def _setup(spec: dict, where: Path) -> None:
    for step in spec.get("setup") or []:
        if "fifo" in step:
            os.mkfifo(where / step["fifo"])
        else:
            raise AssertionError(f"unknown setup step {step}")


def _env(spec: dict, where: Path) -> dict:
    return {k: v.replace("{case}", str(where)) for k, v in (spec.get("env") or {}).items()}


def _run(spec: dict, where: Path, monkeypatch) -> tuple[str, list[str], int, list, list]:
    """(stdout, stderr lines, exit code, generated objects, error messages) of one case."""
    root = where / spec.get("root", "app")
    env = {"ARGOCD_APP_NAMESPACE": "team-a", **_env(spec, where)}
    for k in list(os.environ):
        if k.startswith(("ARGOCD_", "PARAM_")) or k == sources.EXTRA_ROOTS_ENV:
            monkeypatch.delenv(k)
    if spec["mode"] == "render":
        out, lines, code = plain.render([], str(root), env)
        other = where / "elsewhere"
        other.mkdir()
        again = plain.render([os.path.relpath(root, other)], str(other), env)
        # the same output; stderr names each file from the directory the command ran in
        rel = os.path.relpath(root, other).replace(os.sep, "/") + "/"
        assert again[::2] == (out, code) and [line.replace(rel, "") for line in again[1]] == lines, \
            "render DIR from another directory differs from render in DIR"
        objs = [d for d in load_all(out) if d]
        errors = [line for line in lines if ": error: " in line]
        return out, lines, code, objs, errors
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    fc = {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs", "metadata": {"name": "x"}, "spec": spec.get("config") or {}}
    data = dump({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [], "functionConfig": fc}).encode()
    out, lines, code = krm.process(data, base_dir=str(root), env=env)
    rl = load(out)
    objs = rl["items"]
    errors = [r["message"] for r in rl.get("results") or [] if r.get("severity") == ERROR]
    return out, lines, code, objs, errors


@pytest.mark.parametrize("case", _cases())
def test_case(case, tmp_path, monkeypatch):
    spec = load((CASES / case / "case.yaml").read_text())
    where = _copy(case, tmp_path)
    _setup(spec, where)
    out, lines, code, objs, errors = _run(spec, where, monkeypatch)
    assert code == spec["exit_code"], "\n".join(lines)
    made = {f"{o['kind']}/{o['metadata']['name']}" for o in objs}
    for want in spec.get("generated") or []:
        assert want in made, f"{want} not generated; got {sorted(made)}\n" + "\n".join(lines)
    root = str(where / spec.get("root", "app"))
    for want in spec.get("errors") or []:
        want = want.replace("{root}", root)
        assert any(want in e for e in errors), f"no error contains {want!r}:\n" + "\n".join(errors)
    if "max_errors" in spec:
        assert len(errors) <= spec["max_errors"], "\n".join(errors)
    for text in spec.get("absent") or []:
        assert text not in out and not any(text in line for line in lines), text


def test_every_case_is_documented():
    for case in _cases():
        spec = load((CASES / case / "case.yaml").read_text())
        assert spec.get("description") and spec.get("mode") in ("render", "krm"), case


# --- the discovery rule --------------------------------------------------------------------------


def _tj(name: str) -> dict:
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": {"name": name},
            "spec": {"runtimeRef": {"name": "torch-distributed"}}}


def _write(path: Path, *docs) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dump_all(list(docs)))


def _names_and_paths(items) -> list:
    return [(o["metadata"]["name"], o["metadata"]["annotations"][res.PATH]) for o in items]


def test_walk_order_is_go_walk_order_and_paths_are_relative_to_the_root(tmp_path):
    # Entries of each directory by name, a directory where its name sorts (filepath.Walk), not all
    # files of a directory before its subdirectories.
    _write(tmp_path / "a" / "b.yaml", _tj("ab"))
    _write(tmp_path / "a-c.yaml", _tj("ac"))
    _write(tmp_path / "B.yml", _tj("B"))
    _write(tmp_path / "z.json", _tj("z"))
    (tmp_path / "notes.txt").write_text("kind: [")
    items, problems = Reader(str(tmp_path)).read_paths(["."])
    assert problems == []
    assert _names_and_paths(items) == [("B", "B.yml"), ("ab", "a/b.yaml"), ("ac", "a-c.yaml"), ("z", "z.json")]


def test_the_same_rule_for_files_runtime_dirs_and_render(tmp_path):
    _write(tmp_path / "d" / "x.yaml", _tj("x"))
    _write(tmp_path / "d" / ".h" / "y.yaml", _tj("y"))
    _write(tmp_path / "d" / "kustomization.yaml", _tj("k"))
    for read in (
        lambda r: r.read_paths(["d"]),
        lambda r: r.read_files(["d"]),
        lambda r: r.read_dir("d", "runtimeDirs"),
    ):
        items, problems = read(Reader(str(tmp_path)))
        assert problems == [] and _names_and_paths(items) == [("x", "d/x.yaml")]


def test_a_named_hidden_file_is_read(tmp_path):
    _write(tmp_path / ".jobs" / "a.yaml", _tj("a"))
    items, problems = Reader(str(tmp_path)).read_files([".jobs/a.yaml", ".jobs"])
    assert problems == [] and _names_and_paths(items) == [("a", ".jobs/a.yaml")]


def test_list_items_point_at_their_file_and_document(tmp_path):
    (tmp_path / "l.yaml").write_text(dump_all([_tj("first"), {"apiVersion": "v1", "kind": "List", "items": [_tj("a"), _tj("b")]}]))
    items, problems = Reader(str(tmp_path)).read_paths(["l.yaml"])
    assert problems == []
    assert [(o["metadata"]["name"], o["metadata"]["annotations"][res.INDEX]) for o in items] == [("first", "0"), ("a", "1"), ("b", "1")]


def test_a_named_path_that_is_not_a_regular_file(tmp_path):
    os.mkfifo(tmp_path / "p.yaml")
    items, problems = Reader(str(tmp_path)).read_paths(["p.yaml", "/dev/null", "missing.yaml"])
    assert items == []
    assert [p.message for p in problems] == ["p.yaml: not a regular file", "/dev/null: not a regular file", "missing.yaml: no such file or directory"]


def test_absolute_and_parent_paths_inside_the_root_are_fine(tmp_path):
    _write(tmp_path / "app" / "rt" / "r.yaml", _tj("r"))
    reader = Reader(str(tmp_path / "app"))
    items, problems = reader.read_dir(str(tmp_path / "app" / "rt"), "runtimeDirs")
    assert problems == [] and len(items) == 1
    items, problems = Reader(str(tmp_path / "app")).read_files(["../app/rt"])
    assert problems == [] and _names_and_paths(items) == [("r", "rt/r.yaml")]


def test_extra_roots_come_from_the_environment_only(tmp_path):
    _write(tmp_path / "platform" / "r.yaml", _tj("r"))
    (tmp_path / "app").mkdir()
    env = {sources.EXTRA_ROOTS_ENV: f"relative/ignored{os.pathsep}{tmp_path / 'platform'}"}
    reader = Reader.from_env(str(tmp_path / "app"), env)
    assert reader.extra_roots == (str(tmp_path / "platform"),)
    items, problems = reader.read_files([str(tmp_path / "platform")])
    assert problems == [] and _names_and_paths(items) == [("r", str(tmp_path / "platform" / "r.yaml"))]
    _, problems = Reader(str(tmp_path / "app")).read_files([str(tmp_path / "platform")])
    assert "is outside the working directory" in problems[0].message


def test_a_link_inside_the_root_to_an_extra_root_is_followed(tmp_path):
    _write(tmp_path / "platform" / "r.yaml", _tj("r"))
    (tmp_path / "app").mkdir()
    os.symlink("../platform", tmp_path / "app" / "shared")
    items, problems = Reader(str(tmp_path / "app"), extra_roots=[str(tmp_path / "platform")]).read_paths(["."])
    assert problems == [] and _names_and_paths(items) == [("r", "shared/r.yaml")]


def test_per_run_byte_limit_across_files(tmp_path):
    for i in range(4):
        (tmp_path / f"{i}.yaml").write_text(dump(_tj(f"j{i}")) + "#" * 400 + "\n")
    size = (tmp_path / "0.yaml").stat().st_size
    limits = DEFAULT_LIMITS.replace(max_bytes=size * 2 + 10)
    reader = Reader(str(tmp_path), limits=limits)
    items, problems = reader.read_paths(["."])
    assert [o["metadata"]["name"] for o in items] == ["j0", "j1"]
    assert [p.message for p in problems] == [
        f"per-run limit reached: the files read hold more than {size * 2 + 10} bytes in total (maxInputBytes); nothing more is read"
    ]
    # Later reads of the same run read nothing more.
    assert reader.read_dir(".", "runtimeDirs")[0] == []


def test_per_run_document_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(sources, "MAX_DOCUMENTS", 3)
    (tmp_path / "a.yaml").write_text(dump_all([_tj("a"), _tj("b")]))
    (tmp_path / "b.yaml").write_text(dump_all([_tj("c"), _tj("d")]))
    items, problems = Reader(str(tmp_path)).read_paths(["."])
    assert [o["metadata"]["name"] for o in items] == ["a", "b"]
    assert [p.severity for p in problems] == [ERROR] and "more than 3 documents" in problems[0].message


def test_directories_nested_too_deep_are_an_error(tmp_path):
    deep = tmp_path.joinpath(*["d"] * (sources.MAX_DIR_DEPTH + 2))
    _write(deep / "x.yaml", _tj("x"))
    _write(tmp_path / "y.yaml", _tj("y"))
    items, problems = Reader(str(tmp_path)).read_paths(["."])
    assert [o["metadata"]["name"] for o in items] == ["y"]
    assert [p.message for p in problems] == [f"{'/'.join(['d'] * (sources.MAX_DIR_DEPTH + 1))}: more than {sources.MAX_DIR_DEPTH} directories deep; not read"]


def test_problems_beyond_a_few_are_counted_not_listed(tmp_path):
    for i in range(sources.MAX_FILE_PROBLEMS + 5):
        (tmp_path / f"{i:03}.yaml").write_text("a: [\n")
    _, problems = Reader(str(tmp_path)).read_paths(["."])
    assert len(problems) == sources.MAX_FILE_PROBLEMS + 1
    assert problems[-1].message == "5 more problem(s) reading files not shown"


def _unreadable_run(tmp_path: Path, readable_fn: str | None, fn: str):
    """`render` of an app holding an unreadable directory and file, as a user that cannot read them."""
    app = tmp_path / "app"
    _write(app / "a.yaml", _tj("a"))
    _write(app / "locked" / "b.yaml", _tj("b"))
    _write(app / "c.yaml", _tj("c"))
    os.chmod(app / "locked", 0)
    os.chmod(app / "c.yaml", 0)
    argv = [fn, "render"]
    if os.geteuid() == 0:
        # Root reads everything: run as nobody, from a directory nobody can reach.
        for p in (tmp_path, *tmp_path.parents):
            if p == Path("/"):
                break
            os.chmod(p, os.stat(p).st_mode | 0o111)
        os.chmod(app, 0o755)
        os.chmod(app / "a.yaml", 0o644)
        argv = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", readable_fn, "render"]
    env = {"PATH": os.environ.get("PATH", ""), "ARGOCD_APP_NAMESPACE": "team-a"}
    return subprocess.run(argv, cwd=app, capture_output=True, text=True, env=env, timeout=60)


@pytest.mark.clients
def test_unreadable_directory_and_file_are_errors(tmp_path_factory, request, fn):
    import tempfile

    readable = None
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.fail("running as root needs setpriv to test unreadable files")
        readable = request.getfixturevalue("readable_fn")
    base = Path(tempfile.mkdtemp(prefix="sources-"))
    try:
        p = _unreadable_run(base, readable, fn)
    finally:
        for root, dirs, files in os.walk(base):
            for d in dirs:
                os.chmod(os.path.join(root, d), 0o755)
        shutil.rmtree(base, ignore_errors=True)
    assert p.returncode == 1, p.stderr
    assert any(line.startswith("expand-trainjobs: error: locked: cannot read directory: Permission denied")
               for line in p.stderr.splitlines())
    assert any(line.startswith("expand-trainjobs: error: c.yaml: cannot read: Permission denied") for line in p.stderr.splitlines())
    assert p.stdout == ""


# --- Argo CD parameters --------------------------------------------------------------------------


def test_malformed_argocd_parameters_fail_render(tmp_path):
    _write(tmp_path / "t.yaml", _tj("a"))
    (tmp_path / "expand-trainjobs.yaml").write_text("")
    out, lines, code = plain.render([], str(tmp_path), {"ARGOCD_APP_PARAMETERS": '{"name": "x"}', "ARGOCD_APP_NAMESPACE": "ns"})
    assert code == 1 and out == ""
    assert any("ARGOCD_APP_PARAMETERS must be a JSON list" in line for line in lines)


def test_parameters_ignored_for_a_config_in_the_marker_get_a_warning(tmp_path):
    _write(tmp_path / "t.yaml", _tj("a"))
    (tmp_path / "expand-trainjobs.yaml").write_text(dump({"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs", "metadata": {"name": "x"}, "spec": {"namespace": "team-a"}}))
    env = {"ARGOCD_APP_PARAMETERS": json.dumps([{"name": "runtimeDirs", "array": ["/"]}, {"name": "namespace", "string": "other"}])}
    out, lines, code = plain.render([], str(tmp_path), env)
    assert code == 0, lines
    assert any(line.startswith("expand-trainjobs: warning: Argo CD parameter(s) namespace, runtimeDirs ignored: expand-trainjobs.yaml "
                               "holds the functionConfig (set the options there, or leave the file empty to use parameters)")
               for line in lines)


def test_parameters_are_used_when_the_marker_holds_kpts_placeholder(tmp_path):
    # `kpt fn` writes a `function-input` ConfigMap without data where no config is given: it is no
    # config, so the Application's parameters (a policy among them) configure the run.
    _write(tmp_path / "t.yaml", _tj("a"))
    (tmp_path / "expand-trainjobs.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: function-input}\n")
    env = {"ARGOCD_APP_PARAMETERS": json.dumps([{"name": "policy.maxNodes", "string": "0"}])}
    out, lines, code = plain.render([], str(tmp_path), env)
    assert code == 1 and any("policy/max-nodes" in line or "training nodes, more than 0" in line for line in lines), lines


def test_parameters_are_used_when_the_marker_is_empty(tmp_path):
    _write(tmp_path / "t.yaml", _tj("a"))
    (tmp_path / "expand-trainjobs.yaml").write_text("")
    env = {"ARGOCD_APP_PARAMETERS": json.dumps([{"name": "policy.maxNodes", "string": "0"}])}
    assert plain.render([], str(tmp_path), env)[2] == 1


def test_a_parameter_cannot_escape_the_app_dir(tmp_path):
    _write(tmp_path / "app" / "t.yaml", _tj("a"))
    (tmp_path / "app" / "expand-trainjobs.yaml").write_text("")
    _write(tmp_path / "other" / "stolen.yaml", _tj("stolen"))
    env = {"ARGOCD_APP_PARAMETERS": json.dumps([{"name": "runtimeDirs", "array": ["../other", "/"]}])}
    out, lines, code = plain.render([], str(tmp_path / "app"), env)
    assert code == 1 and out == ""
    assert any(line.startswith("expand-trainjobs: error: runtimeDirs: runtime directory '../other' is outside the app directory: "
                               f"paths are confined to it (the platform operator can permit other directories with {sources.EXTRA_ROOTS_ENV})")
               for line in lines)
    assert not any("stolen" in line for line in lines)


def test_the_cli_runs_render_dir_from_elsewhere(fn, tmp_path):
    app = tmp_path / "apps" / "train"
    _write(app / "t.yaml", _tj("a"))
    (app / "expand-trainjobs.yaml").write_text("spec: {namespace: team-a}\napiVersion: fn.kpt.dev/v1alpha1\nkind: ExpandTrainJobs\nmetadata: {name: x}\n")
    here = subprocess.run([fn, "render"], cwd=app, capture_output=True, text=True, env={"PATH": os.environ["PATH"]}, timeout=60)
    there = subprocess.run([fn, "render", "apps/train"], cwd=tmp_path, capture_output=True, text=True, env={"PATH": os.environ["PATH"]}, timeout=60)
    assert here.returncode == 0, here.stderr
    assert (here.stdout, here.stderr) == (there.stdout, there.stderr)


def test_a_file_name_that_is_not_utf8_is_named_and_not_read(tmp_path):
    import os

    from kpt_fn.sources import shown_name

    (tmp_path / "ok.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    with open(os.path.join(os.fsencode(tmp_path), b"bad-\xff.yaml"), "w") as fh:
        fh.write("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n")
    items, problems = sources.Reader(str(tmp_path)).read_paths([str(tmp_path)])
    assert [i["metadata"]["name"] for i in items] == ["a"]
    assert [p.message for p in problems] == ["bad-\\xff.yaml: file name is not UTF-8; not read: rename the file"]
    assert shown_name("日本.yaml") == "日本.yaml"
