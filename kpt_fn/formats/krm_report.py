"""The writer of the KRM `report:` option: the review report (kpt_fn.review.report) as a local-config
ConfigMap among the items. kpt writes it to expand-trainjobs-report.yaml at the package root; nothing
applies it (config.kubernetes.io/local-config). Its text is the report's Markdown or JSON writer's.
"""

from __future__ import annotations

from kpt_fn import resource as res
from kpt_fn.formats import report as report_writer

REPORT_NAME = "expand-trainjobs-report"
REPORT_FILE = f"{REPORT_NAME}.yaml"
REPORT_MARKER = "expand-trainjobs.fn.kpt.dev/report"


def configmap(data: dict, fmt: str) -> dict:
    """The report `data` as the ConfigMap, its text in format `fmt` (markdown or json)."""
    key, text = ("report.json", report_writer.to_json(data)) if fmt == "json" else ("report.md", report_writer.markdown(data))
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": REPORT_NAME, "annotations": {res.LOCAL_CONFIG: "true", REPORT_MARKER: fmt}},
        "data": {key: text},
    }
