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
from kpt_fn import engine, kueue, kustomize_names, legacy, numbers, output, policy, resolve, sources, validation
from kpt_fn import resource as res
from kpt_fn.problems import ERROR, WARNING, Problem

# As in kpt_fn.cli: when set, an internal error propagates (and the CLI prints its traceback).
DEBUG_ENV = "EXPAND_TRAINJOBS_DEBUG"


# Plain classes: creating dataclasses cost a noticeable part of start-up.
class Rendered:
    """One TrainJob's journey: where it sits in the items, and what came of it."""

    __slots__ = ("trainjob", "position", "origin", "objects", "runtime")

    def __init__(self, trainjob: dict, position: int | None, origin: dict, objects: list | None = None):
        self.trainjob = trainjob  # as converted (what the engine saw)
        self.position = position  # index among the input items; None for TrainJobs given in the config
        self.origin = origin  # the item as the user wrote it (for file/identity in results)
        self.objects = [] if objects is None else objects
        self.runtime = None  # the runtime it was expanded against (as converted), for reports


class Outcome:
    __slots__ = ("items", "results", "rendered", "config")

    def __init__(self, items: list, results: list, rendered: list, config: config_mod.FunctionConfig):
        self.items = items
        self.results = results
        self.rendered = rendered  # list[Rendered]
        self.config = config

    @property
    def errors(self) -> int:
        return sum(1 for r in self.results if r.get("severity") == ERROR)

    @property
    def warnings(self) -> int:
        return sum(1 for r in self.results if r.get("severity") == WARNING)

    @property
    def exit_code(self) -> int:
        return 1 if self.errors else 0

    def summary(self) -> str:
        jobs = len(self.rendered)
        done = sum(1 for r in self.rendered if r.objects)
        objs = sum(len(r.objects) for r in self.rendered)
        verb = "validated" if self.config.mode == "validate" else f"rendered {done} of"
        state = "FAILED" if self.errors else "ok"
        return (
            f"expand-trainjobs: {state}: {self.errors} error(s), {self.warnings} warning(s); "
            f"{verb} {jobs} TrainJob(s)" + ("" if self.config.mode == "validate" else f" into {objs} object(s)")
        )


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


def _structure_problems(item, i: int) -> list:
    """What makes an item unusable as input (errors: passed through, never read further)."""
    if not isinstance(item, dict):
        found = _YAML_TYPES.get(type(item), type(item).__name__)
        return [Problem(f"not an object (found {found}); it is passed through unchanged", f"items[{i}]")]
    missing = [k for k in ("apiVersion", "kind") if not isinstance(item.get(k), str) or not item.get(k)]
    if missing:
        return [Problem(f"items[{i}] has no {' or '.join(missing)}; it is passed through unchanged", missing[0], subject=item)]
    kind, group = item["kind"], res.api_group(item)
    if group == res.TRAINER_GROUP and kind not in _TRAINER_KINDS:
        near = [k for k in _TRAINER_KINDS if k.lower() == kind.lower()]
        if near:
            return [Problem(f'unknown kind "{kind}" (did you mean "{near[0]}"?); it is passed through unchanged', "kind", subject=item)]
        return [Problem(f'kind "{kind}" is not a Kubeflow Trainer v2.3.0 kind; it is passed through unchanged', "kind", severity=WARNING, subject=item)]
    if kind in _TRAINER_KINDS and group in (res.TRAINER_GROUP, "kubeflow.org"):
        # Another version would be read as v1alpha1 field by field, and silently rendered wrong.
        if item["apiVersion"] not in (res.TRAINER_API_VERSION, *legacy.LEGACY_API_VERSIONS):
            also = f" (and converts {', '.join(legacy.LEGACY_API_VERSIONS)})"
            return [
                Problem(
                    f'unsupported apiVersion "{item["apiVersion"]}" for {kind}: this function reads '
                    f"{res.TRAINER_API_VERSION} of Kubeflow Trainer v2.3.0{also}; it is passed through unchanged",
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


class _Checks:
    """Validation with per-object memo, so a runtime shared by many TrainJobs is checked once."""

    def __init__(self):
        self._runtime_memo: dict[int, tuple] = {}

    @staticmethod
    def object(obj: dict) -> list:
        return validation.check_object(obj)

    def runtime(self, runtime: dict, label: str) -> tuple[dict, list, bool]:
        """(converted runtime, problems, invalid) — problems reported once per runtime; `invalid`
        every time, so a second TrainJob of a broken runtime is not rendered either."""
        memo = self._runtime_memo.get(id(runtime))
        if memo is not None:
            return memo[0], [], memo[2]
        problems: list = []
        converted, conv = legacy.convert_runtime(runtime)
        converted = numbers.whole_numbers(converted)  # `2.0` in an integer field is 2, as for the API server
        problems += conv
        if label != resolve.CATALOG:
            problems += self.object(converted)
            problems += validation.check_runtime_webhook(converted)
        problems = [p if p.subject is not None else p.replace(subject=runtime) for p in problems]
        invalid = any(p.severity == ERROR for p in problems)
        # The runtime itself is kept in the memo so that its id() cannot be reused while memoised.
        self._runtime_memo[id(runtime)] = (converted, runtime, invalid)
        return converted, problems, invalid


def _fingerprint(obj: dict) -> tuple:
    """Stands for a generated object in the check that two TrainJobs render the same object
    identically, once the object itself is frozen (equal for equal objects, whatever their key order)."""
    text = json.dumps(obj, sort_keys=True, default=repr, ensure_ascii=False)
    return len(text), hash(text)


def _place(entry: Rendered, items: list, placement, results: list, freeze) -> None:
    """Place one TrainJob's objects (unless validating) and, with `freeze`, let go of their data."""
    placed = placement.add(entry, results, freeze) if placement is not None else None
    if freeze is None:
        return
    entry.trainjob = None
    # What the summary counts: the placed (frozen) objects; nothing to hold on to when validating.
    entry.objects = placed if placed is not None else [None] * len(entry.objects)
    if entry.position is not None:
        frozen = freeze(entry.origin)
        items[entry.position] = frozen
        if placement is not None:
            placement.out[entry.position] = frozen
        entry.origin = frozen


def run(
    items: list, function_config, *, base_dir: str = ".", default_namespace: str = "", freeze=None, reader=None,
    kustomization_root: str | None = None,
) -> Outcome:
    """Expand the TrainJobs among `items` (and the config's) into the output items and results.

    `freeze` (e.g. yamlio.freeze), when given, is applied to every output object as soon as nothing
    needs it as data any more -- each generated object right after its TrainJob is placed, and each
    TrainJob item of `items` once processed (replaced *in* `items`) -- so that a caller that only
    writes the output never holds all of it as dicts. Runtimes and other items stay data. Without it
    (in-process callers, plain modes) everything stays data.

    `reader` (a sources.Reader) reads `files` and `runtimeDirs`; by default one confined to `base_dir`.

    `kustomization_root`: set when running as a kustomize generator, whose kustomization renames the
    generated objects afterwards (kpt_fn.kustomize_names)."""
    cfg, problems_cfg = config_mod.parse(function_config)
    namespace = cfg.namespace or default_namespace
    results = [output.result(p, None) for p in problems_cfg]
    checks = _Checks()

    problems_items: list = []
    inputs: list[tuple[int | None, dict]] = []
    unusable: set[int] = set()
    for i, item in enumerate(items):
        structural = _structure_problems(item, i)
        problems_items += structural
        if any(p.severity == ERROR for p in structural):
            unusable.add(i)
            continue
        if config_mod.is_config_object(item):
            continue
        if res.is_trainjob(item):
            inputs.append((i, item))
        problems_items += sources.trainjobs_in_list(item)

    if reader is None:
        reader = sources.Reader.from_env(base_dir, os.environ)
    extra, extra_problems = reader.read_files(cfg.files, cfg.limits)
    extra += [o for o in cfg.trainJobs]
    inputs += [(None, o) for o in extra if isinstance(o, dict) and res.is_trainjob(o)]
    renames = None
    if kustomization_root is not None and any(p is None for p, _ in inputs):
        renames, rename_problems = kustomize_names.generator_renames(kustomization_root, lambda p: sources.load_file(p, cfg.limits))
        extra_problems += [pr.replace(subject=cfg.source) if pr.subject is None else pr for pr in rename_problems]

    dir_runtimes, dir_problems = resolve.read_runtime_dirs(cfg.runtimeDirs, reader, cfg.limits)
    index_items = [it for i, it in enumerate(items) if i not in unusable] + [o for o in extra if isinstance(o, dict)]
    index = resolve.build_index(index_items, dir_runtimes, namespace, cfg.builtinRuntimes)
    del index_items  # the index keeps the runtimes; the TrainJobs must be free to go once processed
    results += [output.result(p, None) for p in problems_items + extra_problems + dir_problems + index.problems]

    opts = engine_options(cfg)
    queues, queue_problems = kueue.parse_queues(cfg.kueueQueues)
    results += [output.result(Problem(m, "spec.kueueQueues", subject=cfg.source), None) for m in queue_problems]
    quotas = kueue.Quotas(items) if cfg.profile == kueue.KUEUE else None
    from kpt_fn.engine import secrets  # the secret policy owns what its options may be

    results += [output.result(Problem(m, "spec", subject=cfg.source), None) for m in secrets.check_options(opts)]
    rendered: list[Rendered] = []
    # generated identity -> (TrainJob that generated it, the object or, once frozen, its fingerprint)
    owners: dict[tuple, tuple] = {}
    seen_trainjobs: dict[tuple, str] = {}  # (namespace, name) -> file of the first TrainJob item
    placement = None if cfg.mode == "validate" else output.Placement(items)
    place_results: list = []  # "updated ..." results, after every TrainJob's own (as place() gives them)
    collect = not gc.isenabled()
    for k, (position, original) in enumerate(inputs):
        inputs[k] = None  # a processed TrainJob is held by `items` alone (and frozen there, if asked)
        try:
            tj_problems: list = []
            trainjob, conv = legacy.convert_trainjob(original)
            trainjob = numbers.whole_numbers(trainjob)  # `2.0` in an integer field is 2, as for the API server
            tj_problems += conv
            if namespace and not res.namespace(trainjob):
                trainjob = {**trainjob, "metadata": {**res.metadata(trainjob), "namespace": namespace}}
            entry = Rendered(trainjob, position, original)
            rendered.append(entry)
            key = (res.namespace(trainjob) or "", res.name(trainjob))
            where = seen_trainjobs.get(key)
            if where is None:
                seen_trainjobs[key] = res.file_path(original) or ""
            else:
                tj_problems.append(Problem(
                    f"{res.display(trainjob)} is defined more than once" + (f" (first in {where})" if where else "")
                    + "; only the first definition is rendered",
                    "metadata.name",
                ))
            tj_problems += checks.object(trainjob)
            runtime = None
            if not any(p.severity == ERROR for p in tj_problems):
                found, label, resolve_problems = resolve.resolve(trainjob, index, namespace)
                tj_problems += resolve_problems
                if found is not None:
                    runtime, runtime_problems, invalid = checks.runtime(found, label)
                    entry.runtime = runtime
                    results += [output.result(p, original) for p in runtime_problems]
                    if invalid:
                        tj_problems.append(Problem(f"{res.display(found)} is invalid (see its errors); TrainJob not rendered", "spec.runtimeRef"))
                        runtime = None
            if runtime is not None and not any(p.severity == ERROR for p in tj_problems):
                # expand runs the admission checks itself and stops on their errors. validate mode
                # expands too, so that what would be generated is checked, but places nothing.
                renamer = renames if position is None else None  # kustomize renames what a generator emits
                rendered_tj = trainjob if renamer is None else renamer.trainjob(trainjob)
                expansion = engine.expand(kueue.engine_view(rendered_tj, cfg.profile), runtime, opts)
                tj_problems += kueue.engine_problems(expansion.problems, cfg.profile)
                objects, profile_problems = kueue.prepare(rendered_tj, expansion.objects, cfg.profile, queues)
                tj_problems += profile_problems
                generated_problems = []
                for obj in objects:
                    generated_problems += checks.object(obj)
                    if obj.get("kind") == "JobSet":
                        generated_problems += validation.check_jobset_webhook(obj)
                        generated_problems += kueue.check_tas(obj)
                        if quotas:
                            queue, _ = kueue.queue_for(trainjob, queues)
                            generated_problems += kueue.quota_problems(trainjob, obj, quotas, queue or "")
                    other = owners.get(res.identity(obj))
                    if other is not None and other[1] != (obj if freeze is None else _fingerprint(obj)):
                        generated_problems.append(
                            Problem(f"{res.display(obj)} would also be generated by {other[0]}: two TrainJobs cannot render the same object", "metadata.name")
                        )
                generated_problems += policy.check(trainjob, runtime, objects, cfg.policy)
                tj_problems += generated_problems
                if renamer is not None:
                    tj_problems += renamer.check(objects, trainjob)
                if not any(p.severity == ERROR for p in tj_problems):
                    # An identical object from two TrainJobs (a Secret shared by name) is emitted once.
                    entry.objects = [o for o in objects if owners.get(res.identity(o)) is None]
                    for obj in entry.objects:
                        owners[res.identity(obj)] = (res.display(original), obj if freeze is None else _fingerprint(obj))
                    if renamer is not None:
                        entry.objects = renamer.restore(entry.objects)
            results += [output.result(p, original) for p in tj_problems]
        except Exception as exc:  # a bug of ours costs this TrainJob its output, not the whole package
            if os.environ.get(DEBUG_ENV, "") not in ("", "0", "false"):
                raise
            if rendered and rendered[-1].origin is original:
                rendered[-1].objects = []
            message = (
                f"internal error: {type(exc).__name__}: {exc}; this TrainJob is not rendered "
                f"(set {DEBUG_ENV}=1 for a traceback)"
            )
            results.append(output.result(Problem(message), original))
        if rendered and rendered[-1].origin is original:
            _place(rendered[-1], items, placement, place_results, freeze)
        if collect:
            # What the engine made for this TrainJob holds reference cycles (a PodSet and its lazy
            # endpoints): with the cyclic collector off (the CLI), only this frees them. Young objects
            # only: the TrainJob's own, and once the items parsed before the loop.
            gc.collect(0)

    results += place_results
    out_items = items if placement is None else placement.finish(results)
    outcome = Outcome(out_items, results, rendered, cfg)
    outcome.results.append(output.summary_result(outcome.summary()))
    return outcome
