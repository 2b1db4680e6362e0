"""Kueue v0.19.2's pkg/controller/jobframework/validation_test.go, ported: TestValidateJobOnCreate's
elastic-job case under the `kueue` profile."""

from __future__ import annotations

from kpt_fn.profiles import kueue_names
from tests.support.kueue_kit import KUEUE, run, runtime, trainjob


def test_elastic_job_annotation_is_rejected_on_a_jobset():
    """jobframework/validation_test.go TestValidateJobOnCreate "elastic annotation on unsupported
    framework is rejected": a Forbidden error on metadata.annotations[kueue.x-k8s.io/elastic-job]."""
    outcome = run([runtime(annotations={kueue_names.ELASTIC_JOB_ANNOTATION: "true"}), trainjob()], KUEUE)
    assert outcome.exit_code == 1
    [result] = [r for r in outcome.results if (r.get("tags") or {}).get("rule") == kueue_names.RULE_CREATE]
    assert result["message"].startswith('Forbidden: elastic job is not supported for "jobset.x-k8s.io/v1alpha2, Kind=JobSet"')
    assert result["field"]["path"] == f"metadata.annotations[{kueue_names.ELASTIC_JOB_ANNOTATION}]"
    # workloadslicing.Enabled matches the value "true" only.
    for value in ("false", "True", ""):
        assert run([runtime(annotations={kueue_names.ELASTIC_JOB_ANNOTATION: value}), trainjob()], KUEUE).exit_code == 0
