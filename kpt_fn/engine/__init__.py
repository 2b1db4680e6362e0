"""The expansion engine: one TrainJob plus its runtime in, the controller's objects out.

Contract used by the rest of the function (kpt_fn.function):

    expand(trainjob, runtime, options, form=None) -> Expansion
        trainjob: a TrainJob dict in trainer.kubeflow.org/v1alpha1 form (legacy shapes are converted
                  by kpt_fn.convert before this), as parsed from YAML, NOT defaulted; never mutated.
        runtime:  the TrainingRuntime / ClusterTrainingRuntime dict it references, NOT defaulted;
                  never mutated.
        form:     runtime_form(runtime, options), the runtime defaulted and typed: it depends on the
                  runtime alone, so a caller that renders many TrainJobs keeps it per runtime and
                  passes it in (computed here when None); never mutated.
        Expansion.objects: the generated objects, plain dicts, in emit order (Secrets, ConfigMaps,
                  PodGroups, JobSet), with metadata.name/namespace set and no ownerReferences.
        Expansion.problems: Problems (kpt_fn.problems); paths relative to the TrainJob unless
                  Problem.subject says otherwise. When any problem is an error, objects is empty.

    admission(trainjob, runtime, options, form=None) -> list[Problem]
        The checks the selected Trainer release's TrainJob admission webhook runs (registry key, deprecation
        warning, runtime plugins' CustomValidation: JobSet initializer and runtimePatches checks plus
        the project's `recommendation/` checks of patch targets, directive keys and value/valueFrom
        switches, Torch, MPI, XGBoost, Flux, Volcano), without generating anything.
        `expand` runs the same checks first unless options.admission is False; a caller that calls
        `admission` itself should pass admission=False to `expand` to avoid duplicate warnings.

    rules() -> list[Rule]   (kpt_fn.engine.framework.rules)
        The problems.Rule records of every check above.

Pipeline of `expand` (upstream pkg/runtime/core/trainingruntime.go and pkg/runtime/framework/core/framework.go at v2.3.0):

    1. default private copies of TrainJob and runtime (defaults.py: the CRDs' schema defaults), then
       drop the zero values the controller's Go types leave out (omitempty.py); the runtime's form is the
       caller's (runtime_form), its JobSet template spec copied (the part a render writes into);
    2. build the Info (runtime_info.py: label propagation, runtimePatches, round-trip, PodSets);
    3. unless options.admission is False: the admission checks on that Info, exactly what the
       webhook would reject -- errors stop the render (also for a TrainJob managed elsewhere: the
       webhook checks it all the same);
    4. stop (warning, no objects) when spec.managedBy names another controller (the controller
       skips it: pkg/controller/trainjob_controller.go Reconcile, IsManagedByExternalController);
    5. framework.run: EnforceMLPolicy, EnforcePodGroupPolicy, PodNetwork, builders (framework.py
       documents the fixed plugin order);
    6. round-trip normalisation of every object (roundtrip.py: canonical quantities, no null or
       empty artefacts), objects in the order Secrets, ConfigMaps, PodGroups, JobSet (a fixed order
       of our own: upstream returns them in builder order, random per process, since
       pkg/runtime/framework/core/framework.go New fills each phase from a Go map).

Deliberate offline behaviour (docs/output.md): no ownerReferences (the TrainJob's UID exists only once
the API server has created it), no runtime-snapshot ConfigMap (pkg/runtime/core/snapshot.go; nothing
outside the controller reads it), `spec.activeDeadlineSeconds` is not rendered (upstream enforces it in
the controller, trainjob_controller.go reconcileDeadline; the controller profile's info result says so,
kpt_fn/profiles/controller.py); the TrainJobStatus
plugin (alpha, off by default upstream, pkg/features/features.go) is not implemented.
Where upstream is random (plugin order, GPU name choice) the fixed orders of framework.py and
resources.num_gpu apply. Errors the controller would hit while reconciling (merge failures, missing
envInjection targets, invalid quantities, malformed input) are error Problems, never exceptions.
"""

from __future__ import annotations

from kpt_fn import quantity, upstream
from kpt_fn.resource import private_copy
from kpt_fn.engine import defaults, framework, omitempty, roundtrip
from kpt_fn.engine.framework import RenderError
from kpt_fn.problems import ERROR, WARNING, Problem, Rule, has_errors
from kpt_fn.registry import SUPPORTED_RUNTIMES, registry_key  # noqa: F401 (re-exported: the registry is shared with resolve)

CONTROLLER = "trainer.kubeflow.org/trainjob-controller"
DEPRECATION_POLICY_URL = "https://trainer.kubeflow.org/en/latest/operator-guides/runtime.html#runtime-deprecation-policy"

RULE_RUNTIME_KEY = "trainer-webhook/unsupported-runtime"
RULE_DEPRECATED = "trainer-webhook/deprecated-runtime"
RULE_MANAGED_BY = "trainer-controller/managed-by-other-controller"
RULE_RENDER = "trainer-controller/reconcile-error"

RULES = [
    Rule(RULE_RUNTIME_KEY, "TrainJob",
         "spec.runtimeRef must name a TrainingRuntime or ClusterTrainingRuntime of trainer.kubeflow.org"),
    Rule(RULE_DEPRECATED, "TrainJob",
         "warning: the referenced ClusterTrainingRuntime is labelled trainer.kubeflow.org/support: deprecated"),
    Rule(RULE_RENDER, "TrainJob",
         "errors the controller would hit while building the objects (strategic merge failures, missing "
         "envInjection targets, invalid quantities, ...); nothing is rendered", behaviour="torch_env_injection"),
    Rule(RULE_RENDER, "TrainJob",
         "errors the controller would hit while building the objects (strategic merge failures, invalid "
         "quantities, ...); nothing is rendered", behaviour="not torch_env_injection"),
    Rule(RULE_MANAGED_BY, "TrainJob",
         "warning: spec.managedBy names another controller, so nothing is rendered (the admission "
         "checks still apply)", behaviour="managed_by_check"),
]


class EngineOptions:
    """What one render is asked for: the Trainer release (`bundle`, the only carrier of the release:
    its data and its behaviour switches), the run's functionConfig (`config`, a
    kpt_fn.config.FunctionConfig, where every option's name and default are declared once) and whether
    `expand` runs the admission checks. Plugins read an option by its functionConfig name
    (`options.mpiSSHSecret`): those attributes are the config's, except `trainerVersion`, which the
    door turned into `bundle`. Immutable; equal by value. A plain class: creating dataclasses cost
    start-up."""

    __slots__ = ("bundle", "config", "admission")

    def __init__(self, config=None, admission: bool = True, *, bundle: upstream.Bundle, **values):
        """`config`, or the options by name (`EngineOptions(bundle=..., mpiSSHSecret="generate")`, the
        defaults for the rest) for a caller without a parsed config."""
        if config is None:
            from kpt_fn.config import FunctionConfig

            config = FunctionConfig(**values)
        elif values:
            raise TypeError("EngineOptions takes a config or option values, not both")
        setattr_ = object.__setattr__
        setattr_(self, "bundle", bundle)
        setattr_(self, "config", config)
        # Run the admission checks inside `expand` (errors stop the render). A caller that has already
        # run `admission` passes False so that warnings are not reported twice.
        setattr_(self, "admission", admission)

    def __getattr__(self, name):
        # Only for names that are not slots: the options, read off the config. The release is
        # `bundle`, never the config's trainerVersion (the door picked the bundle from it).
        if name.startswith("__") or name in ("config", "bundle", "trainerVersion"):
            raise AttributeError(f"{name}: the release of a render is options.bundle" if name == "trainerVersion"
                                 else name)
        return getattr(self.config, name)

    def __setattr__(self, name, value):
        raise AttributeError(f"EngineOptions is immutable: cannot set {name}")

    def __eq__(self, other):
        if type(other) is not EngineOptions:
            return NotImplemented
        return (self.admission, self.bundle, self.config) == (other.admission, other.bundle, other.config)

    def __hash__(self):
        return hash((self.admission, id(self.bundle), self.config))

    def __repr__(self):  # the config's repr never shows a sensitive option (secretSeed)
        return f"EngineOptions(bundle={self.bundle!r}, config={self.config!r}, admission={self.admission!r})"


class Expansion:
    __slots__ = ("objects", "problems")

    def __init__(self, objects: list | None = None, problems: list | None = None):
        self.objects = [] if objects is None else objects
        self.problems = [] if problems is None else problems

    def __repr__(self):
        return f"Expansion(objects={self.objects!r}, problems={self.problems!r})"


def runtime_form(runtime: dict, options: EngineOptions) -> dict:
    """The runtime as the controller holds it: defaulted by the API server, then read into Go types,
    whose omitempty zero values are gone (omitempty.py). It depends on the runtime alone, so a caller
    rendering many TrainJobs computes it once per runtime and passes it to every `expand` and
    `admission` of that runtime; it is never mutated (each render works on its own copy of the
    template spec, _writable, and reads the rest)."""
    bundle = options.bundle
    return omitempty.typed_runtime(defaults.default_runtime(runtime, bundle), bundle)


def _typed(trainjob: dict, runtime: dict, options: EngineOptions, form: dict | None) -> tuple[dict, dict]:
    """Private copies of TrainJob and runtime as the controller holds them (`form`: runtime_form's
    value for `runtime`, when the caller has it)."""
    bundle = options.bundle
    tj = omitempty.typed_trainjob(defaults.default_trainjob(trainjob, bundle), bundle)
    rt = runtime_form(runtime, options) if form is None else _writable(form)
    return tj, rt


def _writable(form: dict) -> dict:
    """`form` with a private copy of the one part a render writes into: the JobSet template spec,
    which becomes the Info's obj_apply (plugins, the builder, the resourcesPerNode merge and the
    round trip change it in place; a runtimePatch merge shares with it what it leaves alone). The
    rest (metadata, mlPolicy, podGroupPolicy, the template's metadata) is only read: shared."""
    spec = form.get("spec")
    template = spec.get("template") if isinstance(spec, dict) else None
    if not isinstance(template, dict) or not isinstance(template.get("spec"), dict):
        return private_copy(form)  # malformed: nothing to share safely
    return {**form, "spec": {**spec, "template": {**template, "spec": private_copy(template["spec"])}}}


def _build(tj: dict, rt: dict, runtime: dict, options: EngineOptions):
    """The Info for the defaulted TrainJob `tj` and runtime `rt` (`runtime`: the caller's object)."""
    from kpt_fn.engine import runtime_info

    _check_resources_per_node(tj)
    try:
        return runtime_info.build_info(tj, rt, options.bundle)
    except roundtrip.QuantityProblem as exc:
        raise RenderError(str(exc), path=exc.path, subject=runtime) from exc
    except quantity.QuantityError as exc:
        raise RenderError(f"invalid resource quantity: {exc}", path="spec.template.spec", subject=runtime) from exc


def _patch_checks(tj: dict, rt: dict, options: EngineOptions) -> list[Problem]:
    """Admission checks of runtimePatches that need no Info (when building it failed)."""
    return framework.check_runtime_patches(rt, tj)


def _check_resources_per_node(tj: dict) -> None:
    """Bad quantities in the TrainJob are reported at their own path (the API server would have)."""
    rpn = ((tj.get("spec") or {}).get("trainer") or {}).get("resourcesPerNode") or {}
    for part in ("limits", "requests"):
        for name, value in (rpn.get(part) or {}).items():
            try:
                quantity.parse(value)
            except (quantity.QuantityError, TypeError, ValueError) as exc:
                raise RenderError(str(exc), path=f"spec.trainer.resourcesPerNode.{part}[{name}]") from exc


def _webhook_checks(tj: dict, rt: dict, info, options: EngineOptions) -> list[Problem]:
    problems: list[Problem] = []
    labels = (rt.get("metadata") or {}).get("labels") or {}
    if rt.get("kind") == "ClusterTrainingRuntime" and labels.get("trainer.kubeflow.org/support") == "deprecated":
        problems.append(Problem(
            f'Referenced ClusterTrainingRuntime "{(rt.get("metadata") or {}).get("name")}" is deprecated and will be '
            f"removed in a future release of Kubeflow Trainer. See runtime deprecation policy: {DEPRECATION_POLICY_URL}",
            "spec.runtimeRef", severity=WARNING, rule=RULE_DEPRECATED))
    problems.extend(framework.run_custom_validation(info, tj, options))
    return problems


def _key_problem(trainjob: dict, options: EngineOptions) -> Problem | None:
    key = registry_key(trainjob, options.bundle)
    if key not in SUPPORTED_RUNTIMES:
        return Problem(f"unsupported runtime: {key}", "spec.runtimeRef", rule=RULE_RUNTIME_KEY)
    return None


def admission(trainjob: dict, runtime: dict, options: EngineOptions, form: dict | None = None) -> list[Problem]:
    """`form`: runtime_form(runtime, options), if the caller keeps it (computed here otherwise)."""
    key_problem = _key_problem(trainjob, options)
    if key_problem is not None:
        return [key_problem]
    tj, rt = _typed(trainjob, runtime, options, form)
    try:
        info = _build(tj, rt, runtime, options)
    except RenderError as exc:
        # Upstream ignores Info construction errors at admission (they surface at reconcile); the
        # patch checks still apply.
        return _patch_checks(tj, rt, options) + [
            Problem(exc.message, exc.path, severity=WARNING, subject=exc.subject, rule=RULE_RENDER)]
    return _webhook_checks(tj, rt, info, options)


def expand(trainjob: dict, runtime: dict, options: EngineOptions, form: dict | None = None) -> Expansion:
    """`form`: runtime_form(runtime, options), if the caller keeps it (computed here otherwise)."""
    # An expansion leaves no reference cycles behind (the CLI runs without the cyclic collector;
    # tests/behaviour/test_acyclic_render.py).
    key_problem = _key_problem(trainjob, options)
    if key_problem is not None:
        return Expansion(problems=[key_problem])
    # The TrainJob webhook has no objectSelector and no managedBy check (pkg/webhooks/trainjob_webhook.go
    # ValidateCreate; manifests/base/webhook: only the two runtime webhooks get an objectSelector), so a
    # TrainJob managed elsewhere is still fully admission-checked; only the reconciler skips it
    # (pkg/controller/trainjob_controller.go Reconcile, IsManagedByExternalController).
    managed_by = (trainjob.get("spec") or {}).get("managedBy")
    not_reconciled = None
    # The managed_by_check switch: v2.2.1's reconciler has no managedBy check (pkg/controller/
    # trainjob_controller.go Reconcile at v2.2.1; v2.3.0 added IsManagedByExternalController).
    if managed_by not in (None, CONTROLLER) and options.bundle.behaviour.managed_by_check:
        not_reconciled = Problem(
            f'spec.managedBy is "{managed_by}": the Trainer controller does not reconcile this TrainJob, '
            'so nothing is rendered', "spec.managedBy", severity=WARNING, rule=RULE_MANAGED_BY)

    problems: list[Problem] = []
    try:
        tj, rt = _typed(trainjob, runtime, options, form)
        try:
            info = _build(tj, rt, runtime, options)
        except RenderError:
            if options.admission:
                # What the webhook would have rejected is the better report.
                problems = _patch_checks(tj, rt, options)
                if has_errors(problems):
                    return Expansion(problems=problems)
            if not_reconciled is not None:
                # A reconcile-time error, but nothing reconciles this TrainJob.
                return Expansion(problems=problems + [not_reconciled])
            raise
        if options.admission:
            problems.extend(_webhook_checks(tj, rt, info, options))
            if has_errors(problems):
                return Expansion(problems=problems)
        if not_reconciled is not None:
            return Expansion(problems=problems + [not_reconciled])
        objects = framework.run(info, tj, options)
        for obj in objects:
            roundtrip.normalize(obj)
    except RenderError as exc:
        return Expansion(problems=problems + [Problem(exc.message, exc.path, severity=ERROR,
                                                      subject=exc.subject, rule=exc.rule or RULE_RENDER)])
    except roundtrip.QuantityProblem as exc:
        # Only generated objects are normalised here; their quantities come from the inputs.
        return Expansion(problems=problems + [Problem(str(exc), exc.path, severity=ERROR, rule=RULE_RENDER)])
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:
        # Inputs that passed no schema validation can still be malformed; report, never crash.
        return Expansion(problems=problems + [Problem(
            f"cannot render this TrainJob: {type(exc).__name__}: {exc}", "spec", severity=ERROR, rule=RULE_RENDER)])
    problems.extend(info.problems)
    if has_errors(problems):
        return Expansion(problems=problems)
    return Expansion(objects=objects, problems=problems)
