"""The shipped examples/ as kpt's function test runner sees them (tests/support/kpt_runner.py): each example
is a test case with `.expected/config.yaml`, `.expected/diff.patch` (the `git diff` its route makes)
and, for the routes that are not kpt, `.expected/exec.sh`. The default suite runs every example
through the runner (tests/behaviour/test_examples.py); the container suite runs them with the function image
(tests/container/test_examples_image.py); both compare with the same checked-in diff.patch.

KPT_E2E_UPDATE_EXPECTED=true rewrites diff.patch from the exec route and then fails the test (the
runner's own switch), so that an update run never passes: review the diff, then run again without it.
"""

from __future__ import annotations

from pathlib import Path

from support import argocd_cmp as cmp
from support import kpt_runner
from clients import kit
from kpt_fn import yamlio

EXAMPLES = kit.ROOT / "examples"
# The published image by tag and digest, as deploy/image.lock pins it (scripts/pin_image.py writes both).
IMAGE_IN_EXAMPLES = next(line for line in (kit.ROOT / "deploy" / "image.lock").read_text().splitlines()
                         if line and not line.startswith("#"))
EXEC_IN_KPTFILE = "- exec: expand-trainjobs\n"
RENDERED = "rendered.yaml"  # where an exec.sh route writes its client's output
NAMES = [p.name for p in kpt_runner.scan(EXAMPLES)]


def route(name: str) -> str:
    """kpt, kustomize or argocd: what the example is, by the client's own file in it; monorepo: a
    repository of several apps (an `apps/` directory), run as CI runs it."""
    d = EXAMPLES / name
    for file, kind in (("Kptfile", "kpt"), ("kustomization.yaml", "kustomize"), ("application.yaml", "argocd")):
        if (d / file).is_file():
            return kind
    if (d / "apps").is_dir():
        return "monorepo"
    raise AssertionError(f"examples/{name} has no Kptfile, kustomization.yaml, application.yaml or apps/")


def uses_image(name: str) -> bool:
    """Whether the example runs the function image (a kustomize container function)."""
    return any(IMAGE_IN_EXAMPLES in p.read_text() for p in (EXAMPLES / name).glob("*.yaml"))


def expected_output(name: str) -> str:
    """The client's output an exec.sh route writes, as its diff.patch adds it."""
    return kpt_runner.added_file((EXAMPLES / name / ".expected" / "diff.patch").read_text(), RENDERED)


def with_image(name: str, tmp_path: Path, image: str) -> Path:
    """A copy of the example that runs `image`: the Kptfile's exec mutator becomes that image, the
    kustomize configs' image reference is replaced by it."""
    d = kit.copy_tree(EXAMPLES / name, tmp_path / name)
    if route(name) == "kpt":
        kptfile = (d / "Kptfile").read_text()
        assert EXEC_IN_KPTFILE in kptfile, f"examples/{name}/Kptfile does not say {EXEC_IN_KPTFILE!r}"
        (d / "Kptfile").write_text(kptfile.replace(EXEC_IN_KPTFILE, f"- image: {image}\n"))
        return d
    hits = 0
    for f in d.glob("*.yaml"):
        if IMAGE_IN_EXAMPLES in f.read_text():
            f.write_text(f.read_text().replace(IMAGE_IN_EXAMPLES, image))
            hits += 1
    assert hits, f"examples/{name} does not name {IMAGE_IN_EXAMPLES}"
    return d


# A `docker` for the default suite: kubectl kustomize runs a container function with `docker run ...
# IMAGE`; this runs the image's entrypoint (the function, from PATH) without a container, for the
# image the examples name only. The container suite runs the real image instead.
DOCKER_WITHOUT_CONTAINERS = f"""#!/bin/sh
for arg; do last=$arg; done
if [ "$last" != "{IMAGE_IN_EXAMPLES}" ]; then echo "docker (test stand-in): unexpected: $*" >&2; exit 125; fi
exec expand-trainjobs
"""


def argocd_request(repo: Path, application: Path | None = None) -> dict:
    """app path, build environment and parameters of the example's Application (`application`, default
    its application.yaml), as Argo CD derives them."""
    app = yamlio.load((application or repo / "application.yaml").read_text())
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
