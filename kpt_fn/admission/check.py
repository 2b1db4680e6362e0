"""The admission check of one TrainJob: every created object (kpt_fn.admission.children) judged by
every policy of the inputs (kpt_fn.admission.evaluate), each finding pointing back at its source.

A finding names the created object ("Pod `llm-node-0-3` of Job `llm-node-0`"), the policy and the
binding in the API server's words, and its field: the validation's `fieldPath` on the created
object, followed back through the JobSet to the TrainJob, runtimePatch or runtime field it was
written in (kpt_fn.blame); without a fieldPath, the replicated job that made the object. The same
finding on several sampled Pods or Jobs of one replicated job is reported once, with the count.
"""

from __future__ import annotations

import re

from kpt_fn import resource as res
from kpt_fn.admission import children, evaluate
from kpt_fn.blame import Blame
from kpt_fn.problems import INFO, Problem, Rule

RULES = [
    Rule(evaluate.RULE, "TrainJob", "every object the cluster creates for a TrainJob (the TrainJob, JobSet, each Job "
         "and Pod, PodGroup, ConfigMaps, Secrets) is judged by the ValidatingAdmissionPolicies among the inputs as "
         "the API server would at its creation: Deny is an error, Warn a warning, Audit an info"),
    Rule(evaluate.OFFLINE, "TrainJob", "warning: a policy whose decision needs what is not among the inputs (a "
         "Namespace, a param, the authorizer) is named, never silently passed"),
    Rule("admission/inputs", "ValidatingAdmissionPolicy", "warning: a policy or binding that cannot be read"),
    Rule("admission/sampled", "TrainJob", "info: how many Jobs and Pods of each replicated job were judged "
         "(they differ only in their index)"),
]
_JSONPATH_KEY = re.compile(r"\[\s*'([^']*)'\s*\]|\[\s*\"([^\"]*)\"\s*\]")


def _field(path) -> str:
    """A validation's fieldPath (`.spec.containers[0].image`, `metadata.labels['team']`) in the
    project's path notation (`spec.containers[0].image`, `metadata.labels[team]`)."""
    if not isinstance(path, str):
        return ""
    return _JSONPATH_KEY.sub(lambda m: f"[{m.group(1) if m.group(1) is not None else m.group(2)}]", path.strip()).lstrip(".")


def _source(child, field: str, blame: Blame):
    """(path, subject) in the TrainJob (subject None) or its runtime that `field` of `child` came from."""
    if child.origin is None:
        if child.obj.get("kind") == "TrainJob":
            return field, None
        if child.obj.get("kind") == "JobSet" and field:
            return blame.locate(child.obj, field) or ("", None)
        return "", None
    jobset, r, level = child.origin
    prefix = f"spec.replicatedJobs[{r}].template"
    if field:
        head, _, rest = field.partition(".")
        if level == "pod":
            prefix += ".spec.template"
        found = blame.locate(jobset, f"{prefix}.{head}.{rest}".rstrip("."))
        if found:
            return found
    name = (res.dig(jobset, "spec", "replicatedJobs") or [{}])[r].get("name")
    return blame.replicated_job(name) or ("", None)


def engine():
    """The CEL engine the run judges with (kpt_fn.admission.cel)."""
    from kpt_fn.admission import cel

    return cel


def check(trainjob: dict, runtime, objects: list, inputs, users: dict, cel=None) -> list:
    """The problems of one TrainJob's created objects under the policies of `inputs`."""
    cel = engine() if cel is None else cel
    judge = evaluate.Judge(cel, inputs, {**children.USERS, **users})
    blame = Blame(trainjob, runtime)
    found: dict = {}  # key -> [problem fields, count]
    elided = []
    for child in children.created(trainjob, objects):
        if child.elided:
            elided.append(f"{child.elided} more like {child.label}")
        namespace = inputs.namespaces.get(child.request["namespace"])
        for name in sorted(inputs.policies):
            policy = inputs.policies[name]
            for binding, decision in judge.judge(policy, inputs.bindings.get(name, []), child, namespace):
                sev = evaluate.severity(binding, decision)
                text = evaluate.wording(policy, binding, decision, sev)
                field = ""
                if decision.index is not None:
                    field = _field(((policy.get("spec") or {}).get("validations") or [])[decision.index].get("fieldPath"))
                path, subject = _source(child, field, blame)
                group = child.origin[1] if child.origin else id(child)
                key = (text, sev, path, id(subject), group, child.obj.get("kind"))
                if key in found:
                    found[key][1] += 1
                    continue
                found[key] = [(child.label, text, path, sev, subject, evaluate.OFFLINE if decision.offline else evaluate.RULE), 1]
    problems = []
    for (label, text, path, sev, subject, rule), count in found.values():
        more = f" (and {count - 1} more like it)" if count > 1 else ""
        problems.append(Problem(f"{label}{more}: {text}", path, sev, subject, rule))
    if elided and any(kind in ("Job", "Pod") for *_, kind in found):
        problems.append(Problem("admission: Jobs and Pods of a replicated job differ only in their index; judged "
                                f"the first {children.SAMPLE} and the last of each, not {'; '.join(elided)}",
                                "", INFO, rule="admission/sampled"))
    return problems
