"""`diff --fail-on refused` judges every object the function renders as the cluster would on update
(docs/review.md): an immutable Secret whose data changes (a `secretSeed` rotation), Kueue's webhook under
`profile: kueue` (the queue of a running JobSet), beside changes the cluster takes in place."""

from __future__ import annotations

import json
import subprocess

TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: a
  namespace: ml
  labels: {{kueue.x-k8s.io/queue-name: {queue}, kueue.x-k8s.io/priority-class: {priority}}}
spec:
  runtimeRef: {{name: torch-distributed}}
"""
KUEUE_CONFIG = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {profile: kueue}\n"
MPI_TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: ds, namespace: ml}
spec:
  runtimeRef: {name: deepspeed-distributed}
"""
SEED_CONFIG = "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c}}\ndata: {{mpiSSHSecret: generate, secretSeed: {seed}}}\n"


def _app(path, files: dict):
    path.mkdir()
    for name, text in files.items():
        (path / name).write_text(text)
    return path


def _diff(fn, tmp_path, old: dict, new: dict) -> tuple[int, dict, str]:
    a, b = _app(tmp_path / "old", old), _app(tmp_path / "new", new)
    done = subprocess.run([fn, "diff", str(a), str(b), "--fail-on", "refused", "--format", "json"],
                          capture_output=True, text=True)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout), done.stderr


def _effects(data: dict) -> dict:
    return {o["object"]: o for j in data["trainJobs"] for o in j["objects"]}


def test_a_secret_seed_rotation_is_refused_on_the_immutable_secret(fn, tmp_path):
    code, data, stderr = _diff(fn, tmp_path, {"ds.yaml": MPI_TRAINJOB, "expand-trainjobs.yaml": SEED_CONFIG.format(seed="one-seed-of-the-test")},
                               {"ds.yaml": MPI_TRAINJOB, "expand-trainjobs.yaml": SEED_CONFIG.format(seed="another-seed-of-the-test")})
    assert code == 1 and "with a change the cluster refuses" in stderr
    [secret] = [o for k, o in _effects(data).items() if k.startswith("Secret ")]
    assert secret["effect"] == "refused"
    assert [r["path"] for r in secret["refusals"]] == ["data"]
    assert secret["refusals"][0]["message"] == "field is immutable when `immutable` is set"
    assert "delete Secret" in secret["remedy"]


def test_kueue_refuses_a_new_queue_for_a_running_jobset_and_takes_a_new_priority(fn, tmp_path):
    def app(queue, priority):
        return {"a.yaml": TRAINJOB.format(queue=queue, priority=priority), "expand-trainjobs.yaml": KUEUE_CONFIG}

    code, data, _ = _diff(fn, tmp_path, app("q1", "high"), app("q2", "high"))
    assert code == 1
    [jobset] = [o for k, o in _effects(data).items() if k.startswith("JobSet ")]
    assert jobset["effect"] == "refused" and jobset.get("whileSuspended") == "in-place"
    assert {"path": "metadata.labels[kueue.x-k8s.io/queue-name]", "message": "field is immutable",
            "rule": "kueue-webhook/update"} in jobset["refusals"]
    # The control: Kueue keeps the priority-class label mutable (it may be changed for preemption).
    (tmp_path / "old").rename(tmp_path / "old1")
    (tmp_path / "new").rename(tmp_path / "new1")
    code, data, stderr = _diff(fn, tmp_path, app("q1", "high"), app("q1", "low"))
    assert code == 0, stderr
    assert {o["effect"] for o in _effects(data).values()} == {"in-place"}
