"""Every module of kpt_fn has its unit tests where docs/testing.md ("Where a test lives") says to look.

A module `kpt_fn/<path>/<module>.py` is tested in `tests/unit/<path>/test_<module>.py`; a package's
`__init__.py` in `tests/unit/<path>/test_<package>.py` (kpt_fn/engine/__init__.py in
tests/unit/test_engine.py). A module that defines no function or class (re-exports, constants, the
`python -m` entry) has nothing of its own to test. The only other home is a port of the upstream tests
that pin the module's behaviour (PORTED below, with the reason no unit file is needed).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "kpt_fn"
TESTS = ROOT / "tests"

_K8S_CONTAINERS = "tests/upstream/kubernetes/test_core_validation_containers.py"
_K8S_POD_SPEC = "tests/upstream/kubernetes/test_core_validation_pod_spec.py"
_K8S_WHY = "each rule of the family is pinned by Kubernetes' own validation_test.go table cases"

# module -> (the ported upstream test file that tests it, why that is its test)
PORTED = {
    "kpt_fn/plugins/coscheduling.py": ("tests/upstream/trainer/test_plugins_golden.py",
                                       "coscheduling_test.go's cases are golden cases (fixtures/golden/*/coscheduling/)"),
    "kpt_fn/plugins/flux.py": ("tests/upstream/trainer/test_plugins_flux.py", "flux_test.go ported table by table"),
    "kpt_fn/plugins/jax.py": ("tests/upstream/trainer/test_plugins_jax.py", "jax_test.go ported"),
    "kpt_fn/plugins/jobset.py": ("tests/upstream/trainer/test_plugins_jobset.py", "jobset_test.go ported"),
    "kpt_fn/plugins/mpi.py": ("tests/upstream/trainer/test_plugins_mpi.py", "mpi_test.go ported"),
    "kpt_fn/plugins/plainml.py": ("tests/upstream/trainer/test_plugins_golden.py",
                                  "plainml_test.go's cases are golden cases (fixtures/golden/*/plainml/)"),
    "kpt_fn/plugins/torch/__init__.py": ("tests/upstream/trainer/test_plugins_torch.py", "torch_test.go ported"),
    "kpt_fn/plugins/torch/torchtune.py": ("tests/upstream/trainer/test_plugins_torch.py",
                                          "torch_test.go's torchtune tables (and torchtune golden cases)"),
    "kpt_fn/plugins/volcano.py": ("tests/upstream/trainer/test_plugins_volcano.py", "volcano_test.go ported"),
    "kpt_fn/plugins/xgboost.py": ("tests/upstream/trainer/test_plugins_xgboost.py", "xgboost_test.go ported"),
    "kpt_fn/validation/jobset_webhook.py": ("tests/upstream/jobset/test_jobset_webhook.py",
                                            "JobSet's jobset_webhook_test.go ported case by case"),
    "kpt_fn/validation/k8s/containers.py": (_K8S_CONTAINERS, _K8S_WHY),
    "kpt_fn/validation/k8s/ports.py": (_K8S_CONTAINERS, _K8S_WHY),
    "kpt_fn/validation/k8s/probes.py": (_K8S_CONTAINERS, _K8S_WHY),
    "kpt_fn/validation/k8s/volumes.py": (_K8S_CONTAINERS, _K8S_WHY),
    "kpt_fn/validation/k8s/paths.py": (_K8S_CONTAINERS, "the path rules of volume mounts and env's fieldRef cases"),
    "kpt_fn/validation/k8s/findings.py": (_K8S_CONTAINERS, "the error types and messages every family reports"),
    "kpt_fn/validation/k8s/pod.py": (_K8S_POD_SPEC, _K8S_WHY),
    "kpt_fn/validation/k8s/metadata.py": (_K8S_POD_SPEC, _K8S_WHY),
    "kpt_fn/validation/k8s/scheduling.py": (_K8S_POD_SPEC, _K8S_WHY),
    "kpt_fn/validation/k8s/security.py": (_K8S_POD_SPEC, _K8S_WHY),
    "kpt_fn/validation/k8s/job.py": ("tests/upstream/kubernetes/test_batch_validation.py",
                                     "pkg/apis/batch/validation/validation_test.go's Job tables ported"),
}

def modules() -> list:
    return sorted(p.relative_to(ROOT).as_posix() for p in PACKAGE.rglob("*.py"))


def unit_home(module: str) -> str:
    """Where the unit tests of `module` (kpt_fn/...py, relative to the checkout) live."""
    parts = Path(module).parts[1:]
    if parts[-1] == "__init__.py":
        if len(parts) == 1:
            return ""  # kpt_fn/__init__.py: the package itself
        *where, name = parts[:-1]
    else:
        *where, name = parts[:-1] + (parts[-1][:-3],)
    return Path("tests", "unit", *where, f"test_{name}.py").as_posix()


def defines_something(module: str) -> bool:
    tree = ast.parse((ROOT / module).read_text(encoding="utf-8"))
    return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for n in tree.body)


def test_unit_home_follows_the_package():
    assert unit_home("kpt_fn/engine/smp.py") == "tests/unit/engine/test_smp.py"
    assert unit_home("kpt_fn/validation/k8s/env.py") == "tests/unit/validation/k8s/test_env.py"
    assert unit_home("kpt_fn/engine/__init__.py") == "tests/unit/test_engine.py"
    assert unit_home("kpt_fn/plugins/torch/__init__.py") == "tests/unit/plugins/test_torch.py"
    assert unit_home("kpt_fn/config.py") == "tests/unit/test_config.py"


def test_every_module_has_its_unit_tests_or_a_ported_upstream_test():
    missing = []
    for module in modules():
        home = unit_home(module)
        if not home or not defines_something(module) or module in PORTED:
            continue
        if not (ROOT / home).is_file():
            missing.append(f"{module}: put its unit tests in {home} (docs/testing.md, 'Where a test lives'), "
                           f"or, if a port of upstream's tests pins it, name that file in PORTED of tests/unit/test_test_layout.py")
    assert not missing, "\n".join(missing)


def test_the_table_names_real_files():
    for module, (ported, reason) in PORTED.items():
        assert (ROOT / module).is_file(), f"PORTED names {module}, which is gone: remove the entry"
        assert (ROOT / ported).is_file(), f"{module}: {ported} does not exist"
        assert ported.startswith("tests/upstream/") and reason, module


def test_a_module_with_its_unit_file_leaves_the_table():
    """A ported test is not a reason to keep a module in PORTED once someone wrote its unit file."""
    stale = [m for m in PORTED if (ROOT / unit_home(m)).is_file()]
    assert not stale, f"these have {[unit_home(m) for m in stale]} now: remove them from PORTED: {stale}"


def test_no_unit_test_file_without_its_module():
    """A file in tests/unit/ is named after a module (or, with a suffix, a part of one: test_smp_kubectl.py)."""
    homes = {unit_home(m) for m in modules()} - {""}
    stems = {h[: -len(".py")] for h in homes}
    orphans = []
    for path in sorted((TESTS / "unit").rglob("test_*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel in homes or rel in ("tests/unit/test_test_layout.py", "tests/unit/test_architecture.py"):
            continue
        if not any(rel.startswith(stem + "_") for stem in stems):
            orphans.append(rel)
    assert not orphans, f"unit test files named after no module of kpt_fn: {orphans}"
