"""kpt_fn.config: the functionConfig as a ConfigMap or as kind ExpandTrainJobs."""

from __future__ import annotations

import pytest

from kpt_fn import config
from kpt_fn.config import OPTIONS, FunctionConfig, parse


def cm(data, name="cfg"):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


def typed(spec):
    return {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs", "metadata": {"name": "cfg"}, "spec": spec}


@pytest.mark.parametrize(
    "fc",
    [None, {}, cm({}, "function-input"), cm(None, "function-input"), {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "function-input"}}],
    ids=["absent", "empty", "eval-placeholder", "null-data", "no-data"],
)
def test_kpt_placeholders_mean_defaults(fc):
    assert config.is_placeholder(fc)
    assert parse(fc) == (FunctionConfig(), [])


def test_function_input_with_data_is_a_real_config():
    cfg, problems = parse(cm({"namespace": "ml"}, "function-input"))
    assert problems == [] and cfg.namespace == "ml"


def test_options_and_fields_agree():
    cfg = FunctionConfig()
    assert {o.name: o.default for o in OPTIONS} == {f: getattr(cfg, f) for f in FunctionConfig.FIELDS}
    assert FunctionConfig.FIELDS == tuple(o.name for o in OPTIONS)
    with pytest.raises(TypeError, match="no option"):
        FunctionConfig(nameSpace="x")
    for o in OPTIONS:
        assert o.help and (o.type != "enum" or o.default in o.choices), o


def test_configmap_values_are_strings_of_every_type():
    cfg, problems = parse(
        cm({
            "mode": "validate",
            "namespace": "ml",
            "runtimeDirs": "runtimes, more\nothers,",
            "builtinRuntimes": "FALSE",
            "maxDepth": "50",
            "knownPriorityClasses": "high",
        })
    )
    assert problems == []
    assert (cfg.mode, cfg.namespace, cfg.runtimeDirs, cfg.builtinRuntimes, cfg.maxDepth, cfg.knownPriorityClasses) == (
        "validate", "ml", ("runtimes", "more", "others"), False, 50, ("high",)
    )
    assert cfg.limits.max_depth == 50


def test_typed_config_takes_typed_values():
    tj = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": {"name": "a"}}
    cfg, problems = parse(typed({"runtimeDirs": ["a", "b"], "builtinRuntimes": False, "maxInputBytes": 1000, "trainJobs": [tj]}))
    assert problems == []
    assert (cfg.runtimeDirs, cfg.builtinRuntimes, cfg.maxInputBytes, cfg.trainJobs) == (("a", "b"), False, 1000, (tj,))
    assert cfg.limits.max_bytes == 1000


@pytest.mark.parametrize(
    "fc, path, message",
    [
        (cm({"mode": "bogus"}), "data.mode", 'Unsupported value: \'bogus\': supported values: "render", "validate"'),
        (cm({"maxDepth": "ten"}), "data.maxDepth", "must be a positive integer"),
        (cm({"maxDepth": "0"}), "data.maxDepth", "must be a positive integer"),
        (cm({"builtinRuntimes": "yes"}), "data.builtinRuntimes", "must be true or false"),
        (typed({"builtinRuntimes": "true"}), "spec.builtinRuntimes", "must be true or false"),
        (typed({"runtimeDirs": "a,b"}), "spec.runtimeDirs", "must be a list of strings"),
        (typed({"maxDepth": True}), "spec.maxDepth", "must be a positive integer"),
        (typed({"namespace": 5}), "spec.namespace", "must be a string"),
        (typed({"trainJobs": ["x"]}), "spec.trainJobs", "must be a list of Kubernetes objects"),
    ],
)
def test_bad_values_are_problems_naming_the_field(fc, path, message):
    cfg, problems = parse(fc)
    (p,) = problems
    assert p.path == path and message in p.message and p.severity == "error"
    assert p.subject is fc
    assert cfg == FunctionConfig()  # the bad value is not used


@pytest.mark.parametrize("fc, path", [(cm({"namespcae": "x"}), "data.namespcae"), (typed({"namespcae": "x"}), "spec.namespcae")])
def test_unknown_option(fc, path):
    _, (p,) = parse(fc)
    assert p.path == path
    assert p.message == "unknown option 'namespcae'; did you mean 'namespace'? (write `namespace:`)"


def test_unknown_option_far_from_any_lists_them():
    _, (p,) = parse(typed({"colour": "x"}))
    assert p.message.startswith("unknown option 'colour'; known options: mode, namespace, ")


def test_unknown_kind():
    fc = {"apiVersion": "example.com/v1", "kind": "Frobnicate", "metadata": {"name": "x"}}
    cfg, (p,) = parse(fc)
    assert cfg == FunctionConfig()
    assert p.path == "kind" and p.subject is fc
    assert p.message == "unsupported functionConfig example.com/v1/Frobnicate: use a v1 ConfigMap or fn.kpt.dev/v1alpha1 ExpandTrainJobs"


@pytest.mark.parametrize(
    "fc, path", [(cm(["a"]), "data"), (typed(["a"]), "spec"), ("text", "")], ids=["data-list", "spec-list", "not-an-object"]
)
def test_malformed_config(fc, path):
    cfg, (p,) = parse(fc)
    assert cfg == FunctionConfig() and p.path == path


def test_is_config_object():
    assert config.is_config_object(typed({}))
    assert not config.is_config_object(cm({}))
    assert not config.is_config_object({**typed({}), "apiVersion": "fn.kpt.dev/v1"})


def test_declared_flags_are_options_of_render_and_validate():
    from kpt_fn.cli import commands

    declared = {f for o in OPTIONS for f in o.flag}
    assert {"--namespace", "--strict", "--trainer-version"} <= declared
    for command in (commands.render, commands.validate):
        assert declared <= {f for p in command.params for f in p.opts}, command.name


# --- the policy section: its settings parsed like every other option -----------------------------


def test_policy_settings_in_both_forms():
    cfg, problems = parse(cm({"policy.maxNodes": "0", "policy.forbidLatestTag": "true",
                              "policy.allowedImagePrefixes": "a/,\nb/", "policy.maxCPUPerTrainJob": "500m"}))
    assert problems == []
    settings = dict(cfg.policy)
    assert settings["maxNodes"] == 0 and settings["forbidLatestTag"] is True  # 0 is a limit, not "unset"
    assert settings["allowedImagePrefixes"] == ("a/", "b/")
    cfg2, problems = parse(typed({"policy": {"maxNodes": 0, "forbidLatestTag": True, "allowedImagePrefixes": ["a/", "b/"],
                                             "maxCPUPerTrainJob": "500m"}}))
    assert problems == [] and cfg2.policy == cfg.policy


@pytest.mark.parametrize("fc, message", [
    (cm({"policy.maxNodes": "-1"}), "Invalid value: '-1': must be a non-negative integer"),
    (typed({"policy": {"maxNodes": "4"}}), "Invalid value: '4': must be a non-negative integer"),
    # A ConfigMap value of thousands of digits is refused by its length, never converted (Python
    # refuses to convert more than 4300 digits: that was an internal error).
    (cm({"policy.maxNodes": "1" * 5000}), "must be at most"),
    (cm({"policy.forbidPrivileged": "yes"}), "must be true or false"),
    (cm({"policy.maxMemoryPerTrainJob": "lots"}), "must be a quantity"),
    (cm({"policy.maxGPUs": "1"}), "unknown policy setting 'maxGPUs'"),
    (typed({"policy": ["maxNodes"]}), "Invalid value: policy must be an object"),
])
def test_policy_settings_refused_with_a_reason(fc, message):
    cfg, (p,) = parse(fc)
    assert message in p.message and p.path.startswith(("data.policy", "spec.policy")) and cfg.policy == ()


@pytest.mark.parametrize("text, expected", [
    ("0" * 5000 + "7", (7, None)),  # leading zeros are measured away, not converted
    ("²", (None, "must be a positive integer")),  # str.isdigit says yes; Go's strconv and int() say no
    ("９", (None, "must be a positive integer")),  # a digit, but not one Go reads
    # strconv.Atoi's text as it is: a sign and leading zeros are Go's, spaces and `_` are not
    ("+12", (12, None)),
    ("012", (12, None)),
    (" 12 ", (None, "must be a positive integer (remove the spaces or line breaks around it)")),
    ("12\n", (None, "must be a positive integer (remove the spaces or line breaks around it)")),
    ("1_2", (None, "must be a positive integer")),
    ("-12", (None, "must be a positive integer")),
    ("-" + "1" * 5000, (None, "must be a positive integer")),
    ("1" * 5000, (None, "must be at most 1000")),
])
def test_integers_are_read_as_go_reads_them_and_never_converted_unmeasured(text, expected):
    assert config.limit_value("max_depth", text) == expected
    cfg, problems = parse(cm({"maxDepth": text}))
    assert (cfg.maxDepth, [p.message.rpartition(": ")[2] for p in problems]) == \
        ((expected[0], []) if expected[1] is None else (config.option("maxDepth").default, [expected[1]]))
