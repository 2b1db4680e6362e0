"""KRM mode: a ResourceList on stdin, a ResourceList on stdout (kpt, kustomize KRM functions).

Limits for stdin. The functionConfig travels inside the ResourceList, so it cannot choose the limits
stdin is parsed with: stdin is read and parsed with the default Limits (yamlio.DEFAULT_LIMITS), which
whoever runs the function may change with the environment variables of LIMIT_SETTINGS (their
defaults and maxima: docs/limits.md, "Limits on input").

Once the functionConfig is known, the limits it sets are re-checked against stdin (size, nesting
depth and alias expansion of the parsed data): a functionConfig can tighten the limits for the
ResourceList it is part of, never loosen them. Files the function reads itself (runtimeDirs, files)
are parsed with the functionConfig's limits.

Failure shapes. stdin that is not a ResourceList at all: one line on stderr, and on stdout a
ResourceList with no items and one error result, exit 1 (kpt and kustomize then keep the package as
it was). Anything after that: every input item back, results saying what is wrong, exit 1.
"""

from __future__ import annotations

from kpt_fn import config as config_mod
from kpt_fn import function, kustomize_names, sources
from kpt_fn import resource as res
from kpt_fn.problems import Problem
from kpt_fn.results import Result, Summary, from_problem
from kpt_fn.yamlio import (
    DEFAULT_LIMITS,
    ItemMarks,
    Limits,
    ListWriter,
    PassThrough,
    YAMLInputError,
    check_limits,
    dump,
    dump_pieces,
    freeze,
    item_source,
    load_all,
    load_json,
)

RESOURCE_LIST_VERSIONS = ("config.kubernetes.io/v1", "config.kubernetes.io/v1beta1")

# Limits field -> the environment variable that sets it for stdin (the functionConfig options that set
# the same fields name them: config.Option.limit)
LIMIT_SETTINGS = {
    "max_bytes": "EXPAND_TRAINJOBS_MAX_INPUT_BYTES",
    "max_depth": "EXPAND_TRAINJOBS_MAX_DEPTH",
    "max_nodes": "EXPAND_TRAINJOBS_MAX_ALIAS_NODES",
    "max_aliases": "EXPAND_TRAINJOBS_MAX_ALIASES",
    "max_alias_bytes": "EXPAND_TRAINJOBS_MAX_ALIAS_BYTES",
}


class InputError(ValueError):
    """stdin is not a ResourceList we can work on at all."""


def limits_from_env(env, base: Limits = DEFAULT_LIMITS) -> Limits:
    """`base` with the EXPAND_TRAINJOBS_MAX_* variables of `env` applied. Raises InputError."""
    changes = {}
    for field_name, var in LIMIT_SETTINGS.items():
        raw = env.get(var)
        if raw is None or raw == "":
            continue
        # the same reading and bounds as the options: no spaces or `_` trimmed away (docs/options.md)
        value, problem = config_mod.limit_value(field_name, raw)
        if problem:
            raise InputError(f"{var}={raw[:40]!r}: {problem}")
        changes[field_name] = value
    return base.replace(**changes) if changes else base


def _hint(limit: str | None) -> str:
    var = LIMIT_SETTINGS.get(limit)
    if var is None:
        return ""
    return f"; for stdin, set {var} to change this limit (the functionConfig can only lower it)"


def _parse_docs(data: bytes, limits: Limits, marks: ItemMarks | None = None) -> list:
    head = data.lstrip()[:1]
    try:
        if head not in (b"{", b"["):
            return load_all(data, limits, marks)
        try:
            return [load_json(data, limits)]
        except YAMLInputError as json_error:
            if json_error.limit:
                raise
            # YAML flow style looks like JSON without being JSON (`{kind: ResourceList}`).
            try:
                return load_all(data, limits)
            except YAMLInputError:
                raise json_error from None
    except YAMLInputError as e:
        if e.limit:
            raise InputError(f"{e}{_hint(e.limit)}") from None
        if e.args[0].startswith("input is"):
            raise InputError(str(e)) from None
        language = "JSON" if head in (b"{", b"[") else "YAML"
        if language == "YAML" and e.line:
            from kpt_fn.cli import item_at_line  # only on an error

            who = item_at_line.describe(data.decode("utf-8", "replace"), e.line)
            if who:
                raise InputError(f"input is not valid YAML: {e} (of the ResourceList on stdin; the item is {who})") from None
        raise InputError(f"input is not valid {language}: {e}") from None


def parse_resource_list(data: bytes, limits: Limits = DEFAULT_LIMITS, marks: ItemMarks | None = None) -> dict:
    """The ResourceList on stdin; `marks`, when given, gets where its items are in `data` (yamlio.load_all)."""
    if len(data) > limits.max_bytes:
        raise InputError(
            f"input is {len(data)} bytes, more than the limit of {limits.max_bytes} (maxInputBytes)"
            + _hint("max_bytes")
        )
    if not data.strip():
        raise InputError("no input: expected a ResourceList on stdin")
    docs = [d for d in _parse_docs(data, limits, marks) if d is not None]
    if not docs:
        raise InputError("no input: expected a ResourceList on stdin, found no YAML document")
    if len(docs) != 1:
        raise InputError(f"expected one ResourceList on stdin, found {len(docs)} YAML documents")
    rl = docs[0]
    if isinstance(rl, list):
        raise InputError("expected a ResourceList on stdin, found a YAML sequence (objects go in the items of a ResourceList)")
    if not isinstance(rl, dict):
        raise InputError(f"expected a ResourceList on stdin, found a scalar ({type(rl).__name__})")
    if rl.get("kind") != "ResourceList" or rl.get("apiVersion") not in RESOURCE_LIST_VERSIONS:
        hint = ""
        if rl.get("kind") != "ResourceList" and rl.get("kind") and rl.get("apiVersion"):
            hint = "; to render plain manifests, use `expand-trainjobs render PATH`"
        raise InputError(
            f"expected kind ResourceList ({' or '.join(RESOURCE_LIST_VERSIONS)}), found "
            f"{rl.get('apiVersion')!r} {rl.get('kind')!r}{hint}"
        )
    items = rl.get("items")
    if items is None:
        rl["items"] = []
    elif not isinstance(items, list):
        raise InputError(f"ResourceList.items must be a list, found {type(items).__name__}")
    return rl


def error_resource_list(message: str, items=None, api_version: str = RESOURCE_LIST_VERSIONS[0], rule: str = "") -> dict:
    """A ResourceList that fails with one error result: stdin that is no ResourceList (`rule`
    sources.RULE_RESOURCE_LIST), or an internal failure of the run (no rule: not a finding of a check)."""
    return {
        "apiVersion": api_version,
        "kind": "ResourceList",
        "items": list(items or []),
        "results": [Result(message, rule=rule).krm()],
    }


def _config_limit_problem(size: int, rl: dict, used: Limits, cfg: config_mod.FunctionConfig) -> Problem | None:
    """What breaks a limit the functionConfig (`cfg`, parsed) sets below the ones stdin was parsed
    with, if anything."""
    fc = rl.get("functionConfig")
    if not isinstance(fc, dict):
        return None
    prefix = "data" if fc.get("kind") == "ConfigMap" else "spec"
    values = fc.get(prefix)
    options = config_mod.LIMIT_OPTIONS  # Limits field -> the option that sets it
    if not isinstance(values, dict) or not any(o in values for o in options.values()):
        return None  # only limits the functionConfig sets count, not its defaults
    # cfg's own problems (a limit that is not a number) are reported by function.run
    wanted = used.replace(**{f: getattr(cfg.limits, f) for f, o in options.items() if o in values})
    subject = fc
    if wanted.max_bytes < used.max_bytes and size > wanted.max_bytes:
        return Problem(
            f"the ResourceList on stdin is {size} bytes, more than maxInputBytes {wanted.max_bytes}",
            f"{prefix}.maxInputBytes",
            subject=subject, rule=sources.RULE_LIMIT
        )
    if wanted.max_depth < used.max_depth or wanted.max_nodes < used.max_nodes:
        try:
            check_limits(rl, used.replace(max_depth=min(wanted.max_depth, used.max_depth), max_nodes=min(wanted.max_nodes, used.max_nodes)))
        except YAMLInputError as e:
            option = options.get(e.limit)
            return Problem(f"the ResourceList on stdin: {e}", f"{prefix}.{option}" if option else "", subject=subject, rule=sources.RULE_LIMIT)
    return None


def process(
    data: bytes, limits: Limits = DEFAULT_LIMITS, base_dir: str = ".", env=None
) -> tuple[str, list[str], int]:
    """(stdout, stderr lines, exit code) for one KRM invocation; `env` (the process environment, or
    none) may change the stdin limits and is handed to function.run."""
    pieces, lines, code = process_pieces(data, limits, base_dir, env)
    return "".join(pieces), lines, code


def process_pieces(
    data: bytes, limits: Limits = DEFAULT_LIMITS, base_dir: str = ".", env=None, fallback: dict | None = None,
    write=None,
) -> tuple:
    """process() with stdout as an iterator of text pieces, each dumped when it is asked for: a caller
    that writes each piece before asking for the next never holds the whole output text.

    Items pass through as their own text (PassThrough): every input item the function does not
    replace is written back exactly as it came, and is not held as data once it is no longer needed
    (a TrainJob, once rendered); generated objects are frozen to text (yamlio.freeze) as soon as they
    are placed, so the output is never held as dicts either.

    `fallback`, a caller's dict for its internal-error fallback that holds the input as "data": once
    stdin is parsed, "data" is dropped for the parsed "apiVersion" and "items" (items may be frozen
    later, which dump() writes as they were).

    `write`, when given, takes the first pieces of stdout while the function still runs: the items
    before the TrainJob being rendered, as soon as they are final (function.run's `emit`), so that the
    output of thousands of TrainJobs is never held at once; the pieces returned are the rest. Once it
    has been called, a failure of the run cannot take back what is written: `fallback["complete"]`
    (until the pieces are returned) then gives the pieces that end that ResourceList with every input
    item not written yet and an error result of the message it is called with."""
    size = len(data)
    marks = ItemMarks()
    try:
        if env is not None:
            limits = limits_from_env(env, limits)
        rl = parse_resource_list(data, limits, marks)
    except InputError as e:
        return iter((dump(error_resource_list(str(e), rule=sources.RULE_RESOURCE_LIST)),)), [Summary(False, str(e))], 1
    passing = PassThrough(rl["items"], item_source(data, marks))
    del data, marks
    api_version = rl.get("apiVersion")
    if fallback is not None:
        fallback["apiVersion"], fallback["items"] = api_version, rl["items"]
        fallback.pop("data", None)
    parsed = config_mod.parse(rl.get("functionConfig"))  # once, for this door and the function
    problem = _config_limit_problem(size, rl, limits, parsed.config)
    if problem is not None:
        result = from_problem(problem)
        out = {"apiVersion": api_version, "kind": "ResourceList", "items": passing.output(rl["items"]), "results": [result.krm()]}
        return dump_pieces(out), [Summary(False, result.message)], 1
    generator = kustomize_names.is_kustomize_generator_call(rl["items"], rl.get("functionConfig"))
    # The review report reads the rendered objects after the run: they stay data for it.
    report = parsed.config.report
    # Written while rendering: only frozen items (no review report) among input items kept as their
    # own text (the pieces' text then is dump_pieces').
    early = ListWriter(write, {"apiVersion": api_version, "kind": "ResourceList"}, "items") \
        if write is not None and report == "none" and passing.active else None
    emit = None
    if early is not None:
        items, sent = rl["items"], [0]  # sent: how many input items are written, in order

        def emit(ready: list) -> None:
            for x in ready:
                early.add(passing.output([x]))
                if sent[0] < len(items) and x is items[sent[0]]:
                    sent[0] += 1

        if fallback is not None:
            fallback["complete"] = lambda message: early.rest({
                "apiVersion": api_version, "kind": "ResourceList",
                "items": passing.output(items[sent[0]:]), "results": [Result(message).krm()]})
    # Where kpt read each item (its path and index annotations): the findings about them name the line
    # when the file is there to read (kpt_fn.lines.locate_items).
    placed = {(res.file_path(i), res.file_index(i)): (i.get("apiVersion"), i.get("kind"), res.namespace(i), res.name(i))
              for i in rl["items"] if isinstance(i, dict) and res.file_path(i)}
    outcome = function.run(rl["items"], parsed, function.Door(
        base_dir=base_dir, freeze=passing.freeze if report == "none" else None,
        kustomization_root=base_dir if generator else None, env=env, emit=emit,
        report=None if report == "none" else report_placement(report),
    ))
    del rl  # the output holds what it needs of the input
    if placed and any(r.file for r in outcome.results):
        from kpt_fn import lines  # only for findings about items from files

        lines.locate_items(outcome.results, base_dir, placed)
    out = {
        "apiVersion": api_version,
        "kind": "ResourceList",
        "items": passing.output(outcome.items),
        # The results are the last piece of the output: made into text here, where a failure still
        # ends the ResourceList with every input item and an error result (`complete`, or the
        # caller's fallback when nothing is written yet), not while the pieces are being written.
        "results": [freeze(r) for r in outcome.krm_results()],
    }
    lines = stderr_lines(outcome)
    # The items not written yet are made into text as they are written, after this returns: a failure
    # there would stop the output without results. None happens on real input: they are the reader's
    # plain data and objects built of it, which the writer writes at any depth the reader allows
    # (tests/behaviour/test_never_lose_items.py, "Writing the output after the run").
    if fallback is not None:  # what is left to write is the pieces returned: no longer `complete`'s
        fallback.pop("complete", None)
    return (dump_pieces(out) if early is None else early.rest(out)), lines, outcome.exit_code


def stderr_lines(outcome) -> list[str]:
    """The summary first, then each finding a person must see (kpt_fn.cli.stderr)."""
    from kpt_fn.cli import stderr

    return stderr.lines(outcome)


def report_placement(fmt: str):
    """function.run's `report` (Door.report): the review report of the run (kpt_fn.review.report) as
    the ConfigMap formats.krm_report writes, which output.Placement.own puts among the items, in place
    of the report of an earlier run or at the end. A ConfigMap of that name that is not a report of
    ours is left as it is, and is an error."""
    from kpt_fn.formats import krm_report
    from kpt_fn.review import report

    return lambda outcome: (krm_report.configmap(report.report(outcome), fmt), krm_report.REPORT_MARKER,
                            krm_report.REPORT_FILE, "report")
