"""`expand-trainjobs diff --trainer-version OLD..NEW [DIR]`: what upgrading the Trainer
controller changes in the rendered objects, each changed JobSet updated in place or refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kpt_fn import upstream
from kpt_fn.review import upgrade
from kpt_fn.cli import modes

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def test_release_range():
    assert upgrade.parse_range("v2.2.1..v2.3.0", upstream.RELEASES) == ("v2.2.1", "v2.3.0")
    for bad in ("v2.2.1", "v2.1.0..v2.3.0", "v2.3.0..v2.3.0"):
        with pytest.raises(ValueError):
            upgrade.parse_range(bad, upstream.RELEASES)


def test_the_kpt_package_example_upgrade(monkeypatch):
    monkeypatch.chdir(EXAMPLES / "kpt-package")
    text, lines, code, _ = modes._upgrade(".", "v2.2.1..v2.3.0", "json")
    data = json.loads(text)
    assert code == 1 and lines == ["expand-trainjobs: changes"]
    assert data["upgrade"] == {"from": "v2.2.1", "to": "v2.3.0", "trainJobsRendered": 1,
                               "objects": {"in-place": 0, "refused": 1, "created": 0, "pruned": 0}}
    (job,) = data["trainJobs"]
    (jobset,) = [o for o in job["objects"] if o["object"].startswith("JobSet ")]
    # The shipped runtime's image moved from torch 2.10.0 to 2.13.0: a running JobSet's pod template
    # cannot change (JobSet v0.12 ValidateUpdate), so the new controller's apply is refused.
    assert jobset["effect"] == "refused" and data["summary"]["refused"] == 1
    changed = {f["path"] for o in job["objects"] for f in o.get("fields", ())}
    assert "spec.replicatedJobs.node.template.spec.template.spec.containers.node.image" in changed
    markdown, _, _, _ = modes._upgrade(".", "v2.2.1..v2.3.0", "markdown")
    assert markdown.startswith("## Upgrading Kubeflow Trainer v2.2.1 → v2.3.0\n\n1 of 1 TrainJob(s) render differently "
                               "(1 with a change the cluster refuses: recreate their JobSets); objects: 0 updated in "
                               "place, 1 refused, 0 created, 0 no longer rendered.")


def test_nothing_changes_for_an_app_with_its_own_runtime(monkeypatch):
    monkeypatch.chdir(EXAMPLES / "argocd-app")
    text, lines, code, _ = modes._upgrade(".", "v2.2.1..v2.3.0", "json")
    assert code == 0 and json.loads(text)["upgrade"]["objects"]["refused"] == 0


def test_a_bad_range_is_an_error(monkeypatch):
    monkeypatch.chdir(EXAMPLES / "kpt-package")
    text, lines, code = modes._upgrade(".", "v2.3.0", "markdown")[:3]
    assert code == 2 and "OLD..NEW with releases among v2.2.1, v2.3.0" in lines[0]


def test_the_flux_example_upgrade(monkeypatch):
    # fixtures/examples/flux-job: what Trainer v2.3.0's Flux plugin changes (the flux_* switches of kpt_fn/upstream/behaviour.py):
    # the entrypoint encodes --cores instead of --local, in a ConfigMap applied in place; the JobSet gains
    # the /dev/shm volume and mount, which a running JobSet refuses.
    monkeypatch.chdir(EXAMPLES.parent / "fixtures" / "examples" / "flux-job")
    text, lines, code, _ = modes._upgrade(".", "v2.2.1..v2.3.0", "json")
    data = json.loads(text)
    assert code == 1 and data["upgrade"]["objects"] == {"in-place": 1, "refused": 1, "created": 0, "pruned": 0}
    (job,) = data["trainJobs"]
    effects = {o["object"]: o["effect"] for o in job["objects"]}
    assert effects == {"ConfigMap hpc/lammps-flux-flux-entrypoint": "in-place", "JobSet hpc/lammps-flux": "refused"}
    changed = {f["path"] for o in job["objects"] for f in o.get("fields", ())}
    pod = "spec.replicatedJobs.node.template.spec.template.spec"
    assert changed == {"data.entrypoint.sh", f"{pod}.containers.node.volumeMounts.shared-memory",
                       f"{pod}.volumes.shared-memory"}
    markdown = modes._upgrade(".", "v2.2.1..v2.3.0", "markdown")[0]
    assert ("`data.entrypoint.sh` line 70: `flux R encode --hosts=${hosts} --local > /tmp/R` → "
            "`flux R encode --hosts=${hosts} --cores=0-3 > /tmp/R`") in markdown
    assert "**refused by the cluster**: JobSet hpc/lammps-flux cannot be changed once created" in markdown
