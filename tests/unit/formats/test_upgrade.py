"""kpt_fn.formats.upgrade: the upgrade preview's summary above the diff's Markdown."""

from __future__ import annotations

from kpt_fn.formats import upgrade
from unit.formats.test_diff import EMPTY


def test_the_summary_names_both_releases_and_counts_the_effects():
    data = {**EMPTY, "upgrade": {"from": "v2.2.1", "to": "v2.3.0", "trainJobsRendered": 3,
                                 "objects": {"in-place": 1, "refused": 0, "created": 2, "pruned": 0}}}
    text = upgrade.markdown(data)
    assert text.startswith("## Upgrading Kubeflow Trainer v2.2.1 → v2.3.0\n\n0 of 3 TrainJob(s) render differently "
                           "(0 with a change the cluster refuses: recreate their JobSets); objects: 1 updated in place, "
                           "0 refused, 2 created, 0 no longer rendered.\n\n## expand-trainjobs diff:")
