"""Everything that leaves the repository installs from a pinned, verifiable source (issue 35).

The canonical home is declared once, in kpt_fn/__init__.py (REPOSITORY, IMAGE, __version__), and the
published image once, in deploy/image.lock (tag and digest, written by scripts/pin_image.py). Every
shipped snippet is held to them here: the GitHub workflows, the pre-commit config of docs/ci.md, the
code blocks of README.md, docs/ and the examples' READMEs, Kptfiles, kustomize configs, the Argo CD
manifests and metadata.yaml. A snippet fails when it installs a bare name from a package index, names
an image without a digest, uses a GitHub action by a movable tag, or pins a pre-commit hook to a branch.
"""

from __future__ import annotations

import re
import shlex
import sys
import tomllib
from pathlib import Path

import jsonschema_rs
import pytest
import yaml

import kpt_fn
from kpt_fn import yamlio

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import pin_image  # noqa: E402 (scripts/ is no package)

SHA1 = re.compile(r"[0-9a-f]{40}")
RELEASE_TAG = re.compile(r"v\d+\.\d+\.\d+")
OUR_SOURCE = f"expand-trainjobs @ git+{kpt_fn.REPOSITORY}@v{kpt_fn.__version__}"
# What no shipped file may name any more: the placeholders of before (issue 35).
PLACEHOLDERS = ("example.com/expand-trainjobs", "git.example.com/platform/expand-trainjobs")


def shipped_files() -> list[Path]:
    """The files a user copies or reads to install or run the function."""
    files = [ROOT / "README.md", ROOT / "metadata.yaml", ROOT / ".pre-commit-hooks.yaml"]
    files += sorted((ROOT / "docs").glob("*.md"))
    for top in ("examples", "deploy", "argocd", "kustomize", ".github"):
        files += sorted(p for p in (ROOT / top).rglob("*") if p.is_file() and "testdata" not in p.parts)
    return files


def code_blocks(markdown: str) -> list[str]:
    """The fenced code blocks of a Markdown text (what a reader copies)."""
    return re.findall(r"^```[^\n]*\n(.*?)^```", markdown, flags=re.M | re.S)


def pip_requirements(command: str) -> list[str]:
    """The requirement arguments of every `pip install` in a shell text (options and their values left out)."""
    found = []
    for line in command.replace("\\\n", " ").splitlines():
        for part in re.split(r"&&|\|\||;|\|", line):
            try:
                words = shlex.split(part, comments=True)
            except ValueError:
                continue
            for i, w in enumerate(words):
                if w == "install" and i and words[i - 1].endswith("pip"):
                    rest, skip = words[i + 1:], False
                    for a in rest:
                        if skip:
                            skip = False
                        elif a in ("-c", "-r", "--constraint", "--requirement", "--find-links", "-f", "--index-url",
                                   "-i", "--target", "-t"):
                            skip = True
                        elif not a.startswith("-"):
                            found.append(a)
    return found


def install_problems(command: str, where: str) -> list[str]:
    problems = []
    for req in pip_requirements(command):
        local = req.startswith((".", "/", "$", "~")) or req.startswith(("'.", '".'))
        m = re.fullmatch(r"([\w.-]+(?:\[[\w,]+\])?) @ git\+(https://\S+?)@(\S+)", req)
        if local:
            continue
        if m is None:
            problems.append(f"{where}: `pip install {req}` installs a name from a package index: install "
                            f'"{OUR_SOURCE}" (a release tag or a full commit id) instead')
        elif not (RELEASE_TAG.fullmatch(m.group(3)) or SHA1.fullmatch(m.group(3))):
            problems.append(f"{where}: {req} is not pinned to a release tag or a full commit id")
        elif m.group(1) == "expand-trainjobs" and req != OUR_SOURCE and not SHA1.fullmatch(m.group(3)):
            problems.append(f"{where}: {req} is not this release ({OUR_SOURCE})")
    return problems


def image_problems(text: str, where: str, locked: str, *, bare_allowed: bool) -> list[str]:
    problems = []
    for m in pin_image.REFERENCE.finditer(text):
        ref = m.group(0)
        line = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
        # A bare name is no pull: the catalog's metadata, prose, a kustomize `images:` selector, and
        # the release workflow's IMAGE (where it pushes, tagged and then pinned by digest).
        key = line.lstrip("# ").removeprefix("- ")
        if ref == pin_image.IMAGE and (bare_allowed or key.startswith(("name:", "IMAGE:"))):
            continue
        if ref != locked:
            problems.append(f"{where}: {ref} is not the pinned image {locked} (deploy/image.lock; "
                            f"scripts/pin_image.py writes every copy)")
    return problems


def action_problems(workflow: dict, where: str) -> list[str]:
    problems = []
    for job in (workflow.get("jobs") or {}).values():
        for step in job.get("steps") or []:
            uses = step.get("uses")
            if uses and not SHA1.fullmatch(uses.rpartition("@")[2]):
                problems.append(f"{where}: `uses: {uses}` is not pinned to a full commit id (a tag can be moved)")
    return problems


def pre_commit_problems(config: dict, where: str) -> list[str]:
    problems = []
    for repo in config.get("repos") or []:
        rev = str(repo.get("rev", ""))
        if repo.get("repo") in ("local", "meta"):
            continue
        if not (RELEASE_TAG.fullmatch(rev) or SHA1.fullmatch(rev)):
            problems.append(f"{where}: pre-commit repo {repo.get('repo')} at rev {rev!r}: name a release tag or a full commit id")
        elif repo["repo"].rstrip("/").removesuffix(".git") == kpt_fn.REPOSITORY and rev != f"v{kpt_fn.__version__}" \
                and not SHA1.fullmatch(rev):
            problems.append(f"{where}: pre-commit rev {rev} is not this release (v{kpt_fn.__version__})")
        elif "example.com" in repo.get("repo", ""):
            problems.append(f"{where}: pre-commit repo {repo['repo']} is a placeholder: name {kpt_fn.REPOSITORY}")
    return problems


def file_problems(path: Path, text: str, locked: str) -> list[str]:
    where = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
    problems = [f"{where}: names the placeholder {p}" for p in PLACEHOLDERS if p in text]
    if path.suffix == ".md":
        for block in code_blocks(text):
            problems += install_problems(block, where)
            problems += image_problems(block, where, locked, bare_allowed=False)
            if re.search(r"^repos:", block, flags=re.M):
                problems += pre_commit_problems(yaml.safe_load(block), where)
        problems += image_problems(text, where, locked, bare_allowed=True)
        return problems
    problems += install_problems(text, where) if path.suffix in (".sh", "") or "run:" in text else []
    problems += image_problems(text, where, locked, bare_allowed=path.name == "metadata.yaml")
    if path.suffix in (".yaml", ".yml") and path.parent.name in ("github", "workflows"):
        workflow = yaml.safe_load(text)
        problems += action_problems(workflow, where)
        for job in (workflow.get("jobs") or {}).values():
            for step in job.get("steps") or []:
                problems += install_problems(step.get("run", ""), where)
    return problems


def test_every_shipped_snippet_installs_from_a_pinned_source():
    locked = pin_image.locked()
    problems = []
    for path in shipped_files():
        problems += file_problems(path, path.read_text(), locked)
    assert not problems, "\n".join(problems)


def test_the_lock_names_the_canonical_image_at_this_release_by_digest():
    locked = pin_image.locked()
    assert pin_image.IMAGE == kpt_fn.IMAGE
    name, _, digest = locked.partition("@")
    assert name == f"{kpt_fn.IMAGE}:v{kpt_fn.__version__}"
    assert pin_image.DIGEST.fullmatch(digest)


def test_the_workflow_and_pre_commit_config_install_this_release():
    assert f'pip install "{OUR_SOURCE}"' in (ROOT / "deploy" / "github" / "expand-trainjobs.yaml").read_text()
    configs = [yaml.safe_load(b) for b in code_blocks((ROOT / "docs" / "ci.md").read_text()) if b.startswith("# .pre-commit-config")]
    assert [r["rev"] for c in configs for r in c["repos"] if r["repo"] == kpt_fn.REPOSITORY] == [f"v{kpt_fn.__version__}"]


# The checker's own corpus: unusual but pinned sources pass, each kind of unpinned source is refused.
PASSES = [
    ("README.md", "```sh\npython3 -m venv .venv && .venv/bin/pip install -q -c constraints.txt -e '.[test]'\n```\n"),
    ("README.md", f'```sh\npip install "{OUR_SOURCE}"\n```\n'),
    ("README.md", "```sh\npip install 'expand-trainjobs @ git+https://github.com/a/b@" + "a" * 40 + "'\n```\n"),
    ("README.md", "```sh\npip install --no-index --find-links /wheels ./dist/expand_trainjobs-0.2.0-py3-none-any.whl\n```\n"),
    ("README.md", "Images live at ghcr.io/expand-trainjobs/expand-trainjobs (prose names the repository bare).\n"),
    ("x.yaml", "image: {locked}\n"),
    ("kustomization.yaml", "images:\n- name: ghcr.io/expand-trainjobs/expand-trainjobs\n  newName: mirror.test/fn\n"),
    ("github/w.yaml", "jobs:\n  a:\n    steps:\n    - uses: actions/checkout@" + "b" * 40 + "  # v4\n"),
    ("docs.md", "```yaml\nrepos:\n- repo: https://github.com/pre-commit/pre-commit-hooks\n  rev: v5.0.0\n  hooks: []\n```\n"),
]
REFUSED = [
    ("README.md", "```sh\npython -m pip install expand-trainjobs\n```\n", "installs a name from a package index"),
    ("README.md", "```sh\npip install 'expand-trainjobs @ git+https://github.com/a/b@main'\n```\n", "not pinned"),
    ("x.yaml", "image: ghcr.io/expand-trainjobs/expand-trainjobs:v0.2.0\n", "is not the pinned image"),
    ("x.yaml", "image: ghcr.io/expand-trainjobs/expand-trainjobs\n", "is not the pinned image"),
    ("x.yaml", "image: example.com/expand-trainjobs:v0.1.0\n", "placeholder"),
    ("github/w.yaml", "jobs:\n  a:\n    steps:\n    - uses: actions/checkout@v4\n", "not pinned to a full commit id"),
    ("github/w.yaml", "jobs:\n  a:\n    steps:\n    - run: pip install pyyaml expand-trainjobs\n", "installs a name"),
    ("docs.md", "```yaml\nrepos:\n- repo: https://github.com/expand-trainjobs/expand-trainjobs\n  rev: main\n  hooks: []\n```\n",
     "name a release tag"),
]


@pytest.mark.parametrize("name, text", PASSES)
def test_pinned_controls_pass(name, text):
    locked = pin_image.locked()
    assert file_problems(ROOT / "check" / name, text.replace("{locked}", locked), locked) == []


@pytest.mark.parametrize("name, text, message", REFUSED)
def test_unpinned_sources_are_refused(name, text, message):
    locked = pin_image.locked()
    path = ROOT / "check" / name
    problems = file_problems(path, text, locked)
    assert problems and all(p.startswith(f"check/{name}: ") for p in problems), problems
    assert any(message in p for p in problems), problems


# --- the canonical home, declared once --------------------------------------------------------------


def test_pyproject_reads_the_version_and_names_the_home():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "kpt_fn.__version__"}
    urls = project["project"]["urls"]
    assert urls["Homepage"] == kpt_fn.REPOSITORY
    assert all(u.startswith(kpt_fn.REPOSITORY + "/") for k, u in urls.items() if k != "Homepage")
    assert RELEASE_TAG.fullmatch("v" + kpt_fn.__version__)


def test_docs_url_points_at_this_release():
    assert kpt_fn.docs_url("docs/ci.md") == f"{kpt_fn.REPOSITORY}/blob/v{kpt_fn.__version__}/docs/ci.md"


def test_changelog_has_a_section_for_this_release_below_unreleased():
    heads = re.findall(r"^## (.+)$", (ROOT / "CHANGELOG.md").read_text(), flags=re.M)
    assert heads[0] == "Unreleased"
    assert re.fullmatch(rf"\[?{re.escape(kpt_fn.__version__)}\]? - \d{{4}}-\d{{2}}-\d{{2}}", heads[1]), heads[:2]


def test_license_is_the_apache_2_0_text():
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text
    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["license"]["text"] == "Apache-2.0"


@pytest.mark.upstream
def test_metadata_yaml_passes_the_kpt_catalog_schema(upstream_dir):
    import json

    schema = json.loads((Path(upstream_dir) / "kpt-catalog" / "metadata-schema.json").read_text())
    meta = yamlio.load((ROOT / "metadata.yaml").read_text())
    errors = [f"{'/'.join(map(str, e.instance_path))}: {e.message}" for e in jsonschema_rs.validator_for(schema).iter_errors(meta)]
    assert not errors, errors


def test_metadata_yaml_names_the_canonical_home():
    meta = yamlio.load((ROOT / "metadata.yaml").read_text())
    assert meta["image"] == kpt_fn.IMAGE
    assert meta["sourceURL"] == f"{kpt_fn.REPOSITORY}/tree/v{kpt_fn.__version__}"


# --- scripts/pin_image.py: what the release workflow runs with the pushed image's digest ------------


def _copy_snippets(tmp_path: Path) -> Path:
    for rel in (pin_image.LOCK, *pin_image.SNIPPETS):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text((ROOT / rel).read_text())
    return tmp_path


def test_pin_image_rewrites_the_lock_and_every_copy(tmp_path):
    root = _copy_snippets(tmp_path)
    old, digest = pin_image.locked(root), "sha256:" + "ab" * 32
    assert pin_image.main(["v0.2.0", digest, "--root", str(root)]) == 0
    new = f"{kpt_fn.IMAGE}:v0.2.0@{digest}"
    assert pin_image.locked(root) == new
    for rel in pin_image.SNIPPETS:
        text = (root / rel).read_text()
        assert new in text and old not in text, rel
        assert file_problems(root / rel, text, new) == [], rel


@pytest.mark.parametrize("tag, digest, message", [
    ("latest", "sha256:" + "a" * 64, "not a release tag"),
    ("v0.2.0", "sha256:" + "A" * 64, "not a sha256 digest"),
    ("v0.2.0", "sha512:" + "a" * 128, "not a sha256 digest"),
])
def test_pin_image_refuses_what_does_not_pin(tmp_path, capsys, tag, digest, message):
    root = _copy_snippets(tmp_path)
    before = pin_image.locked(root)
    assert pin_image.main([tag, digest, "--root", str(root)]) == 1
    assert message in capsys.readouterr().err
    assert pin_image.locked(root) == before


def test_the_snippets_pin_image_writes_are_every_file_naming_the_image():
    naming = {p.relative_to(ROOT).as_posix() for p in shipped_files()
              if any(m.group(0) != pin_image.IMAGE for m in pin_image.REFERENCE.finditer(p.read_text()))}
    assert naming == {pin_image.LOCK, *pin_image.SNIPPETS}
