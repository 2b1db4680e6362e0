"""Under the Argo CD sidecar, configured paths are confined to the repository root (found from
ARGOCD_APP_SOURCE_PATH and the working directory), not the app directory: runtimes shared in a
monorepo's platform/runtimes render, and a path above the repository is still refused."""

from __future__ import annotations

import os
import shutil

import pytest

from kpt_fn import argocd, sources
from kpt_fn.cli import plain

TORCH = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "examples", "torch-job")


@pytest.mark.parametrize("app_dir, source, root", [
    ("/w/uuid/apps/train", "apps/train", "/w/uuid"),
    ("/w/uuid/apps/train", "apps/train/", "/w/uuid"),
    ("/w/uuid/apps/train", "./apps//train", "/w/uuid"),
    ("/w/uuid", ".", "/w/uuid"),
    ("/w/uuid", "", "/w/uuid"),
    # --plugin-use-manifest-generate-paths streams only a subtree: the app path is a tail of the source path.
    ("/w/uuid/train", "apps/train", "/w/uuid"),
    # The working directory is not the app (a caller's own `render DIR`): only the app directory.
    ("/elsewhere/x", "apps/train", "/elsewhere/x"),
])
def test_repository_root(app_dir, source, root):
    assert argocd.repository_root(app_dir, {"ARGOCD_APP_SOURCE_PATH": source}) == root


@pytest.mark.parametrize("source", ["/apps/train", "../apps/train", "apps/../../train"])
def test_a_source_path_that_leaves_the_repository_gives_no_root(source):
    assert argocd.repository_root("/w/uuid/apps/train", {"ARGOCD_APP_SOURCE_PATH": source}) is None


def test_outside_argo_cd_there_is_no_repository_root():
    assert argocd.repository_root("/w/uuid/apps/train", {}) is None


def test_reader_confined_to_an_ancestor_only(tmp_path):
    app = tmp_path / "apps" / "train"
    app.mkdir(parents=True)
    assert sources.Reader(str(app), confine_to=(str(tmp_path), sources.REPOSITORY_ROOT)).confine_root == str(tmp_path)
    # A "root" that is not above the app directory would widen nothing: the app directory stays the root.
    other = tmp_path / "other"
    other.mkdir()
    reader = sources.Reader(str(app), label=sources.APP_DIR, confine_to=(str(other), sources.REPOSITORY_ROOT))
    assert (reader.confine_root, reader.confine_label) == (str(app), sources.APP_DIR)


def _monorepo(tmp_path, runtime_dirs: str):
    """repo/platform/runtimes (shared), repo/apps/train (the Argo CD app), and a runtime outside the repo."""
    repo = tmp_path / "repo"
    (repo / "platform" / "runtimes").mkdir(parents=True)
    shutil.copy(os.path.join(TORCH, "runtime.yaml"), repo / "platform" / "runtimes" / "torch.yaml")
    app = repo / "apps" / "train"
    app.mkdir(parents=True)
    shutil.copy(os.path.join(TORCH, "trainjob.yaml"), app / "trainjob.yaml")
    (app / "expand-trainjobs.yaml").write_text(
        f"apiVersion: fn.kpt.dev/v1alpha1\nkind: ExpandTrainJobs\nspec:\n  runtimeDirs: [{runtime_dirs}]\n")
    (tmp_path / "outside").mkdir()
    shutil.copy(os.path.join(TORCH, "runtime.yaml"), tmp_path / "outside" / "torch.yaml")
    return str(app)


SIDECAR = {"ARGOCD_APP_SOURCE_PATH": "apps/train", "ARGOCD_APP_NAMESPACE": "team-a"}


def test_shared_runtimes_render_under_the_sidecar(tmp_path):
    app = _monorepo(tmp_path, "../../platform/runtimes")
    out, lines, code = plain.render([], app, SIDECAR)
    assert code == 0, lines
    assert "kind: JobSet" in out and "docker.io/kubeflow/pytorch-mnist" in out
    # Outside Argo CD the app directory is still the root.
    out, lines, code = plain.render([], app, {})
    assert code == 1 and "outside the app directory" in "\n".join(lines)


def test_a_path_above_the_repository_is_refused(tmp_path):
    app = _monorepo(tmp_path, "../../../outside")
    out, lines, code = plain.render([], app, SIDECAR)
    text = "\n".join(lines)
    assert (out, code) == ("", 1)
    assert "runtime directory '../../../outside' is outside the repository root: paths are confined to it" in text


def test_a_link_out_of_the_repository_is_refused(tmp_path):
    app = _monorepo(tmp_path, "../../platform/linked")
    os.symlink(str(tmp_path / "outside"), os.path.join(app, "..", "..", "platform", "linked"))
    out, lines, code = plain.render([], app, SIDECAR)
    assert code == 1 and "leads outside the repository root" in "\n".join(lines)


def test_messages_name_files_relative_to_the_app_not_the_work_directory(tmp_path):
    app = _monorepo(tmp_path, "../../platform/runtimes")
    with open(os.path.join(app, "..", "..", "platform", "runtimes", "broken.yaml"), "w") as f:
        f.write("a: [\n")
    out, lines, code = plain.render([], app, SIDECAR)
    text = "\n".join(lines)
    assert code == 1 and "../../platform/runtimes/broken.yaml" in text
    assert str(tmp_path) not in text


def test_git_top_level_is_the_nearest_directory_holding_git(tmp_path):
    app = tmp_path / "repo" / "apps" / "a"
    app.mkdir(parents=True)
    assert argocd.git_top_level(str(app)) is None or not str(argocd.git_top_level(str(app))).startswith(str(tmp_path))
    (tmp_path / "repo" / ".git").mkdir()
    assert argocd.git_top_level(str(app)) == str(tmp_path / "repo")
    # a worktree or submodule: .git is a file (a gitfile)
    (tmp_path / "repo" / "apps" / ".git").write_text("gitdir: elsewhere\n")
    assert argocd.git_top_level(str(app)) == str(tmp_path / "repo" / "apps")


@pytest.mark.parametrize("current, expected", [
    (None, "ServerSideApply=true"),
    ("Prune=false", "Prune=false,ServerSideApply=true"),
    ("ServerSideApply=false, Prune=false", "Prune=false,ServerSideApply=true"),  # the same option replaced
    (" , ", "ServerSideApply=true"),
    (3, "ServerSideApply=true"),                                                 # not a list: replaced
])
def test_with_sync_option(current, expected):
    obj = {"kind": "JobSet", "metadata": {"name": "x", "annotations": {} if current is None else {argocd.SYNC_OPTIONS: current}}}
    out = argocd.with_sync_option(obj, argocd.SERVER_SIDE_APPLY)
    assert out["metadata"]["annotations"][argocd.SYNC_OPTIONS] == expected
    assert argocd.has_sync_option(out, argocd.SERVER_SIDE_APPLY)


@pytest.mark.parametrize("current, found", [
    ("ServerSideApply=true", True),
    (" Prune=false , ServerSideApply=true ", True),   # blanks around an item are trimmed (GetAnnotationCSVs)
    ("ServerSideApply=false", False),
    ("ServerSideApply=true2", False),                 # whole items only
    (None, False),
    (3, False),                                       # not a string: no options
])
def test_has_sync_option(current, found):
    obj = {"metadata": {"annotations": {} if current is None else {argocd.SYNC_OPTIONS: current}}}
    assert argocd.has_sync_option(obj, argocd.SERVER_SIDE_APPLY) is found
