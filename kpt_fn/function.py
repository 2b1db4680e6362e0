"""The function as a filter: input items and a functionConfig in, output items and results out.

Data flows in the order of the package layout: read the config → index runtimes (resolve) → for each
TrainJob convert legacy shapes, validate it and its runtime, run the admission checks and the engine
(engine, plugins) → validate what was generated → place generated objects among the items (output) →
results. Nothing here does I/O except reading runtime directories and inline `files` named by the
config; the modes (krm, plain, kustomize) own stdin/stdout.
"""

from __future__ import annotations

import gc
import json
import os

from kpt_fn import config as config_mod
from kpt_fn import engine, kustomize_names, convert, numbers, output, policy, profiles, rerun, resolve, sources, upstream, validation
from kpt_fn import resource as res
from kpt_fn import results as results_mod
from kpt_fn.validation import admitted
from kpt_fn.lifecycle import render as lifecycle
from kpt_fn.problems import ERROR, INFO, WARNING, Problem, has_errors
from kpt_fn.blame import Blame
from kpt_fn.results import Result, from_problem

# As in kpt_fn.cli.modes: when set, an internal error propagates (and the CLI prints its traceback).
DEBUG_ENV = "EXPAND_TRAINJOBS_DEBUG"


# Plain classes: creating dataclasses cost a noticeable part of start-up.
class Rendered:
    """One TrainJob's journey: where it sits in the items, and what came of it."""

    __slots__ = ("position", "origin", "objects", "runtime", "name")

    def __init__(self, position: int | None, origin: dict, objects: list | None = None):
        self.position = position  # index among the input items; None for TrainJobs given in the config
        self.origin = origin  # the item as the user wrote it (for file/identity in results)
        self.objects = [] if objects is None else objects
        self.runtime = None  # the runtime it was expanded against (as converted), for reports
        # The TrainJob's name where its objects go (a kustomize generator's kustomization renames it
        # afterwards); None: the name it has. Generated objects name it (output.MARKER).
        self.name = None


class Outcome:
    __slots__ = ("items", "results", "rendered", "config", "stale")

    def __init__(self, items: list, results: list, rendered: list, config: config_mod.FunctionConfig, stale=()):
        self.items = items
        self.stale = list(stale)  # earlier output nothing generates any more (plain modes do not print it)
        self.results = results  # list[results.Result]
        self.rendered = rendered  # list[Rendered]
        self.config = config

    @property
    def final_results(self) -> list:
        """The results as reported: under `strict`, every warning an error (results.as_errors)."""
        return results_mod.as_errors(self.results) if self.config.strict else self.results

    @property
    def errors(self) -> int:
        return sum(r.count for r in self.final_results if r.severity == ERROR)

    @property
    def warnings(self) -> int:
        return sum(r.count for r in self.final_results if r.severity == WARNING)

    @property
    def exit_code(self) -> int:
        return 1 if self.errors else 0

    def summary(self) -> str:
        jobs = len(self.rendered)
        done = sum(1 for r in self.rendered if r.objects)
        objs = sum(len(r.objects) for r in self.rendered)
        verb = "validated" if self.config.mode == "validate" else f"rendered {done} of"
        state = "FAILED" if self.errors else "ok"
        counts = f"{self.errors} error(s), {self.warnings} warning(s)"
        if self.config.mode == "validate":
            return f"expand-trainjobs: {state}: {counts}; validated {jobs} TrainJob(s)"
        if self.errors:  # every client drops the whole output of a failed run: say so, not "rendered"
            return (f"expand-trainjobs: FAILED: {counts}; nothing written: an error fails the whole run "
                    f"({done} of {jobs} TrainJob(s) rendered into {objs} object(s))")
        return f"expand-trainjobs: ok: {counts}; {verb} {jobs} TrainJob(s) into {objs} object(s)"

    def krm_results(self) -> list:
        """The results of the output ResourceList (wire format), the summary last."""
        return results_mod.krm(self.final_results + [Result(self.summary(), INFO)])

    def stderr_lines(self) -> list:
        return results_mod.stderr_lines(self.summary(), self.final_results)


def engine_options(cfg: config_mod.FunctionConfig):
    """EngineOptions from the config: every config field the engine declares an option for, and all
    options by functionConfig key in plugin_options for plugins that read their own."""
    names = set(engine.EngineOptions.FIELDS)
    values = {o.name: getattr(cfg, o.name) for o in config_mod.OPTIONS}
    kwargs = {n: values[n] for n in names if n in values}
    if "plugin_options" in names:
        kwargs["plugin_options"] = values
    return engine.EngineOptions(**kwargs)


_TRAINER_KINDS = (res.TRAINJOB, *res.RUNTIME_KINDS)
_YAML_TYPES = {str: "a string", int: "an integer", float: "a number", bool: "a boolean", list: "a list", type(None): "null"}


def _structure_problems(item, i: int, release: str) -> list:
    """What makes an item unusable as input (errors: passed through, never read further)."""
    if not isinstance(item, dict):
        found = _YAML_TYPES.get(type(item), type(item).__name__)
        return [Problem(f"not an object (found {found}); it is passed through unchanged", f"items[{i}]")]
    missing = [k for k in ("apiVersion", "kind") if not isinstance(item.get(k), str) or not item.get(k)]
    if missing:
        return [Problem(f"items[{i}] has no {' or '.join(missing)}; it is passed through unchanged", missing[0], subject=item)]
    kind, group = item["kind"], res.api_group(item)
    if kind in _TRAINER_KINDS and group not in (res.TRAINER_GROUP, "kubeflow.org"):
        return [_foreign_trainer_kind(item, kind, group)]
    if group == res.TRAINER_GROUP and kind not in _TRAINER_KINDS:
        import difflib  # only on a misspelt kind: difflib (and heapq) cost ~3 ms of every start-up

        near = [k for k in _TRAINER_KINDS if k.lower() == kind.lower()]
        near = near or difflib.get_close_matches(kind, _TRAINER_KINDS, n=1, cutoff=0.8)
        if near:
            return [Problem(f'unknown kind "{kind}" (did you mean "{near[0]}"?); it is passed through unchanged', "kind", subject=item)]
        return [Problem(f'kind "{kind}" is not a Kubeflow Trainer {release} kind; it is passed through unchanged', "kind", severity=WARNING, subject=item)]
    if kind in _TRAINER_KINDS and group in (res.TRAINER_GROUP, "kubeflow.org"):
        # Another version would be read as v1alpha1 field by field, and silently rendered wrong.
        if item["apiVersion"] not in (res.TRAINER_API_VERSION, *convert.LEGACY_API_VERSIONS):
            also = f" (and converts {', '.join(convert.LEGACY_API_VERSIONS)})"
            return [
                Problem(
                    f'unsupported apiVersion "{item["apiVersion"]}" for {kind}: this function reads '
                    f"{res.TRAINER_API_VERSION} of Kubeflow Trainer {release}{also}; it is passed through unchanged",
                    "apiVersion",
                    subject=item,
                )
            ]
        # Runtimes are indexed and TrainJobs named by these before any schema check runs.
        md = item.get("metadata")
        if not isinstance(md, dict):
            return [Problem(f"Required value: metadata must be an object (found {_YAML_TYPES.get(type(md), type(md).__name__)}); it is passed through unchanged", "metadata", subject=item)]
        for key in ("name", "namespace"):
            value = md.get(key)
            if (key == "name" or value is not None) and not (isinstance(value, str) and value):
                found = "an empty string" if value == "" else _YAML_TYPES.get(type(value), type(value).__name__)
                return [Problem(f"Invalid value: metadata.{key} must be a non-empty string (found {found}); it is passed through unchanged", f"metadata.{key}", subject=item)]
    return []


def _foreign_trainer_kind(item: dict, kind: str, group: str) -> Problem:
    """A Trainer kind under another API group is never rendered: an error where the apiVersion looks
    like a slip for Trainer's (no group, a version left out, a misspelt group), else a warning -- a
    run that leaves a TrainJob unrendered must say so either way."""
    import difflib  # only here (see _structure_problems)

    api_version = item["apiVersion"]
    if not group or "kubeflow" in group or difflib.get_close_matches(group, [res.TRAINER_GROUP], cutoff=0.8):
        return Problem(
            f'apiVersion "{api_version}" is not Kubeflow Trainer\'s (did you mean "{res.TRAINER_API_VERSION}"?): '
            f"this {kind} is not rendered; it is passed through unchanged",
            "apiVersion", subject=item,
        )
    return Problem(
        f'{kind} of apiVersion "{api_version}" is not Kubeflow Trainer\'s {kind} ({res.TRAINER_API_VERSION}): '
        "it is not rendered; it is passed through unchanged",
        "apiVersion", severity=WARNING, subject=item,
    )


def _unused_configs(items: list, unusable: set, function_config, returns_inputs: bool) -> list:
    """Problems for ExpandTrainJobs items holding TrainJobs (`trainJobs`, `files`) that are not this
    run's functionConfig: those TrainJobs are not rendered by this run. Under kpt another pipeline step
    may use that config (a warning); `render` (Argo CD) has only the marker's config, so nothing else
    ever renders them (an error)."""
    own = res.without_client_annotations(function_config) if isinstance(function_config, dict) else None
    problems = []
    for i, item in enumerate(items):
        if i in unusable or not config_mod.is_config_object(item):
            continue
        spec = item.get("spec") if isinstance(item.get("spec"), dict) else {}
        held = [k for k in ("trainJobs", "files") if spec.get(k)]
        if not held or res.without_client_annotations(item) == own:
            continue
        fields = " and ".join(f"spec.{k}" for k in held)
        problems.append(Problem(
            f"{res.display(item)} is not this run's functionConfig, so the TrainJobs of its {fields} are not "
            + ("rendered by this run" if returns_inputs else
               f"rendered ({sources.MARKER_FILE} or the Argo CD parameters configure this run): move them into "
               "files of the app"),
            f"spec.{held[0]}", severity=WARNING if returns_inputs else ERROR, subject=item,
        ))
    return problems


def _not_emitted(extra: list, items: list) -> list:
    """Errors for objects read through `files` or given in `trainJobs` that are neither TrainJobs nor
    runtimes: they are read for those alone and never emitted, so a ConfigMap or a Kueue queue put next
    to the TrainJobs would vanish from a kustomize build that exits 0. Earlier output (re-rendered),
    local-config objects, the function's configs and objects that are among the items too (kpt passes
    the package's files) are nobody's loss."""
    problems = []
    present = None
    for obj in extra:
        if not isinstance(obj, dict) or res.is_trainjob(obj) or res.is_runtime(obj) or res.is_local_config(obj) \
                or config_mod.is_config_object(obj) or output.marker_of(obj) is not None:
            continue
        if present is None:
            present = {res.identity(i) for i in items if isinstance(i, dict)}
        if res.identity(obj) in present:
            continue
        path = res.file_path(obj)
        problems.append(Problem(
            f"{output.show(obj)}{f' (in {path})' if path else ''} is read through spec.{'files' if path else 'trainJobs'}, "
            "which is read for TrainJobs and runtimes only: it would not be in the output; list it under the "
            "kustomization's resources: instead (or mark it config.kubernetes.io/local-config if it is not to be applied)",
            "spec.files" if path else "spec.trainJobs",
        ))
    return problems


def _survey(items: list, release: str) -> tuple[list, set, list]:
    """(position and TrainJob of each TrainJob item, positions of unusable items, their problems)."""
    inputs, unusable, problems = [], set(), []
    for i, item in enumerate(items):
        structural = _structure_problems(item, i, release)
        problems += structural
        if has_errors(structural):
            unusable.add(i)
        elif not config_mod.is_config_object(item):
            if res.is_trainjob(item):
                inputs.append((i, item))
            problems += sources.trainjobs_in_list(item)
    return inputs, unusable, problems


class _Checks:
    """Validation with per-object memo, so a runtime shared by many TrainJobs is checked once."""

    def __init__(self, bundle: upstream.Bundle):
        self._runtime_memo: dict[int, tuple] = {}
        self.bundle = bundle

    def object(self, obj: dict) -> list:
        return validation.check_object(obj, self.bundle)

    def runtime(self, runtime: dict, label: str) -> tuple[dict, list, bool]:
        """(converted runtime, problems, invalid) — problems reported once per runtime; `invalid`
        every time, so a second TrainJob of a broken runtime is not rendered either."""
        memo = self._runtime_memo.get(id(runtime))
        if memo is not None:
            return memo[0], [], memo[2]
        problems: list = []
        converted, conv = convert.convert_runtime(runtime)
        converted = numbers.whole_numbers(converted, self.bundle)  # `2.0` in an integer field is 2, as for the API server
        problems += conv
        if label != resolve.CATALOG:
            problems += self.object(converted)
            problems += validation.check_runtime_webhook(converted, self.bundle.release)
        problems = [p if p.subject is not None else p.replace(subject=runtime) for p in problems]
        invalid = any(p.severity == ERROR for p in problems)
        # Sound: its only errors are replicated jobs without their ancestor's container, which the
        # TrainJob webhook's plugins can still read (the admission check below).
        sound = invalid and all(p.rule == validation.runtime_webhook.RULE_CONTAINER for p in problems if p.severity == ERROR)
        # The runtime itself is kept in the memo so that its id() cannot be reused while memoised.
        self._runtime_memo[id(runtime)] = (converted, runtime, invalid, sound)
        return converted, problems, invalid

    def admission_of_invalid(self, trainjob: dict, runtime: dict, opts) -> list:
        """What the TrainJob webhook says about `trainjob` when its runtime is invalid only for a
        missing ancestor container: upstream runs the TrainJob's validation plugins on whatever
        runtime exists (pkg/runtime/core/trainingruntime.go ValidateObjects ignores the Info's
        errors), so the JobSet plugin's own message reaches the TrainJob too."""
        memo = self._runtime_memo.get(id(runtime))
        if memo is None or not memo[3]:
            return []
        return [p for p in engine.admission(trainjob, memo[0], opts) if p.severity == ERROR and p.subject is None]


def _fingerprint(obj: dict) -> tuple:
    """Stands for a generated object in the check that two TrainJobs render the same object
    identically, once the object itself is frozen (equal for equal objects, whatever their key order)."""
    text = json.dumps(obj, sort_keys=True, default=repr, ensure_ascii=False)
    return len(text), hash(text)


class _Step:
    """What rendering one TrainJob needs from the whole run, and what it leaves for the next ones."""

    def __init__(self, cfg, index, namespace: str, opts, profile, renames, placement: output.Placement, freeze):
        self.cfg = cfg
        self.index = index
        self.namespace = namespace
        self.opts = opts
        self.profile = profile  # the output profile (kpt_fn.profiles), chosen once per run
        self.renames = renames  # kustomize generator: how its kustomization renames what is emitted
        self.placement = placement
        self.freeze = freeze
        self.checks = _Checks(upstream.bundle(cfg.trainerVersion))
        # generated identity -> (TrainJob that generated it, the object or, once frozen, its fingerprint)
        self.owners: dict[tuple, tuple] = {}
        self.seen_trainjobs: dict[tuple, str] = {}  # (namespace, name) -> file of the first TrainJob item

    def same(self, obj: dict):
        return obj if self.freeze is None else _fingerprint(obj)


def _render_one(entry: Rendered, step: _Step) -> list:
    """The results of one TrainJob: converted, checked, resolved, expanded (with the output
    profile), and its objects checked. Sets the entry's objects (none when anything on the way is
    an error), the runtime it resolved to (as converted) and the name its objects are generated under."""
    original, position = entry.origin, entry.position
    results: list = []
    trainjob, problems = convert.convert_trainjob(original)
    problems = list(problems)
    trainjob = numbers.whole_numbers(trainjob, step.checks.bundle)  # `2.0` in an integer field is 2, as for the API server
    if step.namespace and not res.namespace(trainjob):
        trainjob = {**trainjob, "metadata": {**res.metadata(trainjob), "namespace": step.namespace}}
    key = (res.namespace(trainjob) or "", res.name(trainjob))
    where = step.seen_trainjobs.get(key)
    if where is None:
        step.seen_trainjobs[key] = res.file_path(original) or ""
    else:
        problems.append(Problem(
            f"{res.display(trainjob)} is defined more than once" + (f" (first in {where})" if where else "")
            + "; only the first definition is rendered",
            "metadata.name",
        ))
    problems += step.checks.object(trainjob) + admitted.trainjob_warnings(trainjob)
    runtime = None
    if not has_errors(problems):
        found, label, resolve_problems = resolve.resolve(trainjob, step.index, step.namespace)
        problems += resolve_problems
        if found is not None:
            runtime, runtime_problems, invalid = step.checks.runtime(found, label)
            entry.runtime = runtime
            results += [from_problem(p, original) for p in runtime_problems]
            if invalid:
                problems.append(Problem(f"{res.display(found)} is invalid (see its errors); TrainJob not rendered", "spec.runtimeRef"))
                problems += step.checks.admission_of_invalid(trainjob, found, step.opts)
                runtime = None
    objects: list = []
    if runtime is not None and not has_errors(problems):
        # expand runs the admission checks itself and stops on their errors. validate mode
        # expands too, so that what would be generated is checked, but places nothing.
        renamer = step.renames if position is None else None  # kustomize renames what a generator emits
        rename = (lambda tj: tj) if renamer is None else renamer.trainjob  # noqa: E731
        if renamer is not None:
            entry.name = res.name(rename(trainjob))
        rendered_tj, expansion = lifecycle.expand(  # jobSetNames: contentHash renames it (kpt_fn/lifecycle)
            trainjob, rename, step.cfg.jobSetNames,
            lambda tj: engine.expand(step.profile.before_engine(tj), runtime, step.opts))
        generated, profile_problems = step.profile.after_engine(rendered_tj, expansion.objects, expansion.problems)
        generated = lifecycle.finish(generated, step.profile.name)  # JobSets in their created form (docs/lifecycle.md)
        problems += profile_problems
        problems += _generated_problems(trainjob, runtime, generated, step)
        if renamer is not None:
            problems += renamer.check(generated, trainjob)
        problems += step.placement.conflicts(generated if renamer is None else renamer.restore(generated))
        if not has_errors(problems):
            # An identical object from two TrainJobs (a Secret shared by name) is emitted once.
            objects = [o for o in generated if res.identity(o) not in step.owners]
            for obj in objects:
                step.owners[res.identity(obj)] = (res.display(original), step.same(obj))
            if renamer is not None:
                objects = renamer.restore(objects)
    results += [from_problem(p, original) for p in problems]
    entry.objects = objects
    return results


def _generated_problems(trainjob: dict, runtime: dict, objects: list, step: _Step) -> list:
    """What is wrong with one TrainJob's generated objects: their own checks (and the output
    profile's), an object another TrainJob renders differently, the platform's policy."""
    problems = []
    for obj in objects:
        problems += step.checks.object(obj)
        if obj.get("kind") == "JobSet":
            problems += validation.check_jobset_webhook(obj)
            problems += rerun.check(obj, trainjob, runtime, step.cfg.mode)
            problems += validation.check_job_templates(obj, Blame(trainjob, runtime))
            problems += step.profile.check(trainjob, obj)
        other = step.owners.get(res.identity(obj))
        if other is not None and other[1] != step.same(obj):
            problems.append(
                Problem(f"{res.display(obj)} would also be generated by {other[0]}: two TrainJobs cannot render the same object", "metadata.name")
            )
    return problems + policy.check(trainjob, runtime, objects, step.cfg.policy)


def _internal_error(exc: Exception, secret: str = "") -> Problem:
    if os.environ.get(DEBUG_ENV, "") not in ("", "0", "false"):
        raise exc
    text = str(exc)
    if secret and secret in text:  # a bug's message may quote anything it held, the seed included
        text = text.replace(secret, "<redacted>")
    return Problem(
        f"internal error: {type(exc).__name__}: {text}; this TrainJob is not rendered (set {DEBUG_ENV}=1 for a traceback)"
    )


def _place(entry: Rendered, items: list, placement, results: list, freeze) -> None:
    """Place one TrainJob's objects (unless validating) and, with `freeze`, let go of their data."""
    placed = placement.add(entry, results, freeze) if placement is not None else None
    if freeze is None:
        return
    # What the summary counts: the placed (frozen) objects; nothing to hold on to when validating.
    entry.objects = placed if placed is not None else [None] * len(entry.objects)
    if entry.position is not None:
        frozen = freeze(entry.origin)
        items[entry.position] = frozen
        if placement is not None:
            placement.out[entry.position] = frozen
        entry.origin = frozen


def _reaching_cluster(items: list, unusable: set) -> list:
    """Warnings for TrainJobs and runtimes that kpt and kustomize would apply along with what is
    rendered from them (they drop only items marked local-config). A repository that marks none has
    thousands: past results.RESULTS_PER_KIND of a kind they are counted, not made (memory)."""
    made: dict[str, list] = {}  # TrainJob / runtime -> the warnings made
    more: dict[str, int] = {}  # and how many more there are
    for i, item in enumerate(items):
        if i in unusable or not isinstance(item, dict) or res.is_local_config(item):
            continue
        if res.is_trainjob(item):
            group, why = "trainjob", ("a Trainer controller running there would create its own JobSet for it and "
                                      "fight over the rendered objects")
        elif res.is_runtime(item):
            group, why = "runtime", "the rendered objects do not need it there"
        else:
            continue
        warnings = made.setdefault(group, [])
        if len(warnings) >= results_mod.RESULTS_PER_KIND:
            more[group] = more.get(group, 0) + 1
            continue
        warnings.append(results_mod.about(
            item,
            f'{res.display(item)} is not marked {res.LOCAL_CONFIG}: "true", so kpt and kustomize keep it in their '
            f"output and it would be applied to the cluster ({why}); unless it is meant for the cluster, add "
            f'{res.LOCAL_CONFIG}: "true" to its metadata.annotations',
            WARNING,
            field=f"metadata.annotations[{res.LOCAL_CONFIG}]",
        ))
    return [r for group, warnings in made.items()
            for r in warnings + ([results_mod.more_like(warnings[-1], more[group])] if group in more else [])]


def run(
    items: list, function_config, *, base_dir: str = ".", default_namespace: str = "", freeze=None, reader=None,
    kustomization_root: str | None = None, returns_inputs: bool = True,
) -> Outcome:
    """Expand the TrainJobs among `items` (and the config's) into the output items and results.

    `function_config`: the functionConfig as parsed at the door (config.parse's Parsed), or the object
    itself (parsed here: in-process callers and tests).

    `freeze` (e.g. yamlio.freeze), when given, is applied to every output object as soon as nothing
    needs it as data any more -- each generated object right after its TrainJob is placed, and each
    TrainJob item of `items` once processed (replaced *in* `items`) -- so that a caller that only
    writes the output never holds all of it as dicts. Runtimes and other items stay data. Without it
    (in-process callers, plain modes) everything stays data. `reader` (a sources.Reader) reads
    `files` and `runtimeDirs`; by default one confined to `base_dir`. `kustomization_root`: set when
    running as a kustomize generator, whose kustomization renames the generated objects afterwards
    (kpt_fn.kustomize_names). `returns_inputs`: the caller gives the input items back (KRM mode,
    kustomize transformer), so TrainJobs and runtimes not marked local-config would reach the
    cluster (a warning each)."""
    cfg, config_problems = function_config if isinstance(function_config, config_mod.Parsed) else config_mod.parse(function_config)
    namespace = cfg.namespace or default_namespace
    bundle = upstream.bundle(cfg.trainerVersion)  # the Trainer release everything below follows
    inputs, unusable, item_problems = _survey(items, bundle.release)
    item_problems += _unused_configs(items, unusable, cfg.source, returns_inputs)
    if reader is None:
        reader = sources.Reader.from_env(base_dir, os.environ)
    extra, extra_problems = reader.read_files(cfg.files, cfg.limits)
    extra += [o for o in cfg.trainJobs]
    extra_problems += [p.replace(subject=cfg.source) for p in _not_emitted(extra, items)]
    inputs += [(None, o) for o in extra if isinstance(o, dict) and res.is_trainjob(o)]
    renames = None
    if kustomization_root is not None:
        load = lambda p: sources.load_file(p, cfg.limits)  # noqa: E731
        own = {(res.namespace(o) or "", res.name(o)) for p, o in inputs if p is None}
        rename_problems = kustomize_names.trainjobs_in_resources(kustomization_root, load, own)
        if any(p is None for p, _ in inputs):
            renames, more = kustomize_names.generator_renames(kustomization_root, load)
            rename_problems += more
        extra_problems += [pr.replace(subject=cfg.source) if pr.subject is None else pr for pr in rename_problems]
    dir_runtimes, dir_problems = resolve.read_runtime_dirs(cfg.runtimeDirs, reader, cfg.limits)
    index_items = [it for i, it in enumerate(items) if i not in unusable] + [o for o in extra if isinstance(o, dict)]
    index = resolve.build_index(index_items, dir_runtimes, namespace, cfg.builtinRuntimes, bundle)
    del index_items  # the index keeps the runtimes; the TrainJobs must be free to go once processed
    opts = engine_options(cfg)
    profile, option_problems = profiles.select(cfg, items)  # before items are frozen
    from kpt_fn.engine import secrets  # the secret policy owns what its options may be

    option_problems += [Problem(m, "spec", subject=cfg.source) for m in secrets.check_options(opts)]
    results = [from_problem(p) for p in config_problems + item_problems + extra_problems + dir_problems
               + index.problems + option_problems]

    placement = output.Placement(items, namespace)  # validate mode asks it about conflicts only
    step = _Step(cfg, index, namespace, opts, profile, renames, placement, freeze)
    rendered: list[Rendered] = []
    place_results: list = []  # "updated ..." results, after every TrainJob's own
    # Before the loop: the TrainJob items may be frozen (no longer dicts) once processed.
    reaching = _reaching_cluster(items, unusable) if returns_inputs else []
    if not gc.isenabled():
        # The CLI's one short run: what exists now (modules, parsed items, the index) is not garbage.
        # Out of the young generation with it, so the collection after each TrainJob (engine.expand)
        # looks only at what that TrainJob made; the first would otherwise walk everything imported.
        gc.freeze()
    for k, (position, original) in enumerate(inputs):
        inputs[k] = None  # a processed TrainJob is held by `items` alone (and frozen there, if asked)
        entry = Rendered(position, original)
        rendered.append(entry)
        try:
            found = _render_one(entry, step)
        except Exception as exc:  # a bug of ours costs this TrainJob its output, not the whole package
            found = [from_problem(_internal_error(exc, cfg.secretSeed), original)]
        results += found
        _place(entry, items, None if cfg.mode == "validate" else placement, place_results, freeze)

    results = results_mod.merge_per_secret(results) + place_results + reaching
    out_items = items if cfg.mode == "validate" else placement.finish(results)
    return Outcome(out_items, results, rendered, cfg, placement.stale)
