"""The review report beside the output in KRM mode (`report: markdown|json`), with real kpt: written
to expand-trainjobs-report.yaml, replaced on every run (a second run changes nothing), never over a
ConfigMap of that name that is not ours."""

from __future__ import annotations

import pytest

from kpt_fn import yamlio
from kpt_fn.formats import krm_report

from . import kit

pytestmark = pytest.mark.clients


def _with_report(pkg, fmt):
    cfg = pkg / "expand-trainjobs.yaml"
    doc = yamlio.load(cfg.read_text())
    doc.setdefault("spec", {})["report"] = fmt
    cfg.write_text(yamlio.dump(doc))
    return cfg


@pytest.mark.parametrize("fmt, key", [("markdown", "report.md"), ("json", "report.json")])
def test_report_file_written_and_idempotent(kpt, fn, demo, env, tmp_path, fmt, key):
    cfg = _with_report(demo, fmt)
    argv = [kpt, "fn", "eval", demo, "--exec", fn, "--fn-config", cfg]
    kit.run(argv, cwd=tmp_path, env=env).ok()
    report = yamlio.load((demo / krm_report.REPORT_FILE).read_text())
    assert report["kind"] == "ConfigMap" and report["metadata"]["annotations"]["config.kubernetes.io/local-config"] == "true"
    text = report["data"][key]
    trainjobs = kit.demo_trainjobs(demo)
    assert trainjobs
    for _, name in trainjobs:
        assert name in text
    first = kit.snapshot(demo)
    kit.run(argv, cwd=tmp_path, env=env).ok()
    assert kit.snapshot(demo) == first


def test_foreign_configmap_of_that_name_is_an_error(kpt, fn, demo, env, tmp_path):
    cfg = _with_report(demo, "markdown")
    mine = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: expand-trainjobs-report\ndata:\n  a: b\n"
    (demo / "mine.yaml").write_text(mine)
    before = kit.snapshot(demo)
    r = kit.run([kpt, "fn", "eval", demo, "--exec", fn, "--fn-config", cfg], cwd=tmp_path, env=env).failed()
    assert "not a report of this function" in r.stderr
    assert kit.snapshot(demo) == before
