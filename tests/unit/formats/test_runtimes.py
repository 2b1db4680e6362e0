"""kpt_fn.formats.runtimes: a release's built-in runtimes as an aligned table, or as YAML."""

from __future__ import annotations

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
