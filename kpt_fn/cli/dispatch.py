"""Which mode runs is decided by argv alone, never by guessing from stdin: the one command table
(COMMANDS), the kustomize legacy plugin form, and the fast path that runs the forms clients use on
every build without click. kpt_fn.cli.commands (the click group) reads the same table.
"""

from __future__ import annotations

import os

from kpt_fn.cli import modes


def _kustomize_plugin(rest: list[str]):
    return (modes.kustomize_plugin_mode, (rest[0],)) if len(rest) == 1 else None


# The one command table: every command of the click group (kpt_fn.cli.commands registers exactly
# these, and fails at import on a name that is not here), with how argv that needs no option parsing
# runs it directly: a function of the remaining arguments giving (mode function, arguments), or None
# when the form is click's (or the command always is).
COMMANDS = {
    "render": lambda rest: (modes.render_mode, (rest,)),
    "validate": lambda rest: (modes.render_mode, (rest, "validate")),
    "rules": None,
    "runtimes": None,
    "kustomize-plugin": _kustomize_plugin,
    "argocd-kueue-patch": None,
    "report": None,
    "diff": None,
    "check-generated": None,
    "install-kustomize-plugin": None,
}


def kustomize_form(args: list[str]) -> bool:
    """kustomize's legacy plugin protocol: the config file as the only argument (a lone argument that
    names a command, or could be an option, is never taken for it)."""
    return len(args) == 1 and args[0] not in COMMANDS and not args[0].startswith("-") and os.path.isfile(args[0])


def _plain_args(args: list[str]) -> bool:
    # An argument that could be an option ("-x", "--", "-") is click's to interpret.
    return not any(a.startswith("-") for a in args)


def fast_path(argv: list[str], env) -> tuple | None:
    """(mode function, arguments) when argv needs no option parsing, else None (use click)."""
    if any(k.startswith("_EXPAND_TRAINJOBS_COMPLETE") for k in env):
        return None  # shell completion is click's business
    args = argv[1:]
    if not args:
        return modes.krm_mode, ()
    if not _plain_args(args):
        return None
    if kustomize_form(args):
        return modes.kustomize_plugin_mode, (args[0],)
    direct = COMMANDS.get(args[0])
    return direct(args[1:]) if direct is not None else None
