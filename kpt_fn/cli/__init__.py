"""Command line: which mode runs is decided by argv alone, never by guessing from stdin.

    expand-trainjobs                      KRM function: ResourceList on stdin -> ResourceList on stdout
    expand-trainjobs render [PATH...]     plain manifests from YAML files (Argo CD CMP, scripts)
    expand-trainjobs validate [PATH...]   every check, no output objects
    expand-trainjobs rules                the validation rules that are applied
    expand-trainjobs kustomize-plugin F   kustomize legacy exec plugin (also: a single existing file argument)

The package is the front door: this module (main), kpt_fn.cli.dispatch (argv -> mode, the command
table), kpt_fn.cli.modes (each mode run to its exit), kpt_fn.cli.commands (the click group), kpt_fn.cli.krm (the KRM function's
ResourceList in and out) and kpt_fn.cli.plain (render/validate/report/diff and the kustomize plugin
over files).

The forms kpt, kustomize and Argo CD run on every build (no arguments, `render`/`validate` with
paths, the kustomize plugin forms) go straight to kpt_fn.cli.modes; anything else (options, --help,
--version, `rules`, usage errors, shell completion) goes through the click group in
kpt_fn.cli.commands. Importing click costs tens of milliseconds of every start-up, so only main's
last resort imports it; the click group reads dispatch's table, never this module.
"""

from __future__ import annotations

import gc
import os
import sys

from kpt_fn.cli import modes
from kpt_fn.cli.dispatch import COMMANDS, fast_path, kustomize_form  # noqa: F401 (the front door's names)


# The reader admits data as deep as maxDepth's maximum (config.LIMIT_MAXIMA, 1000 levels), and every
# walk of a run (whole numbers, validation, blame and lines, comparison, the writers) recurses once or a
# few times per level: Python's default of 1000 frames ends such a run in a RecursionError (an internal
# error). The limit covers FRAMES_PER_LEVEL frames for each of those levels above what the run needs
# itself; tests/behaviour/test_deep_nesting.py runs every route at the maximum depth. The frames of a
# Python call do not use the C stack (3.11), and C recursion over the data (==, repr) is a level or two
# per level of the data: the C stack stays far from its end.
MAX_DATA_DEPTH = 1000
FRAMES_PER_LEVEL = 4
RECURSION_LIMIT = 1000 + MAX_DATA_DEPTH * FRAMES_PER_LEVEL


def main() -> None:
    # One short run over acyclic data: the cyclic collector would only walk the parsed ResourceList
    # again and again (a quarter of the run time at 2,000 TrainJobs, no memory saved); reference
    # counting still frees everything.
    gc.disable()
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, RECURSION_LIMIT))
    try:
        _main()
    finally:
        sys.setrecursionlimit(old_limit)  # in-process callers (tests) get theirs back


def _main() -> None:
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


def run() -> None:
    """The console script (and `python -m kpt_fn`): main(), then the exit without the interpreter's
    teardown. Once every byte is written and flushed there is nothing left to do, and tearing the
    interpreter down frees every module and object one at a time (about 3.5 ms of a one-TrainJob run,
    more after a large one). In-process callers (tests) call main(), which exits as usual."""
    try:
        main()
        code = 0
    except SystemExit as done:
        code = done.code
    if code is None:
        code = 0
    elif not isinstance(code, int):
        # sys.exit("message"): what the interpreter would print, and its status.
        if sys.stderr is not None:
            print(code, file=sys.stderr)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except Exception:  # a closed or broken pipe: finish() has said so, the status stays
            pass
    os._exit(code)


if __name__ == "__main__":
    main()
