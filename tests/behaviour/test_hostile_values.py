"""Hostile values in every entry point that takes user text: a clear error naming what is wrong, or
the value taken where Kubernetes and Go would take it; never an internal error or a traceback.

The entry points, each fed the same hostile values (huge integers, thousands of digits or leading
zeros, digits Go does not read -- superscripts, fullwidth, Devanagari, Arabic-Indic --, NaN, infinity,
1e400, negative zero, empty, NUL and control characters, deep nesting, wrong types, very long text):

* every option of config.OPTIONS and every setting of config.POLICY_SETTINGS, in both functionConfig
  forms (ConfigMap strings, ExpandTrainJobs spec), through KRM mode and the kustomize exec plugin's
  config file;
* the EXPAND_TRAINJOBS_MAX_* variables (krm.LIMIT_SETTINGS) and the Argo CD parameters
  (ARGOCD_APP_PARAMETERS and the PARAM_* variables);
* the paths of `render`, `validate`, `report` and `diff`;
* the TrainJob and runtime fields that are numbers or quantities.

Each property runs a few derandomized examples (the suite stays fast); `FUZZ_EXAMPLES=N` draws N fresh
ones per property, as in test_random_input.py. VALID_UNUSUAL holds values that must keep working.
"""

from __future__ import annotations

import json
import os
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from behaviour.test_hostile_input import check_invariants

from kpt_fn import config, quantity, yamlio
from kpt_fn.cli import krm, modes, plain

FUZZ_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES") or 0)


def _settings(examples: int):
    return settings(
        max_examples=FUZZ_EXAMPLES or examples,
        derandomize=not FUZZ_EXAMPLES,
        deadline=None,
        database=None if not FUZZ_EXAMPLES else settings.default.database,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
    )


# --- the hostile values -------------------------------------------------------------------------------

NON_ASCII_DIGITS = "\u00b9\u00b2\u00b3\u2070\u2074\uff10\uff11\uff19\u0966\u0967\u096f\u0660\u0661\u06f1\U0001d7d9"
HOSTILE_TEXTS = [
    "", " ", "0", "-0", "+1", "-1", "1.5", "1e3", "1e400", "-1e400", "1e-400", "NaN", "nan", "inf", "-Infinity",
    ".inf", ".nan", "0x10", "0o17", "1_000", "\x00", "a\x00b", "\x01\x1b[31m\x7f", "\n", "\t1", "1 ", "\u00b9",
    "\uff11\uff12", "\u0967\u0968", "\u0661\u0662", "1\u00b2", "\U0001d7d9", "true", "yes", "null", "~", "[]", "{}",
    "1Gi", "1Ki", "1E", "500m", "1e999999999", "\u0661Gi", "9" * 19, "9" * 400, "1" * 5000, "0" * 5000 + "1",
    "0" * 5000, "1" * 5000 + "Gi", "x" * 100_000, "\u202e", "\ud7ff", "{{ 1 }}", "$(HOME)",
]
# (no lone surrogates: no UTF-8 file or ResourceList can hold one; test_random_input.py feeds broken bytes)
_chars = st.characters(blacklist_categories=("Cs",))
texts = st.one_of(
    st.sampled_from(HOSTILE_TEXTS),
    st.text(_chars, max_size=12),
    st.text(alphabet="0123456789" + NON_ASCII_DIGITS, min_size=1, max_size=8),
    st.builds(lambda z, d: "0" * z + d, st.integers(0, 6000), st.sampled_from(["", "1", "7", "9" * 30])),
)


def _nested(depth: int, leaf, as_map: bool):
    for _ in range(depth):
        leaf = {"a": leaf} if as_map else [leaf]
    return leaf


values = st.one_of(
    texts,
    st.none(),
    st.booleans(),
    st.sampled_from([0, -0, 1, -1, 2**31, 2**63, 2**64 + 1, 10**400, -(10**400)]),
    st.integers(),
    st.sampled_from([float("nan"), float("inf"), float("-inf"), -0.0, 0.5, 1.0, 1e308, 5e-324]),
    st.lists(texts, max_size=3),
    st.dictionaries(st.text(_chars, max_size=5), texts, max_size=2),
    st.builds(_nested, st.integers(1, 60), texts, st.booleans()),
)

# Values that look odd and must keep working (no false positives): option -> [(ConfigMap text, spec value)].
VALID_UNUSUAL = [
    ("maxDepth", "0000000000000000000000000000007", 7),
    ("maxDepth", "1000", 1000),
    ("maxInputBytes", "1073741824", 1073741824),
    ("maxAliasNodes", "1", 1),
    ("policy.maxNodes", "0", 0),
    ("policy.maxNodes", "0" * 5000 + "3", 3),
    ("policy.maxActiveDeadlineSeconds", "9" * 18, 10**18 - 1),
    ("policy.maxCPUPerTrainJob", "1e3", 1000),
    ("policy.maxCPUPerTrainJob", "+.5e+5", "-0"),
    ("policy.maxCPUPerTrainJob", "0.000000001", 1.5),
    ("policy.maxMemoryPerTrainJob", "1" + "0" * 400 + "Ei", "1Ei"),
    ("policy.maxMemoryPerTrainJob", "1Ki", 1e308),
    ("strict", "TRUE", False),
    # strconv.Atoi and strconv.ParseBool, as Go reads a value written as text (docs/options.md)
    ("maxDepth", "+0007", 7),
    ("policy.maxNodes", "-0", 0),
    ("policy.maxNodes", "+0", 0),
    ("strict", "1", True),
    ("strict", "F", False),
    ("builtinRuntimes", "True", True),
    ("builtinRuntimes", "0", False),
    ("runtimeDirs", " , ,", []),
    ("namespace", "", ""),
]


# --- the properties -------------------------------------------------------------------------------------

TRAINJOB = {
    "apiVersion": "trainer.kubeflow.org/v1alpha1",
    "kind": "TrainJob",
    "metadata": {"name": "t", "namespace": "ml", "annotations": {"config.kubernetes.io/local-config": "true"}},
    "spec": {"runtimeRef": {"name": "torch-distributed"}, "trainer": {"numNodes": 2}},
}
HEAD = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList"}
SETTING_NAMES = [o.name for o in config.OPTIONS if o.type != "policy"] + [f"policy.{s}" for s in config.POLICY_SETTINGS]


def _function_config(name: str, value, form: str) -> dict:
    if form == "configmap":
        return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}, "data": {name: value}}
    spec = {"policy": {name[len("policy."):]: value}} if name.startswith("policy.") else {name: value}
    return {"apiVersion": config.CONFIG_API_VERSION, "kind": config.CONFIG_KIND, "metadata": {"name": "cfg"}, "spec": spec}


def _definition(name: str):
    return config.POLICY_SETTINGS[name[len("policy."):]] if name.startswith("policy.") else config.option(name)


# The oracles, written from Go's source rather than from kpt_fn/strconv.py: strconv.Atoi's syntax
# (strconv/atoi.go: an optional sign, then ASCII digits; nothing around them, no `_` in base 10) and
# strconv.ParseBool's spellings (strconv/atob.go).
_GO_INT = re.compile(r"[+-]?[0-9]+", re.ASCII)
GO_BOOLS = ("1", "t", "T", "TRUE", "true", "True", "0", "f", "F", "FALSE", "false", "False")


def _go_reads_it(definition, value, form: str) -> bool:
    """Whether a value accepted for `definition` is one Go would read as that type: integers only as
    ASCII digits (strconv), quantities only as apimachinery reads them (kpt_fn/quantity.py), nothing
    non-finite."""
    if isinstance(value, float) and value != value or value in (float("inf"), float("-inf")):
        return False
    if definition.type in ("int", "count"):
        if form == "configmap":
            return isinstance(value, str) and _GO_INT.fullmatch(value) is not None
        return type(value) is int
    if definition.type == "quantity":
        try:
            quantity.parse(value)
        except (quantity.QuantityError, TypeError, ValueError):
            return False
        return not isinstance(value, str) or value.isascii()
    if definition.type == "enum":
        return value in definition.choices
    if definition.type == "bool":
        return type(value) is bool or (form == "configmap" and value in GO_BOOLS)
    return True


def _krm(fc) -> tuple[dict, list[str], int]:
    # YAML, not JSON: JSON has no NaN or infinity to hand over
    data = yamlio.dump({**HEAD, "items": [TRAINJOB], "functionConfig": fc}).encode()
    stdout, stderr, code = krm.process(data, base_dir=".", env={})
    return check_invariants(data, stdout, stderr, code), stderr, code


def _check_option(name: str, value, form: str):
    fc = _function_config(name, value, form)
    parsed = config.parse(fc)
    out, stderr, code = _krm(fc)
    prefix = "data" if form == "configmap" else "spec"
    if parsed.problems:
        # refused: an error result on the option's own field of the functionConfig
        assert code == 1
        fields = {(r.get("field") or {}).get("path") for r in out["results"] if r["severity"] == "error"}
        assert f"{prefix}.{name}" in fields, (fields, out["results"])
    else:
        assert _go_reads_it(_definition(name), value, form), f"{name}: {value!r} taken as {parsed.config!r}"


@pytest.mark.parametrize("form", ["configmap", "spec"])
@pytest.mark.parametrize("name", SETTING_NAMES)
def test_every_option_refuses_hostile_values_by_name(name, form):
    # the fixed list, for every option in both forms, every run: refused or a value Go reads
    fixed = HOSTILE_TEXTS + ([] if form == "configmap" else [10**400, float("nan"), float("inf"), -0.0, True, [], {},
                                                             _nested(200, 1, True)])
    for value in fixed:
        parsed = config.parse(_function_config(name, value, form))
        assert parsed.problems or _go_reads_it(_definition(name), value, form), (name, value)

    @_settings(4)
    @given(texts if form == "configmap" else values)
    def check(value):  # drawn values, through KRM mode: a refusal names the option's field
        _check_option(name, value, form)

    check()


@pytest.mark.parametrize("name, text, value", VALID_UNUSUAL, ids=[f"{n}={t[:12]!r}" for n, t, _ in VALID_UNUSUAL])
def test_valid_unusual_option_values_keep_working(name, text, value):
    for form, v in (("configmap", text), ("spec", value)):
        parsed = config.parse(_function_config(name, v, form))
        assert parsed.problems == [], (form, parsed.problems)
        out, stderr, code = _krm(_function_config(name, v, form))
        # the run may fail a policy (maxNodes 0 against two nodes), never on the value itself
        fields = {(r.get("field") or {}).get("path") for r in out["results"] if r["severity"] == "error"}
        assert {f"data.{name}", f"spec.{name}"}.isdisjoint(fields), out["results"]


# Near misses of a valid value, refused as Go refuses them (no trimming): each is an error on the
# option's own field, quoting the value, and says what to remove when that is all that is wrong.
NEAR_MISSES = [
    ("maxDepth", " 50", True), ("maxDepth", "50\n", True), ("maxDepth", "\t50 ", True), ("maxDepth", "5_0", False),
    ("maxDepth", "50.0", False), ("policy.maxNodes", "4\n", True), ("strict", "true\n", True),
    ("strict", "tRuE", False), ("policy.forbidHostPath", "yes", False),
]


@pytest.mark.parametrize("name, text, trimmed", NEAR_MISSES, ids=[f"{n}={t!r}" for n, t, _ in NEAR_MISSES])
def test_near_misses_are_refused_with_what_to_change(name, text, trimmed):
    out, stderr, code = _krm(_function_config(name, text, "configmap"))
    errors = [r for r in out["results"] if r["severity"] == "error"]
    assert code == 1 and [(r.get("field") or {}).get("path") for r in errors] == [f"data.{name}"], errors
    assert repr(text) in errors[0]["message"]
    assert ("remove the spaces or line breaks around it" in errors[0]["message"]) is trimmed


@pytest.mark.parametrize("text", [" 50", "50\n", "5_0", "+"])
def test_limit_variables_are_read_as_options_are(text):
    with pytest.raises(krm.InputError, match="EXPAND_TRAINJOBS_MAX_DEPTH="):
        krm.limits_from_env({"EXPAND_TRAINJOBS_MAX_DEPTH": text})
    assert krm.limits_from_env({"EXPAND_TRAINJOBS_MAX_DEPTH": "+050"}).max_depth == 50


@_settings(25)
@given(var=st.sampled_from(sorted(krm.LIMIT_SETTINGS.values())), text=texts)
def test_limit_variables_refuse_hostile_text_by_name(var, text):
    if "\x00" in text:  # no process environment can hold one; the dict still must not crash
        text = text.replace("\x00", "")
    env = {var: text}
    data = json.dumps({**HEAD, "items": [TRAINJOB]}).encode()
    stdout, stderr, code = krm.process(data, base_dir=".", env=env)
    try:
        limits = krm.limits_from_env(env)
    except krm.InputError as e:
        out = check_invariants(data, stdout, stderr, code, env)
        assert str(e).startswith(f"{var}="), e
        assert code == 1 and out["results"][0]["message"] == str(e)
        return
    if limits.max_bytes >= 1 << 20 and limits.max_depth >= 100:
        check_invariants(data, stdout, stderr, code, env)
    else:  # a limit too small for the output itself to be read back with it
        assert "internal error" not in "\n".join(stderr) and code in (0, 1), stderr
    assert text == "" or _GO_INT.fullmatch(text), text


@pytest.fixture
def app(tmp_path):
    (tmp_path / "trainjob.yaml").write_text(yamlio.dump(TRAINJOB))
    return tmp_path


def _plain_lines_ok(lines) -> str:
    text = "\n".join(map(str, lines))
    assert "Traceback" not in text and "internal error" not in text, text
    return text


@_settings(30)
@given(name=st.sampled_from(SETTING_NAMES + ["", "bogus", "policy."]), value=values, shape=st.sampled_from(["string", "array", "raw", "PARAM"]))
def test_argocd_parameters_refuse_hostile_values_by_name(app, name, value, shape):
    if shape == "string":
        env = {plain.PARAMETERS_ENV: json.dumps([{"name": name, "string": value}])}
    elif shape == "array":
        env = {plain.PARAMETERS_ENV: json.dumps([{"name": name, "array": value if isinstance(value, list) else [value]}])}
    elif shape == "raw":
        env = {plain.PARAMETERS_ENV: value if isinstance(value, str) else json.dumps(value)}
    else:
        env = {f"PARAM_{plain._param_name(name)}": value if isinstance(value, str) else json.dumps(value)}
    out, lines, code = plain.render(["."], str(app), env)
    text = _plain_lines_ok(lines)
    fc, problems = plain.config_from_argocd_env(env)
    if config.parse(fc).problems and name in SETTING_NAMES:  # refused: the message names the option
        assert code == 1 and name in text, text
    if problems:  # a parameter that cannot be read at all: the variable or the parameter named
        assert code == 1 and (plain.PARAMETERS_ENV in text or f"parameter {name!r}" in text), text


@_settings(30)
@given(name=st.sampled_from(SETTING_NAMES), value=values, form=st.sampled_from(["configmap", "spec"]))
def test_kustomize_plugin_config_file_refuses_hostile_values_by_name(tmp_path, name, value, form):
    if form == "configmap" and not isinstance(value, str):
        value = json.dumps(value, allow_nan=True)
    fc = _function_config(name, value, form)
    path = tmp_path / "cfg.yaml"
    path.write_text(yamlio.dump(fc))
    out, lines, code = plain.kustomize_plugin(str(path), b"", {}, str(tmp_path))
    message = _plain_lines_ok(lines)
    if config.parse(yamlio.load(path.read_bytes())).problems:  # refused: the message names the option
        assert code == 1 and name.split(".")[-1] in message, message


# --- command lines ---------------------------------------------------------------------------------------


def _paths(tmp_path):
    (tmp_path / "loop").symlink_to("loop")
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    (tmp_path / "bad.yaml").write_text("x: [\n")
    (tmp_path / "empty").mkdir()
    (tmp_path / "new\nline.yaml").write_text(yamlio.dump(TRAINJOB))
    # (`-`, stdin, is not a path: test_cli_contract.py; `../..` would read whatever is above the test)
    return ["missing", "loop", "a", "bad.yaml", "empty", "new\nline.yaml", "", "x" * 5000, "a\x00b", "\udcff", "/dev/null",
            "a/" * 200]


COMMAND_LINES = ["render", "validate", "report", "diff-old", "diff-new"]


@pytest.mark.parametrize("command", COMMAND_LINES)
def test_command_lines_with_hostile_paths_fail_with_a_message(tmp_path, monkeypatch, capsys, command):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(modes.DEBUG_ENV, raising=False)
    for path in _paths(tmp_path):
        run = {
            "render": lambda: modes.render_mode([path]),
            "validate": lambda: modes.render_mode([path], "validate"),
            "report": lambda: modes.report_mode([path], "json"),
            "diff-old": lambda: modes.diff_mode(path, "empty", "json"),
            "diff-new": lambda: modes.diff_mode("empty", path, "json"),
        }[command]
        with pytest.raises(SystemExit) as done:
            run()
        err = capsys.readouterr().err
        assert "Traceback" not in err and "internal error" not in err, (path, err)
        if path in ("missing", "loop", "a", "bad.yaml", "a\x00b", "x" * 5000):
            assert done.value.code != 0 and "FAILED" in err.splitlines()[0], (path, err)


# --- TrainJob and runtime fields that are numbers or quantities ---------------------------------------

RAW_NUMBERS = [
    "1e400", "-1e400", ".inf", "-.inf", ".nan", "-0", "-0.0", "0x10", "0o17", "017", "1_000", "+1", "'1'", "'auto'",
    "\u00b9", "'\u00b9'", "\uff11", "\u0967", "'\u0661'", "'\u0661Gi'", "9" * 30, "9" * 999, "0" * 900 + "1",
    "'" + "9" * 5000 + "'", "'" + "0" * 5000 + "1'", "'" + "1" * 5000 + "Gi'", "'1e999999999'", "'1e-999999999'",
    "'\\0'", '"\\0"', '"a\\x01b"', "2147483648", "-2147483649", "9223372036854775808", "~", "[]", "{}", "[1]",
    "{a: 1}", "true", "'true'", "!!float '1e400'", "!!float 'nan'", "0.1e-400", "1.5",
]
SLOTS = {
    "spec.trainer.numNodes": ("torch-distributed", "    trainer: {numNodes: %s}\n"),
    "spec.trainer.numProcPerNode": ("torch-distributed", "    trainer: {numProcPerNode: %s}\n"),
    "spec.trainer.resourcesPerNode.requests[cpu]": ("torch-distributed", "    trainer: {resourcesPerNode: {requests: {cpu: %s}}}\n"),
    "spec.trainer.resourcesPerNode.limits[nvidia.com/gpu]": ("mpi-distributed", "    trainer: {resourcesPerNode: {limits: {nvidia.com/gpu: %s}}}\n"),
    "spec.trainer.resourcesPerNode.requests[memory]": ("torch-distributed", "    trainer: {resourcesPerNode: {requests: {memory: %s}}}\n"),
    "spec.activeDeadlineSeconds": ("torch-distributed", "    activeDeadlineSeconds: %s\n"),
    "spec.suspend": ("torch-distributed", "    suspend: %s\n"),
    "mpi spec.trainer.numNodes": ("mpi-distributed", "    trainer: {numNodes: %s}\n"),
    "flux spec.trainer.numNodes": ("flux-distributed", "    trainer: {numNodes: %s}\n"),
}
RUNTIME_SLOTS = {
    "spec.mlPolicy.numNodes": "  mlPolicy: {numNodes: %s, torch: {}}\n",
    "spec.template.spec.replicatedJobs[0].replicas": "  mlPolicy: {torch: {}}\n  replicas: %s\n",
    "parallelism": "  mlPolicy: {torch: {}}\n  parallelism: %s\n",
    "ttlSecondsAfterFinished": "  mlPolicy: {torch: {}}\n  ttl: %s\n",
    "scheduleTimeoutSeconds": "  mlPolicy: {torch: {}}\n  podGroupPolicy: {coscheduling: {scheduleTimeoutSeconds: %s}}\n",
}
RUNTIME = """- apiVersion: trainer.kubeflow.org/v1alpha1
  kind: TrainingRuntime
  metadata: {name: rt, namespace: ml, annotations: {config.kubernetes.io/local-config: "true"}}
  spec:
%(policy)s    template:
      spec:
        ttlSecondsAfterFinished: %(ttl)s
        replicatedJobs:
        - name: node
          replicas: %(replicas)s
          template:
            metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
            spec:
              parallelism: %(parallelism)s
              template:
                spec:
                  containers:
                  - {name: node, image: pytorch, resources: {limits: {cpu: %(cpu)s}}}
"""


def _resource_list(body: str) -> bytes:
    return ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + body).encode()


def _trainjob_text(runtime: str, spec: str, kind: str = "ClusterTrainingRuntime") -> str:
    return ("- apiVersion: trainer.kubeflow.org/v1alpha1\n  kind: TrainJob\n"
            "  metadata: {name: t, namespace: ml, annotations: {config.kubernetes.io/local-config: 'true'}}\n"
            f"  spec:\n    runtimeRef: {{name: {runtime}, kind: {kind}}}\n{spec}")


def _never_taken(raw: str, slot: str = "") -> bool:
    """A scalar no Kubernetes client can carry as a number: non-finite, digits Go does not read, or
    (outside a quantity, which may be one) `1e400`, which go-yaml reads as a string."""
    text = raw.strip("'\"")
    if raw in ("1e400", "-1e400", "!!float '1e400'"):
        return "resources" not in slot and "cpu" not in slot
    return raw in (".inf", "-.inf", ".nan", "!!float 'nan'") or any(c.isdigit() and not c.isascii() for c in text)


@_settings(40)
@given(slot=st.sampled_from(sorted(SLOTS)), raw=st.sampled_from(RAW_NUMBERS))
def test_trainjob_number_fields_take_only_what_kubernetes_takes(slot, raw):
    runtime, spec = SLOTS[slot]
    data = _resource_list(_trainjob_text(runtime, spec % raw))
    stdout, stderr, code = krm.process(data, base_dir=".", env={})
    out = check_invariants(data, stdout, stderr, code)
    if _never_taken(raw, slot):
        assert code == 1, (slot, raw)
        field = slot.split(" ")[-1]
        paths = [(r.get("field") or {}).get("path", "") for r in out["results"] if r["severity"] == "error"]
        assert any(p.startswith(field.split("[")[0]) for p in paths), (slot, raw, out["results"])


@pytest.mark.parametrize("raw", [".inf", ".nan", "1e400", "\u00b9", "'\u0661'", "'" + "9" * 5000 + "'"])
@pytest.mark.parametrize("slot", sorted(SLOTS))
def test_every_trainjob_number_field_refuses_what_go_cannot_read(slot, raw):
    runtime, spec = SLOTS[slot]
    data = _resource_list(_trainjob_text(runtime, spec % raw))
    stdout, stderr, code = krm.process(data, base_dir=".", env={})
    check_invariants(data, stdout, stderr, code)
    if _never_taken(raw, slot):
        assert code == 1, (slot, raw)


@_settings(30)
@given(slot=st.sampled_from(sorted(RUNTIME_SLOTS)), raw=st.sampled_from(RAW_NUMBERS))
def test_runtime_number_fields_take_only_what_kubernetes_takes(slot, raw):
    fields = {"policy": "  mlPolicy: {torch: {}}\n", "ttl": "60", "replicas": "1", "parallelism": "1", "cpu": "1"}
    if slot in ("spec.mlPolicy.numNodes", "scheduleTimeoutSeconds"):
        fields["policy"] = RUNTIME_SLOTS[slot] % raw
    else:
        fields[slot.rsplit(".", 1)[-1].replace("ttlSecondsAfterFinished", "ttl")] = raw
    fields["policy"] = "    " + fields["policy"].strip() .replace("\n  ", "\n    ") + "\n"
    data = _resource_list(RUNTIME % fields + _trainjob_text("rt", "", "TrainingRuntime"))
    stdout, stderr, code = krm.process(data, base_dir=".", env={})
    check_invariants(data, stdout, stderr, code)
    if _never_taken(raw, slot):
        assert code == 1, (slot, raw)


# TrainJob fields written in unusual ways that Kubernetes takes: they must keep rendering.
VALID_UNUSUAL_FIELDS = {
    "env value 1e400 (a string to go-yaml)": "    trainer: {env: [{name: A, value: 1e400}]}\n",
    "numNodes 2.0": "    trainer: {numNodes: 2.0}\n",
    "numNodes 0x2": "    trainer: {numNodes: 0x2}\n",
    "numNodes 0_2": "    trainer: {numNodes: 0_2}\n",
    "numNodes +2": "    trainer: {numNodes: +2}\n",
    "cpu 1e400 (a quantity)": "    trainer: {resourcesPerNode: {requests: {cpu: 1e400}}}\n",
    "cpu 1e-400": "    trainer: {resourcesPerNode: {requests: {cpu: 1e-400}}}\n",
    "memory +.5e+5": "    trainer: {resourcesPerNode: {requests: {memory: '+.5e+5'}}}\n",
    "activeDeadlineSeconds 0o17": "    activeDeadlineSeconds: 0o17\n",
    "activeDeadlineSeconds 2^53": "    activeDeadlineSeconds: 9007199254740991\n",
}


@pytest.mark.parametrize("spec", list(VALID_UNUSUAL_FIELDS.values()), ids=list(VALID_UNUSUAL_FIELDS))
def test_valid_unusual_trainjob_fields_keep_rendering(spec):
    data = _resource_list(_trainjob_text("torch-distributed", spec))
    stdout, stderr, code = krm.process(data, base_dir=".", env={})
    out = check_invariants(data, stdout, stderr, code)
    assert code == 0, out["results"]


# --- the console script itself: the same refusals, no traceback on the real stderr -----------------------

CONSOLE_CASES = {
    "nan-numNodes": (["render", "."], {}, "spec.trainer.numNodes"),
    "argocd-parameter": (["render", "."], {plain.PARAMETERS_ENV: json.dumps([{"name": "maxDepth", "string": "\u00b9" + "0" * 5000}])},
                         "maxDepth"),
    "symlink-loop": (["validate", "loop"], {}, "loop"),
}


@pytest.mark.parametrize("case", list(CONSOLE_CASES))
def test_console_script_refuses_hostile_values_without_a_traceback(fn, tmp_path, case):
    import subprocess

    args, env, named = CONSOLE_CASES[case]
    (tmp_path / "loop").symlink_to("loop")
    (tmp_path / "t.yaml").write_text(_trainjob_text("torch-distributed", "    trainer: {numNodes: .nan}\n" if case.startswith("nan")
                                                    else "")[2:].replace("\n  ", "\n"))
    p = subprocess.run([fn, *args], cwd=tmp_path, capture_output=True, timeout=120,
                       env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **env})
    err = p.stderr.decode()
    assert p.returncode == 1 and err.startswith("expand-trainjobs: FAILED"), err
    assert "Traceback" not in err and "internal error" not in err and named in err, err
