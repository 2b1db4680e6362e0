"""Names family: Kubernetes name, label, annotation and key syntax with apimachinery's messages."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from kpt_fn import validation
from kpt_fn.validation import names

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "validation"

SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
             "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
             "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
LABEL = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
         "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
         "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
DNS1035 = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
           "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', "
           "regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")
KEY_NAME = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
            "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
            "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
LABEL_VALUE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
               "and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
               "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
CONFIG_KEY = ("a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  "
              "or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')")


@pytest.mark.parametrize("value, errors", [
    ("example.com", ()),
    ("a", ()),
    ("Example.com", (SUBDOMAIN,)),
    ("-a", (SUBDOMAIN,)),
    ("a..b", (SUBDOMAIN,)),
    ("a\n", (SUBDOMAIN,)),  # anchored like Go: no newline before the end
    ("a" * 254, ("must be no more than 253 characters",)),
    ("A" * 254, ("must be no more than 253 characters", SUBDOMAIN)),
])
def test_dns1123_subdomain(value, errors):
    assert names.is_dns1123_subdomain(value) == errors


@pytest.mark.parametrize("value, errors", [
    ("team-a", ()),
    ("0abc", ()),
    ("a.b", ("must not contain dots",)),
    ("Team", (LABEL,)),
    ("a" * 64, ("must be no more than 63 characters",)),
])
def test_dns1123_label(value, errors):
    assert names.is_dns1123_label(value) == errors


@pytest.mark.parametrize("value, errors", [
    ("ft", ()), ("0ft", (DNS1035,)), ("ft-", (DNS1035,)), ("a" * 64, ("must be no more than 63 characters",)),
])
def test_dns1035_label(value, errors):
    assert names.is_dns1035_label(value) == errors


@pytest.mark.parametrize("value, errors", [
    ("app", ()),
    ("trainer.kubeflow.org/trainjob-ancestor-step", ()),
    ("My_Key.1", ()),
    ("/name", ("prefix part must be non-empty",)),
    ("example.com/", ("name part must be non-empty", KEY_NAME)),
    ("Example.com/x", ("prefix part " + SUBDOMAIN,)),
    ("a/b/c", ("a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and "
               "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
               "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix "
               "and '/' (e.g. 'example.com/MyName')",)),
    ("x" * 64, ("name part must be no more than 63 bytes",)),
    ("bad key", (KEY_NAME,)),
])
def test_qualified_name(value, errors):
    assert names.is_qualified_name(value) == errors


@pytest.mark.parametrize("value, errors", [
    ("", ()), ("v1.2_x-y", ()), ("-x", (LABEL_VALUE,)), ("a b", (LABEL_VALUE,)),
    ("x" * 64, ("must be no more than 63 bytes",)),
])
def test_label_value(value, errors):
    assert names.is_label_value(value) == errors


@pytest.mark.parametrize("value, errors", [
    ("hostfile", ()), (".dockerconfigjson", ()), ("a/b", (CONFIG_KEY,)), (".", ("must not be '.'",)),
    ("..x", ("must not start with '..'",)),
])
def test_config_map_key(value, errors):
    assert names.is_config_map_key(value) == errors


def test_domain_prefixed_path():
    assert names.is_domain_prefixed_path("acme.io/foo") == []
    assert names.is_domain_prefixed_path("foo") == [
        ("Invalid value", "foo", 'must be a domain-prefixed path (such as "acme.io/foo")')]
    assert names.is_domain_prefixed_path("Acme.io/f o") == [
        ("Invalid value", "Acme.io", SUBDOMAIN),
        ("Invalid value", "f o", "Invalid path (regex used for validation is "
                                 "'[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')"),
    ]


# ---------------------------------------------------------------------------------------------
# ObjectMeta through check_object

def names_problems(obj):
    return [(p.rule, p.path, p.message) for p in validation.check_object(obj) if p.rule.startswith("names/")]


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
        ("names/annotations", "metadata.annotations[a/b/c]", names.is_qualified_name("a/b/c")[0]),
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
         names.is_qualified_name("a/b/c")[0]),
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


# --- the predicates that stand for the expressions every render meets ------------------------------

_PREDICATES = [
    (names.DNS1123_LABEL_FMT, names._dns1123_label_ok),
    (names.DNS1123_SUBDOMAIN_FMT, names._dns1123_subdomain_ok),
    (names.DNS1035_LABEL_FMT, names._dns1035_label_ok),
    (names.LABEL_KEY_FMT, names._label_key_ok),
    (names.CONFIG_MAP_KEY_FMT, names._config_map_key_ok),
]


@pytest.mark.parametrize("fmt, predicate", _PREDICATES, ids=lambda x: getattr(x, "__name__", ""))
def test_each_predicate_accepts_exactly_what_its_expression_matches(fmt, predicate):
    import itertools
    import random
    import re

    # every string of up to four characters over an alphabet with each class the formats tell apart
    alphabet = "aZ09-._/ \né"
    texts = ["".join(t) for n in range(5) for t in itertools.product(alphabet, repeat=n)]
    rng = random.Random(1123)
    texts += ["".join(rng.choice("ab9-._Z") for _ in range(rng.randrange(5, 80))) for _ in range(3000)]
    texts += ["my-name", "example.com", "a" * 63, "a." * 60 + "b", "-a", "a-", "a..b", ".a", "a.", "ǅ", "Ａ", "١"]
    assert [t for t in texts if bool(re.fullmatch(fmt, t)) != predicate(t)] == []
