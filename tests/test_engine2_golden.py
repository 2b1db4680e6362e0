"""Golden cases for the MPI, JAX, XGBoost and Flux plugins and the initializer flows.

Each case in fixtures/engine2/ is ported from an upstream v2.3.0 test or from a worked example of
trainer-semantics.md; fixtures/engine2/README.md names the source of each.

Layout of a case directory:

    trainjob.yaml   the TrainJob, as a user would write it (not defaulted)
    runtime.yaml    the TrainingRuntime / ClusterTrainingRuntime it references, or `shipped: <name>`
                    for a runtime Trainer v2.3.0 ships (read from shared/upstream, overlay applied)
    options.yaml    optional: functionConfig keys (EngineOptions fields, else EngineOptions.plugin_options)
    expected.yaml   the objects, in emit order (absent or empty when the render fails)
    problems.yaml   optional: every Problem, in order, as {severity, path, message}; without it the
                    render must produce no problem at all

List order is significant everywhere. Values upstream makes random are written as shape markers:

    "@shape:ssh-privatekey"   base64 of a PEM "EC PRIVATE KEY" holding a P-521 key
    "@shape:ssh-publickey"    base64 of "ecdsa-sha2-nistp521 <base64>\\n"
    "@shape:curve.cert:<tj>"  base64 of a CURVE certificate for TrainJob <tj> with 40-character keys
    "@file:<name>"            the text of file <name> in the case directory (long scripts)
"""

from __future__ import annotations

import base64
import copy
import functools
import re
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from kpt_fn import yamlio
from kpt_fn.engine import EngineOptions, expand

REPO = Path(__file__).resolve().parent.parent
ROOT = REPO / "fixtures" / "engine2"
UPSTREAM_RUNTIMES = REPO.parent / "shared" / "upstream" / "trainer" / "manifests" / "base" / "runtimes"

# What upstream's install overlays (manifests/overlays/runtimes, .../data-cache) do to the base
# runtimes: pin the Kubeflow-built images to the release tag and disable webhook validation.
RELEASE_TAG = "v2.3.0"
RETAGGED_IMAGES = (
    "ghcr.io/kubeflow/trainer/torchtune-trainer",
    "ghcr.io/kubeflow/trainer/dataset-initializer",
    "ghcr.io/kubeflow/trainer/model-initializer",
    "ghcr.io/kubeflow/trainer/mlx-runtime",
    "ghcr.io/kubeflow/trainer/deepspeed-runtime",
    "ghcr.io/kubeflow/trainer/xgboost-runtime",
)


def shipped_runtimes() -> dict:
    """name -> ClusterTrainingRuntime dict (a private copy), for every runtime Trainer v2.3.0 ships."""
    if not UPSTREAM_RUNTIMES.exists():
        pytest.skip("shared/upstream runtimes are not available")
    return copy.deepcopy(_shipped_runtimes())


@functools.lru_cache(maxsize=None)
def _shipped_runtimes() -> dict:
    out = {}
    for path in sorted(UPSTREAM_RUNTIMES.rglob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        for doc in yamlio.load_all(path.read_text()):
            if not doc or doc.get("kind") != "ClusterTrainingRuntime":
                continue
            doc["metadata"].setdefault("labels", {})["trainer.kubeflow.org/webhook-validation"] = "disabled"
            for rj in doc["spec"]["template"]["spec"]["replicatedJobs"]:
                pod = rj["template"]["spec"]["template"]["spec"]
                for c in pod.get("initContainers", []) + pod.get("containers", []):
                    if c.get("image") in RETAGGED_IMAGES:
                        c["image"] = f"{c['image']}:{RELEASE_TAG}"
            out[doc["metadata"]["name"]] = doc
    return out


def case_names() -> list[str]:
    return sorted(p.name for p in ROOT.iterdir() if (p / "trainjob.yaml").exists())


def _load_one(path: Path):
    [doc] = yamlio.load_all(path.read_text())
    return doc


def _runtime(doc: dict) -> dict:
    if set(doc) == {"shipped"}:
        return shipped_runtimes()[doc["shipped"]]
    return doc


def load_case(name: str) -> dict:
    d = ROOT / name
    case = {
        "dir": d,
        "trainjob": _load_one(d / "trainjob.yaml"),
        "runtime": _runtime(_load_one(d / "runtime.yaml")),
        "options": _load_one(d / "options.yaml") if (d / "options.yaml").exists() else {},
        "expected": [],
        "problems": [],
    }
    if (d / "expected.yaml").exists():
        case["expected"] = [o for o in yamlio.load_all((d / "expected.yaml").read_text()) if o is not None]
    if (d / "problems.yaml").exists():
        case["problems"] = _load_one(d / "problems.yaml") or []
    return case


def engine_options(config: dict) -> EngineOptions:
    """Admission on (the function runs it before expanding); functionConfig keys that are
    EngineOptions fields go there, the others into plugin_options."""
    fields = set(EngineOptions.FIELDS)
    known = {k: v for k, v in config.items() if k in fields}
    rest = {k: v for k, v in config.items() if k not in fields}
    return EngineOptions(admission=True, plugin_options=rest, **known)


def render(case: dict):
    return expand(case["trainjob"], case["runtime"], engine_options(case["options"]))


def problem_view(problems) -> list[dict]:
    return [{"severity": p.severity, "path": p.path, "message": p.message} for p in problems]


# --- shape markers -----------------------------------------------------------------------------


def _check_ssh_private(value: str) -> str | None:
    pem = base64.b64decode(value)
    if not pem.startswith(b"-----BEGIN EC PRIVATE KEY-----\n"):
        return "not an EC PRIVATE KEY PEM"
    key = serialization.load_pem_private_key(pem, password=None)
    if not isinstance(key, ec.EllipticCurvePrivateKey) or key.curve.name != "secp521r1":
        return "not a P-521 key"
    return None


def _check_ssh_public(value: str) -> str | None:
    text = base64.b64decode(value).decode()
    if not re.fullmatch(r"ecdsa-sha2-nistp521 AAAA[A-Za-z0-9+/=]+\n", text):
        return f"not an ecdsa-sha2-nistp521 authorized_keys line: {text!r}"
    return None


def _check_curve(value: str, trainjob: str) -> str | None:
    text = base64.b64decode(value).decode()
    pattern = (
        r"#  ZeroMQ CURVE Secret Certificate\n#  Generated by Kubeflow Trainer\n\nmetadata\n"
        rf'    name = "{re.escape(trainjob)}"\ncurve\n'
        r'    public-key = "[0-9a-zA-Z.\-:+=^!/*?&<>()\[\]{}@%$#]{40}"\n'
        r'    secret-key = "[0-9a-zA-Z.\-:+=^!/*?&<>()\[\]{}@%$#]{40}"\n'
    )
    return None if re.fullmatch(pattern, text) else f"not a CURVE certificate for {trainjob}: {text!r}"


def resolve_markers(expected, actual, case_dir: Path, path: str = "") -> list[str]:
    """Replace markers in `expected` by the actual value when it has the right shape (in place).

    Returns the shape violations found; the caller then compares the structures for equality.
    """
    errors: list[str] = []

    def walk(exp, act, where):
        if isinstance(exp, dict) and isinstance(act, dict):
            for k in exp:
                if k in act:
                    replaced = walk(exp[k], act[k], f"{where}.{k}")
                    if replaced is not None:
                        exp[k] = replaced
            return None
        if isinstance(exp, list) and isinstance(act, list):
            for i, (e, a) in enumerate(zip(exp, act)):
                replaced = walk(e, a, f"{where}[{i}]")
                if replaced is not None:
                    exp[i] = replaced
            return None
        if isinstance(exp, str) and exp.startswith("@file:"):
            return (case_dir / exp[len("@file:"):]).read_text()
        if isinstance(exp, str) and exp.startswith("@shape:"):
            kind = exp[len("@shape:"):]
            if not isinstance(act, str):
                errors.append(f"{where}: expected a string for {exp}")
                return None
            if kind == "ssh-privatekey":
                err = _check_ssh_private(act)
            elif kind == "ssh-publickey":
                err = _check_ssh_public(act)
            elif kind.startswith("curve.cert:"):
                err = _check_curve(act, kind[len("curve.cert:"):])
            else:
                err = f"unknown shape marker {exp}"
            if err:
                errors.append(f"{where}: {err}")
                return None
            return act
        return None

    walk(expected, actual, path)
    return errors


def dump(objects) -> str:
    return yamlio.dump_all(objects)


CASES = case_names()


def test_enough_cases():
    assert len(CASES) >= 20


@pytest.mark.parametrize("name", CASES)
def test_golden(name):
    case = load_case(name)
    trainjob_before = copy.deepcopy(case["trainjob"])
    runtime_before = copy.deepcopy(case["runtime"])
    result = render(case)

    assert problem_view(result.problems) == case["problems"]
    expected = case["expected"]
    shape_errors = resolve_markers(expected, result.objects, case["dir"])
    assert shape_errors == []
    if expected != result.objects:
        # Full YAML of both sides makes a failing diff readable.
        assert dump(result.objects) == dump(expected)
    # The engine never mutates its inputs.
    assert case["trainjob"] == trainjob_before and case["runtime"] == runtime_before


@pytest.mark.parametrize("name", CASES)
def test_golden_is_deterministic(name):
    case = load_case(name)
    assert dump(render(case).objects) == dump(render(case).objects)


def _validator():
    validation = pytest.importorskip("kpt_fn.validation")
    if getattr(validation, "check_object", None) is None:
        pytest.skip("kpt_fn.validation.check_object does not exist yet")
    return validation


def _errors(problems) -> list:
    return [(p.path, p.message) for p in problems if p.is_error]


# Upstream's integration test puts the launcher (which dependsOn node) before node; its envtest runs
# no JobSet webhook, a real cluster would reject the JobSet. Ported as is, so the finding is pinned.
KNOWN_JOBSET_WEBHOOK_ERRORS = {
    "mpi-openmpi-integration": [
        ("spec.replicatedJobs[2].dependsOn[0].name", "replicatedJob: launcher cannot depend on replicatedJob: node"),
    ],
}


@pytest.mark.parametrize("name", CASES)
def test_golden_outputs_match_crd_schemas(name):
    validation = _validator()
    jobset_webhook = getattr(validation, "check_jobset_webhook", None)
    for obj in render(load_case(name)).objects:
        where = f"{obj['kind']} {obj['metadata']['name']}"
        assert _errors(validation.check_object(obj)) == [], where
        if obj["kind"] == "JobSet" and jobset_webhook is not None:
            assert _errors(jobset_webhook(obj)) == KNOWN_JOBSET_WEBHOOK_ERRORS.get(name, []), where


@pytest.mark.parametrize("name", CASES)
def test_golden_inputs_match_crd_schemas(name):
    """The fixtures are objects the API server would accept."""
    validation = _validator()
    case = load_case(name)
    assert _errors(validation.check_object(case["trainjob"])) == []
    assert _errors(validation.check_object(case["runtime"])) == []
