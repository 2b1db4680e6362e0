"""The one golden harness of the expansion engine (fixtures/golden/<release>/<plugin or area>/<case>/).

Every case (fixtures/golden/; tests/upstream/trainer/test_plugins_golden.py) uses this module and the
same case layout; a case is a directory holding:

    case.yaml      source:  the upstream v2.3.0 file and test/function (or the worked example it is derived from)
                            that justifies every expected field -- required
                   options: functionConfig keys, and `admission`;
                            admission is on unless options say `admission: false`
                   trainerVersion: the Trainer release the case is for (default v2.3.0); its bundle
                            validates inputs and outputs
                   releases: [v2.2.1, v2.3.0] -- the releases that must render the case the same
                            (shared cases; tests/upstream/trainer/test_plugins_golden.py renders it under each)
                   legacy:  true to convert both inputs with kpt_fn.convert first (the conversion's
                            problems come first)
                   outputErrors: [[path, message], ...] the errors the output checks (CRD schema,
                            JobSet webhook and Job API) must find in the JobSet: upstream creates
                            it and the cluster rejects it later; the function reports these
                   invalidInputs: why the inputs themselves do not pass the API server's checks
    trainjob.yaml  the TrainJob as a user writes it (not defaulted)
    runtime.yaml   the TrainingRuntime / ClusterTrainingRuntime (not defaulted), or `shipped: <name>`
                   for a runtime Trainer v2.3.0 ships (tests/support/shipped.py: upstream manifests + overlay)
    expected.yaml  every expected object, in emit order; absent or empty when the render fails
    problems.yaml  every expected Problem, in order, as {severity, path, message}; absent = none

List order is significant everywhere. Values upstream makes random, or that are long, are written as
markers in expected.yaml:

    "@shape:ssh-privatekey"   base64 of a PEM "EC PRIVATE KEY" holding a P-521 key
    "@shape:ssh-publickey"    base64 of "ecdsa-sha2-nistp521 <base64>\\n"
    "@shape:curve.cert:<tj>"  base64 of a CURVE certificate for TrainJob <tj> with 40-character keys
    "@file:<name>"            the text of file <name> in the case directory, or of another case's file by a
                              relative path (a v2.2.1 Flux case whose init.sh is its v2.3.0 case's, unchanged)

Updating (the only update path): `UPDATE_GOLDEN=1 pytest tests/upstream/trainer/test_plugins_golden.py` rewrites expected.yaml / problems.yaml of every case whose output
differs, and FAILS that case ("rewritten, review the diff"); cases that did not change are asserted
as usual. A case whose expected.yaml holds markers is never rewritten (edit it by hand). So
UPDATE_GOLDEN never makes a test pass without comparing: run again without it after reviewing
`git diff` against the upstream source named in case.yaml.
"""

from __future__ import annotations

import base64
import copy
import marshal
import os
import re
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from support.shipped import shipped_runtimes

from kpt_fn import function, profiles, upstream, yamlio
from kpt_fn.engine import EngineOptions, runtime_form

REPO = Path(__file__).resolve().parents[2]
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"


GOLDEN = REPO / "fixtures" / "golden"


def case_dirs(root: Path) -> list[Path]:
    """Every case directory below root (fixtures/golden/<release>/<plugin or area>/<case>/)."""
    if not root.is_dir():
        return []
    return sorted(p.parent for p in root.rglob("case.yaml"))


def release_cases(release: str) -> list[Path]:
    """The golden cases of one Trainer release (fixtures/golden/<release>/)."""
    return case_dirs(GOLDEN / release)


def find_case(name: str, release: str = "v2.3.0") -> Path:
    """The case directory called name among the cases of release, whatever its plugin or area."""
    found = [c for c in release_cases(release) if c.name == name]
    assert len(found) == 1, f"{len(found)} golden cases named {name} under fixtures/golden/{release}"
    return found[0]


def uses_upstream(case: Path) -> bool:
    """Whether the case's runtime is `shipped: <name>` (read from ../shared: marker `upstream`)."""
    path = case / "runtime.yaml"
    doc = load_one(path) if path.is_file() else None
    return isinstance(doc, dict) and set(doc) == {"shipped"}


def params(cases: list[Path], ids) -> list:
    """pytest parameters of case directories, those with a shipped runtime marked `upstream`."""
    return [pytest.param(c, id=ids(c), marks=[pytest.mark.upstream] if uses_upstream(c) else []) for c in cases]


def load_one(path: Path):
    docs = [d for d in yamlio.load_all(path.read_text()) if d is not None]
    assert len(docs) <= 1, f"{path}: one document expected"
    return docs[0] if docs else None


def load_all(path: Path) -> list:
    return [d for d in yamlio.load_all(path.read_text()) if d is not None] if path.exists() else []


def runtime_of(doc: dict, release: str = upstream.DEFAULT_RELEASE) -> dict:
    if isinstance(doc, dict) and set(doc) == {"shipped"}:
        return shipped_runtimes(release)[doc["shipped"]]
    return doc


def engine_options(config: dict, bundle: upstream.Bundle | None = None) -> EngineOptions:
    """The case's options: `admission` (on unless the case says otherwise) and functionConfig keys;
    the release is the bundle of its trainerVersion (or `bundle`, a release made up by a test)."""
    values = dict(config)
    if "knownPriorityClasses" in values:
        values["knownPriorityClasses"] = tuple(values["knownPriorityClasses"])
    bundle = bundle or upstream.bundle(values.get("trainerVersion") or upstream.DEFAULT_RELEASE)
    return EngineOptions(admission=values.pop("admission", True), bundle=bundle, **values)


def releases(case_dir: Path) -> list[str]:
    """The Trainer releases a case is checked under: `releases`, else its own `trainerVersion`."""
    meta = load_one(case_dir / "case.yaml") or {}
    return list(meta.get("releases") or [meta.get("trainerVersion") or upstream.DEFAULT_RELEASE])


class Case:
    def __init__(self, directory: Path, release: str | None = None):
        self.dir = directory
        self.name = directory.name
        self.meta = load_one(directory / "case.yaml") or {}
        self.trainjob = load_one(directory / "trainjob.yaml")
        self.release = release or self.meta.get("trainerVersion") or upstream.DEFAULT_RELEASE
        self.runtime = runtime_of(load_one(directory / "runtime.yaml"), self.release)
        self.options = engine_options({**(self.meta.get("options") or {}), "trainerVersion": self.release})
        self.bundle = upstream.bundle(self.release)
        self.expected = load_all(directory / "expected.yaml")
        problems = directory / "problems.yaml"
        self.problems = (load_one(problems) or []) if problems.exists() else []


def render(case: Case, form: dict | None = None):
    """(objects, problem dicts) of the case, legacy conversion included, expanded through the output
    profile's engine hooks (kpt_fn.function.expand_through). `form`: a dict that receives
    the runtime's form (engine.runtime_form), kept for the render as kpt_fn.function keeps it."""
    conversion = []
    trainjob, runtime = case.trainjob, case.runtime
    if case.meta.get("legacy"):
        from kpt_fn import convert

        trainjob, tj_problems = convert.convert_trainjob(trainjob, case.bundle)
        runtime, rt_problems = convert.convert_runtime(runtime, case.bundle)
        conversion = rt_problems + tj_problems
    kept = None
    if form is not None:
        kept = form.setdefault("form", runtime_form(runtime, case.options))
    # Through the run's output profile (the case's `profile` option, the controller's by default), as
    # kpt_fn.function expands each TrainJob: a note the profile gives on what the objects leave to the
    # controller (activeDeadlineSeconds) is part of the case.
    profile, _ = profiles.select(case.options.config, [])
    result = function.expand_through(profile, trainjob, runtime, case.options, kept)
    return result.objects, problem_view(conversion + result.problems)


def problem_view(problems) -> list[dict]:
    return [{"severity": p.severity, "path": p.path, "message": p.message} for p in problems]


def shared_subtrees(obj) -> list[str]:
    """Paths of dicts/lists that occur more than once in `obj` (a YAML dumper would emit aliases)."""
    seen: dict[int, str] = {}
    dups: list[str] = []

    def walk(v, path):
        if isinstance(v, (dict, list)):
            if id(v) in seen:
                dups.append(f"{path} (also at {seen[id(v)]})")
                return
            seen[id(v)] = path
            for k, x in (v.items() if isinstance(v, dict) else enumerate(v)):
                walk(x, f"{path}.{k}")

    walk(obj, "")
    return dups


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


def has_markers(value) -> bool:
    if isinstance(value, dict):
        return any(has_markers(v) for v in value.values())
    if isinstance(value, list):
        return any(has_markers(v) for v in value)
    return isinstance(value, str) and value.startswith(("@shape:", "@file:"))


def resolve_markers(expected, actual, case_dir: Path) -> list[str]:
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

    walk(expected, actual, "")
    return errors


def dump(objects) -> str:
    return yamlio.dump_all(objects)


# --- the checks every case gets -----------------------------------------------------------------


def check_golden(case_dir: Path, release: str | None = None) -> None:
    case = Case(case_dir, release)
    assert case.meta.get("source"), "case.yaml must name the upstream source of the case"
    before = copy.deepcopy((case.trainjob, case.runtime))
    objects, problems = render(case)
    assert (case.trainjob, case.runtime) == before, "neither the conversion nor the engine may mutate their inputs"
    assert shared_subtrees(objects) == []

    expected = copy.deepcopy(case.expected)
    shape_errors = resolve_markers(expected, objects, case.dir)
    same = problems == case.problems and expected == objects and not shape_errors
    if UPDATE and not same and case.release in releases(case.dir)[:1]:
        if has_markers(case.expected):
            pytest.fail(f"{case.name}: expected.yaml holds markers and is not rewritten; edit it by hand")
        (case.dir / "expected.yaml").write_text(dump(objects) if objects else "")
        problems_path = case.dir / "problems.yaml"
        if problems:
            problems_path.write_text(yamlio.dump_all([problems]))
        elif problems_path.exists():
            problems_path.unlink()
        pytest.fail(f"{case.name}: rewritten by UPDATE_GOLDEN; review `git diff {case.dir}` against "
                    f"{case.meta['source']!r}, then run again without UPDATE_GOLDEN")
    assert problems == case.problems
    assert shape_errors == []
    if expected != objects:
        # Full YAML of both sides makes a failing diff readable.
        assert dump(objects) == dump(expected)


def check_deterministic(case_dir: Path, release: str | None = None) -> None:
    """Two renders give the same objects, and so do renders that share the runtime's form (as
    kpt_fn.function shares it among a runtime's TrainJobs): no render writes into it (marshal's
    format 2 text holds content and key order)."""
    case = Case(case_dir, release)
    expected = dump(render(case)[0])
    assert expected == dump(render(case)[0])
    shared: dict = {}
    assert dump(render(case, shared)[0]) == expected
    before = marshal.dumps(shared["form"], 2)
    assert dump(render(case, shared)[0]) == expected
    assert marshal.dumps(shared["form"], 2) == before


def _errors(problems) -> list:
    return [(p.path, p.message) for p in problems if p.is_error]


def check_outputs_valid(case_dir: Path, known_jobset_errors: list | None = None, release: str | None = None) -> None:
    """The rendered objects pass their CRD schema, the JobSet webhook and the Job API (Kubernetes'
    checks of the Jobs and Pods; kpt_fn/validation/k8s), but for the JobSet's `outputErrors`. A container without an
    image is let through: the cases port upstream's unit tests, whose runtime wrappers
    (pkg/util/testing) build containers without images, and are about the expansion."""
    from kpt_fn import validation

    case = Case(case_dir, release)
    if known_jobset_errors is None:
        known_jobset_errors = [tuple(e) for e in case.meta.get("outputErrors") or ()]
    for obj in render(case)[0]:
        where = f"{obj['kind']} {obj['metadata']['name']}"
        schema_errors = _errors(validation.check_object(obj, case.bundle))
        if obj["kind"] != "JobSet":
            assert schema_errors == [], where
        else:
            found = schema_errors + _errors(validation.check_jobset_webhook(obj, case.bundle))
            found += [e for e in _errors(validation.check_job_templates(obj)) if e[1] != "Required value" or not e[0].endswith(".image")]
            assert found == (known_jobset_errors or []), where


def check_inputs_valid(case_dir: Path, release: str | None = None) -> None:
    """The inputs are objects the API server would accept (unless case.yaml says why not)."""
    from kpt_fn import validation

    case = Case(case_dir, release)
    if case.meta.get("invalidInputs"):
        return
    assert _errors(validation.check_object(case.trainjob, case.bundle)) == []
    assert _errors(validation.check_object(case.runtime, case.bundle)) == []
