"""Start-up stays light: the KRM mode on a one-TrainJob package imports none of the heavy optional
dependencies (each costs tens to hundreds of milliseconds on every kpt/kustomize build). No timing is
asserted; what is imported is."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "fixtures" / "examples" / "torch-job"

# celpy/lark: the CRDs' CEL rules come precompiled (each release bundle's cel_trees.json); click: KRM mode
# has no command line; jinja2 and cryptography: only Flux and generated Secrets need them;
# importlib.resources: package data is read as plain files; jsonschema_rs: valid objects pass the
# pure-Python precheck (kpt_fn.validation.precheck). Standard-library modules such as typing or
# dataclasses are not policed here: what they cost is a benchmark figure (docs/benchmarks.md), not a rule.
# re2 (google-re2): only the regular expressions of admission policies' CEL need it; kpt_fn.admission:
# the admission policies' code and its CEL engine, for runs with policies only (kpt_fn.function).
HEAVY = ["celpy", "click", "cryptography", "importlib.resources", "jinja2", "jsonschema_rs", "kpt_fn.admission", "lark",
         "re2"]

SCRIPT = """
import io, json, sys
sys.argv = ["expand-trainjobs"]
sys.stdin = io.TextIOWrapper(io.BytesIO(sys.stdin.buffer.read()))
real_stdout = sys.stdout
sys.stdout = io.TextIOWrapper(io.BytesIO())
from kpt_fn import cli
try:
    cli.main()
except SystemExit as e:
    code = e.code
real_stdout.write(json.dumps({"code": code, "heavy": sorted(m for m in %r if m in sys.modules)}))
""" % (HEAVY,)


def test_krm_mode_on_one_trainjob_imports_no_heavy_dependency():
    items = [yaml.safe_load((EXAMPLE / name).read_text()) for name in ("runtime.yaml", "trainjob.yaml")]
    rl = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items}
    out = subprocess.run([sys.executable, "-c", SCRIPT], input=yaml.safe_dump(rl).encode(), capture_output=True,
                         check=True, cwd=REPO)
    report = json.loads(out.stdout)
    assert report == {"code": 0, "heavy": []}, out.stderr.decode()
