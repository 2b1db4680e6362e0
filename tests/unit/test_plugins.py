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


# --- the import graph ---------------------------------------------------------------------------


def _imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
    return out


@pytest.mark.parametrize("files, forbidden", [
    ("kpt_fn/engine/*.py", "kpt_fn.plugins"),  # plugins import the engine, not the other way round
    # The engine names objects with apimachinery's syntax (kpt_fn.apimachinery), never the checks.
    ("kpt_fn/engine/*.py", "kpt_fn.validation"),
    # apimachinery is below the checks that use it.
    ("kpt_fn/apimachinery/*.py", "kpt_fn.validation"),
    # The conversion runs before the engine and knows nothing of it (GPU/CPU counts come from kpt_fn.quantity).
    ("kpt_fn/convert.py", "kpt_fn.engine"),
    # resolve finds runtimes; it does not run them.
    ("kpt_fn/resolve.py", "kpt_fn.engine"),
    # review builds data from the Outcomes the commands (kpt_fn.cli.modes) give it; formats only write data.
    ("kpt_fn/review/*.py", "kpt_fn.cli"),
    ("kpt_fn/review/*.py", "kpt_fn.formats.markdown"),
    ("kpt_fn/formats/*.py", "kpt_fn.cli"),
    ("kpt_fn/formats/*.py", "kpt_fn.review.report"),
    ("kpt_fn/formats/*.py", "kpt_fn.review.diff"),
    ("kpt_fn/formats/*.py", "kpt_fn.review.upgrade"),
    ("kpt_fn/formats/*.py", "kpt_fn.review.sides"),
    # The functionConfig, policy section included, is parsed without the checks that use it.
    ("kpt_fn/config.py", "kpt_fn.policy"),
    # Output placement and results know items and problems, not the config or the engine.
    ("kpt_fn/output.py", "kpt_fn.config"),
    ("kpt_fn/results.py", "kpt_fn.config"),
])
def test_no_upward_imports(files, forbidden):
    bad = {str(p.relative_to(REPO)): sorted(m for m in _imports(p) if m == forbidden or m.startswith(forbidden + "."))
           for p in REPO.glob(files)}
    assert {p: ms for p, ms in bad.items() if ms} == {}


def test_environment_and_collector_only_at_the_edge():
    """The environment is read in kpt_fn/cli alone (everything else is handed `env`), and the cyclic
    collector is configured there alone (a render leaves no cycles for it: test_acyclic_render)."""
    found = []
    for path in sorted((REPO / "kpt_fn").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)):
                continue
            if node.value.id == "os" and node.attr in ("environ", "getenv", "putenv") and not rel.startswith("kpt_fn/cli/"):
                found.append(f"{rel}: os.{node.attr}")
            if node.value.id == "gc" and not rel.startswith("kpt_fn/cli/"):
                found.append(f"{rel}: gc.{node.attr}")
    assert found == []


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package_graph() -> dict[str, set[str]]:
    """kpt_fn module -> the kpt_fn modules it imports anywhere (at the top or inside a function: a lazy
    import that closes a circle is still a circle). A package counts only where it is named itself,
    not as the parent of the submodule imported."""
    modules = {_module_name(p): p for p in (REPO / "kpt_fn").rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        out = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                out |= {a.name for a in node.names if a.name in modules}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([node.module] if node.module else []))
                for a in node.names:
                    if f"{base}.{a.name}" in modules:
                        out.add(f"{base}.{a.name}")
                    elif base in modules:
                        out.add(base)
        graph[name] = out - {name}
    return graph


def test_no_import_cycle_in_the_package():
    graph = _package_graph()
    cycles = []
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done
    for start in sorted(graph):
        if state.get(start):
            continue
        path, stack = [start], [iter(sorted(graph[start]))]
        state[start] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                cycles.append(path[path.index(nxt):] + [nxt])
            elif not state.get(nxt):
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(sorted(graph[nxt])))
    assert cycles == []


def test_no_module_over_900_lines():
    # One job per module: past this size a module is doing several (kpt_fn/yamlio was six).
    sizes = {str(p.relative_to(REPO)): len(p.read_text().splitlines()) for p in (REPO / "kpt_fn").rglob("*.py")}
    assert {p: n for p, n in sizes.items() if n > 900} == {}


# --- a toy output profile: one module and one registry line (kpt_fn/profiles) ------------------------

TOY_PROFILE = '''
from kpt_fn.problems import WARNING, Problem
from kpt_fn.profiles.base import Profile


class Toy(Profile):
    name = "toy"

    def before_engine(self, trainjob):
        trainer = {**trainjob["spec"]["trainer"], "image": "toy-cluster.example.com/toy:1"}
        return {**trainjob, "spec": {**trainjob["spec"], "trainer": trainer}}

    def after_engine(self, trainjob, objects, problems):
        for obj in objects:
            obj["metadata"].setdefault("annotations", {})["toy.example.com/profile"] = self.name
        return objects, problems + [Problem("rendered for the toy cluster", "", severity=WARNING, rule="toy/note")]

    def check(self, trainjob, jobset):
        return [Problem("toy JobSets run one node", "spec.trainer.numNodes", rule="toy/one-node")] \\
            if trainjob["spec"]["trainer"].get("numNodes", 1) > 1 else []
'''


def test_the_profile_option_offers_every_registered_profile():
    from kpt_fn import config, profiles

    assert config.PROFILES == tuple(profiles.REGISTRY)


def test_a_toy_profile_is_one_module_and_one_registry_line(tmp_path, monkeypatch):
    import importlib

    import kpt_fn.profiles
    from kpt_fn import config, function

    (tmp_path / "toy_profile.py").write_text(TOY_PROFILE)
    monkeypatch.setattr(kpt_fn.profiles, "__path__", [*kpt_fn.profiles.__path__, str(tmp_path)])
    try:
        toy = importlib.import_module("kpt_fn.profiles.toy_profile")
        monkeypatch.setitem(kpt_fn.profiles.REGISTRY, "toy", toy.Toy)
        parsed = config.Parsed(config.FunctionConfig(profile="toy"), [])
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


def test_the_architecture_page_names_every_top_level_module():
    # docs/architecture.md is where a newcomer finds a module's one job: a module it does not name is
    # a module nobody can find.
    text = (REPO / "docs" / "architecture.md").read_text()
    top = {p.stem for p in (REPO / "kpt_fn").glob("*.py") if p.stem != "__init__"}
    top |= {p.name + "/" for p in (REPO / "kpt_fn").iterdir() if (p / "__init__.py").is_file()}
    assert sorted(m for m in top if f"`{m}`" not in text) == []
    # ... and every module inside a package, by its path ("Inside the packages"), none that is gone
    inside = {p.relative_to(REPO / "kpt_fn").with_suffix("").as_posix() for p in (REPO / "kpt_fn").rglob("*.py")
              if p.parent != REPO / "kpt_fn" and p.stem != "__init__"}
    assert sorted(m for m in inside if f"| `{m}` |" not in text) == [], "add a row to docs/architecture.md"
    assert sorted(set(re.findall(r"^\| `([a-z0-9_]+/[a-z0-9_/]+)` \|", text, re.M)) - inside) == []
