"""kpt 1.0 running expand-trainjobs: exec (eval, render); the container route is in tests/container/.
kpt's exec runtime: internal/fnruntime/exec.go ExecFn.Run; how to call it: docs/clients.md."""

from __future__ import annotations

import json

import pytest

from clients import kit
from kpt_fn import yamlio

pytestmark = pytest.mark.clients

GENERATED = {"mnist": "mnist.generated.yaml", "first-job": "first-job.generated.yaml"}


def eval_(kpt, pkg, fn, *extra):
    return [kpt, "fn", "eval", pkg, "--exec", fn, *extra]


def _on_disk_annotations(pkg) -> list:
    """(file, kind/name, annotation) of every client annotation other than local-config on disk."""
    out = []
    for f in sorted(pkg.rglob("*")):
        if f.is_file():
            for d in yamlio.load_all(f.read_text()):
                for k in ((d or {}).get("metadata") or {}).get("annotations") or {}:
                    if k.startswith(kit.CLIENT_PREFIXES) and k != kit.LOCAL_CONFIG:
                        out.append((f.name, f"{d['kind']}/{d['metadata']['name']}", k))
    return out


# --- unwrap --------------------------------------------------------------------------------------


def test_unwrap_gives_a_jobset_per_trainjob_and_leaves_the_package_alone(kpt, fn, demo, env, tmp_path, demo_objects):
    before = kit.snapshot(demo)
    r = kit.run(eval_(kpt, demo, fn, "-o", "unwrap"), cwd=tmp_path, env=env).ok()
    assert "[PASS]" in r.stderr
    # unwrap prints every item, local-config ones included: it is not a stream to `kubectl apply`.
    assert {"Kptfile", "TrainJob", "ClusterTrainingRuntime", "ExpandTrainJobs"} <= {o["kind"] for o in kit.load_stream(r.stdout)}
    objs = kit.normalize(r.stdout)
    kit.assert_demo_objects(objs)
    kit.assert_same_objects(objs, demo_objects, "a second unwrap")
    assert kit.snapshot(demo) == before
    # Comments of untouched items come back in the stream too.
    for lines in kit.DEMO_COMMENTS.values():
        for line in lines:
            assert line.split("# ")[-1] in r.stdout
    assert kit.run(eval_(kpt, demo, fn, "-o", "unwrap"), cwd=tmp_path, env=env).ok().stdout == r.stdout


# --- in place ------------------------------------------------------------------------------------


def test_in_place_layout_comments_and_idempotency(kpt, fn, demo, env, tmp_path):
    original = kit.snapshot(kit.DEMO)
    kit.run(eval_(kpt, demo, fn), cwd=tmp_path, env=env).ok()
    first = kit.snapshot(demo)

    # Generated objects live in <TrainJob's dir>/<TrainJob name>.generated.yaml, nowhere else.
    assert sorted(first) == sorted([*original, *GENERATED.values()])
    for job, fname in GENERATED.items():
        objs = yamlio.load_all(first[fname].decode())
        assert any(o["kind"] == "JobSet" and o["metadata"]["name"] == job for o in objs), fname
        for o in objs:
            assert o["metadata"]["name"].startswith(job), f"{fname} holds {o['kind']} {o['metadata']['name']}"
            assert o["metadata"].get("namespace") == "team-a"
    assert _on_disk_annotations(demo) == []

    # Files the function does not own come back byte for byte, comments and all (as with `--exec cat`:
    # tests/clients/test_passthrough.py); settings.yaml keeps its unquoted `on`, as its author wrote it.
    for fname, lines in kit.DEMO_COMMENTS.items():
        text = first[fname].decode()
        for line in lines:
            assert line in text, f"{fname} lost {line!r}"
    for fname in original:
        assert first[fname] == original[fname], fname

    # A second run on its own output changes nothing.
    kit.run(eval_(kpt, demo, fn), cwd=tmp_path, env=env).ok()
    assert kit.snapshot(demo) == first


# --- render with a Kptfile pipeline --------------------------------------------------------------


def _with_pipeline(pkg, mutator: dict):
    kptfile = yamlio.load((pkg / "Kptfile").read_text())
    kptfile["pipeline"] = {"mutators": [mutator]}
    (pkg / "Kptfile").write_text(yamlio.dump(kptfile))


def test_render_needs_allow_exec(kpt, fn, demo, env, tmp_path):
    _with_pipeline(demo, {"exec": fn, "configPath": "expand-trainjobs.yaml"})
    before = kit.snapshot(demo)
    r = kit.run([kpt, "fn", "render", demo], cwd=tmp_path, env=env).failed()
    assert "must run with `--allow-exec` option" in r.stderr
    assert kit.snapshot(demo) == before


@pytest.mark.parametrize("where", ["tmp_path", "package"])
def test_render_config_path(kpt, fn, demo, env, tmp_path, where):
    _with_pipeline(demo, {"exec": fn, "configPath": "expand-trainjobs.yaml"})
    cwd, target = (tmp_path, demo) if where == "tmp_path" else (demo, ".")
    r = kit.run([kpt, "fn", "render", target, "--allow-exec"], cwd=cwd, env=env).ok()
    assert "Successfully executed 1 function(s) in 1 package(s)." in r.stdout + r.stderr
    first = kit.snapshot(demo)
    assert set(GENERATED.values()) <= set(first)
    kit.assert_demo_objects(kit.normalize([d for f in sorted(first) if f != "Kptfile" for d in yamlio.load_all(first[f].decode())]))
    for fname, lines in kit.DEMO_COMMENTS.items():
        for line in lines:
            assert line in first[fname].decode()
    assert _on_disk_annotations(demo) == []
    if where == "tmp_path":  # kpt does not de-duplicate: a second render must change nothing
        kit.run([kpt, "fn", "render", target, "--allow-exec"], cwd=cwd, env=env).ok()
        assert kit.snapshot(demo) == first


def _jobset_namespaces(pkg) -> list:
    out = []
    for f in sorted(pkg.glob("*.yaml")):
        for d in yamlio.load_all(f.read_text()):
            if d and d.get("kind") == "JobSet":
                out.append(d["metadata"].get("namespace", ""))
    return out


@pytest.mark.parametrize(
    "mutator, namespace",
    [({"configMap": {"namespace": "team-x"}}, "team-x"), ({}, "")],
    ids=["configMap", "no-config"],
)
def test_render_config_map_and_no_config(kpt, fn, env, tmp_path, mutator, namespace):
    pkg = kit.copy_tree(kit.CLIENT_FIXTURES / "nons", tmp_path / "nons")
    _with_pipeline(pkg, {"exec": fn, **mutator})
    kit.run([kpt, "fn", "render", pkg, "--allow-exec"], cwd=tmp_path, env=env).ok()
    assert _jobset_namespaces(pkg) == [namespace]


# --- config forms ------------------------------------------------------------------------------

TYPED = {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs", "metadata": {"name": "cfg"}, "spec": {"namespace": "team-b"}}
CONFIGMAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}, "data": {"namespace": "team-c"}}


@pytest.mark.parametrize(
    "config, args, namespace",
    [(TYPED, [], "team-b"), (CONFIGMAP, [], "team-c"), (None, ["--", "namespace=team-d"], "team-d"), (None, [], "")],
    ids=["typed", "configmap", "key-value", "none"],
)
def test_eval_config_forms(kpt, fn, env, tmp_path, config, args, namespace):
    pkg = kit.copy_tree(kit.CLIENT_FIXTURES / "nons", tmp_path / "nons")
    extra = []
    if config is not None:
        (tmp_path / "cfg.yaml").write_text(yamlio.dump(config))
        extra = ["--fn-config", tmp_path / "cfg.yaml"]
    r = kit.run(eval_(kpt, pkg, fn, "-o", "unwrap", *extra, *args), cwd=tmp_path, env=env).ok()
    jobsets = [o for o in kit.load_stream(r.stdout) if o["kind"] == "JobSet"]
    assert [(j["metadata"]["name"], j["metadata"].get("namespace", "")) for j in jobsets] == [("nons", namespace)]


@pytest.mark.parametrize(
    "config, message",
    [
        ({"apiVersion": "example.com/v1", "kind": "Frobnicate", "metadata": {"name": "x"}}, "unsupported functionConfig example.com/v1/Frobnicate"),
        ({**CONFIGMAP, "data": {"namespcae": "typo"}}, "unknown option 'namespcae'"),
    ],
    ids=["unknown-kind", "unknown-option"],
)
def test_eval_bad_config_fails(kpt, fn, demo, env, tmp_path, config, message):
    (tmp_path / "cfg.yaml").write_text(yamlio.dump(config))
    before = kit.snapshot(demo)
    r = kit.run(eval_(kpt, demo, fn, "--fn-config", tmp_path / "cfg.yaml"), cwd=tmp_path, env=env).failed()
    assert "[FAIL]" in r.stderr and "[error]" in r.stderr and message in r.stderr
    assert kit.snapshot(demo) == before


# --- failure -----------------------------------------------------------------------------------


def test_invalid_trainjob_fails_and_leaves_the_tree_alone(kpt, fn, env, tmp_path):
    pkg = kit.copy_tree(kit.CLIENT_FIXTURES / "bad", tmp_path / "bad")
    before = kit.snapshot(pkg)
    res = tmp_path / "results"
    r = kit.run(eval_(kpt, pkg, fn, "--results-dir", res, "--truncate-output=false"), cwd=tmp_path, env=env).failed()
    assert r.rc == 1
    assert "[FAIL]" in r.stderr and "Exit code: 1" in r.stderr
    # kpt prints namespaced resources as apiVersion/Kind/namespace/name.
    line = next((ln.strip() for ln in r.stderr.splitlines() if "TrainJob/team-a/broken" in ln), "")
    # The TrainJob admission webhook's path and message for a missing ClusterTrainingRuntime
    # (Trainer v2.3.0 pkg/runtime/core/clustertrainingruntime.go ValidateObjects).
    assert line.startswith(
        '[error] trainer.kubeflow.org/v1alpha1/TrainJob/team-a/broken spec.RuntimeRef: ClusterTrainingRuntime.trainer.kubeflow.org '
        '"no-such-runtime" not found: specified clusterTrainingRuntime must be created before the TrainJob is created; '), r.stderr
    stderr_block = r.stderr.split("Stderr:", 1)[1].splitlines()
    assert stderr_block[1].strip().startswith('"expand-trainjobs: FAILED:'), r.stderr
    assert kit.snapshot(pkg) == before

    results = yamlio.load((res / "results.yaml").read_text())
    assert results["kind"] == "FunctionResultList"
    (item,) = results["items"]
    assert item["exitCode"] == 1
    errors = [x for x in item["results"] if x.get("severity") == "error"]
    assert errors and all(x["resourceRef"]["name"] == "broken" for x in errors)
    assert errors[0]["file"]["path"] == "trainjobs.yaml"
    assert errors[0]["field"]["path"] == "spec.RuntimeRef"

    # The same through `render`: all or nothing.
    _with_pipeline(pkg, {"exec": fn})
    before = kit.snapshot(pkg)
    kit.run([kpt, "fn", "render", pkg, "--allow-exec"], cwd=tmp_path, env=env).failed()
    assert kit.snapshot(pkg) == before


# --- JSON in, YAML out -------------------------------------------------------------------------


def test_json_resource_list_in_yaml_out(kpt, fn, demo, env, tmp_path, demo_objects):
    source = kit.run([kpt, "fn", "source", demo], cwd=tmp_path, env=env).ok().stdout
    as_json = json.dumps(yamlio.load(source))
    r = kit.run([kpt, "fn", "eval", "-", "--exec", fn, "-o", "unwrap"], cwd=tmp_path, env=env, input=as_json).ok()
    kit.assert_same_objects(kit.normalize(r.stdout), demo_objects, "JSON in through kpt")

    for stdin in (source, as_json):
        direct = kit.run([fn], cwd=tmp_path, env=env, input=stdin).ok()
        assert direct.stdout.startswith("apiVersion:"), direct.stdout[:200]
        kit.assert_same_objects(kit.normalize(kit.resource_list_items(direct.stdout)), demo_objects, "the function run directly")


def test_help(fn, env, tmp_path):
    r = kit.run([fn, "--help"], cwd=tmp_path, env=env).ok()
    assert r.stdout.startswith("Usage: expand-trainjobs")
    assert r.stderr == ""


# The container route (`--image`, `fn render` with an image mutator, `fn doc --image`), runs the
# real image with podman: tests/container/test_kpt_image.py (marker `container`).


# --- clean-up of what the function no longer generates (issue 34, point 2) ----------------------------


HAND_WRITTEN = """# Written by hand into the function's file: not the function's to remove.
apiVersion: v1
kind: ConfigMap
metadata:
  name: notes
  namespace: team-a
data:
  owner: team-a
"""
OTHER_FUNCTION = """apiVersion: v1
kind: ConfigMap
metadata:
  name: other-output
  namespace: team-a
  annotations:
    other-fn.example.com/generated-by: "x"
"""


def _trainjob_docs(pkg):
    return [d for d in yamlio.load_all((pkg / "trainjobs.yaml").read_text()) if d]


def test_what_no_trainjob_generates_any_more_is_removed_and_nothing_else(kpt, fn, demo, env, tmp_path):
    kit.run(eval_(kpt, demo, fn), cwd=tmp_path, env=env).ok()
    # A hand-written object in a file the function did not write, another in the function's own file
    # of a TrainJob that stays, and another function's output in a *.generated.yaml of its own.
    (demo / "first-job.generated.yaml").write_text((demo / "first-job.generated.yaml").read_text() + "---\n" + HAND_WRITTEN)
    (demo / "other.generated.yaml").write_text(OTHER_FUNCTION)
    (demo / "notes.yaml").write_text(HAND_WRITTEN.replace("notes", "more-notes"))
    kit.run(eval_(kpt, demo, fn), cwd=tmp_path, env=env).ok()
    before = kit.snapshot(demo)

    # mnist ends: its TrainJob is removed; first-job is renamed to second-job.
    docs = [d for d in _trainjob_docs(demo) if d["metadata"]["name"] != "mnist"]
    docs[0]["metadata"]["name"] = "second-job"
    (demo / "trainjobs.yaml").write_text(yamlio.dump_all(docs))
    r = kit.run(eval_(kpt, demo, fn), cwd=tmp_path, env=env).ok()
    after = kit.snapshot(demo)
    assert "mnist.generated.yaml" not in after  # emptied, so kpt deleted the file
    first_job = [d for d in yamlio.load_all(after["first-job.generated.yaml"].decode()) if d]
    assert [(d["kind"], d["metadata"]["name"]) for d in first_job] == [("ConfigMap", "notes")]
    assert "Written by hand into the function's file" in after["first-job.generated.yaml"].decode()
    assert ("JobSet", "second-job") in [(d["kind"], d["metadata"]["name"])
                                        for d in yamlio.load_all(after["second-job.generated.yaml"].decode())]
    for untouched in ("other.generated.yaml", "notes.yaml", "runtimes.yaml", "settings.yaml"):
        assert after[untouched] == before[untouched], untouched
    out = r.stdout + r.stderr
    assert "removed JobSet team-a/mnist from mnist.generated.yaml, which this function writes: no TrainJob team-a/mnist is left to generate it" in out
    assert "removed JobSet team-a/first-job from first-job.generated.yaml" in out


def test_switching_to_content_hash_replaces_the_jobset_in_the_package(kpt, fn, demo, env, tmp_path):
    kit.run(eval_(kpt, demo, fn), cwd=tmp_path, env=env).ok()
    config = yamlio.load((demo / "expand-trainjobs.yaml").read_text())
    config["spec"]["jobSetNames"] = "contentHash"
    (tmp_path / "cfg.yaml").write_text(yamlio.dump(config))
    r = kit.run(eval_(kpt, demo, fn, "--fn-config", tmp_path / "cfg.yaml"), cwd=tmp_path, env=env).ok()
    names = [d["metadata"]["name"] for d in yamlio.load_all((demo / "mnist.generated.yaml").read_text())
             if d and d["kind"] == "JobSet"]
    assert len(names) == 1 and names[0].startswith("mnist-")  # the old `mnist` is gone, not left to delete by hand
    assert "removed JobSet team-a/mnist from mnist.generated.yaml" in r.stdout + r.stderr
    assert "stale" not in r.stdout + r.stderr


def test_a_finding_names_its_line_when_kpt_runs_in_the_package(kpt, fn, env, tmp_path):
    """kpt hands the function each item's path and index, not the package directory nor a line: run in
    the package (`kpt fn eval .`), the finding's message and stderr line name the file's line and
    column (the document at that index checked to be the item); run from elsewhere, the file alone."""
    pkg = kit.copy_tree(kit.CLIENT_FIXTURES / "bad", tmp_path / "bad")
    text = (pkg / "trainjobs.yaml").read_text().splitlines()
    second = text.index("---")
    line = next(i for i, ln in enumerate(text) if i > second and ln.startswith("spec:")) + 1  # spec.RuntimeRef: as far as it goes
    inside = kit.run(eval_(kpt, ".", fn), cwd=pkg, env=env).failed()
    result = next(ln.strip() for ln in inside.stderr.splitlines() if "TrainJob/team-a/broken" in ln)
    assert result.endswith(f"(in trainjobs.yaml:{line}:1)"), inside.stderr
    assert f'"trainjobs.yaml:{line}:1: error: TrainJob team-a/broken: spec.RuntimeRef: ' in inside.stderr
    assert "[trainer-webhook/runtime-not-found]" in inside.stderr
    outside = kit.run(eval_(kpt, pkg, fn), cwd=tmp_path, env=env).failed()
    result = next(ln.strip() for ln in outside.stderr.splitlines() if "TrainJob/team-a/broken" in ln)
    assert result.endswith("(in trainjobs.yaml)"), outside.stderr
