"""Command line: which mode runs is decided by argv alone, never by guessing from stdin.

    expand-trainjobs                      KRM function: ResourceList on stdin -> ResourceList on stdout
    expand-trainjobs render [PATH...]     plain manifests from YAML files (Argo CD CMP, scripts)
    expand-trainjobs validate [PATH...]   every check, no output objects
    expand-trainjobs rules                the validation rules that are applied
    expand-trainjobs kustomize-plugin F   kustomize legacy exec plugin (also: a single existing file argument)
"""

from __future__ import annotations

import gc
import os
import sys

DEBUG_ENV = "EXPAND_TRAINJOBS_DEBUG"


def _debug() -> bool:
    return os.environ.get(DEBUG_ENV, "") not in ("", "0", "false")


def _traceback_lines() -> list[str]:
    import traceback  # only on an internal error: it and textwrap cost ~2 ms of every start-up

    return traceback.format_exc().splitlines()


def _write(stream, text: str, errors: str, flush: bool = True) -> None:
    # Bytes, not text: KRM output is UTF-8 whatever the locale says, and a stray character must not
    # turn into an encoding traceback.
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        buffer.write(text.encode("utf-8", errors))
        if flush:
            buffer.flush()
    else:  # a replaced stream (tests): text only
        stream.write(text)
        if flush:
            stream.flush()


def _write_pieces(stream, first: str, rest, stderr_lines: list[str], code: int) -> tuple[list[str], int]:
    """Write each piece as it is made (krm.process_pieces): the whole text is never held.

    Once something is written, stdout cannot be taken back: a failure to make a later piece is said
    on stderr and the exit code is 1, so kpt, kustomize and Argo CD keep the package as it was.
    """
    _write(stream, first, "strict", flush=False)
    while True:
        try:
            piece = next(rest)
        except StopIteration:
            break
        except Exception as e:
            stream.flush()
            return [*stderr_lines, "expand-trainjobs: FAILED: internal error while writing the output: "
                    f"{type(e).__name__}: {e}"], 1
        _write(stream, piece, "strict", flush=False)
    _write(stream, "", "strict")
    return stderr_lines, code


def _finish(stdout, stderr_lines: list[str], code: int) -> None:
    """Write stdout (a text, or an iterable of its pieces) and the stderr lines, and exit."""
    rest = None
    if not isinstance(stdout, str) and sys.stdout is not None:
        # Made before anything is written: if this fails, the caller's fallback still has stdout.
        rest = iter(stdout)
        stdout = next(rest, "")
    try:
        if rest is not None:
            stderr_lines, code = _write_pieces(sys.stdout, stdout, rest, stderr_lines, code)
        elif stdout and sys.stdout is not None:
            _write(sys.stdout, stdout, "strict")
        if stderr_lines and sys.stderr is not None:
            _write(sys.stderr, "".join(line + "\n" for line in stderr_lines), "backslashreplace")
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): nothing more can be said; say nothing on exit either.
        _silence_stdout()
        code = code or 1
    except (OSError, ValueError):  # stdout closed or full: there is no one left to tell
        code = code or 1
    sys.exit(code)


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, AttributeError, ValueError):
        pass


def _read_stdin(limit: int | None = None) -> bytes:
    """At most `limit` + 1 bytes: enough to know the input is too big, without holding all of it."""
    if limit is None:
        from kpt_fn.yamlio import DEFAULT_LIMITS

        limit = DEFAULT_LIMITS.max_bytes
    stream = getattr(sys.stdin, "buffer", None) if sys.stdin is not None else None
    if stream is None:
        return b""
    chunks, size = [], 0
    while size <= limit:
        chunk = stream.read(min(1 << 20, limit + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _stdin_is_terminal() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (ValueError, OSError):
        return False


def krm_mode() -> None:
    """ResourceList on stdin -> ResourceList on stdout."""
    if _stdin_is_terminal():
        # Waiting for a ResourceList nobody will type looks like a hang.
        _finish("", ["expand-trainjobs: FAILED: expected a ResourceList on stdin (see --help for the other modes)"], 1)
    # What the fallback needs to give the items back: stdin, then (once process_pieces has parsed it,
    # and the bytes can go) the parsed items. Held here alone, so that no frame keeps the bytes alive.
    fallback: dict = {"data": b""}
    try:
        from kpt_fn import krm

        try:
            limits = krm.limits_from_env(os.environ)
        except krm.InputError:
            limits = krm.DEFAULT_LIMITS  # process() reports the bad variable
        fallback["data"] = _read_stdin(limits.max_bytes)
        _finish(*krm.process_pieces(fallback["data"], base_dir=os.getcwd(), env=os.environ, fallback=fallback))
    except SystemExit:
        raise
    except BaseException as e:  # never lose the user's items to a bug of ours
        _internal_error_krm(fallback, e)


def _internal_error_krm(fallback: dict, e: BaseException) -> None:
    """The items back (as parsed, or parsed again from stdin's bytes) with one error result."""
    message = f"internal error: {type(e).__name__}: {e}"
    lines = [f"expand-trainjobs: FAILED: {message}"]
    if _debug():
        lines += _traceback_lines()
    else:
        lines.append(f"  (set {DEBUG_ENV}=1 to see the traceback)")
    try:
        from kpt_fn import krm
        from kpt_fn.yamlio import dump

        try:
            if "items" in fallback:
                out = krm.error_resource_list(message, fallback["items"], fallback["apiVersion"])
            else:
                rl = krm.parse_resource_list(fallback.get("data", b""), krm.limits_from_env(os.environ))
                out = krm.error_resource_list(message, rl.get("items"), rl.get("apiVersion"))
        except Exception:
            out = krm.error_resource_list(message)
        text = dump(out)
    except BaseException:  # even the fallback failed (e.g. the package cannot be imported)
        import json

        quoted = json.dumps(message)  # a JSON string is a YAML double-quoted scalar
        text = f"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nresults:\n- message: {quoted}\n  severity: error\n"
    _finish(text, lines, 1)


def _guarded(fn, *args) -> None:
    try:
        _finish(*fn(*args))
    except SystemExit:
        raise
    except BaseException as e:
        lines = [f"expand-trainjobs: FAILED: internal error: {type(e).__name__}: {e}"]
        if _debug():
            lines += _traceback_lines()
        else:
            lines.append(f"  (set {DEBUG_ENV}=1 to see the traceback)")
        _finish("", lines, 1)


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
    # No arguments is the KRM mode: run it directly, without importing click (tens of milliseconds on
    # every kpt/kustomize build). Shell completion is click's business, so it still goes through click.
    if len(sys.argv) <= 1 and not any(k.startswith("_EXPAND_TRAINJOBS_COMPLETE") for k in os.environ):
        krm_mode()
        return
    from kpt_fn.commands import cli

    cli(prog_name="expand-trainjobs")


if __name__ == "__main__":
    main()
