"""Runtime framework plugins, one module per upstream plugin (pkg/runtime/framework/plugins/registry.go at v2.3.0).

REGISTRY is the one list of plugins (upstream: pkg/runtime/framework/plugins/registry.go). Each
line names a module of this package and the runtime policy entry that switches the plugin on
(None: every runtime). Its order is the order within every phase: which phases a plugin takes part
in follows from the functions its module defines. The protocol, and why the order is fixed, are
documented in kpt_fn.engine.framework; adding a plugin is one module plus one line here.

REGISTRY is the registry of the newest Trainer release. An older release's registry is the same list
with the plugins whose behaviour differs in that release swapped for a variant module (VARIANTS:
registry name -> module below this package, e.g. `v2_2_1.mpi`); a variant keeps the registry name,
so REPLACES and the order stay as they are. `registry(release)` is what the framework runs.
"""

REGISTRY = (
    # module         switched on by
    ("jobset",       None),
    ("plainml",      None),
    ("torch",        "mlPolicy.torch"),
    ("mpi",          "mlPolicy.mpi"),
    ("jax",          "mlPolicy.jax"),
    ("xgboost",      "mlPolicy.xgboost"),
    ("flux",         "mlPolicy.flux"),
    ("coscheduling", "podGroupPolicy.coscheduling"),
    ("volcano",      "podGroupPolicy.volcano"),
)

# Per older release: registry name -> the module that replaces it (docs/architecture.md, "Adding a
# Trainer release"). Filled as the releases' differences are ported; each variant cites upstream.
VARIANTS: dict = {
    "v2.2.1": {"jobset": "v2_2_1.jobset", "torch": "v2_2_1.torch", "mpi": "v2_2_1.mpi", "flux": "v2_2_1.flux"},
}


def registry(release: str) -> tuple:
    """(name, switch, module) lines of a release's registry (module: relative to this package)."""
    swaps = VARIANTS.get(release, {})
    return tuple((name, switch, swaps.get(name, name)) for name, switch in REGISTRY)
