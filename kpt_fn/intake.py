"""Input triage: which items the run can use, what is wrong with the rest, and what the user must know
about items before any TrainJob is rendered (function.run calls these first, kpt_fn.output places
what comes out).

An unusable item (not an object, no apiVersion or kind, a Trainer kind of another group or version,
no usable metadata) is an error and passes through unchanged, never read further.
"""

from __future__ import annotations

from kpt_fn import upstream

from kpt_fn import config as config_mod
from kpt_fn import convert, output, sources
from kpt_fn import resource as res
from kpt_fn import results as results_mod
from kpt_fn.problems import ERROR, WARNING, Problem, has_errors, Rule

# The rules of the input triage (`expand-trainjobs rules`).
RULE_NOT_AN_OBJECT = "intake/not-an-object"
RULE_UNKNOWN_KIND = "intake/unknown-kind"
RULE_API_VERSION = "intake/api-version"
RULE_METADATA = "intake/metadata"
RULE_UNUSED_CONFIG = "intake/unused-config"
RULE_NOT_IN_OUTPUT = "intake/not-in-output"
RULE_NOT_LOCAL_CONFIG = "intake/not-local-config"
RULES = [
    Rule(RULE_NOT_AN_OBJECT, "items", "each input item is an object with an apiVersion and a kind"),
    Rule(RULE_UNKNOWN_KIND, "items", "a kind of the Trainer API group is one of the release's kinds"),
    Rule(RULE_API_VERSION, "TrainJob, TrainingRuntime, ClusterTrainingRuntime", "a Trainer kind has Kubeflow Trainer's apiVersion"),
    Rule(RULE_METADATA, "TrainJob, TrainingRuntime, ClusterTrainingRuntime", "metadata is an object with a non-empty name (and namespace, when set)"),
    Rule(RULE_UNUSED_CONFIG, "ExpandTrainJobs", "a functionConfig among the items that is not this run's is not silently ignored"),
    Rule(RULE_NOT_IN_OUTPUT, "files", "an object read through spec.files or spec.trainJobs that would be applied is listed where it reaches the output"),
    Rule(RULE_NOT_LOCAL_CONFIG, "TrainJob, TrainingRuntime, ClusterTrainingRuntime", "inputs kept by kpt and kustomize are marked config.kubernetes.io/local-config"),
]


_TRAINER_KINDS = (res.TRAINJOB, *res.RUNTIME_KINDS)
_YAML_TYPES = {str: "a string", int: "an integer", float: "a number", bool: "a boolean", list: "a list", type(None): "null"}


def _structure_problems(item, i: int, bundle: upstream.Bundle) -> list:
    """What makes an item unusable as input (errors: passed through, never read further); `bundle`'s
    release is named in the messages."""
    release = bundle.release
    if not isinstance(item, dict):
        found = _YAML_TYPES.get(type(item), type(item).__name__)
        return [Problem(f"not an object (found {found}); it is passed through unchanged", f"items[{i}]", rule=RULE_NOT_AN_OBJECT)]
    missing = [k for k in ("apiVersion", "kind") if not isinstance(item.get(k), str) or not item.get(k)]
    if missing:
        return [Problem(f"items[{i}] has no {' or '.join(missing)}; it is passed through unchanged", missing[0], subject=item, rule=RULE_NOT_AN_OBJECT)]
    kind, group = item["kind"], res.api_group(item)
    if kind in _TRAINER_KINDS and group not in (res.TRAINER_GROUP, "kubeflow.org"):
        return [_foreign_trainer_kind(item, kind, group)]
    if group == res.TRAINER_GROUP and kind not in _TRAINER_KINDS:
        import difflib  # only on a misspelt kind: difflib (and heapq) cost ~3 ms of every start-up

        near = [k for k in _TRAINER_KINDS if k.lower() == kind.lower()]
        near = near or difflib.get_close_matches(kind, _TRAINER_KINDS, n=1, cutoff=0.8)
        if near:
            return [Problem(f'unknown kind "{kind}" (did you mean "{near[0]}"?); it is passed through unchanged', "kind", subject=item, rule=RULE_UNKNOWN_KIND)]
        return [Problem(f'kind "{kind}" is not a Kubeflow Trainer {release} kind; it is passed through unchanged', "kind", severity=WARNING, subject=item, rule=RULE_UNKNOWN_KIND)]
    if kind in _TRAINER_KINDS and group in (res.TRAINER_GROUP, "kubeflow.org"):
        # Another version would be read as v1alpha1 field by field, and silently rendered wrong.
        if item["apiVersion"] not in (res.TRAINER_API_VERSION, *convert.LEGACY_API_VERSIONS):
            also = f" (and converts {', '.join(convert.LEGACY_API_VERSIONS)})"
            return [
                Problem(
                    f'unsupported apiVersion "{item["apiVersion"]}" for {kind}: this function reads '
                    f"{res.TRAINER_API_VERSION} of Kubeflow Trainer {release}{also}; it is passed through unchanged",
                    "apiVersion",
                    subject=item, rule=RULE_API_VERSION
                )
            ]
        # Runtimes are indexed and TrainJobs named by these before any schema check runs.
        md = item.get("metadata")
        if not isinstance(md, dict):
            return [Problem(f"Required value: metadata must be an object (found {_YAML_TYPES.get(type(md), type(md).__name__)}); it is passed through unchanged", "metadata", subject=item, rule=RULE_METADATA)]
        for key in ("name", "namespace"):
            value = md.get(key)
            if (key == "name" or value is not None) and not (isinstance(value, str) and value):
                found = "an empty string" if value == "" else _YAML_TYPES.get(type(value), type(value).__name__)
                return [Problem(f"Invalid value: metadata.{key} must be a non-empty string (found {found}); it is passed through unchanged", f"metadata.{key}", subject=item, rule=RULE_METADATA)]
    return []


def _foreign_trainer_kind(item: dict, kind: str, group: str) -> Problem:
    """A Trainer kind under another API group is never rendered: an error where the apiVersion looks
    like a slip for Trainer's (no group, a version left out, a misspelt group), else a warning -- a
    run that leaves a TrainJob unrendered must say so either way."""
    import difflib  # only here (see _structure_problems)

    api_version = item["apiVersion"]
    if not group or "kubeflow" in group or difflib.get_close_matches(group, [res.TRAINER_GROUP], cutoff=0.8):
        return Problem(
            f'apiVersion "{api_version}" is not Kubeflow Trainer\'s (did you mean "{res.TRAINER_API_VERSION}"?): '
            f"this {kind} is not rendered; it is passed through unchanged",
            "apiVersion", subject=item, rule=RULE_API_VERSION
        )
    return Problem(
        f'{kind} of apiVersion "{api_version}" is not Kubeflow Trainer\'s {kind} ({res.TRAINER_API_VERSION}): '
        "it is not rendered; it is passed through unchanged",
        "apiVersion", severity=WARNING, subject=item, rule=RULE_API_VERSION
    )


def unused_configs(items: list, unusable: set, function_config, returns_inputs: bool) -> list:
    """Problems for ExpandTrainJobs items holding TrainJobs (`trainJobs`, `files`) that are not this
    run's functionConfig: those TrainJobs are not rendered by this run. Under kpt another pipeline step
    may use that config (a warning); `render` (Argo CD) has only the marker's config, so nothing else
    ever renders them (an error)."""
    own = res.without_client_annotations(function_config) if isinstance(function_config, dict) else None
    problems = []
    for i, item in enumerate(items):
        if i in unusable or not config_mod.is_config_object(item):
            continue
        spec = item.get("spec") if isinstance(item.get("spec"), dict) else {}
        held = [k for k in ("trainJobs", "files") if spec.get(k)]
        if not held or res.without_client_annotations(item) == own:
            continue
        fields = " and ".join(f"spec.{k}" for k in held)
        problems.append(Problem(
            f"{res.display(item)} is not this run's functionConfig, so the TrainJobs of its {fields} are not "
            + ("rendered by this run" if returns_inputs else
               f"rendered ({sources.MARKER_FILE} or the Argo CD parameters configure this run): move them into "
               "files of the app"),
            f"spec.{held[0]}", severity=WARNING if returns_inputs else ERROR, subject=item, rule=RULE_UNUSED_CONFIG
        ))
    return problems


def not_emitted(extra: list, items: list) -> list:
    """Errors for objects read through `files` or given in `trainJobs` that are neither TrainJobs nor
    runtimes: they are read for those alone and never emitted, so a ConfigMap or a Kueue queue put next
    to the TrainJobs would vanish from a kustomize build that exits 0. Earlier output (re-rendered),
    local-config objects, the function's configs and objects that are among the items too (kpt passes
    the package's files) are nobody's loss."""
    problems = []
    present = None
    for obj in extra:
        if not isinstance(obj, dict) or res.is_trainjob(obj) or res.is_runtime(obj) or res.is_local_config(obj) \
                or config_mod.is_config_object(obj) or output.marker_of(obj) is not None:
            continue
        if present is None:
            present = {res.identity(i) for i in items if isinstance(i, dict)}
        if res.identity(obj) in present:
            continue
        path = res.file_path(obj)
        problems.append(Problem(
            f"{output.show(obj)}{f' (in {path})' if path else ''} is read through spec.{'files' if path else 'trainJobs'}, "
            "which is read for TrainJobs and runtimes only: it would not be in the output; list it under the "
            "kustomization's resources: instead (or mark it config.kubernetes.io/local-config if it is not to be applied)",
            "spec.files" if path else "spec.trainJobs", rule=RULE_NOT_IN_OUTPUT
        ))
    return problems


def is_admission_policy(item) -> bool:
    """A ValidatingAdmissionPolicy item: the run judges what it creates with kpt_fn.admission, which
    a run without one never imports (this test is all it costs)."""
    return isinstance(item, dict) and item.get("kind") == "ValidatingAdmissionPolicy" \
        and str(item.get("apiVersion", "")).startswith("admissionregistration.k8s.io/")


def survey(items: list, bundle: upstream.Bundle) -> tuple[list, set, list]:
    """(position and TrainJob of each TrainJob item, positions of unusable items, their problems);
    `bundle`'s release is named in the messages."""
    inputs, unusable, problems = [], set(), []
    for i, item in enumerate(items):
        structural = _structure_problems(item, i, bundle)
        problems += structural
        if has_errors(structural):
            unusable.add(i)
        elif not config_mod.is_config_object(item):
            if res.is_trainjob(item):
                inputs.append((i, item))
            problems += sources.trainjobs_in_list(item)
    return inputs, unusable, problems


def reaching_cluster(items: list, unusable: set) -> list:
    """Warnings for TrainJobs and runtimes that kpt and kustomize would apply along with what is
    rendered from them (they drop only items marked local-config). A repository that marks none has
    thousands: past results.RESULTS_PER_KIND of a kind they are counted, not made (memory)."""
    made: dict[str, list] = {}  # TrainJob / runtime -> the warnings made
    more: dict[str, int] = {}  # and how many more there are
    for i, item in enumerate(items):
        if i in unusable or not isinstance(item, dict) or res.is_local_config(item):
            continue
        if res.is_trainjob(item):
            group, why = "trainjob", ("a Trainer controller running there would create its own JobSet for it and "
                                      "fight over the rendered objects")
        elif res.is_runtime(item):
            group, why = "runtime", "the rendered objects do not need it there"
        else:
            continue
        warnings = made.setdefault(group, [])
        if len(warnings) >= results_mod.RESULTS_PER_KIND:
            more[group] = more.get(group, 0) + 1
            continue
        warnings.append(results_mod.about(
            item,
            f'{res.display(item)} is not marked {res.LOCAL_CONFIG}: "true", so kpt and kustomize keep it in their '
            f"output and it would be applied to the cluster ({why}); unless it is meant for the cluster, add "
            f'{res.LOCAL_CONFIG}: "true" to its metadata.annotations',
            WARNING,
            field=f"metadata.annotations[{res.LOCAL_CONFIG}]", rule=RULE_NOT_LOCAL_CONFIG
        ))
    return [r for group, warnings in made.items()
            for r in warnings + ([results_mod.more_like(warnings[-1], more[group])] if group in more else [])]
