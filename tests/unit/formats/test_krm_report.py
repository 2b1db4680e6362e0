"""kpt_fn.formats.krm_report: the review report as the local-config ConfigMap of the KRM `report:`
option (placed among the items: tests/clients/test_report_krm.py, tests/behaviour/test_never_lose_items.py)."""

from __future__ import annotations

import json

from kpt_fn.formats import krm_report
from unit.formats.test_report import DATA


def test_the_configmap_holds_the_markdown_or_the_json_and_is_local_config():
    cm = krm_report.configmap(DATA, "markdown")
    assert cm["metadata"]["name"] == krm_report.REPORT_NAME and krm_report.REPORT_FILE == "expand-trainjobs-report.yaml"
    assert cm["metadata"]["annotations"] == {"config.kubernetes.io/local-config": "true", krm_report.REPORT_MARKER: "markdown"}
    assert cm["data"]["report.md"].startswith("## expand-trainjobs report: 1 TrainJob(s)")
    assert json.loads(krm_report.configmap(DATA, "json")["data"]["report.json"]) == DATA
