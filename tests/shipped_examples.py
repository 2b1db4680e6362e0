"""Running the shipped examples/ and checking them against their checked-in `.expected/` (the kpt
functions catalog's layout): each example is rendered by its client, through the exec route in the
default suite (tests/test_examples.py) and through the image in the container suite
(tests/container/test_examples_image.py); both must produce the same checked-in output.

UPDATE_EXAMPLES=1 rewrites `.expected/` from the exec route and then fails the test, so that an
update run never passes: review the diff, then run again without it.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

import argocd_cmp as cmp
from clients import kit
from kpt_fn import yamlio

EXAMPLES = kit.ROOT / "examples"
IMAGE_IN_EXAMPLES = "example.com/expand-trainjobs:v0.1.0"
UPDATE = os.environ.get("UPDATE_EXAMPLES") == "1"
NAMES = sorted(p.name for p in EXAMPLES.iterdir() if (p / ".expected" / "config.yaml").is_file())


def route(name: str) -> str:
    return yamlio.load((EXAMPLES / name / ".expected" / "config.yaml").read_text())["route"]


def expected_file(name: str) -> Path:
    return EXAMPLES / name / ".expected" / ("diff.patch" if route(name) == "kpt-render" else "output.yaml")


def check(name: str, actual: str, *, may_update: bool) -> None:
    path = expected_file(name)
    if UPDATE and may_update:
        path.write_text(actual)
        pytest.fail(f"UPDATE_EXAMPLES=1: rewrote {path}; review the diff and run again without it")
    assert path.exists(), f"{path} is missing: run with UPDATE_EXAMPLES=1 and review it"
    expected = path.read_text()
    if actual != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True), "expected", "actual"))
        pytest.fail(f"{path} differs from the output (UPDATE_EXAMPLES=1 rewrites it; review the diff):\n{diff}")


def copy_example(name: str, tmp_path: Path, image: str | None) -> Path:
    """A copy of the example; with `image`, the example's image reference replaced by it."""
    d = kit.copy_tree(EXAMPLES / name, tmp_path / name)
    if image is not None:
        hits = 0
        for f in d.rglob("*"):
            if f.is_file() and ".expected" not in f.parts and IMAGE_IN_EXAMPLES in f.read_text():
                f.write_text(f.read_text().replace(IMAGE_IN_EXAMPLES, image))
                hits += 1
        assert hits or route(name) == "argocd", f"examples/{name} does not name {IMAGE_IN_EXAMPLES}"
    return d


# --- kpt ---------------------------------------------------------------------------------------------


def package_diff(before: dict, after: dict) -> str:
    """A unified diff of a package's files, like `git diff` of the package after rendering."""
    out = []
    for f in sorted(set(before) | set(after)):
        a, b = before.get(f), after.get(f)
        if a == b:
            continue
        a_lines = a.decode().splitlines(True) if a is not None else []
        b_lines = b.decode().splitlines(True) if b is not None else []
        out.extend(difflib.unified_diff(a_lines, b_lines, f"a/{f}" if a is not None else "/dev/null", f"b/{f}" if b is not None else "/dev/null"))
    return "".join(out)


def run_kpt_render(kpt: str, pkg: Path, env: dict, *, exec_fn: str | None = None) -> str:
    """`kpt fn render` of the package in place (as a user runs it); with exec_fn, the Kptfile's image
    mutator is swapped for that executable first. Returns the diff rendering made."""
    if exec_fn is not None:  # a text edit: the file must stay as the user wrote it
        kptfile = (pkg / "Kptfile").read_text()
        assert f"- image: {IMAGE_IN_EXAMPLES}\n" in kptfile
        (pkg / "Kptfile").write_text(kptfile.replace(f"- image: {IMAGE_IN_EXAMPLES}\n", f"- exec: {exec_fn}\n"))
    before = kit.snapshot(pkg)
    flags = ["--allow-exec"] if exec_fn else []
    kit.run([kpt, "fn", "render", ".", *flags], cwd=pkg, env=env, timeout=120).ok()
    after = kit.snapshot(pkg)
    # A second render changes nothing (kpt does not de-duplicate: the function must be idempotent).
    kit.run([kpt, "fn", "render", ".", *flags], cwd=pkg, env=env, timeout=120).ok()
    assert kit.snapshot(pkg) == after, "a second kpt fn render changed the package"
    return package_diff(before, after)


# --- kustomize ---------------------------------------------------------------------------------------


def to_legacy_plugin(app: Path) -> None:
    """The exec route of stock kubectl: the same config without the function annotation runs the
    legacy exec plugin of kustomize/plugin."""
    cfg = yamlio.load((app / "expand-trainjobs.yaml").read_text())
    cfg["metadata"].pop("annotations")
    (app / "expand-trainjobs.yaml").write_text(yamlio.dump(cfg))


def run_kustomize(kubectl: str, app: Path, env: dict) -> str:
    return kit.run([kubectl, "kustomize", "--enable-alpha-plugins", app], env=env, timeout=120).ok().stdout


# --- Argo CD -----------------------------------------------------------------------------------------


def argocd_request(repo: Path) -> dict:
    """app path, build environment and parameters of the example's Application, as Argo CD derives them."""
    app = yamlio.load((repo / "application.yaml").read_text())
    source = app["spec"]["source"]
    build_env = cmp.build_env_for_app(
        app_name=app["metadata"]["name"],
        namespace=app["spec"]["destination"]["namespace"],
        project=app["spec"]["project"],
        repo_url=source["repoURL"],
        source_path=source["path"],
        target_revision=source["targetRevision"],
    )
    plugin = source["plugin"]
    assert plugin["name"] == cmp.plugin_name(cmp.load_plugin(kit.PLUGIN_YAML))
    env_entries = [(e["name"], e["value"]) for e in plugin.get("env") or []]
    return {"app_path": source["path"], "build_env": build_env, "env_entries": env_entries, "parameters": plugin.get("parameters") or []}
