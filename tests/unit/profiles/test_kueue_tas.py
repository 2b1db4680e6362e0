"""kpt_fn.profiles.kueue_tas: Kueue's admission checks of the Topology Aware Scheduling pod-set annotations on a
JobSet (what a TAS error does to a run is in tests/unit/profiles/test_kueue_profile.py)."""

from __future__ import annotations

import pytest

from kpt_fn.profiles import kueue_tas


def _jobset(*pod_sets):
    """pod_sets: (annotations, replicas, parallelism)."""
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "j"}, "spec": {"replicatedJobs": [
        {"name": f"rj{i}", "replicas": replicas, "template": {"spec": {"parallelism": par, "completions": par, "template": {
            "metadata": {"annotations": notes}, "spec": {"containers": []}}}}}
        for i, (notes, replicas, par) in enumerate(pod_sets)]}}


def _tas(*pod_sets):
    return [p.message for p in kueue_tas.check_tas(_jobset(*pod_sets))]


def test_tas_valid_annotations_pass():
    assert _tas(({kueue_tas.REQUIRED_TOPOLOGY: "cloud.com/block"}, 2, 4)) == []
    assert _tas(({kueue_tas.SLICE_REQUIRED_TOPOLOGY: "cloud.com/rack", kueue_tas.SLICE_SIZE: "4"}, 2, 4)) == []
    assert _tas(({kueue_tas.PREFERRED_TOPOLOGY: "r", kueue_tas.GROUP_NAME: "g"}, 1, 1),
                ({kueue_tas.PREFERRED_TOPOLOGY: "r", kueue_tas.GROUP_NAME: "g"}, 4, 1)) == []


def test_tas_more_than_one_topology_annotation():
    [msg] = _tas(({kueue_tas.REQUIRED_TOPOLOGY: "a", kueue_tas.PREFERRED_TOPOLOGY: "b"}, 1, 1))
    # field.Invalid with OmitValueType: "Invalid value: " and the detail, no value
    assert msg.startswith("Invalid value: must not contain more than one topology annotation")


def test_tas_slice_size_rules():
    assert _tas(({kueue_tas.SLICE_REQUIRED_TOPOLOGY: "r", kueue_tas.SLICE_SIZE: "9"}, 2, 4)) == [
        'Invalid value: "9": must not be greater than pod set count 8']
    # Beside a slice topology the builder parses the size first (jobframework/tas.go Build) and the
    # webhook answers with its error alone; without one, the annotation rule words it.
    assert _tas(({kueue_tas.SLICE_REQUIRED_TOPOLOGY: "r", kueue_tas.SLICE_SIZE: "x"}, 1, 1)) == ['strconv.ParseInt: parsing "x": invalid syntax']
    assert _tas(({kueue_tas.SLICE_SIZE: "x"}, 1, 1)) == [
        'Invalid value: "x": must be a numeric value',
        f"Forbidden: may not be set when '{kueue_tas.SLICE_REQUIRED_TOPOLOGY}' is not specified"]
    assert _tas(({kueue_tas.SLICE_REQUIRED_TOPOLOGY: "r", kueue_tas.SLICE_SIZE: "0"}, 1, 1)) == [
        'Invalid value: "0": must be greater than or equal to 1']
    assert _tas(({kueue_tas.SLICE_REQUIRED_TOPOLOGY: "r"}, 1, 1)) == [
        f"Required value: must be set when '{kueue_tas.SLICE_REQUIRED_TOPOLOGY}' is specified"]
    assert _tas(({kueue_tas.SLICE_SIZE: "1"}, 1, 1)) == [f"Forbidden: may not be set when '{kueue_tas.SLICE_REQUIRED_TOPOLOGY}' is not specified"]


def test_tas_group_rules():
    assert _tas(({kueue_tas.REQUIRED_TOPOLOGY: "r", kueue_tas.GROUP_NAME: "g"}, 1, 1)) == [
        'Invalid value: "g": can only define groups of exactly 2 pod sets, got: 1 pod set(s)']
    msgs = _tas(({kueue_tas.REQUIRED_TOPOLOGY: "r", kueue_tas.GROUP_NAME: "g"}, 2, 1), ({kueue_tas.REQUIRED_TOPOLOGY: "r", kueue_tas.GROUP_NAME: "g"}, 3, 1))
    assert len(msgs) == 2 and "at least one pod set has only 1 replica, got: 2 replica(s) and 3 replica(s)" in msgs[0]
    msgs = _tas(({kueue_tas.REQUIRED_TOPOLOGY: "r", kueue_tas.GROUP_NAME: "g"}, 1, 1), ({kueue_tas.PREFERRED_TOPOLOGY: "r", kueue_tas.GROUP_NAME: "g"}, 1, 1))
    assert len(msgs) == 2 and all("topology consistent with" in m for m in msgs)
    assert _tas(({kueue_tas.GROUP_NAME: "12"}, 1, 1))[:2] == [
        'Invalid value: "12": must not be a number',
        f"Forbidden: may not be set when neither '{kueue_tas.PREFERRED_TOPOLOGY}' nor '{kueue_tas.REQUIRED_TOPOLOGY}' is specified"]


def test_tas_unconstrained_must_be_a_go_bool():
    assert _tas(({kueue_tas.UNCONSTRAINED_TOPOLOGY: "True"}, 1, 1)) == []
    # Alone, the builder parses it (strconv.ParseBool) and its error is the webhook's whole answer;
    # beside a required topology it is not parsed there, and the annotation rule reports it.
    assert _tas(({kueue_tas.UNCONSTRAINED_TOPOLOGY: "yes"}, 1, 1)) == ['strconv.ParseBool: parsing "yes": invalid syntax']
    assert _tas(({kueue_tas.UNCONSTRAINED_TOPOLOGY: "yes", kueue_tas.REQUIRED_TOPOLOGY: "r"}, 1, 1))[1:] == [
        'Invalid value: "yes": must be a boolean value']


@pytest.mark.parametrize("text, bits, expected", [
    ("4", 32, (4, "")), ("+4", 32, (4, "")), ("-4", 32, (-4, "")), ("007", 32, (7, "")),
    ("2147483647", 32, (2147483647, "")),
    ("2147483648", 32, (None, 'strconv.ParseInt: parsing "2147483648": value out of range')),
    ("", 32, (None, 'strconv.ParseInt: parsing "": invalid syntax')),
    ("-", 32, (None, 'strconv.ParseInt: parsing "-": invalid syntax')),
    ("1.0", 32, (None, 'strconv.ParseInt: parsing "1.0": invalid syntax')),
    (" 1", 32, (None, 'strconv.ParseInt: parsing " 1": invalid syntax')),
    ("٣", 32, (None, 'strconv.ParseInt: parsing "٣": invalid syntax')),  # a digit to Python, not to Go
])
def test_go_parse_int(text, bits, expected):
    assert kueue_tas.go_parse_int(text, bits) == expected


def test_go_parse_int_names_the_go_function():
    assert kueue_tas.go_parse_int("x", 64, "Atoi") == (None, 'strconv.Atoi: parsing "x": invalid syntax')


@pytest.mark.parametrize("text, expected", [
    ('[{"topology": "rack", "size": 4}]', ([("rack", 4)], "")),
    ('[{"Topology": "rack", "SIZE": 4, "other": 1}]', ([("rack", 4)], "")),  # keys case-insensitive, others ignored
    ('[{"topology": null, "size": null}]', ([("", 0)], "")),                # null leaves the zero value
    ("null", ([], "")),
    ("", (None, "unexpected end of JSON input")),
    ('[{"topology": "rack"', (None, "unexpected end of JSON input")),
])
def test_decode_constraints(text, expected):
    assert kueue_tas.decode_constraints(text) == expected


@pytest.mark.parametrize("text, words", [
    ('{"topology": "rack"}', "json: cannot unmarshal object into Go value of type []"),
    ('[1]', "json: cannot unmarshal number into Go value of type "),
    ('[{"size": 1.5}]', "json: cannot unmarshal number"),
    ('[{"size": "4"}]', "json: cannot unmarshal string"),
    ("[}", "invalid JSON: "),
])
def test_decode_constraints_errors(text, words):
    constraints, error = kueue_tas.decode_constraints(text)
    assert constraints is None and error.startswith(words)
