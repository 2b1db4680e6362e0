"""The reporting wing: what a run found and what a change does, as plain data built from the
Outcomes the commands give it (it never runs the function itself; docs/review.md).

- findings: the findings model, one record per error or warning (rule, severity, message, waiver,
  the object as `Kind namespace/name`, file, line and field), and validate's report of them;
- report: one summary per TrainJob and totals per namespace (`report`, the KRM `report:` ConfigMap);
- diff: two expansions compared object by object and field by field, Secret data masked;
- guardrails: what a change does to the checks themselves (config options, shared runtimes, the
  policyDirs' objects, waivers), shown before the objects;
- sides: OLD and NEW of a `diff` read as a directory or from git's objects (kpt_fn.gitrev);
- upgrade: `diff --trainer-version OLD..NEW`, the diff with the releases and a summary.

Every writer of this data (Markdown, JSON, SARIF, ...) is in kpt_fn/formats/.
"""
