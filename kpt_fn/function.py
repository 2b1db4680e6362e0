"""The function as a filter: input items and a functionConfig in, output items and results out.

The data path (docs/architecture.md draws it): the config, parsed once at the door (config.Parsed)
→ triage of the items (intake) → the files and runtime directories the config names (sources) → the
runtime index (resolve) → the output profile, chosen once (profiles) → for each TrainJob: convert
legacy shapes, validate it and its runtime, resolve, expand through the profile's hooks (engine,
plugins, lifecycle), check what was generated, place it among the items (output) → results. Nothing
here reads stdin, stdout or the environment (the CLI passes `env` in); the only I/O is reading the
files the config names, through a sources.Reader.
"""

from __future__ import annotations

import json
import marshal
from collections import namedtuple

from kpt_fn import config as config_mod
from kpt_fn import engine, intake, kustomize_names, convert, numbers, output, profiles, rerun, resolve, sources, upstream, validation
from kpt_fn import resource as res
from kpt_fn import results as results_mod
from kpt_fn.validation import admitted
from kpt_fn.lifecycle import render as lifecycle
from kpt_fn.problems import ERROR, INFO, WARNING, Problem, has_errors, Rule
from kpt_fn.blame import Blame
from kpt_fn.results import Result, from_problem
from kpt_fn.trainer_names import DEBUG_ENV, debugging

# The rules of the run itself (`expand-trainjobs rules`).
RULE_INTERNAL = "internal/error"
RULE_DUPLICATE_TRAINJOB = "input/duplicate-trainjob"
RULE_GENERATED_TWICE = "output/generated-twice"
RULE_RUNTIME_INVALID = "input/runtime-invalid"
RULES = [
    Rule(RULE_INTERNAL, "TrainJob", "an internal error of the function (a bug: the TrainJob is not rendered)"),
    Rule(RULE_DUPLICATE_TRAINJOB, "TrainJob", "a TrainJob is defined once per app and namespace"),
    Rule(RULE_GENERATED_TWICE, "JobSet, PodGroup, ConfigMap, Secret", "no two TrainJobs render the same object"),
    Rule(RULE_RUNTIME_INVALID, "TrainJob", "the runtime a TrainJob names is valid (its own errors say why)"),
]



# Plain classes: creating dataclasses cost a noticeable part of start-up.
class Rendered:
    """One TrainJob's journey: where it sits in the items, and what came of it."""

    __slots__ = ("position", "origin", "objects", "runtime", "name", "results", "namespace")

    def __init__(self, position: int | None, origin: dict, objects: list | None = None):
        self.position = position  # index among the input items; None for TrainJobs given in the config
        self.origin = origin  # the item as the user wrote it (for file/identity in results)
        self.objects = [] if objects is None else objects
        self.runtime = None  # the runtime it was expanded against (as converted), for reports
        # The TrainJob's name where its objects go (a kustomize generator's kustomization renames it
        # afterwards); None: the name it has. Generated objects name it (output.MARKER).
        self.name = None
        self.results: list = []  # this TrainJob's own results (kpt_fn.review shows them per TrainJob)
        # The namespace it renders into: its own, else the run's (the config's, Argo CD's destination);
        # what every output names, not the "" of a TrainJob written without one.
        self.namespace = ""


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

    @property
    def summary(self) -> results_mod.Summary:
        """The outcome in one line (results.Summary: whether it is ok, and what it says), from the
        results and TrainJobs as they are now."""
        jobs = len(self.rendered)
        done = sum(1 for r in self.rendered if r.objects)
        objs = sum(len(r.objects) for r in self.rendered)
        ok = not self.errors
        counts = f"{self.errors} error(s), {self.warnings} warning(s)"
        if self.config.mode == "validate":
            return results_mod.Summary(ok, f"{counts}; validated {jobs} TrainJob(s)")
        if not ok:  # every client drops the whole output of a failed run: say so, not "rendered"
            return results_mod.Summary(False, f"{counts}; nothing written: an error fails the whole run "
                                              f"({done} of {jobs} TrainJob(s) rendered into {objs} object(s))")
        return results_mod.Summary(True, f"{counts}; rendered {done} of {jobs} TrainJob(s) into {objs} object(s)")

    def krm_results(self) -> list:
        """The results of the output ResourceList (wire format), the summary last."""
        return results_mod.krm(self.final_results + [Result(str(self.summary), INFO)])


class _Checks:
    """Validation with per-object memo, so a runtime shared by many TrainJobs is checked once."""

    def __init__(self, bundle: upstream.Bundle):
        self._runtime_memo: dict[int, tuple] = {}
        self._forms: dict[int, tuple] = {}
        self.bundle = bundle

    def runtime_form(self, runtime: dict, opts) -> dict:
        """engine.runtime_form of a converted runtime, once per runtime of the run (all TrainJobs of a
        repository share a handful of runtimes); never mutated: each render copies its template spec
        (engine._writable), the one part a render writes into."""
        found = self._forms.get(id(runtime))
        if found is None:
            # The runtime itself is kept so that its id() cannot be reused while memoised.
            found = self._forms[id(runtime)] = (engine.runtime_form(runtime, opts), runtime)
        return found[0]

    def object(self, obj: dict) -> list:
        return validation.check_object(obj, self.bundle)

    def runtime(self, runtime: dict, label: str) -> tuple[dict, list, bool]:
        """(converted runtime, problems, invalid) — problems reported once per runtime; `invalid`
        every time, so a second TrainJob of a broken runtime is not rendered either."""
        memo = self._runtime_memo.get(id(runtime))
        if memo is not None:
            return memo[0], [], memo[2]
        problems: list = []
        converted, conv = convert.convert_runtime(runtime, self.bundle)
        converted = numbers.whole_numbers(converted, self.bundle)  # `2.0` in an integer field is 2, as for the API server
        problems += conv
        if label != resolve.CATALOG:
            problems += self.object(converted)
            problems += validation.check_runtime_webhook(converted, self.bundle)
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
        form = self.runtime_form(memo[0], opts)
        return [p for p in engine.admission(trainjob, memo[0], opts, form) if p.severity == ERROR and p.subject is None]


def _fingerprint(obj: dict) -> tuple:
    """Stands for a generated object in the check that two TrainJobs render the same object
    identically: equal for objects equal in content and in key order (the order they are written in).
    marshal's format 2 writes plain data as it is (no back-references, so how strings happen to be
    shared does not count), several times faster than a JSON text; anything else goes through JSON."""
    try:
        text = marshal.dumps(obj, 2)
    except ValueError:  # not plain data
        text = json.dumps(obj, default=repr, ensure_ascii=False)
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
        self.checks = _Checks(opts.bundle)  # the release the door picked (run below)
        # generated identity -> (TrainJob that generated it, the object: itself while the run holds
        # its output as data, its fingerprint where the run lets it go as text; see `same`)
        self.owners: dict[tuple, tuple] = {}
        self.seen_trainjobs: dict[tuple, str] = {}  # (namespace, name) -> file of the first TrainJob item
        # kpt_fn.admission's (Inputs, users) when the run has ValidatingAdmissionPolicies, else None
        self.admission = None

    def own(self, obj: dict, trainjob: dict) -> None:
        """Record `obj` as generated by `trainjob`. Only where two TrainJobs meet (an identity
        generated twice) are the two compared: a run that keeps its output as data (no `freeze`)
        keeps the object itself and fingerprints nothing unless they meet; a run that freezes it
        to text right after its TrainJob can only keep its fingerprint, taken now."""
        kept = obj if self.freeze is None else _fingerprint(obj)
        self.owners[res.identity(obj)] = (res.display(trainjob), kept)

    def same(self, identity: tuple, obj: dict) -> bool:
        """Whether `obj` is what another TrainJob already rendered under `identity`, identically."""
        who, kept = self.owners[identity]
        if type(kept) is not tuple:
            kept = _fingerprint(kept)
            self.owners[identity] = (who, kept)  # a Secret shared by many TrainJobs: fingerprinted once
        return kept == _fingerprint(obj)


def expand_through(profile, trainjob: dict, runtime: dict, opts, form: dict | None = None) -> engine.Expansion:
    """The engine's expansion of `trainjob` under the output profile: the TrainJob as the profile has
    the engine see it (before_engine), then, after the engine's own problems, the profile's notes on
    what its cluster does that the objects do not carry (unrendered). Each run's TrainJobs go through
    here, and so does the engine's golden harness (tests/support/golden_engine.py)."""
    seen = profile.before_engine(trainjob)
    expansion = engine.expand(seen, runtime, opts, form)
    notes = profile.unrendered(seen, expansion.objects)
    return engine.Expansion(expansion.objects, expansion.problems + notes) if notes else expansion


def _render_one(entry: Rendered, step: _Step) -> list:
    """The results of one TrainJob: converted, checked, resolved, expanded (with the output
    profile), and its objects checked. Sets the entry's objects (none when anything on the way is
    an error), the runtime it resolved to (as converted) and the name its objects are generated under."""
    original, position = entry.origin, entry.position
    results: list = []
    trainjob, problems = convert.convert_trainjob(original, step.checks.bundle)
    problems = list(problems)
    trainjob = numbers.whole_numbers(trainjob, step.checks.bundle)  # `2.0` in an integer field is 2, as for the API server
    if step.namespace and not res.namespace(trainjob):
        trainjob = {**trainjob, "metadata": {**res.metadata(trainjob), "namespace": step.namespace}}
    entry.namespace = res.namespace(trainjob) if isinstance(res.namespace(trainjob), str) else ""
    key = (res.namespace(trainjob) or "", res.name(trainjob))
    where = step.seen_trainjobs.get(key)
    if where is None:
        step.seen_trainjobs[key] = res.file_path(original) or ""
    else:
        problems.append(Problem(
            f"{res.display(trainjob)} is defined more than once" + (f" (first in {where})" if where else "")
            + "; only the first definition is rendered",
            "metadata.name", rule=RULE_DUPLICATE_TRAINJOB
        ))
    problems += step.checks.object(trainjob) + admitted.trainjob_warnings(trainjob, step.checks.bundle)
    runtime = None
    if not has_errors(problems):
        found, label, resolve_problems = resolve.resolve(trainjob, step.index, step.namespace)
        problems += resolve_problems
        if found is not None:
            runtime, runtime_problems, invalid = step.checks.runtime(found, label)
            entry.runtime = runtime
            results += [from_problem(p, original) for p in runtime_problems]
            if invalid:
                problems.append(Problem(f"{res.display(found)} is invalid (see its errors); TrainJob not rendered", "spec.runtimeRef", rule=RULE_RUNTIME_INVALID))
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
            lambda tj: expand_through(step.profile, tj, runtime, step.opts, step.checks.runtime_form(runtime, step.opts)))
        generated, profile_problems = step.profile.after_engine(rendered_tj, expansion.objects, expansion.problems)
        generated = lifecycle.finish(generated, step.profile.created, step.checks.bundle)  # JobSets in their created form (docs/lifecycle.md)
        problems += profile_problems
        problems += _generated_problems(trainjob, runtime, generated, step, label)
        if renamer is not None:
            problems += renamer.check(generated, trainjob)
        problems += step.placement.conflicts(generated if renamer is None else renamer.restore(generated))
        if not has_errors(problems):
            # An identical object from two TrainJobs (a Secret shared by name) is emitted once.
            objects = [o for o in generated if res.identity(o) not in step.owners]
            for obj in objects:
                step.own(obj, original)
            if renamer is not None:
                objects = renamer.restore(objects)
    results += [from_problem(p, original) for p in problems]
    entry.objects = objects
    return results


# The input kinds that the run puts into its namespace when they name none (output.Placement): a
# result about one names that namespace, as the objects rendered from them do.
_PLACED_KINDS = frozenset({"TrainJob", "TrainingRuntime"})


def _in_namespace(results: list, namespace: str) -> None:
    """Each result about a TrainJob or TrainingRuntime written without a namespace names the one the
    run renders it into (`TrainJob team-b/llm-finetune`), in every output (issue 32, point 3)."""
    if not namespace:
        return
    for r in results:
        ref = r.resource
        if isinstance(ref, dict) and not ref.get("namespace") and ref.get("kind") in _PLACED_KINDS:
            r.resource = {**ref, "namespace": namespace}


def _generated_problems(trainjob: dict, runtime: dict, objects: list, step: _Step, source: str = "") -> list:
    """What is wrong with one TrainJob's generated objects: their own checks (and the output
    profile's), an object another TrainJob renders differently, the platform's policy."""
    problems = []
    for obj in objects:
        problems += step.checks.object(obj)
        if obj.get("kind") == "JobSet":
            problems += validation.check_jobset_webhook(obj, step.checks.bundle)
            problems += rerun.check(obj, trainjob, runtime, step.cfg.mode, step.checks.bundle)
            blame = Blame(trainjob, runtime)
            problems += validation.check_job_templates(obj, blame)
            problems += step.profile.check(trainjob, obj, blame)
        identity = res.identity(obj)
        if identity in step.owners and not step.same(identity, obj):
            problems.append(
                Problem(f"{res.display(obj)} would also be generated by {step.owners[identity][0]}: two TrainJobs cannot render the same object", "metadata.name", rule=RULE_GENERATED_TWICE)
            )
    if step.admission is not None:
        problems += _admission_problems(trainjob, runtime, objects, step)
    if not step.cfg.policy:
        return problems
    from kpt_fn import policy  # only a run with a policy section needs the module (and workload's)

    return problems + policy.check(trainjob, runtime, objects, step.cfg.policy, source)


def _admission_problems(trainjob: dict, runtime: dict, objects: list, step: _Step) -> list:
    """The cluster's ValidatingAdmissionPolicies on everything created for the TrainJob, which they
    see as the API server has admitted it: defaulted, without the clients' annotations."""
    from kpt_fn.admission import check  # only a run with policies imports kpt_fn.admission
    from kpt_fn.engine.defaults import default_trainjob

    inputs, users = step.admission
    admitted = default_trainjob(res.without_client_annotations(trainjob), step.checks.bundle)
    created = [res.without_client_annotations(o) for o in objects]
    return check.check(admitted, runtime, created, inputs, users)


def _admission_inputs(items: list, unusable: set, cfg, reader) -> tuple:
    """((kpt_fn.admission Inputs, users), problems) of a run with policies among its items or
    policyDirs: read before the loop, while every item is still data."""
    from kpt_fn.admission import children, inputs

    found, problems = inputs.read([it for i, it in enumerate(items) if i not in unusable], cfg.policyDirs, reader, cfg.limits)
    users, errors = children.parse_users(cfg.admissionUsers)
    problems += [Problem(e, "spec.admissionUsers", subject=cfg.source, rule=config_mod.RULE_INVALID) for e in errors]
    return (found, users), problems


def _internal_error(exc: Exception, env, secret: str = "") -> Problem:
    if debugging(env):
        raise exc
    text = str(exc)
    if secret and secret in text:  # a bug's message may quote anything it held, the seed included
        text = text.replace(secret, "<redacted>")
    return Problem(
        f"internal error: {type(exc).__name__}: {text}; this TrainJob is not rendered (set {DEBUG_ENV}=1 for a traceback)", rule=RULE_INTERNAL
    )


def _place(entry: Rendered, items: list, placement, results: list, freeze) -> None:
    """Place one TrainJob's objects (unless validating) and, with `freeze`, let go of their data."""
    placed = placement.add(entry, results, freeze) if placement is not None else None
    if freeze is None:
        return
    # The summary counts them; their text belongs to the output (nothing is held when validating).
    entry.objects = [None] * len(entry.objects if placed is None else placed)
    if entry.position is not None:
        frozen = freeze(entry.origin)
        items[entry.position] = frozen
        if placement is not None:
            placement.out[entry.position] = frozen
        entry.origin = frozen


# A collections.namedtuple, not typing.NamedTuple: typing and its class machinery cost about 4 ms of
# every start-up (a fifth of a one-TrainJob Argo CD render's own work; docs/benchmarks.md, run 19).
class Door(namedtuple("Door", "base_dir default_namespace reader kustomization_root returns_inputs env freeze emit report",
                      defaults=(".", "", None, None, True, None, None, None, None))):
    """What the door that runs the function hands it besides the items and the parsed config: kyaml's
    split of a KRM function into its reader/writer (the door: cli/krm.py, cli/plain.py, generated.py)
    and its processor (run). Each door builds one; in-process callers and tests take the default.

    `base_dir`: the directory relative paths of the config are read from. `default_namespace`: the
    namespace of objects that name none when the config names none (Argo CD's application namespace).
    `reader` (a sources.Reader) reads `files` and `runtimeDirs`; by default one confined to
    `base_dir`. `kustomization_root`: set when running as a kustomize generator, whose kustomization
    renames the generated objects afterwards (kpt_fn.kustomize_names). `returns_inputs`: the caller
    gives the input items back (KRM mode, kustomize transformer), so TrainJobs and runtimes not marked
    local-config would reach the cluster (a warning each). `env`: the environment the command line
    passes in (DEBUG_ENV, and the default reader's EXPAND_TRAINJOBS_EXTRA_ROOTS); none by default.

    `freeze` (e.g. yamlio.freeze), when given, is applied to every output object as soon as nothing
    needs it as data any more -- each generated object right after its TrainJob is placed, and each
    TrainJob item of `items` once processed (replaced *in* `items`) -- so that a caller that only
    writes the output never holds all of it as dicts. Runtimes and other items stay data. Without it
    (in-process callers, plain modes) everything stays data. `emit` (with `freeze`, when rendering):
    called with the output items that are final, in order, as soon as they are (after a TrainJob,
    everything before the next one; output.Placement.release), so that a caller writing them out at
    once never holds the whole output; Outcome.items is then the rest. `report` (render mode only): a
    function of the run's Outcome (before its items are final) giving (object, marker, file, option)
    of the review report to place among the items (kpt_fn.cli.krm.report_placement;
    output.Placement.own)."""

    __slots__ = ()


def run(items: list, parsed: config_mod.Parsed, door: Door = Door()) -> Outcome:
    """Expand the TrainJobs among `items` (and the config's) into the output items and results.

    `parsed`: the functionConfig as parsed at the door (config.parse's Parsed: the caller parses it
    once, for its own limits and for this run); anything else is a TypeError, never parsed a second
    time here. `door`: what the caller hands the run (Door).

    The cyclic garbage collector is the caller's choice (the CLI turns it off for its one short
    run): a render leaves no reference cycles, so reference counting frees each TrainJob's data as
    soon as the loop lets it go (tests/behaviour/test_acyclic_render.py)."""
    base_dir, default_namespace, reader, kustomization_root, returns_inputs, env, freeze, emit, report = door
    env = {} if env is None else env
    if not isinstance(parsed, config_mod.Parsed):
        raise TypeError(f"function.run takes the functionConfig parsed at the door (config.parse), not {type(parsed).__name__}")
    cfg, config_problems = parsed
    namespace = cfg.namespace or default_namespace
    bundle = upstream.bundle(cfg.trainerVersion)  # the Trainer release everything below follows
    inputs, unusable, item_problems = intake.survey(items, bundle)
    item_problems += intake.unused_configs(items, unusable, cfg.source, returns_inputs)
    if reader is None:
        reader = sources.Reader.from_env(base_dir, env)
    extra, extra_problems = reader.read_files(cfg.files, cfg.limits)
    extra += [o for o in cfg.trainJobs]
    extra_problems += [p.replace(subject=cfg.source) for p in intake.not_emitted(extra, items)]
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
    opts = engine.EngineOptions(cfg, bundle=bundle)
    profile, option_problems = profiles.select(cfg, items)  # before items are frozen
    from kpt_fn.engine import secrets  # the secret policy owns what its options may be

    # the option's field in the functionConfig: data.<key> of a ConfigMap, spec.<key> of an ExpandTrainJobs
    prefix = "data" if isinstance(cfg.source, dict) and cfg.source.get("kind") == "ConfigMap" else "spec"
    option_problems += [Problem(m, f"{prefix}.{key}", subject=cfg.source, rule=config_mod.RULE_INVALID) for m, key in secrets.check_options(opts)]
    results = [from_problem(p) for p in config_problems + item_problems + extra_problems + dir_problems
               + index.problems + option_problems]

    placement = output.Placement(items, namespace)  # validate mode asks it about conflicts only
    step = _Step(cfg, index, namespace, opts, profile, renames, placement, freeze)
    if cfg.policyDirs or any(intake.is_admission_policy(it) for it in items):
        step.admission, admission_problems = _admission_inputs(items, unusable, cfg, reader)
        results += [from_problem(p) for p in admission_problems]
    rendered: list[Rendered] = []
    place_results: list = []  # "updated ..." results, after every TrainJob's own
    # Before the loop: the TrainJob items may be frozen (no longer dicts) once processed.
    reaching = intake.reaching_cluster(items, unusable) if returns_inputs else []
    streaming = emit is not None and freeze is not None and cfg.mode != "validate"
    for k, (position, original) in enumerate(inputs):
        inputs[k] = None  # a processed TrainJob is held by `items` alone (and frozen there, if asked)
        entry = Rendered(position, original)
        rendered.append(entry)
        try:
            found = _render_one(entry, step)
        except Exception as exc:  # a bug of ours costs this TrainJob its output, not the whole package
            found = [from_problem(_internal_error(exc, env, cfg.secretSeed), original)]
        entry.results = found
        results += found
        _place(entry, items, None if cfg.mode == "validate" else placement, place_results, freeze)
        if streaming:
            ready = placement.release(inputs[k + 1][0] if k + 1 < len(inputs) else None)
            if ready:
                emit(ready)

    results = results_mod.merge_per_secret(results) + place_results + reaching
    _in_namespace(results, namespace)
    if cfg.mode == "validate":
        return Outcome(items, results, rendered, cfg)
    if report is not None:  # made of the whole run, stale output included
        results += placement.stale_results()
        results += placement.own(*report(Outcome(None, results, rendered, cfg)))
    return Outcome(placement.finish(results), results, rendered, cfg, placement.stale)
