"""The Kubernetes checks end to end: valid unusual forms keep rendering (no false positives), and each
mistake in a container, pod spec or Job field is blamed on the field the user wrote (fixtures/k8s/)."""

from __future__ import annotations

import copy
import pathlib

import pytest
import yaml

from kpt_fn import upstream
from support.door import run_with

K8S = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "k8s"
RUNTIME = yaml.safe_load((K8S / "runtime.yaml").read_text())
TRAINJOB = yaml.safe_load((K8S / "trainjob.yaml").read_text())
CASES = yaml.safe_load((K8S / "blame.yaml").read_text())


def _errors(trainjob, runtime):
    outcome = run_with([copy.deepcopy(runtime), copy.deepcopy(trainjob)], None)
    return outcome, [r for r in outcome.results if r.get("severity") == "error"]


def test_the_controls_render_without_errors():
    outcome, errors = _errors(TRAINJOB, RUNTIME)
    assert errors == [] and outcome.exit_code == 0
    assert any(o.get("kind") == "JobSet" for o in outcome.items)


def _edit(objects, target, path, value):
    node = objects[target]
    *head, last = path
    for step in head:
        node = node[step]
    if value == "<delete>":
        del node[last]
    elif isinstance(node, list) and last == len(node):
        node.append(value)
    else:
        node[last] = value


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_mistakes_are_blamed_on_what_the_user_wrote(case):
    objects = {"trainjob": copy.deepcopy(TRAINJOB), "runtime": copy.deepcopy(RUNTIME)}
    for target, path, value in case["edits"]:
        _edit(objects, target, path, value)
    outcome, errors = _errors(objects["trainjob"], objects["runtime"])
    got = [{"kind": r["resourceRef"]["kind"], "file": r["file"]["path"], "field": r["field"]["path"],
            "message": r["message"].removesuffix(f" (in {r['file']['path']})")} for r in errors]
    assert got == case["expected"]
    assert all(r["tags"]["rule"].startswith("k8s/") for r in errors)
    assert outcome.exit_code == 1


def _catalog_names():
    from kpt_fn import upstream

    return [r["metadata"]["name"] for r in upstream.bundle("v2.3.0").catalog()]


@pytest.mark.parametrize("name", _catalog_names())
@pytest.mark.parametrize("resources", [None, {"limits": {"nvidia.com/gpu": 4}}])
def test_every_shipped_runtime_renders_without_job_api_errors(name, resources):
    trainer = {"numNodes": 2, **({"resourcesPerNode": resources} if resources else {})}
    tj = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": {"name": "t", "namespace": "ml"},
          "spec": {"runtimeRef": {"name": name}, "trainer": trainer}}
    outcome = run_with([tj], None)
    errors = [r for r in outcome.results if r.get("severity") == "error"]
    assert errors == [] and any(o.get("kind") == "JobSet" for o in outcome.items)


def _nodes(value, path=()):
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _nodes(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _nodes(v, (*path, i))


def test_any_value_of_the_wrong_type_is_not_a_crash():
    # The schema check reports wrong types; the Kubernetes checks must only not fail on them.
    from kpt_fn.validation import k8s

    outcome = run_with([copy.deepcopy(RUNTIME), copy.deepcopy(TRAINJOB)], None)
    jobset = next(o for o in outcome.items if o.get("kind") == "JobSet")
    jobset = yaml.safe_load(yaml.safe_dump(dict(jobset)))  # a plain, mutable copy
    for path in list(_nodes(jobset))[1:]:
        for odd in (None, 7, "x", [], {}, True, -1.5):
            broken = copy.deepcopy(jobset)
            node = broken
            for step in path[:-1]:
                node = node[step]
            node[path[-1]] = odd
            k8s.check(broken)
