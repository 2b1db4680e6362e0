"""The writer of the upgrade preview (`diff --trainer-version OLD..NEW`, kpt_fn.review.upgrade): a
summary of what upgrading the controller does, then the diff's own Markdown (its JSON is the diff's)."""

from __future__ import annotations

from kpt_fn.formats import diff


def markdown(data: dict) -> str:
    up, s, c = data["upgrade"], data["summary"], data["upgrade"]["objects"]
    head = [
        f"## Upgrading Kubeflow Trainer {up['from']} → {up['to']}",
        "",
        f"{s['changed']} of {up['trainJobsRendered']} TrainJob(s) render differently "
        f"({s.get('refused', 0)} with a change the cluster refuses: recreate their JobSets); objects: "
        f"{c['in-place']} updated in place, {c['refused']} refused, {c['created']} created, {c['pruned']} no longer rendered.",
        "",
    ]
    return "\n".join(head) + "\n" + diff.markdown(data)
