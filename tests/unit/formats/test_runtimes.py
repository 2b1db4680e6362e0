"""kpt_fn.formats.runtimes: a release's built-in runtimes as an aligned table, as YAML or as JSON."""

from __future__ import annotations

import json

from kpt_fn.formats import runtimes
from kpt_fn.yamlio import load_all

RUNTIME = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime", "metadata": {"name": "torch"},
           "spec": {"mlPolicy": {"numNodes": 1, "torch": {}}, "template": {"spec": {"replicatedJobs": [
               {"name": "node", "template": {"spec": {"template": {"spec": {"containers": [{"name": "node", "image": "img:1"}]}}}}}]}}}}
DATA = {"release": "v2.3.0", "runtimes": [RUNTIME]}


def test_table_is_a_header_then_one_aligned_line_per_runtime():
    # which release: a note on stderr (the mode's), not a line of the table
    assert runtimes.table(DATA) == ("NAME    ML POLICY   REPLICATED JOBS   IMAGES\n"
                                    "torch   torch       node              img:1\n")


def test_yaml_is_the_runtimes_themselves():
    assert load_all(runtimes.to_yaml(DATA)) == [RUNTIME]


def test_json_is_the_v1_list_kubectl_get_prints():
    assert json.loads(runtimes.to_json(DATA)) == {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""},
                                                  "items": [RUNTIME]}
