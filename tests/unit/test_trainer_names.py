"""kpt_fn.trainer_names: Trainer's names, written once, are the names Trainer's shipped runtimes use
(the release bundles' catalogues, generated from upstream's manifests/base/runtimes)."""

from __future__ import annotations

import pytest

from kpt_fn import upstream
from kpt_fn import trainer_names as names
from kpt_fn.validation import runtime_webhook

STEPS = {names.TRAINER, names.DATASET_INITIALIZER, names.MODEL_INITIALIZER}


def jobs(release):
    for rt in upstream.bundle(release).catalog():
        for rj in rt["spec"]["template"]["spec"]["replicatedJobs"]:
            step = ((rj["template"].get("metadata") or {}).get("labels") or {}).get(names.ANCESTOR_LABEL)
            containers = [c["name"] for c in rj["template"]["spec"]["template"]["spec"]["containers"]]
            yield rt["metadata"]["name"], rj["name"], step, containers


@pytest.mark.parametrize("release", upstream.RELEASES)
def test_the_shipped_runtimes_use_these_steps_and_names(release):
    found = list(jobs(release))
    assert {step for _, _, step, _ in found} - {None} == STEPS
    for runtime, job, step, containers in found:
        if step in (names.DATASET_INITIALIZER, names.MODEL_INITIALIZER):
            assert job == step and containers == [step], runtime  # the step is the job's and container's name
        elif step == names.TRAINER:
            assert names.NODE in containers, runtime


def test_the_runtime_webhook_reads_the_same_names():
    assert runtime_webhook.REQUIRED_CONTAINER == {names.TRAINER: names.NODE, names.DATASET_INITIALIZER: names.DATASET_INITIALIZER,
                                                  names.MODEL_INITIALIZER: names.MODEL_INITIALIZER}
    assert runtime_webhook.ANCESTOR_LABEL is names.ANCESTOR_LABEL


@pytest.mark.parametrize("value, on", [
    (None, False), ("", False), ("0", False), ("f", False), ("F", False), ("false", False), ("False", False),
    ("FALSE", False), ("1", True), ("t", True), ("true", True), ("True", True), ("yes", True), ("2", True),
])
def test_debugging_reads_the_variable_as_parse_bool_does(value, on):
    # Unset, empty or false to Go's ParseBool is off; anything else was set to see more.
    env = {} if value is None else {names.DEBUG_ENV: value}
    assert names.debugging(env) is on
