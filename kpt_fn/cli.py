"""Command line: which mode runs is decided by argv alone, never by guessing from stdin.

    expand-trainjobs                      KRM function: ResourceList on stdin -> ResourceList on stdout
    expand-trainjobs render [PATH...]     plain manifests from YAML files (Argo CD CMP, scripts)
    expand-trainjobs validate [PATH...]   every check, no output objects
    expand-trainjobs rules                the validation rules that are applied
    expand-trainjobs kustomize-plugin F   kustomize legacy exec plugin (also: a single existing file argument)

The forms kpt, kustomize and Argo CD run on every build (no arguments, `render`/`validate` with
paths, the kustomize plugin forms) go straight to kpt_fn.modes; anything else (options, --help,
--version, `rules`, usage errors, shell completion) goes through the click group in
kpt_fn.commands. Importing click costs tens of milliseconds of every start-up.
"""

from __future__ import annotations

import gc
import os
import sys

from kpt_fn import modes


# The click group's commands (tests/test_hostile_env.py keeps the two in step): a lone argument that
# names one is never taken for the kustomize plugin form.
COMMANDS = ("render", "validate", "rules", "kustomize-plugin", "argocd-kueue-patch", "report", "diff")


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
    command, rest = args[0], args[1:]
    if command == "render":
        return modes.render_mode, (rest,)
    if command == "validate":
        return modes.render_mode, (rest, "validate")
    if command == "kustomize-plugin" and len(rest) == 1:
        return modes.kustomize_plugin_mode, (rest[0],)
    if len(args) == 1 and command not in COMMANDS and os.path.isfile(command):
        # kustomize's legacy plugin protocol: the config file as the only argument.
        return modes.kustomize_plugin_mode, (command,)
    return None


def __getattr__(name):
    # `kpt_fn.cli.cli` (the click group) stays importable without making every start-up pay for click.
    if name == "cli":
        from kpt_fn.commands import cli

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
        # stderr is held until stdout is complete (modes.finish): its first line states the outcome.
        if sys.stderr is not None:
            sys.stderr = modes.HeldStderr(sys.stderr)
        try:
            fn(*args)
        finally:
            stray = modes.release_stderr()  # finish() has done this, unless something escaped it
            if stray and sys.stderr is not None:
                sys.stderr.write(stray)
        return
    from kpt_fn.commands import cli

    cli(prog_name="expand-trainjobs")


if __name__ == "__main__":
    main()
