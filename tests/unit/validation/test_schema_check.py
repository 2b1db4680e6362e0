"""Schema family: strict JSON Schema checks worded like the API server, and list-type uniqueness."""

from __future__ import annotations

from kpt_fn import upstream

import copy
from pathlib import Path

import pytest
import yaml

from kpt_fn import validation
from kpt_fn.problems import ERROR
from kpt_fn.validation import hints
from kpt_fn.validation.schema_check import NOT_FINITE

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "validation"


def fixture(name: str) -> dict:
    return yaml.safe_load((FIXTURES / name).read_text())


def schema_problems(obj: dict) -> list[tuple[str, str]]:
    """(path, the API server's text): our hint after a type error (kpt_fn.validation.hints, checked in
    tests/behaviour/test_newcomer_messages.py) is cut off, so that the text is compared with kube-openapi's alone."""
    return [(p.path, p.message.split("; found ")[0]) for p in validation.check_object(obj, upstream.bundle("v2.3.0")) if p.rule.startswith("schema/")]


@pytest.fixture
def trainjob():
    return fixture("trainjob_runtimepatches.yaml")


@pytest.fixture
def jobset():
    return fixture("jobset_torchtune.yaml")


@pytest.fixture
def runtime():
    return fixture("trainingruntime_minimal.yaml")


def test_valid_examples_have_no_problems(trainjob, jobset, runtime):
    assert validation.check_object(trainjob, upstream.bundle("v2.3.0")) == []
    assert validation.check_object(jobset, upstream.bundle("v2.3.0")) == []
    assert validation.check_object(runtime, upstream.bundle("v2.3.0")) == []
    for doc in yaml.safe_load_all((FIXTURES / "podgroups_and_core.yaml").read_text()):
        assert validation.check_object(doc, upstream.bundle("v2.3.0")) == [], doc["kind"]


def test_unknown_kinds_are_not_checked():
    assert validation.check_object({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"x": 1}}, upstream.bundle("v2.3.0")) == []
    assert validation.check_object({"kind": "TrainJob"}, upstream.bundle("v2.3.0")) == []
    assert validation.check_object("not a dict", upstream.bundle("v2.3.0")) == []


def test_problem_shape(trainjob):
    trainjob["spec"]["bogus"] = 1
    (p,) = validation.check_object(trainjob, upstream.bundle("v2.3.0"))
    assert p.subject is trainjob
    assert p.severity == ERROR
    assert p.rule == "schema/trainjob.trainer.kubeflow.org"
    assert (p.path, p.message) == ("spec.bogus", 'unknown field "spec.bogus"')


def test_unknown_fields_everywhere_root_included(jobset):
    jobset["extra"] = 1
    jobset["metadata"]["labelz"] = {}
    pod = jobset["spec"]["replicatedJobs"][2]["template"]["spec"]["template"]["spec"]
    pod["containers"][0]["imagee"] = "typo"
    assert schema_problems(jobset) == [
        ("metadata.labelz", 'unknown field "metadata.labelz"'),
        ("spec.replicatedJobs[2].template.spec.template.spec.containers[0].imagee",
         'unknown field "spec.replicatedJobs[2].template.spec.template.spec.containers[0].imagee"'),
        ("extra", 'unknown field "extra"'),
    ]


def test_all_problems_of_an_object_are_reported(trainjob):
    trainjob["spec"]["runtimeRef"]["name"] = ""
    trainjob["spec"]["trainer"]["numNodes"] = "two"
    trainjob["spec"]["activeDeadlineSeconds"] = 0
    del trainjob["spec"]["runtimePatches"][1]["manager"]
    assert sorted(schema_problems(trainjob)) == sorted([
        ("spec.runtimeRef.name",
         'Invalid value: "": spec.runtimeRef.name in body should be at least 1 chars long'),
        ("spec.trainer.numNodes",
         'Invalid value: "string": spec.trainer.numNodes in body must be of type integer: "string"'),
        ("spec.activeDeadlineSeconds",
         "Invalid value: 0: spec.activeDeadlineSeconds in body should be greater than or equal to 1"),
        ("spec.runtimePatches[1].manager", "Required value"),
    ])


def test_required_value(trainjob):
    del trainjob["spec"]["runtimeRef"]
    assert schema_problems(trainjob) == [("spec.runtimeRef", "Required value")]


def test_null_list_item_is_a_type_error(trainjob):
    trainjob["spec"]["trainer"]["env"].append(None)
    assert schema_problems(trainjob) == [(
        "spec.trainer.env[1]", 'Invalid value: "null": spec.trainer.env[1] in body must be of type object: "null"')]


def test_required_null_is_missing(trainjob):
    trainjob["spec"]["runtimeRef"] = None  # pruned by the API server, then missing
    assert schema_problems(trainjob) == [("spec.runtimeRef", "Required value")]


def test_required_value_in_list_items(jobset):
    del jobset["spec"]["replicatedJobs"][1]["template"]
    assert schema_problems(jobset) == [("spec.replicatedJobs[1].template", "Required value")]


def test_enum_is_unsupported_value(runtime):
    # upstream test/integration/webhooks: "non-supported mpi.mpiImplementation"
    runtime["spec"]["mlPolicy"] = {"mpi": {"mpiImplementation": "invalid"}}
    assert schema_problems(runtime) == [
        ("spec.mlPolicy.mpi.mpiImplementation",
         'Unsupported value: "invalid": supported values: "OpenMPI", ""'),
    ]


def test_enum_in_jobset(jobset):
    jobset["spec"]["successPolicy"]["operator"] = "Most"
    assert schema_problems(jobset) == [
        ("spec.successPolicy.operator", 'Unsupported value: "Most": supported values: "All", "Any"'),
    ]


def test_max_length_is_too_long(trainjob):
    trainjob["spec"]["runtimeRef"]["name"] = "a" * 254
    assert schema_problems(trainjob) == [("spec.runtimeRef.name", "Too long: may not be more than 253 bytes")]


def test_max_items_is_too_many(trainjob):
    patch = trainjob["spec"]["runtimePatches"][1]
    trainjob["spec"]["runtimePatches"] = [dict(patch, manager=f"example.com/m{i}") for i in range(17)]
    assert schema_problems(trainjob) == [("spec.runtimePatches", "Too many: 17: must have at most 16 items")]


def test_min_properties(runtime):
    runtime["spec"]["template"] = {}
    assert schema_problems(runtime) == [
        ("spec.template", "Invalid value: 0: spec.template in body should have at least 1 properties"),
    ]


def test_minimum(jobset):
    jobset["spec"]["ttlSecondsAfterFinished"] = -1
    assert schema_problems(jobset) == [
        ("spec.ttlSecondsAfterFinished",
         "Invalid value: -1: spec.ttlSecondsAfterFinished in body should be greater than or equal to 0"),
    ]


def test_pattern_names_map_keys_like_kube_openapi(jobset):
    container = jobset["spec"]["replicatedJobs"][2]["template"]["spec"]["template"]["spec"]["containers"][0]
    container["resources"]["limits"]["cpu"] = "lots"
    ((path, message),) = schema_problems(jobset)
    assert path == "spec.replicatedJobs[2].template.spec.template.spec.containers[0].resources.limits[cpu]"
    # kube-openapi's text names the pattern (should match '^(\+|-)?(([0-9]+...'); a quantity's is
    # described instead (a deliberate difference: kpt_fn.validation.hints).
    assert message == (
        'Invalid value: "lots": spec.replicatedJobs[2].template.spec.template.spec.containers[0]'
        ".resources.limits.cpu in body " + hints.QUANTITY_SHAPE)


def test_int_or_string_accepts_both(jobset):
    container = jobset["spec"]["replicatedJobs"][2]["template"]["spec"]["template"]["spec"]["containers"][0]
    container["resources"]["limits"]["cpu"] = 4
    container["readinessProbe"]["tcpSocket"]["port"] = "torch"
    assert schema_problems(jobset) == []
    container["readinessProbe"]["tcpSocket"]["port"] = True
    assert schema_problems(jobset) == [(
        "spec.replicatedJobs[2].template.spec.template.spec.containers[0].readinessProbe.tcpSocket.port",
        'Invalid value: "boolean": spec.replicatedJobs[2].template.spec.template.spec.containers[0]'
        '.readinessProbe.tcpSocket.port in body must be of type integer,string: "boolean"',
    )]


@pytest.mark.parametrize("value, message", [
    ("3", 'Invalid value: "string": spec.replicatedJobs[0].replicas in body must be of type integer: "string"'),
    (True, 'Invalid value: "": spec.replicatedJobs[0].replicas in body must be of type int32: ""'),
    (1.5, 'Invalid value: "float64": spec.replicatedJobs[0].replicas in body must be of type int32: "float64"'),
    ([1], 'Invalid value: "array": spec.replicatedJobs[0].replicas in body must be of type integer: "array"'),
])
def test_type_errors_follow_kube_openapi(jobset, value, message):
    jobset["spec"]["replicatedJobs"][0]["replicas"] = value
    assert schema_problems(jobset) == [("spec.replicatedJobs[0].replicas", message)]


def test_integral_float_and_null_are_accepted_like_the_api_server(jobset):
    jobset["spec"]["replicatedJobs"][0]["replicas"] = 1.0  # JSON number 1.0 is an integer to kube-openapi
    jobset["spec"]["ttlSecondsAfterFinished"] = None  # nulls of non-nullable fields are pruned
    jobset["metadata"]["creationTimestamp"] = None  # typed ObjectMeta: null is the zero value
    assert schema_problems(jobset) == []


@pytest.mark.parametrize("value, shown", [(float("inf"), "+Inf"), (float("-inf"), "-Inf"), (float("nan"), "NaN")])
@pytest.mark.parametrize("field", ["replicas", "name"])
def test_non_finite_numbers_are_refused(jobset, value, shown, field):
    # YAML's .inf/.nan (and 1e400) have no JSON form: kubectl cannot send them; jsonschema-rs sees a null.
    jobset["spec"]["replicatedJobs"][0][field] = value
    assert schema_problems(jobset) == [(f"spec.replicatedJobs[0].{field}", f"Invalid value: {shown}: {NOT_FINITE}")]


def test_non_finite_number_in_a_nullable_place_is_still_refused(jobset):
    jobset["spec"]["ttlSecondsAfterFinished"] = float("nan")  # its null would be pruned
    assert [p for p, _ in schema_problems(jobset)] == ["spec.ttlSecondsAfterFinished"]


@pytest.mark.parametrize("annotations", [{"0": None}, {"0": 1.5}, {"12": float("inf")}])
def test_a_map_key_that_reads_as_a_number_is_followed_as_a_key(trainjob, annotations):
    # jsonschema-rs hands the key "0" over as the int 0; looking for a non-finite value there must
    # not take it for a list index (it raised KeyError: an internal error for `annotations: {"0": null}`).
    trainjob["metadata"]["annotations"] = annotations
    assert all(p.path.startswith("metadata.annotations") for p in validation.check_object(trainjob, upstream.bundle("v2.3.0"))
               if p.rule.startswith("schema/"))


@pytest.mark.parametrize("value, refused", [(2.0, False), (float(2**53), False), (float(2**53 + 2), True), (1e20, True)])
def test_a_whole_float_is_an_integer_up_to_2_53(trainjob, value, refused):
    # kube-openapi (validate/type.go, IsFloat64AJSONInteger); YAML reads an integer beyond int64 as
    # this float too (yamlio.schema.int_1_2), so `activeDeadlineSeconds: 99999999999999999999` is refused.
    trainjob["spec"]["activeDeadlineSeconds"] = value
    assert [p for p, _ in schema_problems(trainjob)] == (["spec.activeDeadlineSeconds"] if refused else [])


def test_date_time_format(trainjob):
    trainjob["spec"]["runtimePatches"][0]["time"] = "2026-01-02T03:04:05Z"
    assert schema_problems(trainjob) == []
    trainjob["spec"]["runtimePatches"][0]["time"] = "yesterday"
    assert schema_problems(trainjob) == [(
        "spec.runtimePatches[0].time",
        'Invalid value: "yesterday": spec.runtimePatches[0].time in body must be of type date-time: "yesterday"',
    )]


def test_metadata_maps_must_hold_strings(trainjob):
    trainjob["metadata"]["labels"]["replicas"] = 3
    assert schema_problems(trainjob) == [(
        "metadata.labels[replicas]",
        'Invalid value: "integer": metadata.labels.replicas in body must be of type string: "integer"',
    )]


def test_configmap_and_secret_schemas():
    cm, secret = [d for d in yaml.safe_load_all((FIXTURES / "podgroups_and_core.yaml").read_text())
                  if d["apiVersion"] == "v1"]
    cm["data"]["n"] = 1
    secret["stringdata"] = {}
    assert schema_problems(cm) == [
        ("data[n]", 'Invalid value: "integer": data.n in body must be of type string: "integer"'),
    ]
    assert schema_problems(secret) == [("stringdata", 'unknown field "stringdata"; did you mean "stringData"?')]


# ---------------------------------------------------------------------------------------------
# x-kubernetes-list-type

def list_type_problems(obj):
    return [(p.path, p.message) for p in validation.check_object(obj, upstream.bundle("v2.3.0")) if p.rule == "schema/list-type"]


def test_list_map_duplicates_report_the_second_occurrence(jobset):
    rjobs = jobset["spec"]["replicatedJobs"]
    rjobs.append(copy.deepcopy(rjobs[2]))
    rjobs.append(copy.deepcopy(rjobs[2]))
    assert list_type_problems(jobset) == [("spec.replicatedJobs[3]", 'Duplicate value: {"name":"node"}')]


def test_list_map_keys_use_defaults(jobset):
    ports = jobset["spec"]["replicatedJobs"][2]["template"]["spec"]["template"]["spec"]["containers"][0]["ports"]
    ports.append({"containerPort": 29500})  # protocol defaults to TCP: same key as the first port
    ports.append({"containerPort": 29500, "protocol": "UDP"})
    assert list_type_problems(jobset) == [(
        "spec.replicatedJobs[2].template.spec.template.spec.containers[0].ports[1]",
        'Duplicate value: {"containerPort":29500,"protocol":"TCP"}',
    )]


def test_list_map_duplicates_in_trainjob(trainjob):
    trainjob["spec"]["trainer"]["env"].append({"name": "EPOCHS", "value": "4"})
    trainjob["spec"]["runtimePatches"].append(copy.deepcopy(trainjob["spec"]["runtimePatches"][0]))
    assert list_type_problems(trainjob) == [
        ("spec.trainer.env[1]", 'Duplicate value: {"name":"EPOCHS"}'),
        ("spec.runtimePatches[2]", 'Duplicate value: {"manager":"kueue.x-k8s.io/manager"}'),
    ]


def test_list_set_duplicates(runtime):
    runtime["spec"]["mlPolicy"]["torch"] = {"envInjection": {"targets": [
        {"jobName": "node", "containerNames": ["a", "b", "a", "a"]}]}}
    assert list_type_problems(runtime) == [(
        "spec.mlPolicy.torch.envInjection.targets[0].containerNames[2]", 'Duplicate value: "a"')]


def test_list_map_items_must_be_objects(trainjob):
    trainjob["spec"]["trainer"]["env"] = ["EPOCHS=3"]
    assert ("spec.trainer.env[0]", 'Invalid value: "EPOCHS=3": must be an object for an array of list-type map') \
        in list_type_problems(trainjob)


def test_minimal_trainjob_validates():
    tj = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
          "metadata": {"name": "mnist", "namespace": "team-a"},
          "spec": {"runtimeRef": {"name": "torch-distributed"},
                   "trainer": {"numNodes": 2, "command": ["torchrun", "/workspace/train.py"],
                               "env": [{"name": "EPOCHS", "value": "3"}],
                               "resourcesPerNode": {"limits": {"nvidia.com/gpu": 4}}}}}
    assert validation.check_object(tj, upstream.bundle("v2.3.0")) == []


@pytest.mark.parametrize("mpi", [
    # upstream test/integration/webhooks "Defaulting TrainingRuntime on creation" inputs
    {"numProcPerNode": 1, "mpiImplementation": "OpenMPI", "sshAuthMountPath": "/usr/dir", "runLauncherAsNode": False},
    {"numProcPerNode": 1, "mpiImplementation": "OpenMPI", "runLauncherAsNode": False},
    {"numProcPerNode": 1, "mpiImplementation": "OpenMPI", "sshAuthMountPath": "/usr/dir"},
    {"mpiImplementation": "OpenMPI", "sshAuthMountPath": "/usr/dir", "runLauncherAsNode": False},
])
def test_mpi_runtimes_of_upstream_defaulting_tests_validate(runtime, mpi):
    runtime["spec"]["mlPolicy"] = {"mpi": mpi}
    assert validation.check_object(runtime, upstream.bundle("v2.3.0")) == []
    assert validation.check_runtime_webhook(runtime, upstream.bundle("v2.3.0")) == []


@pytest.mark.parametrize("release,plugin", [("v2.2.1", "torch"), ("v2.2.1", "jax"), ("v2.2.1", "xgboost"),
                                            ("v2.3.0", "jax"), ("v2.3.0", "xgboost")])
def test_an_unknown_field_of_a_plugin_policy_without_properties_is_named(runtime, release, plugin):
    # such a policy's schema is `additionalProperties: false` with no properties: jsonschema-rs said
    # "False schema does not allow ..." at the policy; the API server names each unknown field
    from kpt_fn import upstream

    runtime["spec"]["mlPolicy"] = {"numNodes": 1, plugin: {"envInjection": {}, "numProcPerNode": "auto"}}
    entry = upstream.bundle(release).entry_for(runtime)
    from kpt_fn.validation import schema_check

    got = [(p.path, p.message) for p in schema_check.check(runtime, entry)]
    assert got == [(f"spec.mlPolicy.{plugin}.envInjection", f'unknown field "spec.mlPolicy.{plugin}.envInjection"'),
                   (f"spec.mlPolicy.{plugin}.numProcPerNode", f'unknown field "spec.mlPolicy.{plugin}.numProcPerNode"')]


def test_a_plugin_policy_with_properties_still_names_its_unknown_field(runtime):
    runtime["spec"]["mlPolicy"] = {"numNodes": 1, "torch": {"envInjectoin": {}}}
    assert schema_problems(runtime) == [
        ("spec.mlPolicy.torch.envInjectoin", 'unknown field "spec.mlPolicy.torch.envInjectoin"; did you mean "envInjection"?')]
