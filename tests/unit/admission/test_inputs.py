"""kpt_fn.admission.inputs: policies, bindings, params and Namespaces among the inputs."""

from __future__ import annotations

from kpt_fn.admission import inputs


def policy(name, api_version=inputs.API_VERSION):
    return {"apiVersion": api_version, "kind": inputs.POLICY, "metadata": {"name": name}, "spec": {}}


def binding(name, policy_name):
    return {"apiVersion": inputs.API_VERSION, "kind": inputs.BINDING, "metadata": {"name": name},
            "spec": {"policyName": policy_name, "validationActions": ["Deny"]}}


def test_gather():
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a", "labels": {"t": "a"}}}
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "limits", "namespace": "team-a"}}
    found, problems = inputs.gather([policy("p"), binding("b", "p"), ns, cm, "not an object"])
    assert not problems and found
    assert list(found.policies) == ["p"] and [b["metadata"]["name"] for b in found.bindings["p"]] == ["b"]
    assert found.namespaces["team-a"] is ns
    assert found.params({"apiVersion": "v1", "kind": "ConfigMap"}) == [cm]
    assert found.namespaced({"apiVersion": "v1", "kind": "ConfigMap"})


def test_problems_are_warnings_naming_the_object():
    _, problems = inputs.gather([policy("p"), policy("p"), policy("q", "admissionregistration.k8s.io/v1beta1"),
                                 binding("b", "missing")])
    messages = [p.message for p in problems]
    assert any("defined twice" in m for m in messages)
    assert any("v1beta1" in m for m in messages)
    assert any("'missing', which is not among the inputs" in m for m in messages)
    assert {p.severity for p in problems} == {"warning"}


def test_no_policy_is_falsy():
    assert not inputs.gather([binding("b", "p")])[0]


def test_custom_resource_scope_follows_the_inputs():
    found, _ = inputs.gather([{"apiVersion": "example.com/v1", "kind": "Quota", "metadata": {"name": "q"}}])
    assert not found.namespaced({"apiVersion": "example.com/v1", "kind": "Quota"})


class FakeReader:
    def read_dir(self, path, option, limits=None):
        assert option == "policyDirs"
        return [policy(path)], []


def test_read_adds_the_policy_dirs():
    found, problems = inputs.read([policy("a")], ["b"], FakeReader())
    assert sorted(found.policies) == ["a", "b"] and not problems


def test_is_admission_object():
    assert inputs.is_admission_object(binding("b", "p"))
    assert not inputs.is_admission_object({"apiVersion": "v1", "kind": "ValidatingAdmissionPolicy"})
