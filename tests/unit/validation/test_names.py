"""Names family: ObjectMeta, ConfigMap and Secret checks (the syntax itself: tests/unit/apimachinery)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from kpt_fn import upstream
from kpt_fn import validation
from kpt_fn.apimachinery import validation as utilvalidation
from kpt_fn.validation import names

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "validation"

# The messages as the validators word them (their exact text is pinned in
# tests/unit/apimachinery/test_validation.py).
SUBDOMAIN = utilvalidation.regex_error(utilvalidation.DNS1123_SUBDOMAIN_MSG, utilvalidation.DNS1123_SUBDOMAIN_FMT,
                                       "example.com")
KEY_NAME = "name part " + utilvalidation.regex_error(utilvalidation.LABEL_KEY_MSG, utilvalidation.LABEL_KEY_FMT,
                                                     "MyName", "my.name", "123-abc")
LABEL_VALUE = utilvalidation.regex_error(utilvalidation.LABEL_VALUE_MSG, utilvalidation.LABEL_VALUE_FMT,
                                         "MyValue", "my_value", "12345")
CONFIG_KEY = utilvalidation.regex_error(utilvalidation.CONFIG_MAP_KEY_MSG, utilvalidation.CONFIG_MAP_KEY_FMT,
                                        "key.name", "KEY_NAME", "key-name")


# ---------------------------------------------------------------------------------------------
# ObjectMeta through check_object

def names_problems(obj):
    return [(p.rule, p.path, p.message) for p in validation.check_object(obj, upstream.bundle("v2.3.0")) if p.rule.startswith("names/")]


@pytest.fixture
def jobset():
    return yaml.safe_load((FIXTURES / "jobset_torchtune.yaml").read_text())


def test_valid_metadata(jobset):
    assert names_problems(jobset) == []


def test_metadata_name(jobset):
    jobset["metadata"]["name"] = "My.JobSet"
    assert names_problems(jobset) == [("names/metadata-name", "metadata.name", SUBDOMAIN)]


def test_name_or_generate_name_required(jobset):
    del jobset["metadata"]["name"]
    assert names_problems(jobset) == [
        ("names/metadata-name", "metadata.name", "Required value: name or generateName is required")]
    jobset["metadata"]["generateName"] = "ft-"  # the trailing dash is allowed in a prefix
    assert names_problems(jobset) == []
    jobset["metadata"]["generateName"] = "Ft-"
    assert names_problems(jobset) == [("names/metadata-generate-name", "metadata.generateName", SUBDOMAIN)]


def test_namespace(jobset):
    jobset["metadata"]["namespace"] = "team.a"
    assert names_problems(jobset) == [("names/metadata-namespace", "metadata.namespace", "must not contain dots")]
    del jobset["metadata"]["namespace"]  # set later in the pipeline
    assert names_problems(jobset) == []


def test_cluster_scoped_namespace_is_ignored():
    rt = yaml.safe_load((FIXTURES / "trainingruntime_minimal.yaml").read_text())
    rt["kind"] = "ClusterTrainingRuntime"
    rt["metadata"]["namespace"] = "Not A Namespace"
    assert names_problems(rt) == []


def test_labels_and_annotations(jobset):
    jobset["metadata"]["labels"] = {"ok": "yes", "bad key": "v", "k": "bad value"}
    jobset["metadata"]["annotations"]["Example.com/x"] = "anything goes here"  # keys are lower-cased first
    jobset["metadata"]["annotations"]["a/b/c"] = ""
    assert names_problems(jobset) == [
        ("names/labels", "metadata.labels[bad key]", KEY_NAME),
        ("names/labels", "metadata.labels[k]", LABEL_VALUE),
        ("names/annotations", "metadata.annotations[a/b/c]", utilvalidation.is_qualified_name("a/b/c")[0]),
    ]


def test_annotation_size(jobset):
    jobset["metadata"]["annotations"] = {"big": "x" * (256 * 1024)}
    assert names_problems(jobset) == [
        ("names/annotations", "metadata.annotations", "Too long: may not be more than 262144 bytes")]


def test_finalizers(jobset):
    jobset["metadata"]["finalizers"] = ["example.com/cleanup", "bad finalizer"]
    assert names_problems(jobset) == [("names/finalizers", "metadata.finalizers[1]", KEY_NAME)]


def test_template_metadata_labels(jobset):
    job_template = jobset["spec"]["replicatedJobs"][0]["template"]
    job_template["metadata"]["labels"]["x"] = "a b"
    job_template["spec"]["template"]["metadata"] = {"annotations": {"a/b/c": "1"}}
    got = names_problems(jobset)
    assert got == [
        ("names/template-metadata", "spec.replicatedJobs[0].template.metadata.labels[x]", LABEL_VALUE),
        ("names/template-metadata", "spec.replicatedJobs[0].template.spec.template.metadata.annotations[a/b/c]",
         utilvalidation.is_qualified_name("a/b/c")[0]),
    ]


def test_trainjob_runtime_patch_labels():
    tj = yaml.safe_load((FIXTURES / "trainjob_runtimepatches.yaml").read_text())
    tj["spec"]["runtimePatches"][0]["trainingRuntimeSpec"]["template"]["metadata"]["labels"]["team"] = "blue!"
    assert names_problems(tj) == [(
        "names/template-metadata",
        "spec.runtimePatches[0].trainingRuntimeSpec.template.metadata.labels[team]", LABEL_VALUE)]


# ---------------------------------------------------------------------------------------------
# ConfigMap and Secret

def core_objects():
    return [d for d in yaml.safe_load_all((FIXTURES / "podgroups_and_core.yaml").read_text())
            if d["apiVersion"] == "v1"]


def test_configmap_keys():
    cm, _ = core_objects()
    cm["data"]["bad/key"] = "x"
    cm["binaryData"] = {"hostfile": "eA=="}
    assert names_problems(cm) == [
        ("names/data-keys", "data[bad/key]", CONFIG_KEY),
        ("names/data-keys", "data[hostfile]", "duplicate of key present in binaryData"),
    ]


def test_configmap_size():
    cm, _ = core_objects()
    cm["data"]["hostfile"] = "x" * (1024 * 1024 + 1)
    assert names_problems(cm) == [("names/data-keys", "", "Too long: may not be more than 1048576 bytes")]


def test_ssh_secret_needs_private_key():
    _, secret = core_objects()
    del secret["data"]["ssh-privatekey"]
    assert names_problems(secret) == [("names/secret-type", "data[ssh-privatekey]", "Required value")]
    secret["stringData"] = {"ssh-privatekey": "-----BEGIN..."}
    assert names_problems(secret) == []


def test_secret_keys():
    _, secret = core_objects()
    secret["type"] = "Opaque"
    secret["stringData"] = {"bad key": "x"}
    assert names_problems(secret) == [("names/data-keys", "data[bad key]", CONFIG_KEY)]


@pytest.mark.parametrize("value, error", [
    ("aGVsbG8=", None), ("aGVsbG8h", None), ("", None), ("aGVs bG8=", "illegal base64 data at input byte 4"),
    ("aGVsbG8", "illegal base64 data at input byte 4"), ("aG=sbG8=", "illegal base64 data at input byte 2"),
])
def test_base64_payloads(value, error):
    assert names.base64_error(value) == error


def test_secret_data_must_be_base64():
    _, secret = core_objects()
    secret["data"]["ssh-publickey"] = "not base64!"
    assert names_problems(secret) == [("names/data-keys", "data[ssh-publickey]", "illegal base64 data at input byte 3")]
