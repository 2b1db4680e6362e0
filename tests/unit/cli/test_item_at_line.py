"""kpt_fn.cli.item_at_line: the item of a ResourceList a line of its text belongs to (best effort)."""

from __future__ import annotations

import pytest

from kpt_fn.cli import item_at_line

RL = """\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: settings
    annotations:
      internal.config.kubernetes.io/path: 'cm.yaml'
  data:
    a: b
- kind: Secret
  metadata:
    labels:
      name: not-this
    name: "token"
- apiVersion: v1
  data: {x: [
functionConfig:
  kind: ExpandTrainJobs
"""


@pytest.mark.parametrize("line, who", [
    (4, "ConfigMap settings (in cm.yaml)"),
    (11, "ConfigMap settings (in cm.yaml)"),
    (12, "Secret token"),          # metadata's own name, not a label called name
    (18, "items[2]"),              # neither kind nor name found: the index
    (1, None), (3, None),          # before the items
    (20, None),                    # after them
    (99, None),
])
def test_describe(line, who):
    assert item_at_line.describe(RL, line) == who


def test_the_older_path_annotation_and_indented_items():
    text = "kind: ResourceList\nitems:\n  - kind: Job\n    metadata:\n      name: j\n      annotations:\n" \
           "        config.kubernetes.io/path: \"a/b.yaml\"\n    spec: [\n"
    assert item_at_line.describe(text, 8) == "Job j (in a/b.yaml)"


def test_no_items():
    assert item_at_line.describe("kind: ResourceList\nfoo: [\n", 2) is None
