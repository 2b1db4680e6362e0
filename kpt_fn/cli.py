"""Command line: which mode runs is decided by argv alone, never by guessing from stdin.

    expand-trainjobs                      KRM function: ResourceList on stdin -> ResourceList on stdout
    expand-trainjobs render [PATH...]     plain manifests from YAML files (Argo CD CMP, scripts)
    expand-trainjobs validate [PATH...]   every check, no output objects
    expand-trainjobs rules                the validation rules that are applied
    expand-trainjobs kustomize-plugin F   kustomize legacy exec plugin (also: a single existing file argument)
"""

from __future__ import annotations

import os
import sys
import traceback

DEBUG_ENV = "EXPAND_TRAINJOBS_DEBUG"


def _debug() -> bool:
    return os.environ.get(DEBUG_ENV, "") not in ("", "0", "false")


def _finish(stdout: str, stderr_lines: list[str], code: int) -> None:
    if stdout:
        sys.stdout.write(stdout)
        sys.stdout.flush()
    for line in stderr_lines:
        sys.stderr.write(line + "\n")
    sys.exit(code)


def _read_stdin() -> bytes:
    stream = sys.stdin.buffer if sys.stdin is not None else None
    return stream.read() if stream is not None else b""


def krm_mode() -> None:
    """ResourceList on stdin -> ResourceList on stdout."""
    from kpt_fn import krm

    data = _read_stdin()
    try:
        _finish(*krm.process(data, base_dir=os.getcwd()))
    except SystemExit:
        raise
    except BaseException as e:  # never lose the user's items to a bug of ours
        _internal_error_krm(data, e)


def _internal_error_krm(data: bytes, e: BaseException) -> None:
    from kpt_fn import krm
    from kpt_fn.yamlio import dump

    message = f"internal error: {type(e).__name__}: {e}"
    lines = [f"expand-trainjobs: FAILED: {message}"]
    if _debug():
        lines += traceback.format_exc().splitlines()
    try:
        rl = krm.parse_resource_list(data)
        out = krm.error_resource_list(message, rl.get("items"), rl.get("apiVersion"))
    except Exception:
        out = krm.error_resource_list(message)
    _finish(dump(out), lines, 1)


def _guarded(fn, *args) -> None:
    try:
        _finish(*fn(*args))
    except SystemExit:
        raise
    except BaseException as e:
        lines = [f"expand-trainjobs: FAILED: internal error: {type(e).__name__}: {e}"]
        if _debug():
            lines += traceback.format_exc().splitlines()
        _finish("", lines, 1)


def __getattr__(name):
    # `kpt_fn.cli.cli` (the click group) stays importable without making every start-up pay for click.
    if name == "cli":
        from kpt_fn.commands import cli

        return cli
    raise AttributeError(name)


def main() -> None:
    # No arguments is the KRM mode: run it directly, without importing click (tens of milliseconds on
    # every kpt/kustomize build). Shell completion is click's business, so it still goes through click.
    if len(sys.argv) <= 1 and not any(k.startswith("_EXPAND_TRAINJOBS_COMPLETE") for k in os.environ):
        krm_mode()
        return
    from kpt_fn.commands import cli

    cli(prog_name="expand-trainjobs")


if __name__ == "__main__":
    main()
