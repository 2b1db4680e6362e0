"""The life of a rendered JobSet after the first render (docs/lifecycle.md).

A JobSet is created once and then re-applied on every sync. What the cluster does with the second
apply is decided by rules that run in the cluster, not in the function: JobSet v0.12's webhook
defaults a JobSet on CREATE only and refuses most changes of `spec.replicatedJobs` on UPDATE, the
CRD's `self == oldSelf` rules freeze several fields, and Kueue changes the pod templates when it
admits the JobSet. The modules here hold the part of those rules the function itself needs:

* `jobset_defaults`: what the cluster adds to a JobSet when it is created (the JobSet webhook's
  Default, the API server's CRD defaults, the webhook's Go round trip), which the function renders so
  that what is applied again equals what is live;
* `jobset_update`: which changes of a created JobSet the cluster refuses (ValidateUpdate and the CRD's
  immutability rules), for `diff`'s classification (`classify`);
* `advice`: what re-creates a JobSet whose change the cluster refuses, per client (for `classify`);
* `core_update`: which changes of a Secret or ConfigMap the API server refuses, for `classify` too
  (what Kueue's webhook refuses is the Kueue profile's: its `update_refusals`, profiles/kueue_update.py);
* `naming`: the `jobSetNames: contentHash` naming mode;
* `render`: the one call the function makes after each TrainJob's expansion.

The client algorithms (three-way JSON merge patch, server-side apply, Kueue's admission, the Argo CD
sync) are emulated in tests/lifecycle/, where the tests that prove the design use them.
"""
