"""What upgrading the Trainer controller does to the TrainJobs in Git :
`expand-trainjobs diff --trainer-version v2.2.1..v2.3.0 [DIR]`.

The same package is rendered under both releases and compared with `diff`'s own comparison
(kpt_fn.review.diff): the object and field changes per TrainJob and, for each object, what the change
does in the cluster (kpt_fn.lifecycle.classify: created, in place, refused on an existing JobSet,
pruned). A refused JobSet keeps running as the old controller made it, and the new controller's
reconcile of that TrainJob fails until the JobSet is recreated. This module only adds the releases and
a summary a platform team can read before upgrading (its writer: kpt_fn.formats.upgrade).
"""

from __future__ import annotations

from kpt_fn.review.diff import diff

EFFECTS = ("in-place", "refused", "created", "pruned")


def parse_range(text: str, supported) -> tuple[str, str]:
    """`OLD..NEW` (two releases of `supported`); ValueError naming the supported ones."""
    old, sep, new = text.partition("..")
    listed = ", ".join(supported)
    if not sep or old not in supported or new not in supported:
        raise ValueError(f'--trainer-version for diff is OLD..NEW with releases among {listed}, not "{text}"')
    if old == new:
        raise ValueError(f"--trainer-version {text}: OLD and NEW are the same release")
    return old, new


def preview(old_release: str, new_release: str, old_outcome, new_outcome) -> dict:
    data = diff(old_outcome, new_outcome)
    counts = dict.fromkeys(EFFECTS, 0)
    for job in data["trainJobs"]:
        for obj in job["objects"]:
            if obj.get("effect") in counts:
                counts[obj["effect"]] += 1
    data["upgrade"] = {"from": old_release, "to": new_release, "trainJobsRendered": len(new_outcome.rendered),
                       "objects": counts}
    return data
