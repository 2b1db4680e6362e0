"""rules(): the catalog behind `expand-trainjobs rules`, and that every reported rule id is in it."""

from __future__ import annotations

import copy
from pathlib import Path

import yaml

from kpt_fn import rules, upstream, validation

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "validation"
FAMILIES = {"schema", "cel", "names", "runtime-webhook", "jobset-webhook", "trainer-webhook", "k8s"}


def test_entries_have_the_documented_shape():
    catalog = rules.rules(upstream.bundle("v2.3.0"))
    ids = [r["id"] for r in catalog]
    assert len(ids) == len(set(ids))
    for r in catalog:
        assert set(r) == {"id", "family", "applies_to", "description"}
        assert all(isinstance(v, str) and v for v in r.values()), r
    assert FAMILIES - {"trainer-webhook"} <= {r["family"] for r in catalog}


def test_one_cel_entry_per_distinct_rule():
    cel = {r["id"] for r in rules.rules(upstream.bundle("v2.3.0")) if r["family"] == "cel"}
    assert {
        "cel/trainjob/metadata.name-dns1035",
        "cel/trainjob/metadata.name-max-length",
        "cel/trainjob/spec.initializer.dataset.storageUri-uri",
        "cel/trainjob/spec.initializer.model.storageUri-uri",
        "cel/trainjob/spec.managedBy-supported-manager",
        "cel/trainjob/status.trainerStatus-last-updated-time",
        "cel/trainingruntime/spec.mlPolicy-one-policy",
        "cel/clustertrainingruntime/spec.mlPolicy-one-policy",
        "cel/jobset/spec-startup-policy-depends-on",
        "cel/jobset/spec.volumeClaimPolicies[]-template-namespace",
    } <= cel
    assert len(cel) == 18  # 6 TrainJob, 5 per runtime kind, 2 JobSet; transition rules are not applied
    assert not any("immutable" in r["description"].lower() for r in rules.rules(upstream.bundle("v2.3.0")) if r["family"] == "cel")


def test_engine_plugin_and_legacy_rules_are_included():
    from kpt_fn import convert, engine
    from kpt_fn.engine import framework

    declared = engine.RULES + framework.rules() + convert.RULES
    ids = {r["id"] for r in rules.rules(upstream.bundle("v2.3.0"))}
    assert declared and {r.id for r in declared} <= ids
    assert {"trainer-webhook", "legacy", "secret-policy"} <= {r["family"] for r in rules.rules(upstream.bundle("v2.3.0"))}


def test_every_reported_rule_id_is_in_the_catalog():
    ids = {r["id"] for r in rules.rules(upstream.bundle("v2.3.0"))}
    js = yaml.safe_load((FIXTURES / "jobset_torchtune.yaml").read_text())
    js["metadata"]["name"] = "Bad"
    js["metadata"]["labels"]["x"] = "a b"
    js["spec"]["bogus"] = True
    js["spec"]["startupPolicy"] = {"startupPolicyOrder": "InOrder"}
    js["spec"]["replicatedJobs"].append(copy.deepcopy(js["spec"]["replicatedJobs"][0]))
    rt = yaml.safe_load((FIXTURES / "trainingruntime_minimal.yaml").read_text())
    rt["spec"]["template"]["spec"]["replicatedJobs"][0]["replicas"] = 2
    reported = (validation.check_object(js, upstream.bundle("v2.3.0")) + validation.check_jobset_webhook(js, upstream.bundle("v2.3.0"))
                + validation.check_runtime_webhook(rt, upstream.bundle("v2.3.0")))
    assert {p.rule.split("/")[0] for p in reported} == {"names", "schema", "cel", "jobset-webhook",
                                                         "runtime-webhook"}
    assert {p.rule for p in reported} <= ids


def test_checking_modules_declare_rule_records():
    """Every module's RULES holds problems.Rule records (one shape), each id `family/name`."""
    import importlib

    from kpt_fn.problems import Rule

    package = Path(rules.__file__).parent
    modules = [".".join(("kpt_fn", *p.relative_to(package).with_suffix("").parts)).removesuffix(".__init__")
               for p in sorted(package.rglob("*.py")) if "\nRULES" in p.read_text()]
    assert len(modules) > 15
    for name in modules:
        for rule in getattr(importlib.import_module(name), "RULES", ()):
            assert isinstance(rule, Rule), (name, rule)
            assert rule.family and rule.applies_to and rule.description, (name, rule)
            assert rule.id.startswith(rule.family + "/") and rule.id != rule.family + "/", (name, rule)



def test_the_catalogue_describes_the_selected_release():
    """`rules --trainer-version v2.2.1` describes v2.2.1: its runtime webhooks have no objectSelector, its
    reconciler no managedBy check, its API no envInjection, its torchtune no v2.3.0-only checks, its JobSet
    (v0.11.1) no RestartJob checks; nothing in it speaks of v2.3.0."""
    from kpt_fn import upstream

    def catalogue(release):
        return {r["id"]: r["description"] for r in rules.rules(upstream.bundle(release))}

    old, new = catalogue("v2.2.1"), catalogue("v2.3.0")
    assert not [i for i, d in old.items() if "v2.3.0" in d]
    gone = {"trainer-controller/managed-by-other-controller", "trainer-webhook/torch-env-injection-target",
            "trainer-webhook/mpi-reserved-env"}
    assert gone <= set(new) and not gone & set(old)
    for rule in ("runtime-webhook/replicas", "runtime-webhook/ancestor-container", "runtime-webhook/deprecated"):
        assert "webhook-validation" in new[rule] and "webhook-validation" not in old[rule]
    assert "RestartJob" in new["jobset-webhook/failure-policy"]
    assert "RestartJob" not in old["jobset-webhook/failure-policy"]
    assert "LoRA not multi-node" in new["trainer-webhook/torchtune-config"]
    assert "LoRA not multi-node" not in old["trainer-webhook/torchtune-config"]
    assert "envInjection" not in old["trainer-controller/reconcile-error"]
