"""A toy Trainer release made in a test: a copy of v2.3.0's bundle whose behaviour row switches ONE
entry (mpi_ssh_file_modes off). Every golden case of v2.3.0 renders under both; the outputs differ
only where the table says (the MPI SSH Secret volume has no modes), which shows that the bundle is
the only carrier of the release: a module reading the release anywhere else (a string, the config's
trainerVersion, a cache by release name) would render the toy as v2.3.0, and a module asking another
switch would change more than this one (docs/architecture.md, "Adding a Trainer release")."""

from __future__ import annotations

import copy
import json
import shutil

import pytest
from support.golden_engine import Case, engine_options, params, release_cases, render, uses_upstream

from kpt_fn import upstream, validation
from kpt_fn.plugins import mpi
from kpt_fn.upstream.behaviour import BEHAVIOUR, VARIANTS

BASE = "v2.3.0"
SWITCH = "mpi_ssh_file_modes"
# A fresh Bundle of v2.3.0's directory (nothing shared with the cached one), one switch flipped.
TOY = upstream.Bundle(BASE, upstream.bundle_dir(BASE), BEHAVIOUR[BASE]._replace(**{SWITCH: False}), VARIANTS[BASE])
CASES = release_cases(BASE)


def _render(case_dir, bundle=None):
    case = Case(case_dir, BASE)
    if bundle is not None:
        case.options = engine_options({**(case.meta.get("options") or {}), "trainerVersion": BASE}, bundle)
        case.bundle = bundle
    return render(case)


def _as_the_table_says(objects: list) -> list:
    """v2.3.0's objects as the toy's row renders them: the SSH Secret volume without defaultMode and
    item modes (what mpi_ssh_file_modes switches), nothing else."""
    out = copy.deepcopy(objects)
    for obj in out:
        if obj.get("kind") != "JobSet":
            continue
        for rj in obj["spec"].get("replicatedJobs") or ():
            pod = rj["template"]["spec"]["template"]["spec"]
            for volume in pod.get("volumes") or ():
                if volume.get("name") == mpi.SSH_AUTH_VOLUME and "secret" in volume:
                    volume["secret"].pop("defaultMode", None)
                    for item in volume["secret"].get("items") or ():
                        item.pop("mode", None)
    return out


def test_the_toy_is_v2_3_0_but_for_one_switch():
    differing = [f for f in BEHAVIOUR[BASE]._fields if getattr(TOY.behaviour, f) != getattr(BEHAVIOUR[BASE], f)]
    assert differing == [SWITCH]
    assert TOY is not upstream.bundle(BASE) and TOY.release == BASE


@pytest.mark.parametrize("case_dir", params(CASES, lambda c: f"{c.parent.name}/{c.name}"))
def test_every_golden_case_renders_differently_only_where_the_table_says(case_dir):
    objects, problems = _render(case_dir)
    toy_objects, toy_problems = _render(case_dir, TOY)
    assert toy_problems == problems
    assert toy_objects == _as_the_table_says(objects)


def test_the_switch_shows_in_the_mpi_cases():
    """Not vacuous: the cases of the MPI plugin render an SSH volume, and the toy's differs."""
    own = [c for c in CASES if c.parent.name == "mpi" and not uses_upstream(c)]  # runtimes of the case's own
    changed = [c.name for c in own if _render(c)[0] != _render(c, TOY)[0]]
    assert changed, "no MPI golden case shows the switched behaviour"


def test_a_toy_release_with_its_own_data_directory_finds_its_schemas_there(tmp_path):
    """A bundle's schema entries carry the bundle itself, not its release's name: a toy named like
    v2.3.0 but reading its own directory (here, v2.3.0's files with one more required TrainJob field)
    validates against its own schemas, never the cached v2.3.0 bundle's."""
    directory = tmp_path / "toy"
    shutil.copytree(upstream.bundle_dir(BASE), directory)
    packed = json.loads((directory / "schemas.json").read_text())
    [file] = [e["file"] for e in packed["index"] if e["kind"] == "TrainJob"]
    packed["schemas"][file]["required"] = [*packed["schemas"][file].get("required", []), "toyField"]
    (directory / "schemas.json").write_text(json.dumps(packed))
    toy = upstream.Bundle(BASE, str(directory), BEHAVIOUR[BASE], VARIANTS[BASE])
    trainjob = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
                "metadata": {"name": "tj", "namespace": "ns"}, "spec": {"runtimeRef": {"name": "torch-distributed"}}}

    entry = toy.entry_for(trainjob)
    assert entry.bundle is toy and upstream.schema(entry) is toy.schema(entry)
    assert "toyField" in upstream.schema(entry)["required"]
    assert "toyField" not in upstream.schema(upstream.bundle(BASE).entry_for(trainjob)).get("required", [])
    assert [p.path for p in validation.check_object(trainjob, toy)] == ["toyField"]
    assert validation.check_object(trainjob, upstream.bundle(BASE)) == []
