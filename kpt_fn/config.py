"""The functionConfig: one typed configuration, reachable as a ConfigMap or as kind ExpandTrainJobs.

    apiVersion: fn.kpt.dev/v1alpha1          apiVersion: v1
    kind: ExpandTrainJobs                    kind: ConfigMap
    spec:                                    data:
      namespace: ml                            namespace: ml
      runtimeDirs: [runtimes]                  runtimeDirs: runtimes      # comma-separated
      mode: render                             mode: render

kpt's placeholders (no functionConfig, `{}`, or a ConfigMap `function-input` with no data) mean
"all defaults". Every option is declared once, in OPTIONS (see Option): the parsing here, FunctionConfig,
the command-line flags, the Argo CD plugin parameters and the table in docs/options.md all follow from it.
"""

from __future__ import annotations

import re
from collections import namedtuple

from kpt_fn import quantity, upstream
from kpt_fn.problems import Problem, Rule
from kpt_fn.yamlio import DEFAULT_LIMITS, Limits

# The rules of the functionConfig (`expand-trainjobs rules`).
RULE_INVALID = "config/invalid"
RULE_UNKNOWN_OPTION = "config/unknown-option"
RULES = [
    Rule(RULE_INVALID, "ExpandTrainJobs, ConfigMap", "the functionConfig is one object of a supported kind and each option has a valid value"),
    Rule(RULE_UNKNOWN_OPTION, "ExpandTrainJobs, ConfigMap", "every option and policy setting of the functionConfig is a known one"),
]

CONFIG_API_VERSION = "fn.kpt.dev/v1alpha1"
CONFIG_KIND = "ExpandTrainJobs"

MODES = ("render", "validate")
OUTPUTS = ("generated", "all")
SECRET_POLICIES = ("reference", "generate")
# The output profiles, declared once: each name (a choice of the `profile` option) with the module of
# kpt_fn/profiles/ and the class there that is the profile. kpt_fn.profiles.named loads the one a run
# picks, the way formats.WRITERS names its writers: a new profile is its module and one line here.
PROFILES = {
    "controller": ("controller", "Controller"),
    "kueue": ("kueue", "Kueue"),
}
JOBSET_NAMES = ("trainJob", "contentHash")
REPORTS = ("none", "markdown", "json")


class Option:
    """One option, declared once: everything else is derived from it -- the parsing below,
    FunctionConfig, the command-line flag (kpt_fn.cli.commands), the Argo CD plugin parameter
    (argocd/plugin.yaml) and the table of docs/options.md (both written by scripts/generate.py options)."""

    # A plain class, like FunctionConfig: creating dataclasses cost a noticeable part of start-up.
    __slots__ = ("name", "type", "default", "help", "choices", "maximum", "sensitive", "flag", "flag_help", "argocd",
                 "limit")

    def __init__(self, name: str, type: str, default: object, help: str, choices: tuple = (),
                 maximum: int | None = None, sensitive: bool = False, flag: tuple = (), flag_help: str = "",
                 argocd: str | None = None, limit: str | None = None):
        self.name = name
        self.type = type  # str | bool | int | list | enum | objects
        self.default = default
        self.help = help
        self.choices = choices  # enum: the values accepted (a tuple, or a table keyed by them: PROFILES)
        self.maximum = maximum  # int options: the largest value accepted
        # A sensitive value is never shown: not in an error message, not in a repr, whatever its type.
        self.sensitive = sensitive
        # The flag of `render` and `validate` that sets it (its names, its --help), when it has one.
        self.flag = flag
        self.flag_help = flag_help
        # The title of the Argo CD plugin parameter that sets it, when Argo CD announces one.
        self.argocd = argocd
        # The yamlio.Limits field it sets (FunctionConfig.limits), with that limit's default and maximum.
        self.limit = limit
        if limit is not None:
            self.default, self.maximum = getattr(DEFAULT_LIMITS, limit), LIMIT_MAXIMA[limit]

    def __repr__(self):
        default = "<redacted>" if self.sensitive else repr(self.default)
        return f"Option({self.name!r}, {self.type!r}, {default}, ...)"


# The largest value of each parsing limit (yamlio.Limits field), for the functionConfig options and
# for the EXPAND_TRAINJOBS_MAX_* variables alike (krm.limits_from_env). Beyond these the limit
# protects nothing: the process runs out of memory (or Python's int conversions overflow) first.
LIMIT_MAXIMA = {
    # The text, its decoded copy and the parsed objects are all held at once: several times the input.
    "max_bytes": 1 << 30,
    # libyaml's own nesting limit; nothing deeper can be parsed anyway.
    "max_depth": 1000,
    # Each expanded node costs ~100 bytes wherever the tree is copied or written out.
    "max_nodes": 100_000_000,
    "max_aliases": 1_000_000,
}
_UNIT_NAMES = {1 << 30: "1 GiB"}


def _at_most(maximum: int) -> str:
    """`1073741824 (1 GiB)`: the figure, and its unit name where it has one."""
    return f"{maximum} ({_UNIT_NAMES[maximum]})" if maximum in _UNIT_NAMES else str(maximum)


def _limit_help(field: str) -> str:
    """`at most 1 GiB`, for an option's help: the limit's maximum as a person writes it."""
    return f"at most {_UNIT_NAMES.get(LIMIT_MAXIMA[field], LIMIT_MAXIMA[field])}"


def limit_value(field: str, value) -> tuple[int | None, str | None]:
    """(the limit, None) from `value` (an int, or the text of an environment variable, read as a
    ConfigMap value is), or (None, why it cannot be the `field` limit)."""
    # A limit without its own maximum still gets one that keeps every size computation a machine int.
    return _int_value(value, LIMIT_MAXIMA.get(field, 1 << 62))


def _integer_wanted(minimum: int) -> str:
    return "must be a positive integer" if minimum > 0 else "must be a non-negative integer"


def _int_value(value, maximum: int, minimum: int = 1) -> tuple[int | None, str | None]:
    """(the integer, None) when `value` (an int, or text as strconv.Atoi reads it: kpt_fn/strconv.py)
    is one from `minimum` (1 or 0) to `maximum`, else (None, why). Text is read as it is: " 5" and
    "5\n" are refused, as Go refuses them, not trimmed into a number nobody wrote."""
    what = _integer_wanted(minimum)
    if isinstance(value, str):
        from kpt_fn import strconv  # only for an integer written as text (ConfigMap, variable)

        number, error = strconv.parse_int(value)
        if number is None:
            # beyond int64 is still a number: too large, or (negative) not positive
            why = f"must be at most {_at_most(maximum)}" if error == strconv.RANGE and value[:1] != "-" else what
            return None, why + _trimmed_hint(value, lambda text: strconv.parse_int(text)[0])
        value = number
    if isinstance(value, float) and value.is_integer() and value > maximum:
        # a whole number too large for an int64, which YAML reads as the float Go falls back to
        return None, f"must be at most {_at_most(maximum)}"
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        return None, what
    if value > maximum:
        return None, f"must be at most {_at_most(maximum)}"
    return value, None


OPTIONS = (
    Option("mode", "enum", "render", "`render` expands TrainJobs; `validate` runs every check and generates nothing.", MODES),
    Option("namespace", "str", "", "Namespace for TrainJobs and TrainingRuntimes that have none (CMP mode: defaults to `ARGOCD_APP_NAMESPACE`). Empty: leave it unset.",
           flag=("-n", "--namespace"), flag_help="Namespace for TrainJobs and runtimes that have none (the `namespace` option; wins over the config's).",
           argocd="Namespace for TrainJobs without one (default: the Application's destination namespace)"),
    Option("runtimeDirs", "list", (), "Directories whose YAML files are searched for runtimes after the ResourceList items and before the built-in catalog. Relative paths are relative to the working directory (kustomize and Argo CD: the kustomization / app directory).",
           argocd="Directories (relative to the app path) searched for TrainingRuntimes / ClusterTrainingRuntimes"),
    Option("trainerVersion", "enum", upstream.DEFAULT_RELEASE, "The Kubeflow Trainer release the cluster runs: its controller's behaviour, its admission checks, the schemas of its CRDs (and of the JobSet release it pins) and its built-in runtimes (docs/fidelity.md lists the differences).", upstream.RELEASES,
           flag=("--trainer-version",), flag_help=f"The Kubeflow Trainer release the cluster runs (the `trainerVersion` option; default: the config's, else {upstream.DEFAULT_RELEASE}).",
           argocd=f"The Kubeflow Trainer release the cluster runs: {' or '.join(upstream.RELEASES)}"),
    Option("builtinRuntimes", "bool", True, "Search the built-in catalog of the nine ClusterTrainingRuntimes that the selected Trainer release (`trainerVersion`) ships.",
           argocd="Use the runtimes the selected Trainer release ships when the repo has no runtime of that name"),
    Option("output", "enum", "generated", "Plain modes (`render`, `cmp`, kustomize legacy plugin as generator): `generated` prints generated objects plus the non-Trainer input objects; `all` also prints TrainJobs and runtimes. KRM mode never drops inputs.", OUTPUTS,
           argocd="generated: only what to apply; all: also TrainJobs and runtimes"),
    Option("mpiSSHSecret", "enum", "reference", "MPI SSH key Secret `<trainjob>-mpi-ssh-auth`: `reference` emits none and reports what must exist in the cluster; `generate` writes a key pair derived from `secretSeed` into the output (with a warning).", SECRET_POLICIES),
    Option("fluxCurveSecret", "enum", "reference", "Flux CURVE certificate Secret `<trainjob>-flux-curve`: `reference` or `generate`, as for `mpiSSHSecret`.", SECRET_POLICIES),
    Option("mpiSSHSecretName", "str", "{name}-mpi-ssh-auth", "Name of the MPI SSH Secret; `{name}` is replaced by the TrainJob name. Without `{name}`, all TrainJobs of a namespace share one Secret."),
    Option("fluxCurveSecretName", "str", "{name}-flux-curve", "Name of the Flux CURVE Secret, a template like `mpiSSHSecretName`."),
    Option("secretSeed", "str", "", "Secret seed (at least 16 characters) from which generated key material is derived, so re-renders are byte-identical. Required when a secret policy is `generate`; as sensitive as the keys, so never shown in any message.", sensitive=True),
    Option("knownPriorityClasses", "list", (), "PriorityClass names that exist in the cluster (for the Volcano plugin's check); when empty, that check is skipped with a warning."),
    Option("profile", "enum", "controller", "`controller`: exactly the objects the Trainer controller creates. `kueue`: a JobSet that Kueue's JobSet integration manages in a cluster without the Trainer controller (queue and priority labels, suspended by Kueue's webhook on create, MultiKueue `managedBy`; see docs/kueue.md).", PROFILES),
    Option("kueueQueues", "list", (), "`profile: kueue`: LocalQueue for TrainJobs without the `kueue.x-k8s.io/queue-name` label: `QUEUE` for every namespace, `NAMESPACE=QUEUE` for one. Without either, a LocalQueue named `default` in the TrainJob's namespace among the inputs is used, as Kueue's webhook would assign it."),
    Option("jobSetNames", "enum", "trainJob", "`trainJob`: the JobSet and every object derived from it are named after the TrainJob, as the controller names them. `contentHash`: the TrainJob's name plus a short hash of what is rendered, so that an edit creates a new JobSet (a new run) and the GitOps tool prunes the old one instead of updating a JobSet that cannot change once created (docs/lifecycle.md).", JOBSET_NAMES),
    Option("policy", "policy", (), "Guardrails checked on the rendered pods (`policy/...` rules; see docs/policy.md). In a ConfigMap, one key per setting: `policy.maxGPUsPerTrainJob`."),
    Option("policyDirs", "list", (), "Directories whose YAML files are read for ValidatingAdmissionPolicies, their bindings, their params and Namespaces (docs/admission.md), beside those among the items; confined like `runtimeDirs`. Every object the cluster creates for a TrainJob is judged by them.",
           argocd="Directories (relative to the app path) of ValidatingAdmissionPolicies and bindings to judge the created objects with"),
    Option("admissionUsers", "list", (), "Who creates what, for the `request.userInfo` of the admission policies: `applier=USERNAME` (the rendered objects and the TrainJob; default `system:serviceaccount:argocd:argocd-application-controller`), `jobset-controller=USERNAME` (the Jobs), `job-controller=USERNAME` (the Pods)."),
    Option("strict", "bool", False, "Warnings fail the run: each is reported as an error and the exit status is non-zero. For the routes that drop stderr when the run succeeds (the Argo CD sidecar, kubectl's kustomize exec plugin; docs/clients.md), where a warning is otherwise never seen. The info results that name a Secret to create stay info.",
           flag=("--strict",), flag_help="Warnings fail the run (the `strict` option): for callers that show stderr only on failure.",
           argocd="true: warnings fail the render (Argo CD shows the plugin's stderr only when it fails)"),
    Option("report", "enum", "none", "KRM mode: also write the review report (docs/review.md) among the items, as the local-config ConfigMap `expand-trainjobs-report` in `expand-trainjobs-report.yaml`, replaced on every run.", REPORTS),
    Option("trainJobs", "objects", (), "TrainJobs and runtimes given inline (the kustomize generator form)."),
    Option("files", "list", (), "YAML files or directories read for TrainJobs and runtimes (kustomize generator form; relative to the kustomization directory)."),
    Option("maxInputBytes", "int", None, f"Largest input accepted, in bytes ({_limit_help('max_bytes')}). For files the function reads (runtimeDirs, files, render paths); for the ResourceList on stdin it can only lower the limit (see below).", limit="max_bytes"),
    Option("maxDepth", "int", None, f"Deepest YAML nesting accepted ({_limit_help('max_depth')}; same scope as maxInputBytes).", limit="max_depth"),
    Option("maxAliasNodes", "int", None, f"Most YAML nodes a stream may expand to through aliases, beyond the nodes it holds without them ({_limit_help('max_nodes')}; same scope as maxInputBytes).", limit="max_nodes"),
)
_BY_NAME = {o.name: o for o in OPTIONS}
SENSITIVE = frozenset(o.name for o in OPTIONS if o.sensitive)
# yamlio.Limits field -> the option that sets it, for the limits an option sets
LIMIT_OPTIONS = {o.limit: o.name for o in OPTIONS if o.limit}


# The `policy` section's settings (the `policy` option): one per rule, two for the deadline. Options
# of the functionConfig like the others, parsed by the same _coerce; kpt_fn.policy checks them on
# the rendered pods (docs/policy.md). `count`: an integer from 0; `quantity`: a Kubernetes quantity.
PolicySetting = namedtuple("PolicySetting", "name type rule help choices maximum sensitive",
                           defaults=((), None, False))

POLICY_SETTINGS = {s.name: s for s in (
    PolicySetting("maxGPUsPerTrainJob", "count", "max-gpus-per-trainjob", "Most GPUs (any resource named *gpu*) all pods of a TrainJob may request together."),
    PolicySetting("maxGPUsPerNode", "count", "max-gpus-per-node", "Most GPUs one training node (a pod of the trainer job) may request."),
    PolicySetting("maxGPUsPerPod", "count", "max-gpus-per-pod", "Most GPUs any pod (initializers, launchers included) may request."),
    PolicySetting("maxNodes", "count", "max-nodes", "Most training nodes (pods of the trainer job)."),
    PolicySetting("maxCPUPerTrainJob", "quantity", "max-cpu-per-trainjob", "Most CPU all pods of a TrainJob may request together (a quantity)."),
    PolicySetting("maxMemoryPerTrainJob", "quantity", "max-memory-per-trainjob", "Most memory all pods of a TrainJob may request together (a quantity)."),
    PolicySetting("allowedImagePrefixes", "list", "allowed-images", "Every container image starts with one of these prefixes (e.g. `registry.example.com/`)."),
    PolicySetting("forbidLatestTag", "bool", "no-latest-tag", "Images must carry a tag other than `latest`, or a digest."),
    PolicySetting("allowedRuntimes", "list", "allowed-runtimes", "Runtimes a TrainJob may use, as `NAME` or `KIND/NAME`: the runtime it is expanded against, judged by its own name (or the name a kustomize namePrefix/nameSuffix renamed it from), not by the name the TrainJob writes."),
    PolicySetting("requiredLabels", "list", "required-labels", "Labels every TrainJob must carry (e.g. `kueue.x-k8s.io/queue-name`)."),
    PolicySetting("requireRequests", "bool", "requests-required", "Every container requests cpu and memory."),
    PolicySetting("requireGPULimitsEqualRequests", "bool", "gpu-limits-equal-requests", "GPU requests equal GPU limits in every container."),
    PolicySetting("requireActiveDeadline", "bool", "active-deadline", "Every TrainJob sets spec.activeDeadlineSeconds."),
    PolicySetting("maxActiveDeadlineSeconds", "count", "active-deadline", "spec.activeDeadlineSeconds may not exceed this."),
    PolicySetting("forbidPrivileged", "bool", "no-privileged", "No privileged container (securityContext.privileged)."),
    PolicySetting("forbidHostPath", "bool", "no-host-path", "No hostPath volume."),
    PolicySetting("forbidHostNetwork", "bool", "no-host-network", "No pod with hostNetwork."),
)}


def option(name: str) -> Option:
    return _BY_NAME[name]


class FunctionConfig:
    """The parsed options, immutable and equal by value (`source` aside): one keyword per entry of
    OPTIONS, its default the option's."""

    # The option fields, in OPTIONS order; `source` is where they came from (not compared).
    FIELDS = tuple(o.name for o in OPTIONS)
    __slots__ = FIELDS + ("source",)

    def __init__(self, *, source: object = None, **values):
        unknown = set(values).difference(_BY_NAME)
        if unknown:
            raise TypeError(f"FunctionConfig has no option(s) {', '.join(sorted(unknown))}")
        for o in OPTIONS:
            object.__setattr__(self, o.name, values.get(o.name, o.default))
        object.__setattr__(self, "source", source)

    def __setattr__(self, name, value):
        raise AttributeError(f"FunctionConfig is immutable: cannot set {name}")

    def _key(self) -> tuple:
        return tuple(getattr(self, f) for f in self.FIELDS)

    def __eq__(self, other):
        return self._key() == other._key() if type(other) is FunctionConfig else NotImplemented

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return "FunctionConfig(" + ", ".join(
            f"{f}=" + ("<redacted>" if f in SENSITIVE and getattr(self, f) else repr(getattr(self, f))) for f in self.FIELDS
        ) + ")"

    @property
    def limits(self) -> Limits:
        return Limits(**{field: getattr(self, name) for field, name in LIMIT_OPTIONS.items()})


def is_config_object(obj: dict) -> bool:
    return isinstance(obj, dict) and obj.get("apiVersion") == CONFIG_API_VERSION and obj.get("kind") == CONFIG_KIND


def is_placeholder(fc) -> bool:
    if fc is None or fc == {}:
        return True
    if isinstance(fc, dict) and fc.get("kind") == "ConfigMap" and fc.get("apiVersion") == "v1":
        name = (fc.get("metadata") or {}).get("name")
        return name == "function-input" and not fc.get("data")
    return False


def _split_list(text: str) -> tuple:
    return tuple(x.strip() for x in re.split(r"[,\n]", text) if x.strip())


def _show(value) -> str:
    """A value for a message: its repr, cut short (a 5,000-digit integer cannot even be converted)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return f"an integer of {value.bit_length()} bits"
    text = repr(value)
    return text if len(text) <= 200 else text[:200] + "..."


def _type_name(value) -> str:
    return {str: "a string", bool: "a boolean", int: "an integer", float: "a number", list: "a list",
            dict: "a map", type(None): "null", bytes: "binary data"}.get(type(value), "a value")


def _trimmed_hint(value, parse) -> str:
    """What to change when text a reader refuses would read without the spaces or line breaks around
    it (`maxDepth: "5 "`, a `|` block's trailing line break): Go keeps them, and so do we."""
    if not isinstance(value, str) or value.strip() == value or parse(value.strip()) is None:
        return ""
    return " (remove the spaces or line breaks around it)"


def _coerce(opt: Option, value, path: str, from_configmap: bool):
    """(value, problem) for one option value, strings accepted for every type in a ConfigMap."""
    # A sensitive value is described by its type only: it may be a secret however it is typed.
    shown = f"({_type_name(value)}, not shown: {opt.name} is sensitive)" if opt.sensitive else _show(value)
    bad = lambda why: (None, Problem(f"{why}", path, rule=RULE_INVALID))  # noqa: E731
    if opt.type in ("str",):
        if isinstance(value, str):
            return value, None
        return bad(f"Invalid value: {shown}: must be a string")
    if opt.type == "enum":
        if isinstance(value, str) and value in opt.choices:
            return value, None
        supported = ", ".join(f'"{c}"' for c in opt.choices)
        return bad(f"Unsupported value: {shown}: supported values: {supported}")
    if opt.type == "bool":
        if isinstance(value, bool):
            return value, None
        if from_configmap and isinstance(value, str):
            from kpt_fn import strconv  # only for a boolean written as text

            flag = strconv.parse_bool(value)
            if flag is not None:
                return flag, None
            return bad(f"Invalid value: {shown}: must be true or false (strconv.ParseBool's spellings: "
                       f"{', '.join(strconv.BOOLS)}){_trimmed_hint(value, strconv.parse_bool)}")
        return bad(f"Invalid value: {shown}: must be true or false")
    if opt.type in ("int", "count"):
        minimum = 1 if opt.type == "int" else 0
        if isinstance(value, str) and not from_configmap:
            return bad(f"Invalid value: {shown}: {_integer_wanted(minimum)}")
        number, why = _int_value(value, opt.maximum or 1 << 62, minimum)
        if why:
            return bad(f"Invalid value: {shown}: {why}")
        return number, None
    if opt.type == "list":
        if from_configmap and isinstance(value, str):
            return _split_list(value), None
        if isinstance(value, list) and all(isinstance(x, str) for x in value):
            return tuple(value), None
        return bad(f"Invalid value: {shown}: must be a list of strings")
    if opt.type == "quantity":
        try:
            return quantity.parse(value), None
        except (quantity.QuantityError, TypeError, ValueError) as e:
            return bad(f"Invalid value: {shown}: must be a quantity ({e})")
    if opt.type == "policy":
        settings, problems = _policy_section(value, path, from_configmap)
        if problems:
            return None, problems[0]
        return tuple(sorted(settings.items())), None
    if opt.type == "objects":
        if isinstance(value, list) and all(isinstance(x, dict) for x in value):
            return tuple(value), None
        return bad("Invalid value: must be a list of Kubernetes objects")
    raise AssertionError(opt.type)


def _policy_section(values, path: str, from_configmap: bool) -> tuple[dict, list]:
    """({setting: value}, problems) of the `policy` object (ConfigMap: `policy.<setting>` keys, string
    values)."""
    if not isinstance(values, dict):
        return {}, [Problem("Invalid value: policy must be an object", path, rule=RULE_INVALID)]
    out, problems = {}, []
    for key, value in values.items():
        setting = POLICY_SETTINGS.get(key)
        where = f"{path}.{key}"
        if setting is None:
            problems.append(Problem(f"unknown policy setting {key!r}; known: {', '.join(POLICY_SETTINGS)}", where, rule=RULE_UNKNOWN_OPTION))
            continue
        coerced, problem = _coerce(setting, value, where, from_configmap)
        if problem:
            problems.append(problem)
        else:
            out[key] = coerced
    return out, problems


# What config.parse gives: the options and what is wrong with them, one value handed from the door
# (kpt_fn.cli) to function.run. `config.source` is the functionConfig object itself (None for none).
Parsed = namedtuple("Parsed", "config problems")


def parse(fc) -> Parsed:
    """The FunctionConfig described by a functionConfig object, and what is wrong with it."""
    cfg, problems = _parse(fc)
    if cfg.source is None and isinstance(fc, dict) and not is_placeholder(fc):
        cfg = FunctionConfig(source=fc)  # unusable: the defaults, still naming the object they came from
    return Parsed(cfg, problems)


def _unknown_option(key) -> str:
    """The message for an option that does not exist: the one it most likely meant, else all of them."""
    import difflib  # only on a mistake: difflib costs start-up time

    names = [o.name for o in OPTIONS]
    text = str(key)
    close = [n for n in names if n.lower() == text.lower()] or difflib.get_close_matches(text, names, n=1, cutoff=0.7)
    if close:
        return f"unknown option {key!r}; did you mean {close[0]!r}? (write `{close[0]}:`)"
    return f"unknown option {key!r}; known options: {', '.join(names)}"


def _parse(fc) -> tuple[FunctionConfig, list[Problem]]:
    if is_placeholder(fc):
        return FunctionConfig(), []
    if not isinstance(fc, dict):
        return FunctionConfig(), [Problem("functionConfig must be an object (a ConfigMap or an ExpandTrainJobs)", "", rule=RULE_INVALID)]
    problems: list[Problem] = []
    if fc.get("kind") == "ConfigMap" and fc.get("apiVersion") == "v1":
        values, prefix, from_cm = fc.get("data") or {}, "data", True
        if not isinstance(values, dict):
            return FunctionConfig(), [Problem("Invalid value: data must be a map of strings", "data", subject=fc, rule=RULE_INVALID)]
    elif is_config_object(fc):
        values, prefix, from_cm = fc.get("spec") or {}, "spec", False
        if not isinstance(values, dict):
            return FunctionConfig(), [Problem("Invalid value: spec must be an object", "spec", subject=fc, rule=RULE_INVALID)]
    else:
        return FunctionConfig(), [
            Problem(
                f"unsupported functionConfig {fc.get('apiVersion')}/{fc.get('kind')}: use a v1 ConfigMap or "
                f"{CONFIG_API_VERSION} {CONFIG_KIND}",
                "kind",
                subject=fc, rule=RULE_INVALID
            )
        ]
    settings = {}
    if from_cm and any(isinstance(k, str) and k.startswith("policy.") for k in values):
        # The ConfigMap form of the policy section: one string value per `policy.<setting>` key.
        values = dict(values)
        section = {k[len("policy."):]: values.pop(k) for k in list(values) if isinstance(k, str) and k.startswith("policy.")}
        values["policy"] = section
    for key, value in values.items():
        opt = _BY_NAME.get(key)
        path = f"{prefix}.{key}"
        if opt is None:
            problems.append(Problem(_unknown_option(key), path, subject=fc, rule=RULE_UNKNOWN_OPTION))
            continue
        coerced, problem = _coerce(opt, value, path, from_cm)
        if problem:
            problems.append(problem.replace(subject=fc))
        else:
            settings[key] = coerced
    return FunctionConfig(**settings, source=fc), problems
