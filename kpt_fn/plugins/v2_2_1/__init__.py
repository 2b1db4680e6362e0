"""Trainer v2.2.1 variants of the plugins whose behaviour differs from v2.3.0's (kpt_fn.plugins.VARIANTS).

Each module re-exports the v2.3.0 plugin and replaces only what v2.2.1 does differently, citing the
v2.2.1 source; docs/fidelity.md lists the differences per release.
"""
