"""The modes of `expand-trainjobs`, each run to its exit: KRM function, render/validate, kustomize
legacy plugin, rules, report, diff, the Argo CD patch. kpt_fn.cli picks one from argv (without click
for the common forms) and kpt_fn.cli.commands exposes them as click commands.

Every mode ends in finish(): stdout is written in full first, then stderr, whose first line states
the final outcome. A failure to write stdout (closed, full, a reader that went away) makes the run a
failure and says so on that first line: kpt shows only four lines of stderr, and a client that sees
exit 0 keeps what it got.

Top-level imports are the standard library, kpt_fn.stdio and kpt_fn.trainer_names (leaves) only: the
internal-error fallback must work when the rest of the package cannot be imported.
"""

from __future__ import annotations

import io
import os
import sys

from kpt_fn import stdio
from kpt_fn.trainer_names import DEBUG_ENV, debugging
from kpt_fn.trainer_names import OUTPUT_PREFIX as PREFIX



def _debug() -> bool:
    return debugging(os.environ)


def _traceback_lines() -> list[str]:
    import traceback  # only on an internal error: it and textwrap cost ~2 ms of every start-up

    return traceback.format_exc().splitlines()


def _failed_first(failure: str, lines: list[str]) -> list[str]:
    """`failure` as the first line; the run's own summary, which may say "ok", demoted under it."""
    head = _summary(False, failure)
    if not lines:
        return [head]
    first, rest = lines[0], lines[1:]
    if hasattr(first, "ok"):  # a run's own summary (results.Summary), which may say "ok": demoted
        first = f"  (the run itself{'' if first.ok else ' failed'}: {first.detail})"
    return [head, first, *rest]


def _summary(ok: bool, detail: str) -> str:
    """The first line of stderr, a results.Summary (the text alone when the package is broken)."""
    try:
        from kpt_fn.results import Summary
    except Exception:
        return f"{PREFIX}{'ok' if ok else 'FAILED'}: {detail}"
    return Summary(ok, detail)


class HeldStderr(io.StringIO):
    """Stands in for sys.stderr during a run (kpt_fn.cli.main): whatever a library prints meanwhile
    (a warning, logging's last-resort handler) is written after the summary line, not before it."""

    def __init__(self, real):
        super().__init__()
        self.real = real


def release_stderr() -> str:
    """Put the real stderr back; what was printed to the stand-in meanwhile."""
    held = sys.stderr
    if isinstance(held, HeldStderr):
        sys.stderr = held.real
        return held.getvalue()
    return ""


def _printable(line: str) -> str:
    """The line with control characters escaped (kpt_fn.results does it for results; this catches
    the lines made elsewhere, e.g. an internal error quoting input), so no line can forge another."""
    try:
        from kpt_fn.results import escape
    except Exception:  # the package itself is broken: the line as it is
        return line
    return escape(line)


def finish(stdout, stderr_lines: list[str], code: int, failed_code: int = 1, out: stdio.Output | None = None) -> None:
    """Write stdout (a text, or an iterable of its pieces, each written before the next is made: the
    whole text is never held), then the stderr lines, and exit with `code` (at least `failed_code` if
    stdout failed). `out`: stdout's Output, when the caller has written pieces to it already."""
    rest = None
    if not isinstance(stdout, str):
        # The first piece is made before anything is written: if that fails, the caller's fallback
        # still has stdout to itself.
        rest = iter(stdout)
        stdout = next(rest, "")
    if out is None:
        out = stdio.Output(sys.stdout)
    failure, broken_pipe = None, False
    try:
        out.write(stdout)
        while rest is not None:
            try:
                piece = next(rest)
            except StopIteration:
                break
            except Exception as e:
                # Written output cannot be taken back: the run fails, and says why first.
                failure = f"internal error while writing the output: {type(e).__name__}: {e}"
                break
            out.write(piece)
        out.flush()
    except stdio.WriteError as e:
        failure = f"could not write the output to stdout ({e.reason}) after {e.written} bytes: the output is incomplete"
        broken_pipe = e.broken_pipe
    except Exception as e:  # e.g. text that cannot be encoded
        if out.written == 0:
            raise  # nothing reached stdout: the caller's fallback can still write a whole answer
        failure = f"internal error while writing the output: {type(e).__name__}: {e}"
    if failure is not None:
        stderr_lines = _failed_first(failure, stderr_lines)
        code = max(code, failed_code)
    stray = release_stderr()
    if stderr_lines or stray:
        err = stdio.Output(sys.stderr, "backslashreplace")
        try:
            err.write("".join(_printable(line) + "\n" for line in stderr_lines) + stray)
            err.flush()
        except stdio.WriteError:
            pass  # stderr is gone too: the exit code is all that is left
    if broken_pipe:
        stdio.silence(sys.stdout)
    sys.exit(code)


def read_stdin(limit: int | None = None) -> bytes:
    """At most `limit` + 1 bytes of stdin: enough to know the input is too big, without holding all."""
    if limit is None:
        from kpt_fn.yamlio import DEFAULT_LIMITS

        limit = DEFAULT_LIMITS.max_bytes
    if sys.stdin is None:  # closed: `cmd <&-`
        return b""
    try:
        fd = sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):
        fd = None
    if fd is not None:
        return stdio.read_all(fd, limit)
    stream = getattr(sys.stdin, "buffer", None)  # a replaced stdin (tests)
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


def _stdout_is_terminal() -> bool:
    try:
        return sys.stdout is not None and sys.stdout.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def diff_format(fmt: str | None) -> str:
    """`diff`'s format when `--format` is not given: the unified text for a person at a terminal, the
    Markdown comment anywhere else (a pipe, a file, CI: docs/review.md says why)."""
    return fmt or ("text" if _stdout_is_terminal() else "markdown")


def colour_wanted(choice: str, env: dict) -> bool:
    """`--color`: always, never, or auto as kubectl decides (k8s.io/cli-runtime v0.36.2
    pkg/printers/terminal.go :50-71, AllowsColorOutput): stdout is a terminal, TERM is not `dumb` and
    NO_COLOR is not set (no-color.org; kubectl asks only whether it is set)."""
    if choice != "auto":
        return choice == "always"
    return _stdout_is_terminal() and env.get("TERM") != "dumb" and "NO_COLOR" not in env


def krm_mode() -> None:
    """ResourceList on stdin -> ResourceList on stdout."""
    if _stdin_is_terminal():
        # Waiting for a ResourceList nobody will type looks like a hang.
        finish("", [_summary(False, "expected a ResourceList on stdin (see --help for the other modes)")], 1)
    # What the fallback needs to give the items back: stdin, then (once process_pieces has parsed it,
    # and the bytes can go) the parsed items. Held here alone, so that no frame keeps the bytes alive.
    fallback: dict = {"data": b""}
    # The items are written while the function still renders (krm.process_pieces' `write`).
    out = stdio.Output(sys.stdout)
    try:
        from kpt_fn.cli import krm

        try:
            limits = krm.limits_from_env(os.environ)
        except krm.InputError:
            limits = krm.DEFAULT_LIMITS  # process() reports the bad variable
        fallback["data"] = read_stdin(limits.max_bytes)
        finish(*krm.process_pieces(fallback["data"], base_dir=working_directory(), env=os.environ, fallback=fallback,
                                   write=out.write), out=out)
    except SystemExit:
        raise
    except CannotRun as e:  # e.g. a deleted working directory: the items back, with what to do
        _failed_krm(fallback, str(e), [_summary(False, str(e))])
    except BaseException as e:  # never lose the user's items to a bug of ours
        if out.written or isinstance(e, stdio.WriteError):
            _failed_midway(out, e, fallback.get("complete"))
        out.pending.clear()  # nothing of it reached stdout: the fallback has stdout to itself
        message = f"internal error: {type(e).__name__}: {e}"
        lines = [_summary(False, message)]
        lines += _traceback_lines() if _debug() else [f"  (set {DEBUG_ENV}=1 to see the traceback)"]
        _failed_krm(fallback, message, lines)


def _failed_midway(out: stdio.Output, e: BaseException, complete=None) -> None:
    """A failure once part of the output is on stdout: it cannot be taken back. While the function
    still renders, `complete` (krm.process_pieces' fallback) ends that ResourceList with the input items
    not written yet and an error result, so the items still all come back; else the run fails and
    says first that the output is incomplete."""
    lines = _traceback_lines() if _debug() else []
    if isinstance(e, stdio.WriteError):
        failure = f"could not write the output to stdout ({e.reason}) after {e.written} bytes: the output is incomplete"
        if e.broken_pipe:
            stdio.silence(sys.stdout)
    else:
        message = f"internal error: {type(e).__name__}: {e}"
        if complete is not None:
            try:
                finish(complete(message), [_summary(False, f"{message}; the output holds every input item "
                                                           "and this error, and no more of the generated objects"),
                                           *lines], 1, out=out)
            except SystemExit:
                raise
            except BaseException:  # the end could not be written either
                pass
        failure = (f"internal error after {out.written} bytes of the output were written: {type(e).__name__}: {e}; "
                   "the output is incomplete")
    out.pending.clear()
    finish("", [_summary(False, failure), *lines], 1, out=out)


def _failed_krm(fallback: dict, message: str, lines: list) -> None:
    """The items back (as parsed, or parsed again from stdin's bytes) with one error result."""
    try:
        from kpt_fn.cli import krm
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
    finish(text, lines, 1)


class CannotRun(Exception):
    """The command cannot run where it was started (the message says why and what to do)."""


def working_directory() -> str:
    """The working directory, or CannotRun: a CI step may run in a directory an earlier step removed."""
    try:
        return os.getcwd()
    except OSError as e:
        raise CannotRun(f"the working directory cannot be read ({e.strerror}; was it deleted?): change to an "
                        "existing directory and run again") from None


def guarded(fn, *args, failed_code: int = 1) -> None:
    """finish(*fn(*args)), or an internal error (stderr only, exit `failed_code`) if fn fails."""
    try:
        result = fn(*args)
    except SystemExit:
        raise
    except CannotRun as e:
        finish("", [_summary(False, str(e))], failed_code)
    except BaseException as e:
        lines = [_summary(False, f"internal error: {type(e).__name__}: {e}")]
        if _debug():
            lines += _traceback_lines()
        else:
            lines.append(f"  (set {DEBUG_ENV}=1 to see the traceback)")
        finish("", lines, failed_code)
    finish(*result)


def render_mode(paths, mode: str | None = None, strict: bool = False, trainer_version: str | None = None,
                fmt: str = "text", namespace: str | None = None, config: str | None = None, quiet: bool = False,
                find_apps: bool = False) -> None:
    """`render [PATH...|-]` (mode None) and `validate [PATH...|-]` (mode "validate", output format
    `fmt`); `--strict`, `--trainer-version`, `--namespace`, `--config FILE`; `--quiet`: nothing on
    stderr unless the run fails."""
    from kpt_fn.cli import plain

    def run():
        stdin = read_stdin() if plain.STDIN in paths else None
        out, lines, code = plain.render(list(paths), working_directory(), dict(os.environ), mode, strict, fmt, trainer_version,
                                        namespace=namespace, config=config, stdin=stdin, find_apps=find_apps)
        return out, (lines if code or not quiet else []), code

    guarded(run)


def kustomize_plugin_mode(config: str) -> None:
    def run():
        from kpt_fn.cli import plain

        return plain.kustomize_plugin(config, read_stdin(), dict(os.environ), working_directory())

    guarded(run)


def rules_mode(fmt: str, trainer_version: str | None = None) -> None:
    def run():
        from kpt_fn import formats, rules, upstream

        return formats.write("rules", fmt, rules.rules(upstream.bundle(trainer_version or upstream.DEFAULT_RELEASE))), [], 0

    guarded(run)


def runtimes_mode(fmt: str, trainer_version: str | None = None) -> None:
    def run():
        from kpt_fn import formats, upstream

        bundle = upstream.bundle(trainer_version or upstream.DEFAULT_RELEASE)
        text = formats.write("runtimes", fmt, {"release": bundle.release, "runtimes": list(bundle.catalog())})
        # The table is its header and rows only (as kubectl get prints one): which release it lists goes
        # to stderr, where a person reads it and a script reading the rows does not.
        note = [f"{PREFIX}the ClusterTrainingRuntimes Kubeflow Trainer {bundle.release} ships"] if fmt == "table" else []
        return text, note, 0

    guarded(run)


def argocd_kueue_patch_mode() -> None:
    def run():
        from kpt_fn import argocd, formats

        return formats.write("argocd-kueue-patch", "yaml", argocd.kueue_patch()), [], 0

    guarded(run)


def check_generated_mode(paths) -> None:
    def run():
        from kpt_fn import generated
        from kpt_fn.cli import plain
        from kpt_fn.formats import text
        from kpt_fn.results import escape, from_problem
        from kpt_fn.review import findings

        cwd, env = working_directory(), dict(os.environ)
        dirs = list(paths) or ["."]
        lines = []
        for d in dirs:
            root = os.path.normpath(os.path.join(cwd, d))
            # each problem in the one line form, the package directory as its place (its message names the file)
            lines += text.lines([findings.finding(from_problem(p), app=d)
                                 for p in generated.check(root, env, plain.load_config_file)])
        if lines:
            head = _summary(False, f"the generated output of {', '.join(dirs)} is not current ({len(lines)} problem(s))")
            return "", [escape(x) for x in [head, *lines]], 1
        return "", [_summary(True, f"the generated output of {', '.join(dirs)} is current")], 0

    guarded(run)


def diff_command(old: str, new: str, fmt: str, cwd: str, env: dict, max_chars: int | None = None,
                 fail_on: str = "change", color: bool = False) -> tuple:
    """(stdout, stderr lines, exit code) of `diff OLD NEW` run in `cwd` (the CLI reads it, and fails
    clearly when it was deleted): 0 no change, 1 changes, 2 could not compare (a side that cannot be
    read or does not render; an internal error is 2 too, through guarded) -- never anything else, so
    that CI can tell "changes" from "broken". Each side is read and rendered here; kpt_fn.review
    compares, kpt_fn.formats words."""
    import shutil
    import tempfile as tmp

    from kpt_fn import formats
    from kpt_fn.cli import plain, stderr
    from kpt_fn.review import diff as review_diff, guardrails, sides as review_sides
    from kpt_fn.lifecycle import classify
    from kpt_fn.results import Summary

    scratch = None
    try:
        scratch = tmp.mkdtemp(prefix="expand-trainjobs-diff-")
        sides, notes = [], []
        for spec in (old, new):
            where, side_env, side_notes, side = review_sides.materialize(spec, cwd, scratch, env)
            outcome = plain.expand([], where, side_env, checkout=side)
            sides.append((spec, where, outcome))
            notes += side_notes
        data = review_diff.diff(sides[0][2], sides[1][2], sides[0][1], sides[1][1])
        if not any(outcome.exit_code for _, _, outcome in sides):  # read while the revisions' files exist
            data["guardrails"] = guardrails.changed(sides[0][2], sides[1][2], sides[0][1], sides[1][1])
        # A revision's files are read from a temporary directory: no message names it (issue 33). In
        # the data, before a writer escapes it (Markdown writes `_` as `\_`, and a path would survive).
        labels = _scratch_labels(scratch, [(spec, where) for spec, where, _ in sides])
        options = _comment_size(fmt, max_chars)
        if fmt == "text":  # the objects shown whole, named as the data names them
            both = _unscratched_data(review_diff.sides(sides[0][2], sides[1][2], data), labels)
            options = _text_options(both, old, new, color)
        text = formats.write("diff", fmt, _unscratched_data(data, labels), **options)
    except review_sides.SourceError as e:
        return "", [Summary(False, str(e))], 2
    except RecursionError:
        return "", [Summary(False, "the input is nested too deeply to compare (e.g. ARGOCD_APP_PARAMETERS or a "
                                     "file): could not compare")], 2
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    for spec, _, outcome in sides:
        if outcome.exit_code:
            lines = [_unscratched(line, labels) for line in stderr.lines(outcome)]
            return text, [Summary(False, f"{spec} does not render ({outcome.errors} error(s)): could not compare"),
                          *lines[1:], *notes], 2
    relaxed = guardrails.count(data)  # a guardrail that changed is a change, also when nothing renders differently
    changes = review_diff.has_changes(data) or relaxed > 0
    status = f"{PREFIX}{'changes' if changes else 'no changes'}"
    if fail_on == "guardrails":  # exit 1 only for a changed guardrail: a check that asks the platform team
        status += f"; {relaxed} guardrail(s) changed" if relaxed else "; no guardrail changed"
        return text, [status, *notes], 1 if relaxed else 0
    if fail_on == "refused":  # exit 1 only for a change the cluster refuses on an existing JobSet
        refused = classify.refused(data)
        status += f"; {data['summary']['refused']} TrainJob(s) with a change the cluster refuses" if refused else ""
        return text, [status, *notes], 1 if refused else 0
    return text, [status, *notes], 1 if changes else 0


def _comment_size(fmt: str, max_chars: int | None) -> dict:
    """The size option of a Markdown comment's writer (`--max-chars`; the writer's default without it)."""
    return {"max_chars": max_chars} if fmt == "markdown" else {}


def _text_options(sides: dict, old: str, new: str, color: bool) -> dict:
    """The plain-text diff's options: both versions of each object, the two sides as the command was
    given them (the names its `---`/`+++` lines show), colour or not."""
    return {"sides": sides, "labels": (old.rstrip("/") or old, new.rstrip("/") or new), "color": color}


def _scratch_labels(scratch: str, sides: list) -> list:
    """[(temporary directory, how messages name it)]: each revision's as `<REV>` (a path under it reads as
    the path in the repository at REV), the scratch directory itself last, as `<revision>`."""
    out = []
    for spec, where in sides:
        rel = os.path.relpath(where, scratch)
        if rel != os.curdir and not rel.startswith(os.pardir):
            out.append((os.path.join(scratch, rel.split(os.sep)[0]), f"<{spec}>"))
    return out + [(scratch, "<revision>")]


def _unscratched(text: str, labels: list) -> str:
    for path, label in labels:
        text = text.replace(path, label)
    return text


def _unscratched_data(data, labels: list):
    """`data` (plain data) with every string, keys too, _unscratched."""
    if isinstance(data, str):
        return _unscratched(data, labels)
    if isinstance(data, dict):
        return {_unscratched_data(k, labels): _unscratched_data(v, labels) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return type(data)(_unscratched_data(v, labels) for v in data)
    return data


def report_command(paths: list, fmt: str, cwd: str, env: dict, max_chars: int | None = None,
                   trainer_version: str | None = None, find_apps: bool = False) -> tuple:
    """(stdout, stderr lines, exit code) of `report [--find-apps] [PATH...]` run in `cwd`: exit status as
    `validate`. Several directories (or the apps found) are several apps, each reported exactly as
    alone and merged to be shown (kpt_fn.apps), as `validate` does."""
    from kpt_fn import apps, formats, orphans
    from kpt_fn.cli import plain, stderr
    from kpt_fn.results import Summary
    from kpt_fn.review import report

    found_line, judged = None, None
    if find_apps:
        tops, found = apps.find_all(list(paths), cwd)
        if not found:
            return "", [Summary(False, "no app found"), apps.found_line(tops, [])], 1
        runs, found_line = [[a] for a in found], apps.found_line(tops, found)
        judged = orphans.judge(tops, found, cwd)  # TrainJob files below PATHS in no app found
    else:
        runs = apps.groups(list(paths), cwd)
    if len(runs) == 1 and not find_apps:
        outcome = plain.expand(list(paths), cwd, env, trainer_version=trainer_version)
        root = plain.app_dir(list(paths), cwd)[0]
        data = report.report(outcome, root)
        text = formats.write("report", fmt, data, **_comment_size(fmt, max_chars))
        return text, stderr.lines(outcome, root, cwd), outcome.exit_code
    reports, done = [], []
    for run in runs:
        outcome = plain.expand(run, cwd, env, trainer_version=trainer_version)
        root = plain.app_dir(run, cwd)[0]
        app_dir = os.path.relpath(root, cwd)
        reports.append((plain.app_name(run), app_dir, report.report(outcome, root)))
        # stderr names files from the working directory, and a finding from no file its app
        done.append((plain.app_name(run), stderr.lines(outcome, root, cwd, app_dir.replace(os.sep, "/")), outcome.exit_code))
    lines, code = apps.merge_lines(done)
    merged = apps.merge_review(reports)
    if found_line:
        lines[:1] = [orphans.summary(lines[0], judged), found_line] + judged["lines"]
        code = max(code, 1 if judged["errors"] else 0)
        merged = orphans.with_findings(merged, judged)
    text = formats.write("report", fmt, merged, **_comment_size(fmt, max_chars))
    return text, lines, code


def report_mode(paths, fmt: str, trainer_version: str | None = None, max_chars: int | None = None,
                find_apps: bool = False) -> None:
    def run():
        return report_command(list(paths), fmt, working_directory(), dict(os.environ), max_chars, trainer_version, find_apps)

    guarded(run)


def upgrade_mode(path: str, releases: str, fmt: str | None, fail_on: str = "change", color: str = "auto") -> None:
    """`diff --trainer-version OLD..NEW [DIR]`: exit status as for `diff`."""
    guarded(_upgrade, path, releases, diff_format(fmt), fail_on, colour_wanted(color, dict(os.environ)), failed_code=2)


def _upgrade(path: str, releases: str, fmt: str, fail_on: str = "change", color: bool = False) -> tuple:
    from kpt_fn import formats, upstream
    from kpt_fn.cli import plain, stderr
    from kpt_fn.review import diff as review_diff, upgrade

    try:
        old, new = upgrade.parse_range(releases, upstream.RELEASES)
    except ValueError as e:
        return "", [_summary(False, str(e))], 2
    cwd, env = working_directory(), dict(os.environ)
    outcomes = []
    for release in (old, new):
        outcome = plain.expand([path], cwd, env, trainer_version=release)
        if outcome.exit_code:
            return "", [_summary(False, f"{path} does not render under Trainer {release}"), *stderr.lines(outcome)[1:]], 2
        outcomes.append(outcome)
    data = upgrade.preview(old, new, *outcomes)
    options = _text_options(review_diff.sides(*outcomes, data), old, new, color) if fmt == "text" else {}
    text = formats.write("upgrade", fmt, data, **options)
    changes = review_diff.has_changes(data)
    failing = changes if fail_on == "change" else bool(data["summary"].get("refused"))
    return text, [f"{PREFIX}{'changes' if changes else 'no changes'}"], 1 if failing else 0, 2


def diff_mode(old: str, new: str, fmt: str | None, fail_on: str = "change", max_chars: int | None = None,
              color: str = "auto") -> None:
    # Exit 1 means "changes" (or, with fail_on "refused", "a change the cluster refuses") here:
    # errors, output that could not be written included, are 2.
    def run():
        env = dict(os.environ)
        return (*diff_command(old, new, diff_format(fmt), working_directory(), env, max_chars, fail_on,
                              colour_wanted(color, env)), 2)

    guarded(run, failed_code=2)
