"""Command line: which mode runs is decided by argv alone, never by guessing from stdin.

    expand-trainjobs                      KRM function: ResourceList on stdin -> ResourceList on stdout
    expand-trainjobs render [PATH...]     plain manifests from YAML files (Argo CD CMP, scripts)
    expand-trainjobs validate [PATH...]   every check, no output objects
    expand-trainjobs rules                the validation rules that are applied
    expand-trainjobs kustomize-plugin F   kustomize legacy exec plugin (also: a single existing file argument)

The package is the front door: this module (argv -> mode, the command table), kpt_fn.cli.modes (each
mode run to its exit), kpt_fn.cli.commands (the click group), kpt_fn.cli.krm (the KRM function's
ResourceList in and out) and kpt_fn.cli.plain (render/validate/report/diff and the kustomize plugin
over files).

The forms kpt, kustomize and Argo CD run on every build (no arguments, `render`/`validate` with
paths, the kustomize plugin forms) go straight to kpt_fn.cli.modes; anything else (options, --help,
--version, `rules`, usage errors, shell completion) goes through the click group in
kpt_fn.cli.commands. Importing click costs tens of milliseconds of every start-up, so this module
never imports it; the click group imports this module for COMMANDS and kustomize_form.
"""

from __future__ import annotations

import gc
import os
import sys

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
    "kustomize-plugin": _kustomize_plugin,
    "argocd-kueue-patch": None,
    "report": None,
    "diff": None,
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


def __getattr__(name):
    # `kpt_fn.cli.cli` (the click group) stays importable without making every start-up pay for click.
    if name == "cli":
        from kpt_fn.cli.commands import cli

        return cli
    raise AttributeError(name)


def main() -> None:
    # One short run over acyclic data: the cyclic collector would only walk the parsed ResourceList
    # again and again (a quarter of the run time at 2,000 TrainJobs, no memory saved); reference
    # counting still frees everything.
    gc.disable()
    direct = fast_path(sys.argv, os.environ)
    if direct is not None:
        fn, args = direct
        # stderr is held until stdout is complete (kpt_fn.cli.modes.finish): its first line states the outcome.
        if sys.stderr is not None:
            sys.stderr = modes.HeldStderr(sys.stderr)
        try:
            fn(*args)
        finally:
            stray = modes.release_stderr()  # finish() has done this, unless something escaped it
            if stray and sys.stderr is not None:
                sys.stderr.write(stray)
        return
    from kpt_fn.cli.commands import cli

    cli(prog_name="expand-trainjobs")


if __name__ == "__main__":
    main()
