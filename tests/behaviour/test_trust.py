"""fixtures/trust/<case>/: whose objects the function may replace, and what every mode must tell the user.

Each case is a package; expected.yaml (format in fixtures/trust/README.md) says what KRM mode (the package
as kpt hands it over), `render` and `validate` must do with it. Real clients: tests/clients/test_trust_clients.py.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kpt_fn import yamlio
from kpt_fn.cli import krm, plain

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "fixtures" / "trust"
SKIPPED = {"expected.yaml", "README.md", "Kptfile"}


def _cases():
    found = sorted(p.name for p in CASES.iterdir() if (p / "expected.yaml").is_file())
    assert found, f"no cases under {CASES}"
    return found


def package_items(pkg: Path) -> list:
    """The package's documents as kpt gives them to a function: each with its path and index."""
    items = []
    for f in sorted(pkg.iterdir()):
        if f.name in SKIPPED or f.suffix not in (".yaml", ".yml"):
            continue
        for i, doc in enumerate(d for d in yamlio.load_all(f.read_text()) if d is not None):
            ann = {"config.kubernetes.io/path": f.name, "config.kubernetes.io/index": str(i),
                   "internal.config.kubernetes.io/path": f.name, "internal.config.kubernetes.io/index": str(i)}
            doc.setdefault("metadata", {}).setdefault("annotations", {}).update(ann)
            items.append(doc)
    return items


def _matches(result: dict, want: dict) -> bool:
    for key, value in want.items():
        if key == "message_contains":
            if value not in result.get("message", ""):
                return False
        elif key == "resourceRef":
            if any((result.get("resourceRef") or {}).get(k) != v for k, v in value.items()):
                return False
        elif key == "field":
            if (result.get("field") or {}).get("path") != value:
                return False
        elif key == "file":
            if (result.get("file") or {}).get("path") != value:
                return False
        elif result.get(key) != value:
            return False
    return True


def _check_lines(lines: list, spec: dict) -> None:
    for text, count in (spec.get("lines") or {}).items():
        assert sum(text in line for line in lines) == count, (text, count, lines)
    for text in spec.get("absent") or ():
        assert not any(text in line for line in lines[1:]), (text, lines)


@pytest.mark.parametrize("case", _cases())
def test_krm(case):
    pkg = CASES / case
    spec = yamlio.load((pkg / "expected.yaml").read_text()).get("krm")
    if spec is None:
        pytest.skip("no KRM expectation for this case")  # render-only case (Argo CD's namespace)
    items = package_items(pkg)
    # As `kpt fn eval --fn-config expand-trainjobs.yaml` (or a Kptfile's configPath) would run it.
    config = yamlio.load((pkg / "expand-trainjobs.yaml").read_text()) if (pkg / "expand-trainjobs.yaml").exists() else None
    rl = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items, "functionConfig": config}
    data = yamlio.dump(rl).encode()
    stdout, lines, code = krm.process(data, base_dir=str(pkg), env={})
    out = yamlio.load(stdout)
    assert code == spec["exit_code"], lines
    if spec.get("items_unchanged"):
        assert out["items"] == items
    results = out["results"]
    for want in spec.get("results") or ():
        assert any(_matches(r, want) for r in results), (want, results)
    for text in spec.get("absent") or ():
        assert not any(text in r["message"] for r in results), (text, results)
    _check_lines(lines, spec)


@pytest.mark.parametrize("case", _cases())
@pytest.mark.parametrize("mode", ["render", "validate"])
def test_plain(case, mode, tmp_path):
    expected = yamlio.load((CASES / case / "expected.yaml").read_text())
    spec = expected.get(mode)
    if spec is None:
        pytest.skip(f"no {mode} expectation for this case")
    pkg = tmp_path / case  # the package as it sits in Git: without the test's expected.yaml
    shutil.copytree(CASES / case, pkg)
    (pkg / "expected.yaml").unlink()
    stdout, lines, code = plain.render([], str(pkg), dict(expected.get("env") or {}), None if mode == "render" else mode)
    assert code == spec["exit_code"], lines
    if "objects" in spec:
        objs = [d for d in yamlio.load_all(stdout) if d]
        shown = sorted(f"{o['kind']} {o['metadata'].get('namespace', '')}/{o['metadata']['name']}" for o in objs)
        assert shown == sorted(spec["objects"]), lines
    _check_lines(lines, spec)
