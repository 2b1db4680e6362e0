"""The pod-spec and Job tables' import of the one harness (tests/upstream/kubernetes/harness.py)."""

from upstream.kubernetes.harness import (JOB_SPEC, POD_METADATA, POD_SPEC, Case, Finding, Place, check,  # noqa: F401
                                         findings, jobset, matches, params, place, run)
