"""CEL family: the CRDs' x-kubernetes-validations evaluated offline, with upstream's messages."""

from __future__ import annotations

import copy

from pathlib import Path

import pytest
import yaml

from kpt_fn import upstream
from kpt_fn import validation
from kpt_fn.validation import cel, structural

from support.celpy_oracle import celpy_parsing, interpreter  # noqa: F401 (a fixture)

# The rules written in these tests are not in any bundle: cel-python parses them.
pytestmark = pytest.mark.usefixtures("celpy_parsing")

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "validation"


def fixture(name: str) -> dict:
    return yaml.safe_load((FIXTURES / name).read_text())


def cel_problems(obj, release: str = upstream.DEFAULT_RELEASE):
    bundle = upstream.bundle(release)
    return [(p.rule, p.path, p.message) for p in validation.check_object(obj, bundle) if p.rule.startswith("cel/")]


# The runtime webhook test's ML-policy entries are the same at v2.2.1 and v2.3.0, and so are the rules.
RELEASES = pytest.mark.parametrize("release", upstream.RELEASES)


# ---------------------------------------------------------------------------------------------
# TrainJob rules

DNS1035 = ("cel/trainjob/metadata.name-dns1035", "metadata.name", "metadata.name must match RFC 1035 DNS label format")


@pytest.mark.parametrize("name, problems", [
    ("ft", []),
    ("a" * 63, []),
    ("Ft", [DNS1035]),
    ("1ft", [DNS1035]),
    ("ft.v2", [DNS1035]),
    ("a" * 64, [("cel/trainjob/metadata.name-max-length", "metadata.name",
                 "metadata.name must be no more than 63 characters")]),
])
def test_trainjob_name_rules(name, problems):
    tj = fixture("trainjob_runtimepatches.yaml")
    tj["metadata"]["name"] = name
    assert cel_problems(tj) == problems


def test_trainjob_without_name_is_an_evaluation_error():
    tj = fixture("trainjob_runtimepatches.yaml")
    del tj["metadata"]["name"]
    tj["metadata"]["generateName"] = "ft-"
    assert cel_problems(tj) == [
        ("cel/trainjob/metadata.name-dns1035", "metadata.name",
         "no such key: name evaluating rule: metadata.name must match RFC 1035 DNS label format"),
        ("cel/trainjob/metadata.name-max-length", "metadata.name",
         "no such key: name evaluating rule: metadata.name must be no more than 63 characters"),
    ]


@pytest.mark.parametrize("uri, ok", [
    ("", True), ("hf://tatsu-lab/alpaca", True), ("s3://bucket/key", True), ("pvc+x://a", True),
    ("tatsu-lab/alpaca", False), ("hf:/x", False), ("3x://a", False), ("hf://", False),
])
def test_storage_uri_rule(uri, ok):
    tj = fixture("trainjob_runtimepatches.yaml")
    tj["spec"]["initializer"]["model"]["storageUri"] = uri
    expected = [] if ok else [(
        "cel/trainjob/spec.initializer.model.storageUri-uri", "spec.initializer.model.storageUri",
        "storageUri may be empty, or it must be a valid URI (scheme://...)")]
    assert cel_problems(tj) == expected


@pytest.mark.parametrize("manager, ok", [
    ("trainer.kubeflow.org/trainjob-controller", True),
    ("kueue.x-k8s.io/multikueue", True),
    ("example.com/other", False),
])
def test_managed_by_rule(manager, ok):
    tj = fixture("trainjob_runtimepatches.yaml")
    tj["spec"]["managedBy"] = manager
    expected = [] if ok else [(
        "cel/trainjob/spec.managedBy-supported-manager", "spec.managedBy",
        "ManagedBy must be trainer.kubeflow.org/trainjob-controller or kueue.x-k8s.io/multikueue if set")]
    assert cel_problems(tj) == expected


def test_status_rule():
    tj = fixture("trainjob_runtimepatches.yaml")
    tj["status"] = {"trainerStatus": {"progressPercentage": 3}}
    assert cel_problems(tj) == [(
        "cel/trainjob/status.trainerStatus-last-updated-time", "status.trainerStatus",
        "lastUpdatedTime is required when trainerStatus is present")]


def test_transition_rules_are_skipped():
    # runtimeRef, trainer, initializer, runtimePatches[].manager ... carry `self == oldSelf`: not for creates.
    tj = fixture("trainjob_runtimepatches.yaml")
    assert cel_problems(tj) == []
    entry = upstream.bundle("v2.3.0").entry_for(tj)
    assert all("oldSelf" not in r.rule for r in structural.cel_rules(entry))


# ---------------------------------------------------------------------------------------------
# Runtime rules (upstream test/integration/webhooks/trainingruntime_webhook_test.go)

ONE_POLICY = "Only one of the policy can be configured"


@RELEASES
@pytest.mark.parametrize("policies", [
    ["mpi", "torch"], ["jax", "torch"], ["torch", "flux"], ["mpi", "flux"], ["flux", "jax"], ["jax", "mpi"],
    ["torch", "mpi", "jax", "flux"],
])
def test_only_one_ml_policy(policies, release):
    rt = fixture("trainingruntime_minimal.yaml")
    rt["spec"]["mlPolicy"] = {p: {} for p in policies}
    assert cel_problems(rt, release) == [("cel/trainingruntime/spec.mlPolicy-one-policy", "spec.mlPolicy", ONE_POLICY)]


@RELEASES
@pytest.mark.parametrize("policy", ["torch", "mpi", "jax", "xgboost", "flux"])
def test_single_ml_policy_is_fine(policy, release):
    rt = fixture("trainingruntime_minimal.yaml")
    rt["spec"]["mlPolicy"] = {"numNodes": 2, policy: {}}
    assert cel_problems(rt, release) == []


@RELEASES
def test_flux_num_proc_per_node_rule(release):
    rt = fixture("trainingruntime_minimal.yaml")
    rt["kind"] = "ClusterTrainingRuntime"
    del rt["metadata"]["namespace"]
    rt["spec"]["mlPolicy"] = {"flux": {"numProcPerNode": 0}}
    assert cel_problems(rt, release) == [(
        "cel/clustertrainingruntime/spec.mlPolicy.flux.numProcPerNode-min-1", "spec.mlPolicy.flux.numProcPerNode",
        "NumProcPerNode in fluxPolicy must be >= 1")]
    rt["spec"]["mlPolicy"] = {"flux": {}}  # defaults to 1
    assert cel_problems(rt, release) == []


def test_env_injection_must_not_name_node():
    rt = fixture("trainingruntime_minimal.yaml")
    rt["spec"]["mlPolicy"]["torch"] = {"envInjection": {"targets": [
        {"jobName": "node", "containerNames": ["sidecar"]},
        {"jobName": "launcher", "containerNames": ["metrics", "node"]},
    ]}}
    assert cel_problems(rt) == [(
        "cel/trainingruntime/spec.mlPolicy.torch.envInjection.targets[].containerNames-no-node-container",
        "spec.mlPolicy.torch.envInjection.targets[1].containerNames",
        "containerNames must not include the main node container because PET_* envs are always injected into it",
    )]


def _shipped(name):
    # The built-in catalog holds the shipped runtimes, so this does not need ../shared beside the checkout.

    return copy.deepcopy(next(r for r in upstream.bundle("v2.3.0").catalog() if r["metadata"]["name"] == name))


def test_runtime_startup_policy_and_depends_on():
    rt = _shipped("torchtune-llama3.2-1b")
    assert cel_problems(rt) == []
    rt["spec"]["template"]["spec"]["startupPolicy"] = {"startupPolicyOrder": "InOrder"}
    assert cel_problems(rt) == [(
        "cel/clustertrainingruntime/spec.template.spec-startup-policy-depends-on", "spec.template.spec",
        "StartupPolicy and DependsOn APIs are mutually exclusive")]
    rt["spec"]["template"]["spec"]["startupPolicy"] = {"startupPolicyOrder": "AnyOrder"}
    assert cel_problems(rt) == []


def test_runtime_volume_claim_template_namespace():
    rt = _shipped("torchtune-llama3.2-1b")
    template = rt["spec"]["template"]["spec"]["volumeClaimPolicies"][0]["templates"][0]
    template["metadata"]["namespace"] = ""
    assert cel_problems(rt) == []
    template["metadata"]["namespace"] = "team-a"
    assert cel_problems(rt) == [(
        "cel/clustertrainingruntime/spec.template.spec.volumeClaimPolicies[]-template-namespace",
        "spec.template.spec.volumeClaimPolicies[0]",
        "namespace cannot be set for VolumeClaimPolicies templates")]


# ---------------------------------------------------------------------------------------------
# JobSet rules

def test_jobset_rules():
    js = fixture("jobset_torchtune.yaml")
    js["spec"]["startupPolicy"] = {"startupPolicyOrder": "InOrder"}
    js["spec"]["volumeClaimPolicies"][0]["templates"][0]["metadata"]["namespace"] = "x"
    assert cel_problems(js) == [
        ("cel/jobset/spec-startup-policy-depends-on", "spec", "StartupPolicy and DependsOn APIs are mutually exclusive"),
        ("cel/jobset/spec.volumeClaimPolicies[]-template-namespace", "spec.volumeClaimPolicies[0]",
         "namespace cannot be set for VolumeClaimPolicies templates"),
    ]


def test_jobset_rule_evaluation_error_is_reported():
    js = fixture("jobset_torchtune.yaml")
    js["spec"]["volumeClaimPolicies"][0]["templates"].append({"spec": {}})  # no metadata
    assert ("cel/jobset/spec.volumeClaimPolicies[]-template-namespace", "spec.volumeClaimPolicies[0]",
            "no such key: metadata evaluating rule: namespace cannot be set for VolumeClaimPolicies templates") \
        in cel_problems(js)


# ---------------------------------------------------------------------------------------------
# The evaluator itself

def test_defaults_are_visible_to_rules():
    schema = {"type": "object", "properties": {
        "order": {"type": "string", "default": "AnyOrder"},
        "n": {"type": "integer"}}}
    assert cel.compile_rule("self.order == 'AnyOrder'", schema).evaluate({}) is True
    assert cel.compile_rule("has(self.order) && !has(self.n)", schema).evaluate({}) is True
    with pytest.raises(cel.CelError, match="no such key: n"):
        cel.compile_rule("self.n > 1", schema).evaluate({})


@pytest.mark.parametrize("rule, value, result", [
    ("self.a || self.b", {"b": True}, True),            # error || true
    ("self.a && self.b", {"b": False}, False),          # error && false
    ("self.l.exists(x, x.v == 1)", {"l": [{}, {"v": 1}]}, True),
    ("self.l.all(x, x.v == 1)", {"l": [{}, {"v": 2}]}, False),
    ("self.l.exists_one(x, x > 1)", {"l": [1, 2, 3]}, False),
    ("self.l.filter(x, x > 1).map(x, x * 2)", {"l": [1, 2, 3]}, [4, 6]),
    ("self.l.map(x, x > 1, x + 1)", {"l": [1, 2, 3]}, [3, 4]),
    ("self.m.all(k, k.startsWith('a'))", {"m": {"ab": 1, "ac": 2}}, True),
    ("size(self.s) == 3 && self.s.size() == 3", {"s": "äöü"}, True),
    ("self.s.endsWith('z') ? 1 : -1", {"s": "xyz"}, 1),
    ("1 == 1.0 && 1 != 'a' && !(true == 1)", {}, True),
    ("[1, 2] + [3] == [1, 2, 3] && {'a': 1}['a'] == 1 && 'a' in {'a': 1}", {}, True),
    ("7 / 2 == 3 && -7 / 2 == -3 && -7 % 3 == -1", {}, True),
    ('"x\\ty".contains("\\t") && r"a\\b".size() == 3', {}, True),
])
def test_evaluator_semantics(rule, value, result):
    assert cel.compile_rule(rule, None).evaluate(value) == result


@pytest.mark.parametrize("rule, value, error", [
    ("self.a || self.b", {"b": False}, "no such key: a"),
    ("self.l.all(x, x.v == 1)", {"l": [{}, {"v": 1}]}, "no such key: v"),
    ("self.x > 1", {"x": "s"}, "no such overload"),
    ("self.x / 0 == 1", {"x": 1}, "division by zero"),
    ("self.x + 1 > 0", {"x": 2**63 - 1}, "integer overflow"),
    ("self.l[3] == 1", {"l": [1]}, "index out of bounds: 3"),
])
def test_evaluator_errors(rule, value, error):
    with pytest.raises(cel.CelError, match=error):
        cel.compile_rule(rule, None).evaluate(value)


RULES_AND_INPUTS = [
    ("[has(self.torch), has(self.mpi), has(self.jax), has(self.xgboost),has(self.flux)].filter(x, x).size() <= 1",
     [{}, {"torch": {}}, {"torch": {}, "mpi": {}}, {"jax": {}, "xgboost": {}, "flux": {}}]),
    ("!(has(self.startupPolicy) && self.startupPolicy.startupPolicyOrder == 'InOrder' && "
     "self.replicatedJobs.exists(x, has(x.dependsOn)))",
     [{"replicatedJobs": [{"name": "a"}]},
      {"startupPolicy": {"startupPolicyOrder": "InOrder"}, "replicatedJobs": [{"name": "a", "dependsOn": []}]},
      {"startupPolicy": {"startupPolicyOrder": "AnyOrder"}, "replicatedJobs": [{"dependsOn": []}]}]),
    ("self.templates.all(t, !has(t.metadata.namespace) || size(t.metadata.namespace) == 0)",
     [{"templates": []}, {"templates": [{"metadata": {"namespace": ""}}]},
      {"templates": [{"metadata": {"name": "a"}}, {"metadata": {"namespace": "n"}}]}]),
    ("self == '' || self.matches('^[A-Za-z][A-Za-z0-9+.-]*://.+$')", ["", "hf://a", "a/b", "hf://a\n", "hf://a\nb"]),
    ("self in ['trainer.kubeflow.org/trainjob-controller', 'kueue.x-k8s.io/multikueue']", ["x", "kueue.x-k8s.io/multikueue"]),
    ("!self.exists(c, c == 'node')", [[], ["a", "node"]]),
    ("self >= 1", [0, 1, 5]),
]


@pytest.mark.parametrize("rule, inputs", RULES_AND_INPUTS, ids=[r[:40] for r, _ in RULES_AND_INPUTS])
def test_compiled_rules_agree_with_celpy(rule, inputs):
    compiled = cel.compile_rule(rule, None)
    interpreted = interpreter(rule, None)
    for value in inputs:
        assert compiled.evaluate(value) == interpreted({"self": value}), value


def test_unsupported_constructs_are_compile_errors():
    # No shipped rule has one: scripts/generate.py cel refuses to write such a rule's tree.
    program = cel.compile_rule("int(self.x) + 1 == 3", {"type": "object", "properties": {"x": {"type": "integer"}}})
    assert program.compile_error
    with pytest.raises(cel.CelError, match="rule compile error"):
        program.evaluate({"x": 2})


def test_message_expression_and_field_path():
    schema = {
        "type": "object",
        "properties": {"spec": {"type": "object", "properties": {"replicas": {"type": "integer"},
                                                                 "unit": {"type": "string"}},
                                "x-kubernetes-validations": [
                                    {"rule": "self.replicas <= 4",
                                     "messageExpression": "'at most 4 ' + self.unit + ' replicas'",
                                     "fieldPath": ".replicas"},
                                    {"rule": "self.replicas > 0"}]}},
    }
    root = structural.build_tree(schema, "Thing")
    problems = structural.check_tree({"spec": {"replicas": 9, "unit": "node"}}, root)
    assert [(p.path, p.message) for p in problems] == [("spec.replicas", "at most 4 node replicas")]
    problems = structural.check_tree({"spec": {"replicas": 0, "unit": "node"}}, root)
    assert [(p.path, p.message) for p in problems] == [("spec", "failed rule: self.replicas > 0")]


def test_unparsable_rule_is_reported_not_raised():
    schema = {"type": "object", "properties": {"a": {"type": "string"}},
              "x-kubernetes-validations": [{"rule": "self.a.?b == ", "message": "m"}]}
    problems = structural.check_tree({"a": "x"}, structural.build_tree(schema, "Thing"))
    assert [p.message.split(":")[0] for p in problems] == ["rule compile error"]


def _texts(alphabet: str, seed: int) -> list:
    import itertools
    import random

    texts = ["".join(t) for n in range(4) for t in itertools.product(alphabet, repeat=n)]
    rng = random.Random(seed)
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 14))) for _ in range(3000)]
    return texts


@pytest.mark.parametrize("pattern", sorted(cel._KNOWN))
def test_known_patterns_answer_as_re2(pattern):
    """The bundled rules' patterns are answered without an expression, as the API server's RE2 answers."""
    re2 = pytest.importorskip("re2")
    texts = _texts("aZ0-+.:/\n_é", 3) + ["s3://bucket", "s3://bucket\n", "hf://a\nb", "a", "a-", "-a", "abc\n", "ab-c"]
    wrong = [t for t in texts if cel._matches(t, pattern) != (re2.search(pattern, t) is not None)]
    assert wrong == []


@pytest.mark.parametrize("pattern", ["^[a-z]+$", "a$|^b", "[$]x", "[]$]", "[^]$]+$", r"x\$", "^(ab|c)$", "^.*$"])
def test_other_patterns_end_where_re2_ends(pattern):
    # `$` is the end of the text, as in RE2 (Python's also matches before a final line break).
    re2 = pytest.importorskip("re2")
    for text in ["ab", "ab\n", "b\n", "$x", "$", "]\n", "x$", "c\n", "", "\n", "a\nb"]:
        assert cel._matches(text, pattern) == (re2.search(pattern, text) is not None), (pattern, text)


def test_a_storage_uri_ending_in_a_line_break_is_refused():
    # A literal block scalar keeps its final line break; the API server's rule refuses the URI.
    from kpt_fn import validation, yamlio

    text = """apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: job, namespace: ns}
spec:
  runtimeRef: {name: torch-distributed}
  initializer:
    model:
      storageUri: |
        hf://org/model
    dataset:
      storageUri: >-
        hf://org/dataset
"""
    (trainjob,) = yamlio.load_all(text)
    got = [(p.path, p.message) for p in validation.check_object(trainjob, upstream.bundle("v2.3.0"))]
    assert got == [("spec.initializer.model.storageUri", "storageUri may be empty, or it must be a valid URI (scheme://...)")]
