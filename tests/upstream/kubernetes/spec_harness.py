"""Run a case of Kubernetes' own validation tests through our k8s checks (pod-spec and Job tables).

Upstream's tables call one validator on one fragment: a pod spec, a Pod, a Job. Here the fragment
is placed where a user writes it -- the pod template's spec or metadata, or the Job spec -- in a
rendered JobSet's only replicated job, and every k8s family runs on that JobSet
(kpt_fn.validation.check_job_templates, as the function does). Findings come back with paths
relative to the Job (`spec.template.spec.affinity...`, upstream's own Job paths), so a test compares
them with upstream's expectation after renaming the root upstream's test used (`field`, `spec`,
`metadata`, ...).

A case is plain data: the upstream test function and case name, the YAML a user writes, and, for an
invalid case, upstream's expected errors as (type, field, detail) with Go's field.ErrorType names.
"""

from __future__ import annotations

import copy
import dataclasses

import yaml

from kpt_fn import validation

_JOB_PREFIX = "spec.replicatedJobs[0].template."
POD_SPEC = "spec.template.spec"
POD_METADATA = "spec.template.metadata"
JOB_SPEC = "spec"

# field.ErrorType.String() of the types our messages start with
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
    path: str
    message: str

    @property
    def type(self) -> str:
        return next((name for name, text in TYPES.items() if self.message.startswith(text)), "")


@dataclasses.dataclass(frozen=True)
class Case:
    """One row of an upstream table: `errors` are upstream's (type, field, detail), the field from
    upstream's own root; empty for a valid case. A detail of "" is not compared."""
    test: str
    name: str
    yaml: str
    errors: tuple = ()

    @property
    def id(self) -> str:
        return f"{self.test}/{self.name}"


@dataclasses.dataclass(frozen=True)
class Place:
    """Where a table's fragment goes: `at` is POD_SPEC, POD_METADATA or JOB_SPEC (the fragment is
    merged there), `root` the path upstream's test passed to the validator, `pod` the pod spec
    around the fragment (upstream's fixture: one valid container)."""
    at: str
    root: str = ""
    pod: dict = dataclasses.field(default_factory=lambda: {"containers": [{"name": "ctr", "image": "image"}]})

    def ours(self, upstream_field: str) -> str:
        base = "spec.template" if self.at == POD_METADATA else self.at
        if self.root and (upstream_field == self.root or upstream_field.startswith((self.root + ".", self.root + "["))):
            return base + upstream_field[len(self.root):]
        return upstream_field


def jobset(pod_spec: dict, job: dict | None = None, metadata: dict | None = None, counts: bool = True) -> dict:
    """`counts`: set parallelism and completions to 1 (as a rendered JobSet has them); a Job table's
    case brings its own, or none (the Job defaults then apply, as for upstream's defaulted Job)."""
    template = {"spec": pod_spec, **({"metadata": metadata} if metadata else {})}
    spec = {**({"parallelism": 1, "completions": 1} if counts else {}), **(job or {}), "template": template}
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": "js", "namespace": "ns"},
            "spec": {"replicatedJobs": [{"name": "node", "replicas": 1, "template": {"spec": spec}}]}}


def place(fragment: dict, where: Place) -> dict:
    pod, job, metadata = copy.deepcopy(where.pod), {}, {}
    target = {POD_SPEC: pod, JOB_SPEC: job, POD_METADATA: metadata}[where.at]
    target.update(copy.deepcopy(fragment or {}))
    if "template" in job:  # a Job fragment with its own pod template (metadata and spec)
        template = job.pop("template")
        pod.update(template.get("spec") or {})
        metadata.update(template.get("metadata") or {})
    return jobset(pod, job, metadata, counts=where.at != JOB_SPEC)


def findings(js: dict) -> list[Finding]:
    out = []
    for p in validation.check_job_templates(js):
        path = p.path[len(_JOB_PREFIX):] if p.path.startswith(_JOB_PREFIX) else p.path
        out.append(Finding(p.rule, path, p.message))
    return out


def run(case: Case, where: Place) -> list[Finding]:
    return findings(place(yaml.safe_load(case.yaml), where))


def matches(finding: Finding, want: tuple) -> bool:
    kind, path, detail = want
    return finding.type == kind and finding.path == path and (not detail or detail in finding.message)


def check(case: Case, where: Place) -> None:
    """A valid case has no finding; an invalid one has each expected error and nothing on fields
    upstream did not name."""
    got = run(case, where)
    if not case.errors:
        assert got == [], f"{case.id}: expected no findings, got {got}"
        return
    want = [(t, where.ours(f), d) for t, f, d in case.errors]
    missing = [w for w in want if not any(matches(f, w) for f in got)]
    assert not missing, f"{case.id}: missing {missing}; got {got}"
    paths = {w[1] for w in want}
    extra = [f for f in got if f.path not in paths]
    assert not extra, f"{case.id}: findings upstream does not expect {extra}"


def params(cases, where: Place):
    import pytest

    return [pytest.param(c, where, id=c.id) for c in cases]
