"""One small report (kpt_fn.review.findings.collect's shape) that every format's test writes."""


TJ = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "namespace": "ns", "name": "a"}
NONE = {"apiVersion": "", "kind": "", "namespace": "", "name": ""}


def finding(severity="error", message="bad", rule="k8s/x", resource=TJ, field="spec", file="app/job.yaml", line=3,
            column=None, app="", waiver=None):
    """One record of the findings model (kpt_fn.review.findings.FIELDS, every key)."""
    from kpt_fn.review.findings import who

    return {"rule": rule, "severity": severity, "message": message, "resource": resource, "object": who(resource),
            "app": app, "field": field, "file": file, "line": line, "column": column or (5 if line else None),
            "count": 1, "waiver": waiver}


def report(*found, trainjobs=None):
    return {"summary": "expand-trainjobs: FAILED: 1 error(s)", "errors": 1, "warnings": 0,
            "trainJobs": trainjobs if trainjobs is not None else [], "findings": list(found)}


RULES = [{"id": "k8s/x", "family": "k8s", "applies_to": "JobSet", "description": "What x checks"}]
