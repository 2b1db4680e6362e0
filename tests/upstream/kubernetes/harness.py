"""Run a case from Kubernetes' own validation tests through our k8s checks.

Upstream's tables (pkg/apis/core/validation/validation_test.go, pkg/apis/batch/validation/
validation_test.go) call one validator on one fragment: a container, a volume, an env list, a pod
spec, a Job spec. Here the fragment is placed where a user writes it, in the pod template or the Job
spec of a rendered JobSet's only replicated job, and the whole k8s family set runs on that JobSet
(kpt_fn.validation.check_job_templates, as the function does). What comes back is each finding's
rule id, field path and message, the path relative to the Job (`spec.template.spec.containers[0]...`,
upstream's own Job paths), so a test compares it with upstream's expectation after renaming the root
upstream's test used (`field`, `spec`, ...).

A case is plain data: the upstream test function and case name, the YAML a user writes, and, for an
invalid case, upstream's expected errors as (type, field, detail) with Go's field.ErrorType names.
"""

from __future__ import annotations

import copy
import dataclasses

import yaml

from kpt_fn import validation

# the JobSet path of the Job template of replicated job 0; the Job's own paths follow it
_JOB_PREFIX = "spec.replicatedJobs[0].template."
JOB_SPEC = "spec"
POD_SPEC = "spec.template.spec"
POD_METADATA = "spec.template.metadata"

# Go's field.ErrorType names, as the tables write upstream's expected errors
REQUIRED, INVALID, UNSUPPORTED = "FieldValueRequired", "FieldValueInvalid", "FieldValueNotSupported"
DUPLICATE, NOT_FOUND, FORBIDDEN = "FieldValueDuplicate", "FieldValueNotFound", "FieldValueForbidden"
TOO_LONG, TOO_MANY = "FieldValueTooLong", "FieldValueTooMany"

# field.ErrorType.String() for the types our messages start with
TYPES = {
    "FieldValueRequired": "Required value",
    "FieldValueInvalid": "Invalid value",
    "FieldValueNotSupported": "Unsupported value",
    "FieldValueDuplicate": "Duplicate value",
    "FieldValueNotFound": "Not found",
    "FieldValueForbidden": "Forbidden",
    "FieldValueTooLong": "Too long",
    "FieldValueTooMany": "Too many",
}


@dataclasses.dataclass(frozen=True)
class Finding:
    rule: str
    path: str      # relative to the Job: spec.template.spec.containers[0].name
    message: str   # the error body: 'Invalid value: "x": detail'

    @property
    def type(self) -> str:
        """Go's field.ErrorType name of the message ("" when it starts with none of them)."""
        for name, text in TYPES.items():
            if self.message.startswith(text):
                return name
        return ""


@dataclasses.dataclass(frozen=True)
class Case:
    """One row of an upstream table. `errors` are upstream's (type, field, detail) expectations, the
    field as upstream's test spells it (its own root); empty for a valid case. A detail of "" is not
    compared (upstream's test does not compare it either)."""
    test: str
    name: str
    yaml: str
    errors: tuple = ()

    @property
    def id(self) -> str:
        return f"{self.test}/{self.name}"

    def fragment(self):
        return yaml.safe_load(self.yaml)


def case(test: str, name: str, text: str, *errors) -> Case:
    """A table row: `errors` are upstream's (type, field, detail) triples."""
    return Case(test, name, text, tuple(errors))


@dataclasses.dataclass(frozen=True)
class Place:
    """Where a table's fragment goes. `at` is the Job-relative path the fragment is set at (JOB_SPEC,
    POD_SPEC, POD_METADATA or any dotted path with [i] indexes, see place()), `root` the path
    upstream's test passed to the validator, which its expected fields start with, and `pod` the
    pod spec the fragment is set into (upstream's fixture around it: volumes a mount names, ...)."""
    at: str
    root: str = ""
    pod: dict = dataclasses.field(default_factory=lambda: {"containers": [{"name": "ctr", "image": "image"}]})

    def ours(self, upstream_field: str) -> str:
        """Upstream's expected field renamed into our Job-relative path."""
        # ValidatePodTemplateSpec reports a template's annotations at `template.annotations`, without
        # `metadata` (kpt_fn/validation/k8s/metadata.py)
        base = "spec.template" if self.at == POD_METADATA else self.at
        if self.root and (upstream_field == self.root or upstream_field.startswith((self.root + ".", self.root + "["))):
            return base + upstream_field[len(self.root):]
        # a field relative to the validated object (upstream's test compares a suffix)
        return f"{self.at}.{upstream_field}" if self.at else upstream_field


def jobset(pod_spec: dict, job: dict | None = None, metadata: dict | None = None, counts: bool = True) -> dict:
    """A rendered JobSet of one replicated job with this pod spec (and Job spec fields, pod-template
    metadata). `counts`: set parallelism and completions to 1 (as a rendered JobSet has them); a Job
    table's case brings its own, or none (the Job defaults then apply, as for upstream's defaulted Job)."""
    template = {"spec": pod_spec, **({"metadata": metadata} if metadata else {})}
    spec = {**({"parallelism": 1, "completions": 1} if counts else {}), **(job or {}), "template": template}
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": "js", "namespace": "ns"},
            "spec": {"replicatedJobs": [{"name": "node", "replicas": 1, "template": {"spec": spec}}]}}


def findings(js: dict) -> list[Finding]:
    """Every k8s finding of a JobSet, paths relative to replicated job 0's Job."""
    out = []
    for p in validation.check_job_templates(js):
        path = p.path[len(_JOB_PREFIX):] if p.path.startswith(_JOB_PREFIX) else p.path
        out.append(Finding(p.rule, path, p.message))
    return out


def _steps(path: str) -> list:
    steps: list = []
    for part in path.split("."):
        name, _, rest = part.partition("[")
        if name:
            steps.append(name)
        while rest:
            i, _, rest = rest.partition("]")
            steps.append(int(i))
            rest = rest.removeprefix("[")
    return steps


def _set(node, steps: list, value) -> None:
    for i, step in enumerate(steps[:-1]):
        nxt = steps[i + 1]
        if isinstance(step, int):
            while len(node) <= step:
                node.append({} if not isinstance(nxt, int) else [])
            node = node[step]
        else:
            node = node.setdefault(step, [] if isinstance(nxt, int) else {})
    last = steps[-1]
    if isinstance(last, int):
        while len(node) <= last:
            node.append(None)
    node[last] = value


def place(fragment, where: Place) -> dict:
    """The JobSet with `fragment` set at `where.at` (Job-relative) around `where.pod`. At JOB_SPEC,
    POD_SPEC or POD_METADATA the fragment is merged there (a Job fragment's own pod template into the
    template); anywhere else it replaces what is at that path."""
    fragment = copy.deepcopy(fragment)
    job: dict = {"spec": {"template": {"metadata": {}, "spec": copy.deepcopy(where.pod)}}}
    template = job["spec"]["template"]
    if where.at == JOB_SPEC:
        own = (fragment or {}).pop("template", None) or {}
        job["spec"].update(fragment or {})
        template["spec"].update(own.get("spec") or {})
        template["metadata"].update(own.get("metadata") or {})
    elif where.at in (POD_SPEC, POD_METADATA):
        template["spec" if where.at == POD_SPEC else "metadata"].update(fragment or {})
    else:
        _set(job, _steps(where.at), fragment)
    spec = job["spec"]
    template = spec.pop("template")
    return jobset(template["spec"], spec, template.get("metadata"), counts=where.at != JOB_SPEC)


def run(case: Case, where: Place) -> list[Finding]:
    return findings(place(case.fragment(), where))


def expected(case: Case, where: Place) -> list[tuple[str, str, str]]:
    """Upstream's expectations in our paths: (type, path, detail)."""
    return [(t, where.ours(f), d) for t, f, d in case.errors]


def matches(finding: Finding, want: tuple[str, str, str]) -> bool:
    kind, path, detail = want
    return finding.type == kind and finding.path == path and (not detail or detail in finding.message)


def check(case: Case, where: Place) -> None:
    """A valid case has no finding; an invalid one has each expected error, and nothing else on
    other fields than those upstream expected."""
    got = run(case, where)
    if not case.errors:
        assert got == [], f"{case.id}: expected no findings, got {got}"
        return
    want = expected(case, where)
    missing = [w for w in want if not any(matches(f, w) for f in got)]
    assert not missing, f"{case.id}: missing {missing}; got {got}"
    paths = {w[1] for w in want}
    extra = [f for f in got if f.path not in paths]
    assert not extra, f"{case.id}: findings upstream does not expect {extra}"


def params(cases, where: Place):
    """pytest.param per case, named by upstream test function and case name."""
    import pytest

    return [pytest.param(c, where, id=c.id) for c in cases]
