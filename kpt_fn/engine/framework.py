"""The runtime framework: runs the plugins over one Info, phase by phase (trainer-semantics.md §4.1).

Plugin protocol
---------------
A plugin is a module ``kpt_fn.plugins.<name>``. Every attribute below is optional; the framework
calls only what a module defines:

    NAME: str
        Upstream's plugin name ("Torch", "JobSet", ...), used in messages and the rule catalog.
    is_active(info) -> bool
        The "am I configured?" guard upstream repeats at the top of every method. When it returns
        False the framework calls nothing else on the plugin for this TrainJob (all phases and
        `validate`). Absent means always active (only the JobSet plugin). A plugin listed in the
        framework's `_NEEDS` must be inactive without its runtime policy entry: the framework then
        skips it without importing it.
    enforce_ml_policy(info, trainjob, options) -> None
    enforce_pod_group_policy(info, trainjob, options) -> None
    identify_pod_network(info, trainjob) -> None
    sync_parallel_count(info) -> None
        Mutate `info` (PodSets, Scheduler, obj_apply) and, where upstream does, the TrainJob copy
        (torchtune and Flux rewrite spec.trainer.command/args that the JobSet builder reads later).
    build(info, trainjob, options) -> list[dict]
        Return the generated objects as plain dicts (apiVersion, kind, metadata.name/namespace set,
        no ownerReferences). The framework orders them (see `order_objects`), so a builder need not.
    validate(info, trainjob, options) -> list[Problem]
        Upstream's CustomValidation: runs at admission on an Info built by runtime_info only (no
        enforce/network phases), with `info.unpatched_spec` set for target checks (R6.1).
    RULES: list[dict]
        Catalog entries ``{"id", "family": "trainer-webhook", "applies_to": "TrainJob",
        "description"}`` for the checks `validate` implements; `rules()` aggregates them.

What the framework hands to plugins:

* `info` is a `kpt_fn.engine.info.Info` built fresh for this render: `obj_apply` is a private copy
  of the (defaulted, patched, round-tripped) JobSet spec, `runtime_policy.ml_policy_source` a
  private copy of the runtime's mlPolicy (without numNodes), so plugins may mutate both.
* `trainjob` is a private, defaulted copy of the TrainJob dict (never the caller's object).
* `options` is the `EngineOptions` of the call (frozen).

Plugins abort a render like upstream's returned errors by raising `RenderError(message, path)`;
the engine turns it into an error Problem and emits nothing. Non-fatal findings during a render go
to `info.problems` (warnings/infos).

Fixed plugin order (upstream iterates a Go map, so its order is random per process; this order
reproduces upstream in every order-independent case and is the documented choice for the others,
trainer-semantics.md §4.1, §8.2):

    EnforceMLPolicy:        plainml, torch, mpi, jax, xgboost, flux
    EnforcePodGroupPolicy:  coscheduling, volcano
    PodNetwork:             jobset
    ComponentBuilder:       sync_parallel_count of every builder, then build of every builder:
                            jobset, mpi, flux, coscheduling, volcano
    CustomValidation:       jobset, torch, mpi, jax, xgboost, flux, volcano

Modules that do not exist yet are skipped, so the engine works while plugins are being written.
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from types import ModuleType

from kpt_fn.problems import ERROR, Problem

ENFORCE_ML_POLICY = ("plainml", "torch", "mpi", "jax", "xgboost", "flux")
ENFORCE_POD_GROUP_POLICY = ("coscheduling", "volcano")
POD_NETWORK = ("jobset",)
COMPONENT_BUILDERS = ("jobset", "mpi", "flux", "coscheduling", "volcano")
CUSTOM_VALIDATION = ("jobset", "torch", "mpi", "jax", "xgboost", "flux", "volcano")
ALL_PLUGINS = ("plainml", "torch", "mpi", "jax", "xgboost", "flux", "coscheduling", "volcano", "jobset")

# R5.1: the order objects are emitted in, by kind; anything else goes last, builder order kept.
_KIND_RANK = {"Secret": 0, "ConfigMap": 1, "PodGroup": 2, "JobSet": 3}


class RenderError(Exception):
    """A reconcile-time failure: upstream would return this error and create nothing."""

    def __init__(self, message: str, path: str = "", rule: str = "", subject=None):
        super().__init__(message)
        self.message = message
        self.path = path
        self.rule = rule
        # The object `path` points into when it is not the TrainJob (e.g. the runtime).
        self.subject = subject

    def to_problem(self) -> Problem:
        return Problem(message=self.message, path=self.path, severity=ERROR, rule=self.rule, subject=self.subject)


@lru_cache(maxsize=None)
def plugin(name: str) -> ModuleType | None:
    """The plugin module `name`, or None while it has not been written."""
    modname = f"kpt_fn.plugins.{name}"
    try:
        return importlib.import_module(modname)
    except ModuleNotFoundError as exc:
        if exc.name == modname:
            return None
        raise


# The runtime policy entry without which a plugin's `is_active` is False: (policy, key). Such a plugin
# is not even imported when its entry is absent (a one-TrainJob run needs two or three of them).
# plainml (active when the others are not) and jobset (always active) have none.
_NEEDS = {
    "torch": ("ml", "torch"), "mpi": ("ml", "mpi"), "jax": ("ml", "jax"), "xgboost": ("ml", "xgboost"),
    "flux": ("ml", "flux"), "coscheduling": ("pod_group", "coscheduling"), "volcano": ("pod_group", "volcano"),
}


def _may_be_active(name: str, info) -> bool:
    needs = _NEEDS.get(name)
    if needs is None:
        return True
    policy = info.runtime_policy
    source = policy.ml_policy_source if needs[0] == "ml" else policy.pod_group_policy
    return (source or {}).get(needs[1]) is not None


def _active(names, info):
    for name in names:
        if not _may_be_active(name, info):
            continue
        mod = plugin(name)
        if mod is None:
            continue
        guard = getattr(mod, "is_active", None)
        if guard is None or guard(info):
            yield mod


def run_enforce_ml_policy(info, trainjob, options) -> None:
    for mod in _active(ENFORCE_ML_POLICY, info):
        fn = getattr(mod, "enforce_ml_policy", None)
        if fn is not None:
            fn(info, trainjob, options)


def run_enforce_pod_group_policy(info, trainjob, options) -> None:
    for mod in _active(ENFORCE_POD_GROUP_POLICY, info):
        fn = getattr(mod, "enforce_pod_group_policy", None)
        if fn is not None:
            fn(info, trainjob, options)


def run_pod_network(info, trainjob) -> None:
    for mod in _active(POD_NETWORK, info):
        fn = getattr(mod, "identify_pod_network", None)
        if fn is not None:
            fn(info, trainjob)


def run_component_builders(info, trainjob, options) -> list[dict]:
    builders = list(_active(COMPONENT_BUILDERS, info))
    for mod in builders:
        fn = getattr(mod, "sync_parallel_count", None)
        if fn is not None:
            fn(info)
    objects: list[dict] = []
    for mod in builders:
        fn = getattr(mod, "build", None)
        if fn is not None:
            objects.extend(fn(info, trainjob, options) or ())
    return order_objects(objects)


def run(info, trainjob, options) -> list[dict]:
    """All reconcile phases in order; returns the generated objects in emit order (R5.1)."""
    run_enforce_ml_policy(info, trainjob, options)
    run_enforce_pod_group_policy(info, trainjob, options)
    run_pod_network(info, trainjob)
    return run_component_builders(info, trainjob, options)


def run_custom_validation(info, trainjob, options) -> list[Problem]:
    problems: list[Problem] = []
    for mod in _active(CUSTOM_VALIDATION, info):
        fn = getattr(mod, "validate", None)
        if fn is not None:
            problems.extend(fn(info, trainjob, options) or ())
    return problems


def order_objects(objects: list[dict]) -> list[dict]:
    """Secrets, ConfigMaps, PodGroups, JobSet (R5.1); stable, so builder order breaks ties."""
    return sorted(objects, key=lambda o: _KIND_RANK.get(o.get("kind"), len(_KIND_RANK)))


def rules() -> list[dict]:
    """The engine's own rule catalog entries (registry key, deprecation), then every plugin's."""
    from kpt_fn import engine

    out: list[dict] = list(engine.RULES)
    for name in ALL_PLUGINS:
        mod = plugin(name)
        if mod is not None:
            out.extend(getattr(mod, "RULES", ()))
    return out
