"""Where a rendered value came from: the field of the TrainJob, of one of its runtimePatches, or of its
runtime that a value of the rendered JobSet was written in.

A TrainJob's pods are split between the TrainJob, its runtime and its runtimePatches; a finding about
the rendered JobSet is only useful when it names the field the user wrote. The policy guardrails
(kpt_fn/policy.py) and the Kubernetes checks of the rendered Jobs and Pods (kpt_fn/validation/k8s) both
report through this one lookup. A location is (path, subject): subject None is the TrainJob itself,
otherwise the runtime object (whose file the result names).
"""

from __future__ import annotations

import re

from kpt_fn import workload
from kpt_fn.resource import dig

# TrainJob fields that Trainer v2.3.0 writes into the trainer's container (pkg/runtime/framework/plugins
# torch/mpi/plainml EnforceMLPolicy and apply.go): the TrainJob wins over the runtime for these.
_TRAINER_FIELDS = {"image": "image", "resources": "resourcesPerNode", "command": "command", "args": "args"}
_INITIALIZERS = {"dataset-initializer": "dataset", "model-initializer": "model"}
NODE = "node"  # the trainer's container, which the TrainJob's trainer fields are written into
_TOKEN = r"\.?([^.\[\]]+)|\[([^\]]*)\]"  # compiled on first use (re's cache)
_IDENTITY = ("name", "mountPath", "devicePath", "containerPort", "key", "topologyKey")


def _named(items, name):
    for i, item in enumerate(items if isinstance(items, list) else ()):
        if isinstance(item, dict) and item.get("name") == name:
            return i, item
    return None, None


def _rjob_of(spec_root: dict, rj_name: str, prefix: str):
    """(path, replicated job) of replicated job `rj_name` under a runtime spec's `template`."""
    i, rj = _named(dig(spec_root, "template", "spec", "replicatedJobs"), rj_name)
    if rj is None:
        return None, None
    return f"{prefix}.template.spec.replicatedJobs[{i}]", rj


def _pod_of(spec_root: dict, rj_name: str, prefix: str):
    path, rj = _rjob_of(spec_root, rj_name, prefix)
    if rj is None:
        return None, None
    return f"{path}.template.spec.template.spec", dig(rj, *workload.POD_SPEC)


class Key(str):
    """A map key step (`requests[cpu]`), as opposed to a field name step (`.requests`)."""

    __slots__ = ()


def tokens(path: str) -> list:
    """A field path as steps: field names as str, map keys as Key, list indices as int."""
    out = []
    for name, bracket in re.findall(_TOKEN, path):
        if name:
            out.append(name)
        else:
            out.append(int(bracket) if bracket.isdigit() else Key(bracket))
    return out


def _show(path: str, steps) -> str:
    for step in steps:
        if isinstance(step, (int, Key)):
            path = f"{path}[{step}]"
        else:
            path = f"{path}.{step}" if path else step
    return path


def _to_add(reached: list, steps: list, depth: int) -> list:
    """The source's steps, and the rest of `steps` past what the source holds when it names only fields
    and keys (`image`, `resources.requests[cpu]`): a value the source lacks is the field to add there,
    and its line is where the walk stopped (kpt_fn.lines). A rest with a list index is not added: an
    index of the rendered list says nothing of the source's."""
    rest = steps[depth:]
    return reached + rest if not any(isinstance(s, int) for s in rest) else reached


def _same(a, b) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in _IDENTITY:
            if k in a:
                return a.get(k) == b.get(k)
    return a == b


def follow(rendered, source, steps) -> tuple[list, int]:
    """How far `steps` (through the rendered object) reach in `source`: (the source's steps, how many
    matched). List items are matched by identity (name, mountPath, ...), not by position, since a
    merge may have put them elsewhere."""
    out = []
    for step in steps:
        if isinstance(step, int):
            if not isinstance(rendered, list) or not isinstance(source, list) or step >= len(rendered):
                break
            item = rendered[step]
            found = next((j for j, s in enumerate(source) if _same(item, s)), None)
            if found is None:
                break
            out.append(found)
            rendered, source = item, source[found]
        else:
            if not isinstance(source, dict) or step not in source:
                break
            out.append(step)
            rendered = rendered.get(step) if isinstance(rendered, dict) else None
            source = source[step]
    return out, len(out)


def resources_per_node_field(trainjob: dict, resources: list) -> str:
    """The field of the TrainJob's spec.trainer.resourcesPerNode that asks for `resources`: the key of
    the one resource named, in requests (what schedulers and quotas count) else limits (which stand in
    for missing requests); else resourcesPerNode itself (several resources, or one it does not write
    yet: where to add it). Trainer writes resourcesPerNode into the trainer's `node` container."""
    rpn = dig(trainjob, "spec", "trainer", "resourcesPerNode")
    if len(resources) == 1 and isinstance(rpn, dict):
        for key in ("requests", "limits"):
            if isinstance(rpn.get(key), dict) and resources[0] in rpn[key]:
                return f"spec.trainer.resourcesPerNode.{key}[{resources[0]}]"
    return "spec.trainer.resourcesPerNode"


class Blame:
    """Finds the field of the TrainJob, its runtimePatches or its runtime that a rendered value came from."""

    def __init__(self, trainjob: dict, runtime: dict | None):
        self.trainjob, self.runtime = trainjob, runtime

    def _sources(self, rj_name: str, of=_pod_of):
        """(path, subject, part), the TrainJob's patches (last wins) before the runtime."""
        patches = dig(self.trainjob, "spec", "runtimePatches")
        for i in reversed(range(len(patches) if isinstance(patches, list) else 0)):
            path, part = of(dig(patches[i], "trainingRuntimeSpec") or {}, rj_name, f"spec.runtimePatches[{i}].trainingRuntimeSpec")
            if part:
                yield path, None, part
        if self.runtime is not None:
            path, part = of(self.runtime.get("spec") or {}, rj_name, "spec")
            if part:
                yield path, self.runtime, part

    def _pods(self, rj_name: str):
        return self._sources(rj_name)

    def replicated_job(self, rj_name: str):
        """(path, subject) of replicated job `rj_name` where it is written last (a runtimePatch
        before the runtime); None when neither writes it."""
        for path, subject, _ in self._sources(rj_name, _rjob_of):
            return path, subject
        return None

    def container(self, ps: workload.PodSet, field: str, container: dict, attr: tuple, resources: list | None = None):
        """(path, subject) of attribute `attr` of a rendered container (subject None = the TrainJob).
        `resources`: with attr ("resources",), the resource names the finding is about: where the
        TrainJob's resourcesPerNode writes the container's resources, its key for the one named."""
        trainer = dig(self.trainjob, "spec", "trainer") or {}
        if ps.step == "trainer" and container.get("name") == NODE:
            if attr[0] == "image" and trainer.get("image"):
                return "spec.trainer.image", None
            if attr[0] == "resources" and trainer.get("resourcesPerNode"):
                return resources_per_node_field(self.trainjob, resources or []), None
        for path, subject, pod in self._pods(ps.name):
            i, c = _named(pod.get(field), container.get("name"))
            if c is not None and dig(c, *attr) is not None:
                return f"{path}.{field}[{i}].{'.'.join(attr)}", subject
        return None

    def pod(self, ps: workload.PodSet, attr: tuple, match=None):
        for path, subject, pod in self._pods(ps.name):
            value = dig(pod, *attr)
            if value is None:
                continue
            if match is None:
                return f"{path}.{'.'.join(attr)}", subject
            for i, item in enumerate(value if isinstance(value, list) else ()):
                if match(item):
                    return f"{path}.{'.'.join(attr)}[{i}]", subject
        return None

    def nodes(self):
        if dig(self.trainjob, "spec", "trainer", "numNodes") is not None:
            return "spec.trainer.numNodes", None
        if self.runtime is not None and dig(self.runtime, "spec", "mlPolicy", "numNodes") is not None:
            return "spec.mlPolicy.numNodes", self.runtime
        return None

    # --- any field of a rendered JobSet -----------------------------------------------------------

    def locate(self, jobset: dict, path: str):
        """(path, subject) of the TrainJob / runtimePatch / runtime field that the JobSet field at
        `path` (spec.replicatedJobs[i]...) came from, the deepest one written; None when none is."""
        steps = tokens(path)
        if steps[:2] != ["spec", "replicatedJobs"] or len(steps) < 5 or not isinstance(steps[2], int):
            return None
        rjobs = dig(jobset, "spec", "replicatedJobs")
        if not isinstance(rjobs, list) or steps[2] >= len(rjobs) or not isinstance(rjobs[steps[2]], dict):
            return None
        ps = workload.PodSet(steps[2], rjobs[steps[2]])
        rest = steps[3:]
        if rest[:2] != ["template", "spec"]:
            return None
        if rest[2:4] == ["template", "spec"]:
            return self._in_pod(ps, rest[4:])
        if rest[2:3] == ["template"] and rest[3:4] in (["annotations"], ["labels"]):
            rest = [*rest[:3], "metadata", *rest[3:]]  # upstream's template paths omit `metadata`
        return self._in_job(ps, dig(rjobs[steps[2]], "template", "spec"), rest[2:])

    def _in_job(self, ps, job_spec, steps):
        if ps.step == "trainer" and steps[:1] in (["parallelism"], ["completions"]):
            found = self.nodes()
            if found:
                return found
        return self._deepest(ps, steps, lambda rj: dig(rj, "template", "spec"), ".template.spec", job_spec)

    def _in_pod(self, ps, steps):
        if len(steps) >= 2 and steps[0] in ("containers", "initContainers") and isinstance(steps[1], int):
            field, attr = steps[0], steps[2:]
            rendered_list = ps.pod.get(field)
            if not isinstance(rendered_list, list) or steps[1] >= len(rendered_list):
                return None
            container = rendered_list[steps[1]]
            found = self._from_trainjob(ps, field, container, attr)
            if found:
                return found
            best = None
            for path, subject, pod in self._pods(ps.name):
                i, c = _named(pod.get(field), container.get("name") if isinstance(container, dict) else None)
                if c is None:
                    continue
                reached, depth = follow(container, c, attr)
                if best is None or depth > best[0]:
                    best = (depth, _show(f"{path}.{field}[{i}]", _to_add(reached, attr, depth)), subject)
            return best[1:] if best else None
        return self._deepest(ps, steps, lambda rj: dig(rj, *workload.POD_SPEC), ".template.spec.template.spec", ps.pod)

    def _deepest(self, ps, steps, part, suffix, rendered):
        """The source (patches, then the runtime) that holds the longest part of `steps`; at least
        the first step must be written there."""
        best = None
        for path, subject, rj in self._sources(ps.name, _rjob_of):
            source = part(rj)
            if not isinstance(source, dict):
                continue
            reached, depth = follow(rendered, source, steps)
            if depth and (best is None or depth > best[0]):
                best = (depth, _show(path + suffix, _to_add(reached, steps, depth)), subject)
        return best[1:] if best else None

    def _from_trainjob(self, ps, field, container, attr):
        """Container fields the TrainJob itself sets (trainer image, resources, command, args, env;
        the initializers' env)."""
        if not attr or not isinstance(container, dict):
            return None
        spec = dig(self.trainjob, "spec") or {}
        if ps.step == "trainer" and field == "containers" and container.get("name") == NODE:
            source = spec.get("trainer") or {}
            name = _TRAINER_FIELDS.get(attr[0])
            if name and source.get(name) is not None:
                reached, _ = follow(container.get(attr[0]), source[name], attr[1:])
                return _show(f"spec.trainer.{name}", reached), None
        elif ps.step in _INITIALIZERS and container.get("name") == ps.step:
            source = dig(spec, "initializer", _INITIALIZERS[ps.step]) or {}
        else:
            return None
        if attr[0] == "env" and isinstance(source.get("env"), list):
            reached, depth = follow(container.get("env"), source["env"], attr[1:])
            if depth:
                owner = "trainer" if ps.step == "trainer" else f"initializer.{_INITIALIZERS[ps.step]}"
                return _show(f"spec.{owner}.env", reached), None
        return None
