"""kpt_fn.cli.krm: the KRM door: a ResourceList in, a ResourceList out, stdin's limits from the
environment, and the failure shapes (docs/clients.md; the clients themselves are in tests/clients/)."""

from __future__ import annotations

import re

import pytest
import yaml

from kpt_fn.cli import krm
from kpt_fn.yamlio import DEFAULT_LIMITS, Limits, load

HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"
ITEM = ("- apiVersion: v1\n  kind: ConfigMap  # a comment the function keeps\n  metadata:\n    name: cm\n"
        "  data:\n    on: 'yes'\n")


@pytest.mark.parametrize("env, changed", [
    ({}, {}),
    ({"EXPAND_TRAINJOBS_MAX_DEPTH": "20"}, {"max_depth": 20}),
    # read as strconv.Atoi reads it, like the options (docs/options.md): a sign and leading zeros
    ({"EXPAND_TRAINJOBS_MAX_INPUT_BYTES": "+1000000", "EXPAND_TRAINJOBS_MAX_ALIASES": "005"}, {"max_bytes": 1_000_000, "max_aliases": 5}),
    ({"EXPAND_TRAINJOBS_MAX_DEPTH": ""}, {}),
])
def test_limits_from_env(env, changed):
    assert krm.limits_from_env(env) == DEFAULT_LIMITS.replace(**changed)


@pytest.mark.parametrize("value", ["many", "-1", "0", "1_000_000", " 5 ", "5\n"])
def test_a_bad_limit_names_the_variable(value):
    with pytest.raises(krm.InputError, match="^" + re.escape(f"EXPAND_TRAINJOBS_MAX_DEPTH={value!r}: ")):
        krm.limits_from_env({"EXPAND_TRAINJOBS_MAX_DEPTH": value})


@pytest.mark.parametrize("data, words", [
    (b"", "no input: expected a ResourceList on stdin"),
    (b"# only a comment\n", "found no YAML document"),
    (b"kind: A\n---\nkind: B\n", "expected one ResourceList on stdin, found 2 YAML documents"),
    (b"- a\n", "found a YAML sequence"),
    (b"3\n", "found a scalar (int)"),
    (b"apiVersion: v1\nkind: ConfigMap\n", "use `expand-trainjobs render PATH`"),
    (b"apiVersion: v2\nkind: ResourceList\n", "expected kind ResourceList (config.kubernetes.io/v1 or config.kubernetes.io/v1beta1)"),
    ((HEAD + "items: {}\n").encode(), "ResourceList.items must be a list, found dict"),
    (b"{\"kind\": \"ResourceList\"", "input is not valid JSON"),
    ((HEAD + "items:\n" + ITEM + "- kind: Secret\n  metadata:\n    name: s\n  data: ]\n- kind: B\n").encode(),
     "(of the ResourceList on stdin; the item is Secret s)"),
])
def test_parse_resource_list_refuses_what_is_not_one(data, words):
    with pytest.raises(krm.InputError) as e:
        krm.parse_resource_list(data)
    assert words in str(e.value)


def test_parse_resource_list_reads_yaml_json_and_flow_style():
    assert krm.parse_resource_list(HEAD.encode())["items"] == []  # absent items: none
    json_rl = b'{"apiVersion": "config.kubernetes.io/v1beta1", "kind": "ResourceList", "items": [{"a": 1}]}'
    assert krm.parse_resource_list(json_rl)["items"] == [{"a": 1}]
    assert krm.parse_resource_list(b"{apiVersion: config.kubernetes.io/v1, kind: ResourceList}")["items"] == []


def test_a_limit_says_how_to_change_it_for_stdin():
    with pytest.raises(krm.InputError, match="more than the limit of 10 .*set EXPAND_TRAINJOBS_MAX_INPUT_BYTES"):
        krm.parse_resource_list(HEAD.encode(), Limits(max_bytes=10))


def test_error_resource_list():
    rl = krm.error_resource_list("bad", [{"a": 1}])
    assert rl["apiVersion"] == "config.kubernetes.io/v1" and rl["items"] == [{"a": 1}]
    assert rl["results"][0]["message"] == "bad" and rl["results"][0]["severity"] == "error"


def test_process_gives_every_item_back_as_its_own_text():
    out, lines, code = krm.process((HEAD + "items:\n" + ITEM).encode(), env={})
    assert code == 0 and lines[0].startswith("expand-trainjobs: ok")
    assert "kind: ConfigMap  # a comment the function keeps\n" in out
    assert load(out)["items"][0]["data"] == {"on": "yes"}


def test_process_of_something_else_is_one_error_and_no_items():
    out, lines, code = krm.process(b"apiVersion: v1\nkind: ConfigMap\n")
    rl = yaml.safe_load(out)
    assert code == 1 and rl["items"] == [] and len(rl["results"]) == 1
    assert lines[0].startswith("expand-trainjobs: FAILED") and "expected kind ResourceList" in lines[0]


def test_a_function_config_can_lower_the_limits_of_its_own_resource_list_never_raise_them():
    fc = "functionConfig:\n  apiVersion: fn.kpt.dev/v1alpha1\n  kind: ExpandTrainJobs\n  metadata:\n    name: c\n  spec:\n"
    data = (HEAD + "items:\n" + ITEM + fc + "    maxInputBytes: 100\n").encode()
    out, lines, code = krm.process(data, env={})
    rl = yaml.safe_load(out)
    assert code == 1 and rl["items"][0]["metadata"]["name"] == "cm"  # every item back
    assert rl["results"][0]["field"]["path"] == "spec.maxInputBytes"
    assert "more than maxInputBytes 100" in rl["results"][0]["message"]
    out, _, code = krm.process(data, limits=Limits(max_bytes=len(data) - 1), env={})
    assert code == 1 and "more than the limit" in out
