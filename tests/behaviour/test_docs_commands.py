"""Every `sh` block of README.md, docs/*.md and examples/*/README.md runs as written on a fresh copy of
the checkout and gives what the text says.

The copy has nothing but the repository's files (tests/support/checkout.py); the README's quick start runs
first, as written (a new venv and `pip install`), and the other blocks run with that venv active, as the
docs ask, each in its own bash (`-e -u -o pipefail`) from the copy's root, TMPDIR inside the test's
directory. kubectl's container functions call `docker`: here a stand-in that runs the function
without a container, for the examples' image only (tests/support/shipped_examples.py); with `-m container`
the examples run with the real image (tests/container/test_examples_image.py). A block that cannot run here says so in the doc, on the line before it:
`<!-- doc-test: not run: REASON -->`; `<!-- doc-test: needs ../shared/upstream -->` blocks run only when
the upstream data is beside the checkout (then linked beside the copy too). The blocks whose text
promises an output are checked against it (EXPECTED below).
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from support import upstream_data
from support.checkout import ROOT, copy_checkout

from support import kpt_runner
from support import shipped_examples as ex

pytestmark = pytest.mark.clients

BLOCK = re.compile(r"(?:<!--\s*doc-test:\s*(?P<mark>.*?)\s*-->\s*\n)?^```(?:sh|bash|shell)\n(?P<body>.*?)^```", re.S | re.M)
NOT_RUN = "not run: "
NEEDS_UPSTREAM = "needs ../shared/upstream"
MAX_NOT_RUN = 5  # keep the list of blocks the test cannot run small


def doc_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "examples").glob("*/README.md"))]


def blocks() -> list[tuple[str, int, str, str]]:
    """(file, line, mark, body) of every shell block, README.md first."""
    out = []
    for path in doc_files():
        text = path.read_text()
        for m in BLOCK.finditer(text):
            line = text.count("\n", 0, m.start("body"))
            out.append((str(path.relative_to(ROOT)), line, m.group("mark") or "", m.group("body")))
    return out


def _expected_kpt_output() -> str:
    return kpt_runner.added_file((ex.EXAMPLES / "kpt-package" / ".expected" / "diff.patch").read_text(), "mnist.generated.yaml")


# command text in a block -> what its stdout must be (the text's promise)
EXPECTED = {
    'kpt fn render "$pkg" --allow-exec && cat "$pkg/mnist.generated.yaml"': _expected_kpt_output,
    "kubectl kustomize --enable-alpha-plugins examples/kustomize-legacy-plugin": lambda: ex.expected_output("kustomize-legacy-plugin"),
    "ARGOCD_APP_NAMESPACE=team-a ARGOCD_APP_SOURCE_PATH=apps/train expand-trainjobs render examples/argocd-app/apps/train":
        lambda: ex.expected_output("argocd-app"),
}


def test_marks_are_few_and_say_why():
    marks = [(f, n, m) for f, n, m, _ in blocks() if m]
    assert all(m.startswith(NOT_RUN) and len(m) > len(NOT_RUN) + 10 or m == NEEDS_UPSTREAM for _, _, m in marks), marks
    assert len([m for m in marks if m[2].startswith(NOT_RUN)]) <= MAX_NOT_RUN, marks


def test_every_block_is_found():
    found = blocks()
    assert found[0][0] == "README.md" and "pip install" in found[0][3]  # the quick start comes first
    for command in EXPECTED:
        assert any(command in body for *_, body in found), command


def _run(body: str, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-euo", "pipefail", "-c", body], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_every_block_runs_as_written_on_a_fresh_copy(tmp_path):
    copy = copy_checkout(tmp_path / "fresh" / "expand-trainjobs")
    if upstream_data.present():
        (copy.parent / upstream_data.SHARED.name).symlink_to(upstream_data.SHARED)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    docker = tmp_path / "docker-bin"
    docker.mkdir()
    (docker / "docker").write_text(ex.DOCKER_WITHOUT_CONTAINERS)
    (docker / "docker").chmod(0o755)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("VIRTUAL_ENV", "PYTHON", "ARGOCD_", "PARAM_", "KUSTOMIZE_", "EXPAND_TRAINJOBS", "KPT_", "PYTEST_"))}
    env.update(TMPDIR=str(tmp), KUBECONFIG=str(tmp_path / "kubeconfig"), XDG_CONFIG_HOME=str(tmp_path / "xdg"))
    failures, ran = [], 0
    for i, (file, line, mark, body) in enumerate(blocks()):
        if mark.startswith(NOT_RUN) or (mark == NEEDS_UPSTREAM and not upstream_data.present()):
            continue
        if i > 0:  # after the quick start: its venv active, as the docs ask
            env["VIRTUAL_ENV"] = str(copy / ".venv")
            env["PATH"] = os.pathsep.join([str(copy / ".venv" / "bin"), str(docker), os.environ["PATH"]])
        p = _run(body, copy, env)
        ran += 1
        where = f"{file}:{line}"
        if p.returncode != 0:
            failures.append(f"{where}: exit {p.returncode}\n{body}\nstdout: {p.stdout[-1500:]}\nstderr: {p.stderr[-3000:]}")
            if i == 0:
                break  # without the quick start's venv nothing else can run
            continue
        for command, expected in EXPECTED.items():
            if command in body and p.stdout != expected():
                failures.append(f"{where}: the output is not what the text says (the example's expected output):\n"
                                f"{body}\n--- got\n{p.stdout[:3000]}")
    assert not failures, "\n\n".join(failures)
    assert ran >= 10
