"""The admission inputs of a run: ValidatingAdmissionPolicies and their bindings
(admissionregistration.k8s.io/v1), the objects their paramRefs may select, and the Namespaces
whose labels namespaceSelectors read. They come from the ResourceList items (or the files of a
plain render) and from the `policyDirs` option (read by kpt_fn.sources with the confinement of every
file the function reads); they are passed through to the output like any other item.
"""

from __future__ import annotations

from kpt_fn import resource as res
from kpt_fn.problems import WARNING, Problem

GROUP = "admissionregistration.k8s.io"
API_VERSION = f"{GROUP}/v1"
POLICY = "ValidatingAdmissionPolicy"
BINDING = "ValidatingAdmissionPolicyBinding"
# Kinds whose scope the function knows; a param of another kind is namespaced when it has a namespace.
_NAMESPACED = {("v1", "ConfigMap"), ("v1", "Secret")}


def is_admission_object(obj) -> bool:
    """A ValidatingAdmissionPolicy or binding of admissionregistration.k8s.io (any version: only v1
    is read, the others are named by `gather`)."""
    return isinstance(obj, dict) and res.api_group(obj) == GROUP and obj.get("kind") in (POLICY, BINDING)


class Inputs:
    """Policies by name, bindings by policy name, Namespaces by name, and every other object for
    the paramRefs (by apiVersion and kind)."""

    __slots__ = ("policies", "bindings", "namespaces", "objects", "compiled")

    def __init__(self):
        # (engine, policy name) -> its compiled expressions, once per run (kpt_fn.admission.evaluate)
        self.compiled: dict = {}
        self.policies: dict = {}
        self.bindings: dict = {}
        self.namespaces: dict = {}
        self.objects: dict = {}

    def __bool__(self):
        return bool(self.policies)

    def params(self, param_kind: dict) -> list:
        return self.objects.get((param_kind.get("apiVersion"), param_kind.get("kind")), [])

    def namespaced(self, param_kind: dict) -> bool:
        """Whether the paramKind is namespaced: known kinds by their scope, others by whether the
        objects of that kind among the inputs have a namespace (a CRD's scope is not among them)."""
        key = (param_kind.get("apiVersion"), param_kind.get("kind"))
        if key in _NAMESPACED:
            return True
        return any(res.namespace(o) for o in self.objects.get(key, ()))


def gather(items) -> tuple[Inputs, list]:
    """(Inputs, problems) of the items (in order; the first of a name wins, as one cluster holds one)."""
    found, problems = Inputs(), []
    for obj in items:
        if not isinstance(obj, dict):
            continue
        kind = obj.get("kind")
        if is_admission_object(obj):
            if obj.get("apiVersion") != API_VERSION:
                problems.append(Problem(f"{res.display(obj)}: apiVersion {obj.get('apiVersion')!r} is not read "
                                        f"(only {API_VERSION}); it is not applied offline", "apiVersion",
                                        WARNING, subject=obj, rule="admission/inputs"))
                continue
            name = res.name(obj)
            if not isinstance(name, str) or not name:
                problems.append(Problem(f"{kind} without metadata.name is not applied offline", "metadata.name",
                                        WARNING, subject=obj, rule="admission/inputs"))
                continue
            if kind == POLICY:
                if name in found.policies:
                    problems.append(Problem(f"{res.display(obj)} is defined twice; the first is applied", "metadata.name",
                                            WARNING, subject=obj, rule="admission/inputs"))
                    continue
                found.policies[name] = obj
            else:
                policy = res.dig(obj, "spec", "policyName")
                found.bindings.setdefault(policy, []).append(obj)
            continue
        if obj.get("apiVersion") == "v1" and kind == "Namespace" and isinstance(res.name(obj), str):
            found.namespaces.setdefault(res.name(obj), obj)
        found.objects.setdefault((obj.get("apiVersion"), kind), []).append(obj)
    for policy, bindings in found.bindings.items():
        if policy not in found.policies:
            for b in bindings:
                problems.append(Problem(
                    f"{res.display(b)} binds ValidatingAdmissionPolicy {policy!r}, which is not among the inputs: "
                    "what it would judge cannot be known offline", "spec.policyName", WARNING, subject=b,
                    rule="admission/offline"))
    return found, problems


def read(items, dirs, reader, limits=None) -> tuple[Inputs, list]:
    """The Inputs of the items and of the `policyDirs` directories (read by the run's
    sources.Reader, confined as every file the function reads), and their problems."""
    objects, problems = [o for o in items if isinstance(o, dict)], []
    for d in dirs:
        found, dir_problems = reader.read_dir(d, "policyDirs", limits)
        problems += dir_problems
        objects += [o for o in found or () if isinstance(o, dict)]
    found, gathered = gather(objects)
    return found, problems + gathered
