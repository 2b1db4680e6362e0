"""Kueue v0.19.2's pkg/controller/jobframework/tas_validation_test.go, ported: the topology slice
annotations of a pod set (kpt_fn/profiles/kueue_tas.py)."""

from __future__ import annotations

import pytest

from tests.support.kueue_kit import BLOCK, HOST, RACK, TAS, layers, tas


# jobframework/tas_validation_test.go TestValidateSliceRequiredTopologyConstraintsAnnotation: the number
# of errors per case (the feature-gate-off case is left out: TASMultiLayerTopology is on by default
# in v0.19). Kueue counts ValidateTASPodSetRequest's errors; the webhook answers the three cases the
# builder cannot parse (invalid JSON, no entries, four entries) with the builder's one error instead.
@pytest.mark.parametrize("notes, errors", [
    ({TAS.REQUIRED_TOPOLOGY: BLOCK, TAS.SLICE_CONSTRAINTS: layers((RACK, 16))}, 0),
    ({TAS.REQUIRED_TOPOLOGY: BLOCK, TAS.SLICE_CONSTRAINTS: layers((RACK, 16), (HOST, 4))}, 0),
    ({TAS.REQUIRED_TOPOLOGY: BLOCK, TAS.SLICE_CONSTRAINTS: layers((RACK, 16), ("cloud.com/sub-rack", 4), (HOST, 2))}, 0),
    ({TAS.REQUIRED_TOPOLOGY: BLOCK, TAS.SLICE_CONSTRAINTS: "invalid-json"}, 1),
    ({TAS.REQUIRED_TOPOLOGY: BLOCK, TAS.SLICE_CONSTRAINTS: "[]"}, 1),
    ({TAS.REQUIRED_TOPOLOGY: BLOCK, TAS.SLICE_CONSTRAINTS: layers(("a", 64), ("b", 16), ("c", 4), ("d", 1))}, 1),
    ({TAS.REQUIRED_TOPOLOGY: BLOCK, TAS.SLICE_CONSTRAINTS: layers((RACK, 0))}, 1),
    ({TAS.REQUIRED_TOPOLOGY: BLOCK, TAS.SLICE_CONSTRAINTS: layers((RACK, 16), (HOST, 5))}, 1),
    ({TAS.REQUIRED_TOPOLOGY: BLOCK, TAS.SLICE_REQUIRED_TOPOLOGY: RACK, TAS.SLICE_SIZE: "16",
      TAS.SLICE_CONSTRAINTS: layers((RACK, 16))}, 2),
    # Kueue's case counts 1 (the Forbidden group name); the webhook also groups the pod set, alone.
    ({TAS.REQUIRED_TOPOLOGY: BLOCK, TAS.SLICE_CONSTRAINTS: layers((RACK, 16)), TAS.GROUP_NAME: "group1"}, 2),
    ({TAS.REQUIRED_TOPOLOGY: BLOCK, TAS.SLICE_CONSTRAINTS: layers((RACK, 16), (RACK, 4))}, 1),
    ({TAS.REQUIRED_TOPOLOGY: BLOCK, TAS.SLICE_CONSTRAINTS: layers((RACK, 16), (HOST, 4), (RACK, 2))}, 1),
])
def test_multi_layer_constraints_kueue_table(notes, errors):
    assert len(tas((notes, 64))) == errors


def test_multi_layer_outermost_size_upper_bound_kueue_table():
    """jobframework/tas_validation_test.go TestValidateSliceSizeAnnotationUpperBound."""
    two = layers((RACK, 16), (HOST, 4))
    assert tas(({TAS.REQUIRED_TOPOLOGY: BLOCK, TAS.SLICE_REQUIRED_TOPOLOGY: RACK, TAS.SLICE_SIZE: "16"}, 20)) == []
    assert len(tas(({TAS.REQUIRED_TOPOLOGY: BLOCK, TAS.SLICE_REQUIRED_TOPOLOGY: RACK, TAS.SLICE_SIZE: "20"}, 16))) == 1
    assert tas(({TAS.REQUIRED_TOPOLOGY: BLOCK, TAS.SLICE_CONSTRAINTS: two}, 20)) == []
    assert tas(({TAS.REQUIRED_TOPOLOGY: BLOCK, TAS.SLICE_CONSTRAINTS: two}, 10)) == [(
        f"spec.replicatedJobs[0].template.spec.template.metadata.annotations[{TAS.SLICE_CONSTRAINTS}]",
        "Invalid value: 16: must not be greater than pod set count 10")]
