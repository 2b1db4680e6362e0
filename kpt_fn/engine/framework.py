"""The runtime framework: runs the plugins over one Info, phase by phase (upstream pkg/runtime/framework/core/framework.go at v2.3.0).

Registry
--------
The plugins are the modules `kpt_fn.plugins.REGISTRY` names, each with the runtime policy entry that
switches it on ("mlPolicy.torch", "podGroupPolicy.volcano"; None: every runtime). Upstream builds
each phase's list by asking which interface a plugin implements (core/framework.go); here a plugin
takes part in a phase when its module defines that phase's function, in registry order. A plugin
whose entry is absent is not even imported (a one-TrainJob run needs two or three of them). A
registry line naming a module that does not exist is an error at the first render, never a plugin
silently switched off. The framework finds the registry by the package name PLUGIN_PACKAGE, so the
engine imports no plugin: plugins import the engine.

Plugin protocol
---------------
Every attribute below is optional; the framework calls only what a module defines:

    NAME: str
        Upstream's plugin name ("Torch", "JobSet", ...), used in messages and the rule catalog.
    REPLACES: tuple[str, ...]
        Registry names of plugins that do not run when this one does (Torch, MPI and JAX replace
        PlainML: they set the node count and the trainer env themselves).
    enforce_ml_policy(info, trainjob, options) -> None                    EnforceMLPolicy
    enforce_pod_group_policy(info, trainjob, options) -> None             EnforcePodGroupPolicy
    identify_pod_network(info, trainjob, options) -> None                 PodNetwork
    sync_parallel_count(info) -> None                                     ComponentBuilder, first pass
        Mutate `info` (PodSets, Scheduler, obj_apply) and, where upstream does, the TrainJob copy
        (torchtune and Flux rewrite spec.trainer.command/args that the JobSet builder reads later).
    build(info, trainjob, options) -> list[dict]                          ComponentBuilder
        Return the generated objects as plain dicts (apiVersion, kind, metadata.name/namespace set,
        no ownerReferences). The framework orders them (see `order_objects`), so a builder need not.
    validate(info, trainjob, options) -> list[Problem]                    CustomValidation
        Upstream's CustomValidation: runs at admission on an Info built by runtime_info only (no
        enforce/network phases), with `info.unpatched_spec` set for target checks (see
        plugins/jobset.py: targets are checked against the runtime as written).
    check_runtime_patches(unpatched_spec, trainjob) -> list[Problem]
        The admission checks that need only the runtime's JobSet spec before patching. The engine
        runs them alone when the Info cannot be built (upstream's webhook ignores that error and
        validates what it has).
    TRAINING_NODES(runtime) -> predicate on workload.PodSet | None
        Which pod sets of the rendered JobSet are training nodes, when not (only) the job labelled
        trainer (MPI: the `node` job, and the launcher with runLauncherAsNode); read by
        kpt_fn.workload for the report's and the policy's node counts.
    RULES: list[problems.Rule]
        The catalogue records of the checks the plugin implements, declared beside them;
        `rules()` aggregates them.

What the framework hands to plugins:

* `info` is a `kpt_fn.engine.info.Info` built fresh for this render: `obj_apply` is a private copy
  of the (defaulted, patched, round-tripped) JobSet spec, `runtime_policy.ml_policy_source` a
  private copy of the runtime's mlPolicy (without numNodes), so plugins may mutate both.
* `trainjob` is a private, defaulted copy of the TrainJob dict (never the caller's object).
* `options` is the `EngineOptions` of the call (frozen).

Plugins abort a render like upstream's returned errors by raising `RenderError(message, path)`;
the engine turns it into an error Problem and emits nothing. Non-fatal findings during a render go
to `info.problems` (warnings/infos).

Fixed plugin order: upstream iterates a Go map, so its order is random per process; the registry's
order reproduces upstream in every order-independent case and is the documented choice for the
others (upstream's framework.go runs them in the order of pkg/runtime/framework/plugins/registry.go's
map, which Go iterates at random). With today's registry the phases are:

    EnforceMLPolicy:        plainml, torch, mpi, jax, xgboost, flux
    EnforcePodGroupPolicy:  coscheduling, volcano
    PodNetwork:             jobset
    ComponentBuilder:       sync_parallel_count of every builder, then build of every builder:
                            jobset, mpi, flux, coscheduling, volcano
    CustomValidation:       jobset, torch, mpi, xgboost, flux, volcano
"""

from __future__ import annotations

import sys
from functools import cache

from kpt_fn.problems import ERROR, Problem

PLUGIN_PACKAGE = "kpt_fn.plugins"

# The module functions that make a plugin take part in a phase (upstream's plugin interfaces).
ENFORCE_ML_POLICY = "enforce_ml_policy"
ENFORCE_POD_GROUP_POLICY = "enforce_pod_group_policy"
POD_NETWORK = "identify_pod_network"
SYNC_PARALLEL_COUNT = "sync_parallel_count"
BUILD = "build"
CUSTOM_VALIDATION = "validate"
RUNTIME_PATCH_CHECKS = "check_runtime_patches"

# The runtime policies a registry switch may name, as "<policy>.<entry>".
_POLICIES = ("mlPolicy", "podGroupPolicy")

# The order objects are emitted in, by kind (our own: upstream's builder order is random per process,
# pkg/runtime/framework/core/framework.go New); anything else goes last, builder order kept.
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


class RegistryError(Exception):
    """The plugin registry is wrong: a programming error, not a problem of the user's input."""


class Plugin:
    """One registry line: the module's name, the policy entry that switches it on, the module."""

    __slots__ = ("name", "policy", "entry", "_qualname", "_module")

    def __init__(self, name: str, switch: str | None, package: str = PLUGIN_PACKAGE):
        self.name = name
        self.policy, self.entry = _parse_switch(name, switch)
        self._qualname = f"{package}.{name}"
        if not _module_exists(self._qualname):
            raise RegistryError(f"plugin registry of {package} names {name!r}, but there is no module {self._qualname}")
        self._module = None

    def __repr__(self):
        switch = None if self.policy is None else f"{self.policy}.{self.entry}"
        return f"Plugin({self.name!r}, {switch!r})"

    @property
    def module(self):
        if self._module is None:
            self._module = _imported(self._qualname)
        return self._module

    def switched_on(self, ml_policy: dict | None, pod_group_policy: dict | None) -> bool:
        if self.policy is None:
            return True
        source = ml_policy if self.policy == "mlPolicy" else pod_group_policy
        return (source or {}).get(self.entry) is not None


def _imported(qualname: str):
    """The module `qualname`, imported (the import statement's own function: `importlib` would
    bring `warnings` into every start-up)."""
    __import__(qualname)
    return sys.modules[qualname]


def _module_exists(qualname: str) -> bool:
    """Whether the module can be imported, without importing it: the import system's finders asked
    for it in its package's path, as an import would (importlib.util.find_spec would cost every
    start-up its contextlib import)."""
    if qualname in sys.modules:
        return True
    parent, _, _ = qualname.rpartition(".")
    path = getattr(_imported(parent), "__path__", None)
    return path is not None and any(
        finder.find_spec(qualname, path) is not None for finder in sys.meta_path if hasattr(finder, "find_spec"))


def _parse_switch(name: str, switch: str | None) -> tuple[str | None, str | None]:
    if switch is None:
        return None, None
    policy, _, entry = switch.partition(".")
    if policy not in _POLICIES or not entry:
        raise RegistryError(f"plugin {name!r}: switch {switch!r} must be None or "
                            f"'<{'|'.join(_POLICIES)}>.<entry>'")
    return policy, entry


class Framework:
    """The plugins of one registry and the phases they make up (upstream's core.Framework)."""

    def __init__(self, registry, package: str = PLUGIN_PACKAGE):
        # A line is (name, switch).
        self.plugins = tuple(Plugin(name, switch, package) for name, switch in registry)
        names = [p.name for p in self.plugins]
        if len(set(names)) != len(names):
            raise RegistryError(f"plugin registry of {package} names a plugin twice: {names}")

    def _enabled(self, ml_policy, pod_group_policy) -> list:
        """The modules of the plugins this runtime switches on, in registry order. The registry's
        switch is the "am I configured?" guard upstream repeats at the top of every plugin method: a
        plugin restates none of it."""
        mods = [(p.name, p.module) for p in self.plugins if p.switched_on(ml_policy, pod_group_policy)]
        replaced = {r for _, mod in mods for r in getattr(mod, "REPLACES", ())}
        return [mod for name, mod in mods if name not in replaced]

    def _active(self, info) -> list:
        policy = info.runtime_policy
        return self._enabled(policy.ml_policy_source, policy.pod_group_policy)

    def run(self, info, trainjob, options) -> list[dict]:
        """All reconcile phases in order; returns the generated objects in emit order (order_objects)."""
        mods = self._active(info)
        for fn in _phase(mods, ENFORCE_ML_POLICY):
            fn(info, trainjob, options)
        for fn in _phase(mods, ENFORCE_POD_GROUP_POLICY):
            fn(info, trainjob, options)
        for fn in _phase(mods, POD_NETWORK):
            fn(info, trainjob, options)
        for fn in _phase(mods, SYNC_PARALLEL_COUNT):
            fn(info)
        objects: list[dict] = []
        for fn in _phase(mods, BUILD):
            objects.extend(fn(info, trainjob, options) or ())
        return order_objects(objects)

    def run_custom_validation(self, info, trainjob, options) -> list[Problem]:
        problems: list[Problem] = []
        for fn in _phase(self._active(info), CUSTOM_VALIDATION):
            problems.extend(fn(info, trainjob, options) or ())
        return problems

    def enabled(self, runtime_spec: dict) -> list:
        """The modules of the plugins a runtime's spec switches on, in registry order (REPLACES applied)."""
        return self._enabled(runtime_spec.get("mlPolicy"), runtime_spec.get("podGroupPolicy"))

    def check_runtime_patches(self, runtime: dict, trainjob: dict) -> list[Problem]:
        """The checks of `check_runtime_patches` for the defaulted `runtime` (when no Info exists)."""
        spec = runtime.get("spec") or {}
        unpatched = ((spec.get("template") or {}).get("spec")) or {}
        problems: list[Problem] = []
        for fn in _phase(self.enabled(spec), RUNTIME_PATCH_CHECKS):
            problems.extend(fn(unpatched, trainjob) or ())
        return problems

    def rules(self) -> list:
        """Every plugin's rule catalog entries, in registry order (imports every plugin)."""
        return [rule for p in self.plugins for rule in getattr(p.module, "RULES", ())]


def _phase(mods, function: str) -> list:
    """The phase's functions of `mods`, in order: a plugin is in a phase when it defines the function."""
    return [fn for fn in (getattr(mod, function, None) for mod in mods) if fn is not None]


@cache
def default() -> Framework:
    """The framework of kpt_fn.plugins.REGISTRY (one for every release: plugins ask the release's
    switches), built at the first render, then kept."""
    return Framework(_imported(PLUGIN_PACKAGE).REGISTRY)


def run(info, trainjob, options) -> list[dict]:
    return default().run(info, trainjob, options)


def run_custom_validation(info, trainjob, options) -> list[Problem]:
    return default().run_custom_validation(info, trainjob, options)


def check_runtime_patches(runtime: dict, trainjob: dict) -> list[Problem]:
    return default().check_runtime_patches(runtime, trainjob)


def order_objects(objects: list[dict]) -> list[dict]:
    """Secrets, ConfigMaps, PodGroups, JobSet; stable, so builder order breaks ties."""
    return sorted(objects, key=lambda o: _KIND_RANK.get(o.get("kind"), len(_KIND_RANK)))


def rules() -> list:
    """Every plugin's problems.Rule records, in registry order (kpt_fn.rules puts the engine's first
    and keeps those of the release's switches)."""
    return default().rules()
