"""The plugin registry: phases follow from what each module defines, in registry order; a plugin is
switched on by its runtime policy entry and not imported otherwise; a wrong registry line is a loud
error; adding a plugin is one module plus one registry line (the toy ML policy below)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import kpt_fn.plugins
from kpt_fn import upstream
from kpt_fn.engine import EngineOptions, expand, framework
from kpt_fn.engine.info import RuntimePolicy
from kpt_fn.problems import ERROR, WARNING, has_errors

REPO = Path(__file__).resolve().parents[2]

PHASES = {
    "EnforceMLPolicy": framework.ENFORCE_ML_POLICY,
    "EnforcePodGroupPolicy": framework.ENFORCE_POD_GROUP_POLICY,
    "PodNetwork": framework.POD_NETWORK,
    "ComponentBuilder": framework.BUILD,
    "CustomValidation": framework.CUSTOM_VALIDATION,
}


def _phases(fw: framework.Framework) -> dict[str, list[str]]:
    return {phase: [p.name for p in fw.plugins if hasattr(p.module, fn)] for phase, fn in PHASES.items()}


@pytest.fixture
def fresh_framework():
    """The default framework is rebuilt from kpt_fn.plugins.REGISTRY before and after the test."""
    framework.default.cache_clear()
    yield
    framework.default.cache_clear()


def test_phases_are_derived_in_registry_order_and_documented():
    phases = _phases(framework.default())
    assert phases == {
        "EnforceMLPolicy": ["plainml", "torch", "mpi", "jax", "xgboost", "flux"],
        "EnforcePodGroupPolicy": ["coscheduling", "volcano"],
        "PodNetwork": ["jobset"],
        "ComponentBuilder": ["jobset", "mpi", "flux", "coscheduling", "volcano"],
        "CustomValidation": ["jobset", "torch", "mpi", "xgboost", "flux", "volcano"],
    }
    # The framework's docstring shows the same phases (the one place they are written out).
    doc = framework.__doc__
    for phase, names in phases.items():
        if phase == "ComponentBuilder":
            assert re.search(r"then build of every builder:\s+" + re.escape(", ".join(names)) + r"\n", doc)
        else:
            assert re.search(rf"{phase}:\s+{re.escape(', '.join(names))}\n", doc), phase


def test_every_registered_module_exists_and_its_switch_is_its_only_guard():
    everything = RuntimePolicy(
        ml_policy_source={"torch": {}, "mpi": {}, "jax": {}, "xgboost": {}, "flux": {}},
        pod_group_policy={"coscheduling": {}, "volcano": {}})
    for p in framework.default().plugins:  # one registry for every release
        assert p.module.__name__.startswith("kpt_fn.plugins.") and p.module.__name__.endswith(p.name)
        assert not hasattr(p.module, "is_active"), p.name  # the registry's switch says it, once
        if p.policy is None:
            continue
        source = "ml_policy_source" if p.policy == "mlPolicy" else "pod_group_policy"
        without = RuntimePolicy(**{**vars(everything), source: {
            k: v for k, v in getattr(everything, source).items() if k != p.entry}})
        assert p.switched_on(everything.ml_policy_source, everything.pod_group_policy), p.name
        assert not p.switched_on(without.ml_policy_source, without.pod_group_policy), p.name


def test_plainml_steps_aside_for_the_policies_that_replace_it():
    fw = framework.default()
    names = lambda ml: [m.__name__.rsplit(".", 1)[1] for m in fw._enabled(ml, None)]  # noqa: E731
    assert names(None) == ["jobset", "plainml"]
    for policy in ("xgboost", "flux"):
        assert names({policy: {}}) == ["jobset", "plainml", policy]
    for policy in ("torch", "mpi", "jax"):
        assert names({policy: {}}) == ["jobset", policy]


@pytest.mark.parametrize("registry, message", [
    ((("jobset", None), ("torhc", "mlPolicy.torch")), r"names 'torhc', but there is no module kpt_fn\.plugins\.torhc"),
    ((("jobset", None), ("jobset", None)), "names a plugin twice"),
    ((("torch", "mlpolicy.torch"),), "must be None or '<mlPolicy|podGroupPolicy>.<entry>'"),
    ((("torch", "mlPolicy"),), "must be None or"),
])
def test_a_wrong_registry_line_is_a_loud_error(registry, message):
    with pytest.raises(framework.RegistryError, match=message):
        framework.Framework(registry)


def test_a_misspelt_registry_line_fails_the_first_render(monkeypatch, fresh_framework):
    monkeypatch.setattr(kpt_fn.plugins, "REGISTRY", kpt_fn.plugins.REGISTRY + (("volcanoo", "podGroupPolicy.volcano"),))
    with pytest.raises(framework.RegistryError, match="volcanoo"):
        expand(_trainjob(), _runtime({"torch": {}}), EngineOptions(bundle=upstream.bundle("v2.3.0")))


def test_plugins_whose_policy_is_absent_are_not_imported():
    script = textwrap.dedent("""
        import sys
        from kpt_fn import upstream
        from kpt_fn.engine import EngineOptions, expand
        trainjob = %r
        runtime = %r
        assert not expand(trainjob, runtime, EngineOptions(bundle=upstream.bundle("v2.3.0"))).problems
        print(sorted(m.rsplit(".", 1)[1] for m in sys.modules if m.startswith("kpt_fn.plugins.")))
    """) % (_trainjob(), _runtime({"torch": {}}))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=REPO)
    imported = set(ast.literal_eval(out.stdout.split("\n")[0]))
    assert imported & {name for name, _ in kpt_fn.plugins.REGISTRY} == {"jobset", "plainml", "torch"}


# --- a toy ML policy: one module plus one registry line --------------------------------------------

TOY = '''
"""Toy: an ML policy that exports the world size and refuses a reserved env var."""
from kpt_fn.engine.apply import upsert_env_vars
from kpt_fn.problems import Problem, Rule

NAME = "Toy"
REPLACES = ("plainml",)
RULES = [Rule("trainer-webhook/toy-reserved-env", "TrainJob",
              "spec.trainer.env must not set TOY_WORLD_SIZE")]


def enforce_ml_policy(info, trainjob, options):
    ps = info.pod_set_by_ancestor("trainer")
    ps.count = trainjob["spec"]["trainer"]["numNodes"]
    upsert_env_vars(info.container_by_ancestor("trainer", "node").env,
                    [{"name": "TOY_WORLD_SIZE", "value": str(ps.count * info.runtime_policy.ml_policy_source["toy"]["slots"])}])


def build(info, trainjob, options):
    md = trainjob["metadata"]
    return [{"apiVersion": "v1", "kind": "ConfigMap",
             "metadata": {"name": md["name"] + "-toy", "namespace": md["namespace"]}, "data": {"slots": "2"}}]


def validate(info, trainjob, options):
    env = trainjob["spec"]["trainer"].get("env") or []
    return [Problem("TOY_WORLD_SIZE is reserved", f"spec.trainer.env[{i}]", rule=RULES[0].id)
            for i, e in enumerate(env) if e["name"] == "TOY_WORLD_SIZE"]
'''


def _trainjob(env=None) -> dict:
    trainer = {"numNodes": 3, "image": "toy:1", **({"env": env} if env else {})}
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
            "metadata": {"name": "job", "namespace": "team-a"},
            "spec": {"runtimeRef": {"name": "rt"}, "trainer": trainer}}


def _runtime(ml_policy: dict) -> dict:
    node = {"name": "node", "replicas": 1,
            "template": {"metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
                         "spec": {"template": {"spec": {"containers": [{"name": "node", "image": "base:1"}]}}}}}
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime",
            "metadata": {"name": "rt"},
            "spec": {"mlPolicy": {"numNodes": 1, **ml_policy}, "template": {"spec": {"replicatedJobs": [node]}}}}


@pytest.fixture
def toy(tmp_path, monkeypatch, fresh_framework):
    """The toy module in a folder of kpt_fn.plugins, and its one registry line."""
    (tmp_path / "toy.py").write_text(TOY)
    monkeypatch.setattr(kpt_fn.plugins, "__path__", [*kpt_fn.plugins.__path__, str(tmp_path)])
    monkeypatch.setattr(kpt_fn.plugins, "REGISTRY", kpt_fn.plugins.REGISTRY + (("toy", "mlPolicy.toy"),))
    yield
    sys.modules.pop("kpt_fn.plugins.toy", None)


def test_a_toy_ml_policy_takes_part_in_the_phases_its_module_defines(toy):
    phases = _phases(framework.default())
    assert [phase for phase, names in phases.items() if "toy" in names] == [
        "EnforceMLPolicy", "ComponentBuilder", "CustomValidation"]
    assert "trainer-webhook/toy-reserved-env" in {r.id for r in framework.rules()}

    result = expand(_trainjob(), _runtime({"toy": {"slots": 2}}), EngineOptions(bundle=upstream.bundle("v2.3.0")))
    assert not has_errors(result.problems), result.problems
    configmap, jobset = result.objects
    assert configmap["metadata"] == {"name": "job-toy", "namespace": "team-a"}
    job = jobset["spec"]["replicatedJobs"][0]
    assert job["template"]["spec"]["parallelism"] == 3
    assert job["template"]["spec"]["template"]["spec"]["containers"][0]["env"] == [
        {"name": "TOY_WORLD_SIZE", "value": "6"}]

    refused = expand(_trainjob(env=[{"name": "TOY_WORLD_SIZE", "value": "1"}]), _runtime({"toy": {"slots": 2}}), EngineOptions(bundle=upstream.bundle("v2.3.0")))
    assert [(p.severity, p.path, p.rule) for p in refused.problems] == [
        (ERROR, "spec.trainer.env[0]", "trainer-webhook/toy-reserved-env")]
    assert refused.objects == []


def test_without_its_policy_entry_the_toy_is_not_run(toy):
    result = expand(_trainjob(), _runtime({}), EngineOptions(bundle=upstream.bundle("v2.3.0")))
    assert [o["kind"] for o in result.objects] == ["JobSet"]
    assert "kpt_fn.plugins.toy" not in sys.modules


# --- a toy output profile: one module and one registry line (kpt_fn/profiles) ------------------------

TOY_PROFILE = '''
from kpt_fn.problems import WARNING, Problem
from kpt_fn.profiles.base import Profile


class Toy(Profile):
    def before_engine(self, trainjob):
        trainer = {**trainjob["spec"]["trainer"], "image": "toy-cluster.example.com/toy:1"}
        return {**trainjob, "spec": {**trainjob["spec"], "trainer": trainer}}

    def after_engine(self, trainjob, objects, problems):
        for obj in objects:
            obj["metadata"].setdefault("annotations", {})["toy.example.com/profile"] = self.cfg.profile
        return objects, problems + [Problem("rendered for the toy cluster", "", severity=WARNING, rule="toy/note")]

    def check(self, trainjob, jobset, blame=None):
        return [Problem("toy JobSets run one node", "spec.trainer.numNodes", rule="toy/one-node")] \\
            if trainjob["spec"]["trainer"].get("numNodes", 1) > 1 else []
'''


def test_a_toy_profile_is_one_module_and_one_line_of_config_profiles(tmp_path, monkeypatch):
    import kpt_fn.profiles
    from kpt_fn import config, function

    (tmp_path / "toy_profile.py").write_text(TOY_PROFILE)
    monkeypatch.setattr(kpt_fn.profiles, "__path__", [*kpt_fn.profiles.__path__, str(tmp_path)])
    try:
        monkeypatch.setitem(config.PROFILES, "toy", ("toy_profile", "Toy"))  # the one line
        # The option takes it (its choices are that table) and the run loads its module.
        parsed = config.parse({"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs",
                               "metadata": {"name": "c"}, "spec": {"profile": "toy"}})
        assert parsed.problems == [] and parsed.config.profile == "toy"
        one = _trainjob()
        one["spec"]["trainer"]["numNodes"] = 1
        outcome = function.run([_runtime({"torch": {}}), one], parsed)
        assert [(r.severity, r.rule) for r in outcome.results if (r.rule or "").startswith("toy/")] == [(WARNING, "toy/note")]
        (jobset,) = [o for r in outcome.rendered for o in r.objects if o["kind"] == "JobSet"]
        assert jobset["metadata"]["annotations"]["toy.example.com/profile"] == "toy"
        containers = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"]
        assert containers[0]["image"] == "toy-cluster.example.com/toy:1"  # the engine saw before_engine's TrainJob

        refused = function.run([_runtime({"torch": {}}), _trainjob()], parsed)
        assert ("toy/one-node", ERROR) in {(r.rule, r.severity) for r in refused.results}
        assert refused.rendered[0].objects == []
    finally:
        sys.modules.pop("kpt_fn.profiles.toy_profile", None)
