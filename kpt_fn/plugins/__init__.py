"""Runtime framework plugins, one module per upstream plugin (pkg/runtime/framework/plugins/registry.go at v2.3.0).

REGISTRY is the one list of plugins (upstream: pkg/runtime/framework/plugins/registry.go). Each
line names a module of this package and the runtime policy entry that switches the plugin on
(None: every runtime). Its order is the order within every phase: which phases a plugin takes part
in follows from the functions its module defines. The protocol, and why the order is fixed, are
documented in kpt_fn.engine.framework; adding a plugin is one module plus one line here.

One registry serves every Trainer release: where a release's plugin behaves differently, the plugin
asks the release's switch (`options.bundle.behaviour`, kpt_fn.upstream.behaviour), and the rules it
declares name their switch (problems.Rule `behaviour`).
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
