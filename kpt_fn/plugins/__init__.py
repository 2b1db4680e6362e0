"""Runtime framework plugins, one module per upstream plugin (trainer-semantics.md §4).

The protocol every module follows and the fixed order the framework runs them in are documented
in kpt_fn.engine.framework.
"""
