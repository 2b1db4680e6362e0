"""`diff OLD NEW` says what each change does in the cluster (kpt_fn/lifecycle/classify.py).

fixtures/lifecycle/diff/{old,new}: an edited numNodes (refused on the existing JobSet), a runtime
change that only touches a PodGroup (in place), and a held TrainJob's node selector (in place while
held, refused once it runs). Golden files expected.md / expected.json beside them; to refresh after an
intended change, run with EXPAND_TRAINJOBS_UPDATE_GOLDEN=1 (the files are rewritten and the test
FAILS, so that an update never passes unseen).
"""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from pathlib import Path

from support import golden_text
import pytest

from kpt_fn import upstream
from kpt_fn.lifecycle import classify

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "lifecycle" / "diff"


def _diff(fn, *args, cwd=FIXTURE):
    return subprocess.run([fn, "diff", *args], cwd=cwd, capture_output=True, text=True)


@pytest.mark.parametrize("fmt, name", [("markdown", "expected.md"), ("json", "expected.json")])
def test_golden(fn, fmt, name):
    done = _diff(fn, "old", "new", "--format", fmt)
    assert done.returncode == 1, done.stderr
    golden_text.check(FIXTURE / name, done.stdout)


def test_effects_in_the_json(fn):
    data = json.loads(_diff(fn, "old", "new", "--format", "json").stdout)
    effects = {o["object"]: o for j in data["trainJobs"] for o in j["objects"]}
    edit = effects["JobSet ml/edit"]
    assert edit["effect"] == "refused" and "whileSuspended" not in edit
    assert edit["refusals"] == [{"path": "spec.replicatedJobs", "message": "field is immutable", "rule": "jobset-webhook/update"}]
    assert "spec.replicatedJobs.node.template.spec.parallelism" in edit["refusedFields"]
    assert "jobSetNames: contentHash" in edit["remedy"] and "JobSet ml/edit must be created anew" in edit["remedy"]
    assert [r["client"] for r in edit["routes"]] == ["kubectl", "Argo CD", "kpt", "any"]
    assert "`argocd app sync APP --force --resource jobset.x-k8s.io:JobSet:ml/edit`" in edit["routes"][1]["do"]
    assert effects["PodGroup ml/gang"]["effect"] == "in-place"
    held = effects["JobSet ml/held"]
    assert (held["effect"], held["onceRunning"]) == ("in-place", "refused")
    assert data["summary"]["refused"] == 1


def test_fail_on_refused_exit_status(fn, tmp_path):
    done = _diff(fn, "old", "new", "--fail-on", "refused")
    assert done.returncode == 1
    assert done.stderr.splitlines()[0] == "expand-trainjobs: changes; 1 TrainJob(s) with a change the cluster refuses"
    # Only in-place changes: 0 under --fail-on refused, 1 (changes) without it.
    inplace = tmp_path / "inplace"
    shutil.copytree(FIXTURE / "old", inplace)
    shutil.copy(FIXTURE / "new" / "runtime.yaml", inplace / "runtime.yaml")
    assert _diff(fn, str(FIXTURE / "old"), str(inplace), "--fail-on", "refused").returncode == 0
    assert _diff(fn, str(FIXTURE / "old"), str(inplace)).returncode == 1
    assert _diff(fn, "old", "old", "--fail-on", "refused").returncode == 0
    assert _diff(fn, "old", "no-such-dir", "--fail-on", "refused").returncode == 2


def _jobset(suspend=None, labels=None, node_selector=None, image="a"):
    pod = {"containers": [{"name": "node", "image": image}]}
    if node_selector:
        pod["nodeSelector"] = node_selector
    spec = {"replicatedJobs": [{"name": "node", "template": {"spec": {"template": {"spec": pod}}}}]}
    if suspend is not None:
        spec["suspend"] = suspend
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": "x", "namespace": "ns", **({"labels": labels} if labels else {})}, "spec": spec}


QUEUED = {"kueue.x-k8s.io/queue-name": "q"}


def test_a_queued_jobsets_template_change_is_refused_but_accepted_while_suspended():
    old = _jobset(True, QUEUED, {"pool": "a"})
    new = _jobset(True, QUEUED, {"pool": "b"})
    got = classify.effect("JobSet ns/x", old, new, [{"path": "spec.replicatedJobs.node.template.spec.template.spec.nodeSelector.pool"}], (upstream.bundle("v2.3.0"), upstream.bundle("v2.3.0")))
    assert (got["effect"], got["whileSuspended"]) == ("refused", "in-place")


@pytest.mark.parametrize("old, new, want", [
    (_jobset(), _jobset(image="b"), "refused"),
    (_jobset(), {**_jobset(), "metadata": {"name": "x", "namespace": "ns", "labels": {"team": "a"}}}, "in-place"),
    (_jobset(False), _jobset(True), "in-place"),          # suspending is a change of its own, allowed
    (None, _jobset(), "created"),
    (_jobset(), None, "pruned"),
])
def test_effects(old, new, want):
    assert classify.effect("JobSet ns/x", old, new, [], (upstream.bundle("v2.3.0"), upstream.bundle("v2.3.0")))["effect"] == want


def test_output_of_a_version_without_the_created_form_is_compared_as_the_cluster_holds_it():
    """The old render lacks the create-time defaults, the new one has them: nothing changes in the cluster."""
    from kpt_fn.lifecycle import jobset_defaults

    old = _jobset()
    assert classify.effect("JobSet ns/x", old, jobset_defaults.create_defaults(old, upstream.bundle("v2.3.0")), [], (upstream.bundle("v2.3.0"), upstream.bundle("v2.3.0")))["effect"] == "in-place"


def test_the_run_releases_jobset_decides():
    """A held JobSet that gains a replicated job is refused, running or suspended. While suspended, JobSet
    v0.11.1 (Trainer v2.2.1) pairs the jobs by position and panics, v0.12.0 pairs them by name: each
    release's message. The upgrade preview's old render was created by the old release's JobSet and is
    judged by the new one's."""
    old = _jobset(True)
    new = copy.deepcopy(old)
    new["spec"]["replicatedJobs"].append({**new["spec"]["replicatedJobs"][0], "name": "extra"})
    messages = {}
    for releases in (("v2.2.1", "v2.2.1"), ("v2.3.0", "v2.3.0"), ("v2.2.1", "v2.3.0")):
        bundles = tuple(upstream.bundle(r) for r in releases)
        got = classify.effect("JobSet ns/x", old, new, [], bundles)
        assert got["effect"] == "refused" and "whileSuspended" not in got
        messages[releases] = [r.message for r in classify._refusals(old, new, True, bundles)]
    assert messages[("v2.2.1", "v2.2.1")] == ["panic: runtime error: index out of range [1] with length 1 [recovered]"]
    assert messages[("v2.3.0", "v2.3.0")] == messages[("v2.2.1", "v2.3.0")] == ["field is immutable"]
