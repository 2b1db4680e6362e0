"""Kueue v0.19's create-time checks of the Topology-Aware-Scheduling pod-set annotations on a JobSet.

Kueue's JobSet webhook (pkg/controller/jobs/jobset/jobset_webhook.go, `validateTopologyRequest`) first
builds the Workload's pod sets (`JobSet.PodSets`, which parses the annotations with
`jobframework.NewPodSetTopologyRequest(...).Build()`, jobframework/tas.go). When that parse fails for
any pod set, the JobSet is rejected with the parse error alone and no annotation rule is reported.
Otherwise every pod set is checked (`ValidateTASPodSetRequest`, `ValidateSliceSizeAnnotationUpperBound`)
and then the pod-set groups (`ValidatePodSetGroupingTopology`), all in jobframework/tas_validation.go.
TopologyAwareScheduling and TASMultiLayerTopology are Beta and on by default in v0.19
(pkg/features/kube_features.go), so both are assumed on.
"""

from __future__ import annotations

import json

from kpt_fn import strconv, workload
from kpt_fn.problems import Problem
from kpt_fn.profiles.kueue_names import RULE_TAS
from kpt_fn.resource import dig

REQUIRED_TOPOLOGY = "kueue.x-k8s.io/podset-required-topology"
PREFERRED_TOPOLOGY = "kueue.x-k8s.io/podset-preferred-topology"
UNCONSTRAINED_TOPOLOGY = "kueue.x-k8s.io/podset-unconstrained-topology"
SLICE_REQUIRED_TOPOLOGY = "kueue.x-k8s.io/podset-slice-required-topology"
SLICE_SIZE = "kueue.x-k8s.io/podset-slice-size"
SLICE_CONSTRAINTS = "kueue.x-k8s.io/podset-slice-required-topology-constraints"
GROUP_NAME = "kueue.x-k8s.io/podset-group-name"

# The Go type the constraints annotation is decoded into (apis/kueue/v1beta2/workload_types.go).
_CONSTRAINT_TYPE = "v1beta2.PodsetSliceRequiredTopologyConstraint"


def _quote(text: str) -> str:
    """strconv.Quote / %q for the printable text annotations hold."""
    return json.dumps(text, ensure_ascii=False)


def go_parse_int(text: str, bits: int, func: str = "ParseInt") -> tuple[int | None, str]:
    """strconv.ParseInt(text, 10, bits): (value, "") or (None, Go's error text)."""
    value, error = strconv.parse_int(text, bits)
    return (value, "") if value is not None else (None, f"strconv.{func}: parsing {_quote(text)}: {error}")


# --- the multi-layer constraints annotation, decoded as Go's encoding/json would -------------------


class _Number(str):
    """A JSON number kept as its literal, so that `1e2` and `1.0` are not taken for integers."""


def _json_kind(value) -> str:
    if isinstance(value, _Number):
        return "number"
    return {str: "string", bool: "bool", list: "array", dict: "object"}.get(type(value), "null")


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")  # Python's json takes NaN and Infinity; Go's does not


def decode_constraints(text: str) -> tuple[list | None, str]:
    """json.Unmarshal of the annotation into []PodsetSliceRequiredTopologyConstraint: ([(topology,
    size)], "") or (None, error). Go matches the keys `topology` and `size` case-insensitively,
    ignores other keys, leaves a field at its zero value for null, and reports the first type
    mismatch after decoding the rest; a syntax error is found before any decoding."""
    try:
        doc = json.loads(text, parse_int=_Number, parse_float=_Number, parse_constant=_reject_constant)
    except ValueError as exc:
        if not text.strip() or (isinstance(exc, json.JSONDecodeError) and exc.pos >= len(text.rstrip())):
            return None, "unexpected end of JSON input"
        # Go's scanner words syntax errors its own way; the position is Python's.
        detail = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        return None, f"invalid JSON: {detail}"
    if doc is None:
        return [], ""
    if not isinstance(doc, list):
        return None, f"json: cannot unmarshal {_json_kind(doc)} into Go value of type []{_CONSTRAINT_TYPE}"
    first_error = ""
    out = []
    for entry in doc:
        topology, size = "", 0
        if entry is not None and not isinstance(entry, dict):
            first_error = first_error or f"json: cannot unmarshal {_json_kind(entry)} into Go value of type {_CONSTRAINT_TYPE}"
            out.append((topology, size))
            continue
        for key, value in (entry or {}).items():
            name = key.lower()
            if value is None or name not in ("topology", "size"):
                continue
            where = f"Go struct field {_CONSTRAINT_TYPE.split('.')[1]}.{name}"
            if name == "topology":
                if isinstance(value, str) and not isinstance(value, _Number):
                    topology = value
                else:
                    first_error = first_error or f"json: cannot unmarshal {_json_kind(value)} into {where} of type string"
            elif isinstance(value, _Number):
                number, _ = go_parse_int(value, 32)
                if number is None or value.startswith("+"):
                    first_error = first_error or f"json: cannot unmarshal number {value} into {where} of type int32"
                else:
                    size = number
            else:
                first_error = first_error or f"json: cannot unmarshal {_json_kind(value)} into {where} of type int32"
        out.append((topology, size))
    return (None, first_error) if first_error else (out, "")


# --- what the webhook checks ---------------------------------------------------------------------


def _build_error(notes: dict) -> tuple[str, str]:
    """(annotation, error) when Kueue's topology-request builder fails on these annotations, else
    ("", ""). It parses `unconstrained` only when neither required nor preferred is set, the
    constraints annotation whenever present, and the slice size only beside a slice topology."""
    if REQUIRED_TOPOLOGY not in notes and PREFERRED_TOPOLOGY not in notes and UNCONSTRAINED_TOPOLOGY in notes:
        value = str(notes[UNCONSTRAINED_TOPOLOGY])
        if value not in strconv.BOOLS:
            return UNCONSTRAINED_TOPOLOGY, f"strconv.ParseBool: parsing {_quote(value)}: invalid syntax"
    if SLICE_CONSTRAINTS in notes:
        constraints, error = decode_constraints(str(notes[SLICE_CONSTRAINTS]))
        if error:
            return SLICE_CONSTRAINTS, f"failed to parse multi-layer topology constraints annotation: {error}"
        if not 1 <= len(constraints) <= 3:
            return SLICE_CONSTRAINTS, f"topology constraints must contain between 1 and 3 entries: got {len(constraints)}"
    elif SLICE_REQUIRED_TOPOLOGY in notes and SLICE_SIZE in notes:
        _, error = go_parse_int(str(notes[SLICE_SIZE]), 32)
        if error:
            return SLICE_SIZE, error
    return "", ""


def _label_name_errors(value: str) -> list[str]:
    from kpt_fn.apimachinery.validation import is_qualified_name

    return [f"Invalid value: {_quote(value)}: {message}" for message in is_qualified_name(value)]


def _pod_set_errors(notes: dict, count) -> list[tuple[str, str]]:
    """[(annotation or "", message)] of ValidateTASPodSetRequest and
    ValidateSliceSizeAnnotationUpperBound for one pod set, in Kueue's order. `count()` gives the pod
    set's pod count, asked only when a slice annotation is there to be bounded by it (most pod sets
    carry no TAS annotation at all)."""
    out = []
    required, preferred = REQUIRED_TOPOLOGY in notes, PREFERRED_TOPOLOGY in notes
    slice_required, slice_size, group = SLICE_REQUIRED_TOPOLOGY in notes, SLICE_SIZE in notes, GROUP_NAME in notes
    if required + preferred + (UNCONSTRAINED_TOPOLOGY in notes) > 1:
        out.append(("", f"Invalid value: must not contain more than one topology annotation: [{_quote(REQUIRED_TOPOLOGY)}, "
                        f"{_quote(PREFERRED_TOPOLOGY)}, {_quote(UNCONSTRAINED_TOPOLOGY)}]"))
    for key in (REQUIRED_TOPOLOGY, PREFERRED_TOPOLOGY, SLICE_REQUIRED_TOPOLOGY):
        if key in notes:
            out += [(key, m) for m in _label_name_errors(str(notes[key]))]
    if group:
        name = str(notes[GROUP_NAME])
        if go_parse_int(name, 65)[0] is not None and name[:1] not in "+-":  # strconv.ParseUint(name, 10, 64)
            out.append((GROUP_NAME, f"Invalid value: {_quote(name)}: must not be a number"))
        if slice_size:
            out.append((GROUP_NAME, f"Forbidden: may not be set when '{SLICE_SIZE}' is specified"))
        if slice_required:
            out.append((GROUP_NAME, f"Forbidden: may not be set when '{SLICE_REQUIRED_TOPOLOGY}' is specified"))
        if not required and not preferred:
            out.append((GROUP_NAME, f"Forbidden: may not be set when neither '{PREFERRED_TOPOLOGY}' nor "
                                    f"'{REQUIRED_TOPOLOGY}' is specified"))
    if UNCONSTRAINED_TOPOLOGY in notes and str(notes[UNCONSTRAINED_TOPOLOGY]) not in strconv.BOOLS:
        out.append((UNCONSTRAINED_TOPOLOGY, f"Invalid value: {_quote(str(notes[UNCONSTRAINED_TOPOLOGY]))}: must be a boolean value"))
    size = None
    if slice_size:
        text = str(notes[SLICE_SIZE])
        size, _ = go_parse_int(text, 32)
        if size is None:
            out.append((SLICE_SIZE, f"Invalid value: {_quote(text)}: must be a numeric value"))
        elif size < 1:
            out.append((SLICE_SIZE, f"Invalid value: {_quote(text)}: must be greater than or equal to 1"))
    if slice_required and not slice_size:
        out.append((SLICE_SIZE, f"Required value: must be set when '{SLICE_REQUIRED_TOPOLOGY}' is specified"))
    if slice_size and not slice_required:
        out.append((SLICE_SIZE, f"Forbidden: may not be set when '{SLICE_REQUIRED_TOPOLOGY}' is not specified"))
    constraints = None
    if SLICE_CONSTRAINTS in notes:
        constraints, more = _constraint_errors(notes, slice_required, slice_size, group)
        out += more
    # ValidateSliceSizeAnnotationUpperBound
    if size is None and not constraints:
        return out
    pods = count()
    if size is not None and size > pods:
        out.append((SLICE_SIZE, f"Invalid value: {_quote(str(notes[SLICE_SIZE]))}: must not be greater than pod set count {pods}"))
    if constraints and constraints[0][1] > pods:
        out.append((SLICE_CONSTRAINTS, f"Invalid value: {constraints[0][1]}: must not be greater than pod set count {pods}"))
    return out


def _constraint_errors(notes: dict, slice_required: bool, slice_size: bool, group: bool) -> tuple[list | None, list]:
    """validateSliceRequiredTopologyConstraintsAnnotation: the annotation excludes the two-level slice
    annotations and the group name; each entry names a label and a size of at least 1; topologies are
    unique; each size divides the one before it (coarsest first; the order of levels is checked only
    at scheduling, against the Topology object)."""
    out = []
    if slice_required:
        out.append((SLICE_CONSTRAINTS, f"Forbidden: may not be set when '{SLICE_REQUIRED_TOPOLOGY}' is specified"))
    if slice_size:
        out.append((SLICE_CONSTRAINTS, f"Forbidden: may not be set when '{SLICE_SIZE}' is specified"))
    if group:
        out.append((GROUP_NAME, f"Forbidden: may not be set when '{SLICE_CONSTRAINTS}' is specified"))
    constraints, error = decode_constraints(str(notes[SLICE_CONSTRAINTS]))
    if error or not 1 <= len(constraints) <= 3:
        return None, out  # the builder has failed already: the webhook reports that instead
    for i, (topology, size) in enumerate(constraints):
        out += [(f"{SLICE_CONSTRAINTS}|[{i}].topology", m) for m in _label_name_errors(topology)]
        if size < 1:
            out.append((f"{SLICE_CONSTRAINTS}|[{i}].size", f"Invalid value: {size}: must be greater than or equal to 1"))
    seen: dict = {}
    for i, (topology, _) in enumerate(constraints):
        if topology in seen:
            out.append((f"{SLICE_CONSTRAINTS}|[{i}].topology", f"Duplicate value: {_quote(f'{topology} (also at index {seen[topology]})')}"))
        else:
            seen[topology] = i
    for i in range(len(constraints) - 1):
        parent, child = constraints[i][1], constraints[i + 1][1]
        if child > 0 and parent % child:
            out.append((f"{SLICE_CONSTRAINTS}|[{i + 1}].size", f"Invalid value: {child}: must evenly divide the parent layer size {parent}"))
    return constraints, out


def _path(base: str, key: str) -> str:
    """`key` is an annotation, or `<annotation>|[i].field` for a field of a constraint entry (an
    annotation key has no `|`)."""
    annotation, _, rest = key.partition("|")
    return f"{base}[{annotation}]{rest}" if key else base


def check_tas(jobset: dict) -> list:
    """Kueue's admission checks of the TAS pod-set annotations on a JobSet's pod templates."""
    replicated = [rj for rj in dig(jobset, "spec", "replicatedJobs") or () if isinstance(rj, dict)]
    bases = [f"spec.replicatedJobs[{i}].template.spec.template.metadata.annotations" for i in range(len(replicated))]
    notes_of = [dig(rj, *workload.POD_META, "annotations") or {} for rj in replicated]
    for base, notes in zip(bases, notes_of):
        key, error = _build_error(notes)
        if error:
            return [Problem(error, _path(base, key), subject=jobset, rule=RULE_TAS)]
    problems = []
    for base, notes, rj in zip(bases, notes_of, replicated):
        problems += [Problem(m, _path(base, key), subject=jobset, rule=RULE_TAS)
                     for key, m in _pod_set_errors(notes, lambda rj=rj: workload.pod_count(rj))]
    # Only a pod set with a required or preferred topology joins a group (the builder drops the
    # group name otherwise), so a lone grouped pod set without one is not counted.
    groups: dict[str, list] = {}
    for i, (notes, rj) in enumerate(zip(notes_of, replicated)):
        if GROUP_NAME in notes and (REQUIRED_TOPOLOGY in notes or PREFERRED_TOPOLOGY in notes):
            groups.setdefault(str(notes[GROUP_NAME]), []).append(
                (i, workload.pod_count(rj), notes.get(REQUIRED_TOPOLOGY), notes.get(PREFERRED_TOPOLOGY)))
    for group, members in groups.items():
        problems += _group_problems(jobset, group, members, bases)
    return problems


def _group_problems(jobset: dict, group: str, members: list, bases: list) -> list:
    def at(i, message, key=GROUP_NAME):
        return Problem(message, _path(bases[i], key), subject=jobset, rule=RULE_TAS)

    if len(members) != 2:
        return [at(i, f"Invalid value: {_quote(group)}: can only define groups of exactly 2 pod sets, got: "
                      f"{len(members)} pod set(s)") for i, *_ in members]
    (i1, c1, req1, pref1), (i2, c2, req2, pref2) = members
    out = []
    if c1 != 1 and c2 != 1:
        message = (f"Invalid value: {_quote(group)}: can only define groups where at least one pod set has only 1 "
                   f"replica, got: {c1} replica(s) and {c2} replica(s) in the group")
        out += [at(i1, message), at(i2, message)]
    if not (req1 == req2 and pref1 == pref2):
        for i, other in ((i1, i2), (i2, i1)):
            out.append(at(i, f"Invalid value: must specify '{REQUIRED_TOPOLOGY}' or '{PREFERRED_TOPOLOGY}' topology "
                             f"consistent with '{bases[other]}' in group '{group}'", key=""))
    return out
