"""`diff` against repositories built to fool or break it: each revision is read from
git's objects exactly as committed, a revision is resolved as git does, only the app's files are
extracted, Secret data never shows, and the exit status is 0, 1 or 2 and nothing else."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from kpt_fn import gitrev
from kpt_fn.review import diff as review_diff

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is needed on PATH")

TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {name}
  namespace: ml
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  runtimeRef: {{name: torch-distributed}}
  trainer:
    numNodes: {nodes}
    image: {image}
"""

MPI_TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: ds
  namespace: ml
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  runtimeRef: {name: deepspeed-distributed}
"""


def _env(home) -> dict:
    # A HOME of the test's own: the user's ~/.gitconfig stays out of the repositories built here.
    return {**os.environ, "HOME": str(home), "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
            "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}


def _git(repo, *args, env):
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def _job(repo, name, nodes=1, image="registry.example.com/torch:1"):
    (repo / f"{name}.yaml").write_text(TRAINJOB.format(name=name, nodes=nodes, image=image))


@pytest.fixture
def env(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    return _env(home)


@pytest.fixture
def repo(tmp_path, env):
    """A repository with one commit: the app at its root, one TrainJob."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main", env=env)
    _job(repo, "a")
    _git(repo, "add", "-A", env=env)
    _git(repo, "commit", "-q", "-m", "v1", env=env)
    return repo


def _commit(repo, env, message="next"):
    _git(repo, "add", "-A", env=env)
    _git(repo, "commit", "-q", "-m", message, env=env)


def _diff(fn, cwd, env, *args):
    return subprocess.run([fn, "diff", *args], cwd=cwd, capture_output=True, text=True, env=env)


def _json(done) -> dict:
    return json.loads(done.stdout)


def test_export_ignore_cannot_hide_a_trainjob(fn, repo, env):
    _job(repo, "big", nodes=64)
    (repo / ".gitattributes").write_text("big.yaml export-ignore\n")
    _commit(repo, env)
    done = _diff(fn, repo, env, "HEAD~1", "HEAD", "--format", "json")
    assert done.returncode == 1, done.stderr
    assert [j["trainJob"] for j in _json(done)["trainJobs"]] == ["ml/big"]


def test_export_subst_is_not_applied(fn, repo, env):
    _job(repo, "a", image="registry.example.com/torch:$Format:%H$")
    (repo / ".gitattributes").write_text("*.yaml export-subst\n")
    _commit(repo, env)
    data = _json(_diff(fn, repo, env, "HEAD~1", "HEAD", "--format", "json"))
    [field] = data["trainJobs"][0]["objects"][0]["fields"]
    assert field["new"] == "registry.example.com/torch:$Format:%H$"


def test_no_program_from_any_git_config_runs(fn, repo, env, tmp_path):
    marker = tmp_path / "ran"
    program = f"sh -c 'touch {marker}; cat'"
    # Repository config, global config (HOME) and attributes all name programs.
    _git(repo, "config", "filter.evil.smudge", program, env=env)
    _git(repo, "config", "filter.evil.clean", program, env=env)
    _git(repo, "config", "core.fsmonitor", f"touch {marker}; false", env=env)
    (tmp_path / "home" / ".gitconfig").write_text(f"[core]\n\tfsmonitor = touch {marker}; false\n"
                                                  f"[filter \"evil\"]\n\tsmudge = {program}\n")
    (repo / ".gitattributes").write_text("*.yaml filter=evil\n")
    _job(repo, "a", nodes=2)
    marker_before = marker.exists()
    if marker_before:
        marker.unlink()  # `git add` above ran the clean filter: that is git's, not ours
    _commit(repo, env)
    if marker.exists():
        marker.unlink()
    done = _diff(fn, repo, env, "HEAD~1", "HEAD")
    assert done.returncode == 1, done.stderr
    assert not marker.exists(), "diff ran a program named by a git config"


def test_a_directory_named_like_a_revision_is_an_error(fn, repo, env):
    (repo / "HEAD").mkdir()
    _job(repo / "HEAD", "b")
    _commit(repo, env)
    done = _diff(fn, repo, env, "HEAD~1", "HEAD")
    assert done.returncode == 2
    assert "'HEAD' is both a directory and a git revision" in done.stderr
    assert _diff(fn, repo, env, "HEAD~1", "HEAD^{commit}").returncode == 1


def test_an_ambiguous_ref_is_an_error(fn, repo, env):
    _git(repo, "tag", "v1", env=env)
    _job(repo, "a", nodes=2)
    _commit(repo, env)
    _git(repo, "branch", "v1", env=env)
    done = _diff(fn, repo, env, "v1", "HEAD")
    assert done.returncode == 2 and "ambiguous" in done.stderr
    assert _diff(fn, repo, env, "refs/tags/v1", "HEAD").returncode == 1


def test_unknown_revision_and_option_like_names(fn, repo, env):
    for spec in ("no-such-rev", "--output=x", "-h"):
        done = _diff(fn, repo, env, "--", spec, "HEAD")
        assert done.returncode == 2, (spec, done.stderr)
        assert "neither a directory nor a git revision" in done.stderr


def test_symlinks(fn, repo, env, tmp_path):
    outside = tmp_path / "outside.yaml"
    outside.write_text(TRAINJOB.format(name="stolen", nodes=1, image="x"))
    app = repo / "app"
    app.mkdir()
    _job(app, "c")
    os.symlink("c.yaml", app / "same.yml")  # a link inside the app: followed (one TrainJob, read once)
    _commit(repo, env)
    _job(app, "c", nodes=3)
    _commit(repo, env)
    done = _diff(fn, app, env, "HEAD~1", "HEAD", "--format", "json")
    assert done.returncode == 1, done.stderr
    assert [j["trainJob"] for j in _json(done)["trainJobs"]] == ["ml/c"]
    # An absolute link anywhere in the repository, outside the app directory too: Argo CD's repo-server
    # refuses the whole repository ("repository contains out-of-bounds symlinks", argo-cd v3.5.1
    # util/app/path/path.go:85-87, called on the checkout's root at reposerver/repository/repository.go:479),
    # so there is nothing to compare: exit 2, naming the link.
    (repo / "docs").mkdir()
    os.symlink(str(outside), repo / "docs" / "abs-link")
    _commit(repo, env)
    done = _diff(fn, app, env, "HEAD~2", "HEAD")
    assert done.returncode == 2
    assert "HEAD:docs/abs-link is a symbolic link to" in done.stderr and "out of the repository" in done.stderr
    assert "Traceback" not in done.stderr
    # One inside the app directory: the same.
    (repo / "docs" / "abs-link").unlink()
    os.symlink(str(outside), app / "stolen.yaml")
    _commit(repo, env)
    done = _diff(fn, app, env, "HEAD~3", "HEAD")
    assert done.returncode == 2
    assert "HEAD:app/stolen.yaml is a symbolic link to" in done.stderr and "out of the repository" in done.stderr


def test_non_utf8_paths(fn, repo, env):
    app = repo / "app"
    app.mkdir()
    _job(app, "c")
    (repo / os.fsdecode(b"notes-\xff.txt")).write_text("elsewhere in the repository: not read\n")
    _commit(repo, env)
    _job(app, "c", nodes=2)
    _commit(repo, env)
    assert _diff(fn, app, env, "HEAD~1", "HEAD").returncode == 1
    (app / os.fsdecode(b"job-\xff.yaml")).write_text(TRAINJOB.format(name="d", nodes=1, image="x"))
    _commit(repo, env)
    done = _diff(fn, app, env, "HEAD~1", "HEAD")
    assert done.returncode == 2 and "is not UTF-8" in done.stderr and "Traceback" not in done.stderr


def test_partial_clone_missing_blob_is_an_error_not_a_fetch(fn, repo, env, tmp_path):
    _job(repo, "a", nodes=2)
    _commit(repo, env)
    _git(repo, "config", "uploadpack.allowFilter", "true", env=env)
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--no-checkout", "--filter=blob:none", f"file://{repo}", str(clone)],
                   check=True, capture_output=True, env=env)
    done = _diff(fn, clone, env, "HEAD~1", "HEAD")
    assert done.returncode == 2, done.stderr
    assert "missing from the repository" in done.stderr and "nothing is fetched" in done.stderr


def test_only_what_render_reads_is_written_and_bounded(repo, env, tmp_path):
    app = repo / "app"
    app.mkdir()
    _job(app, "c")
    (app / "weights.bin").write_bytes(b"\0" * 300_000)  # not something the reader reads
    (app / ".hidden").mkdir()
    _job(app / ".hidden", "h")
    (repo / "big.yaml").write_text("x: " + "y" * 300_000 + "\n")  # outside the app directory
    _commit(repo, env)
    where = gitrev.repository(str(app), env)
    dest = tmp_path / "out"
    dest.mkdir()
    tree = gitrev.read_tree(where, gitrev.resolve(where, "HEAD"), "HEAD", 100_000)
    gitrev.Checkout(where, tree, str(dest), 100_000).materialise("app")
    # What the walk reads: the app's YAML; a hidden directory is written only when a link or a
    # configured path reaches it (the reader asks for it then).
    assert sorted(str(p.relative_to(dest)) for p in dest.rglob("*")) == ["app", "app/c.yaml"]
    (app / "huge.yaml").write_text("x: " + "y" * 200_000 + "\n")
    _commit(repo, env)
    dest2 = tmp_path / "out2"
    dest2.mkdir()
    tree = gitrev.read_tree(where, gitrev.resolve(where, "HEAD"), "HEAD", 100_000)
    with pytest.raises(gitrev.RevisionError, match=r"huge.yaml is \d+ bytes, more than the 100000"):
        gitrev.Checkout(where, tree, str(dest2), 100_000).materialise("app")


def test_deeply_nested_parameters_and_bad_quota_exit_2(fn, repo, env):
    # 60,000 deep: an environment variable holds at most 128 KiB on Linux (test_plain_parameters
    # below takes 100,000 in-process).
    nested = "[" * 60_000 + "]" * 60_000
    done = _diff(fn, repo, {**env, "ARGOCD_APP_PARAMETERS": nested}, "HEAD", ".")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "ARGOCD_APP_PARAMETERS" in done.stderr
    (repo / "queues.yaml").write_text("""\
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq}
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources:
      - {name: cpu, nominalQuota: lots}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: q, namespace: ml}
spec: {clusterQueue: cq}
""")
    (repo / "expand-trainjobs.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {profile: kueue}\n")
    text = (repo / "a.yaml").read_text().replace("  annotations:", "  labels: {kueue.x-k8s.io/queue-name: q}\n  annotations:")
    (repo / "a.yaml").write_text(text)
    done = _diff(fn, repo, env, "HEAD", ".")
    assert done.returncode == 2, done.stderr
    assert "lots" in done.stderr and "internal error" not in done.stderr


def test_deleted_working_directory(fn, repo, env, tmp_path):
    gone = tmp_path / "gone"
    gone.mkdir()
    done = subprocess.run(["sh", "-c", f'cd "{gone}" && rmdir "{gone}" && exec "{fn}" diff HEAD~1 HEAD'],
                          capture_output=True, text=True, env=env)
    assert done.returncode == 2
    assert "working directory" in done.stderr and "Traceback" not in done.stderr


SEED_CONFIG = """\
apiVersion: v1
kind: ConfigMap
metadata: {{name: c}}
data: {{mpiSSHSecret: generate, secretSeed: {seed}}}
"""


def test_secret_data_is_masked_in_every_output(fn, repo, env):
    (repo / "a.yaml").unlink()
    (repo / "ds.yaml").write_text(MPI_TRAINJOB)
    (repo / "expand-trainjobs.yaml").write_text(SEED_CONFIG.format(seed="first-seed-of-this-test"))
    _commit(repo, env)
    (repo / "expand-trainjobs.yaml").write_text(SEED_CONFIG.format(seed="second-seed-of-this-test"))
    _commit(repo, env)
    for fmt in ("json", "markdown"):
        done = _diff(fn, repo, env, "HEAD~1", "HEAD", "--format", fmt)
        assert done.returncode == 1, done.stderr
        for secret_text in ("PRIVATE KEY", "LS0t", "ssh-rsa", "ecdsa", "AAAA"):
            assert secret_text not in done.stdout + done.stderr
    data = _json(_diff(fn, repo, env, "HEAD~1", "HEAD", "--format", "json"))
    [secret] = [o for j in data["trainJobs"] for o in j["objects"] if o["object"].startswith("Secret ")]
    assert {(f["old"], f["new"]) for f in secret["fields"]} == {(review_diff.MASKED_BEFORE, review_diff.MASKED_AFTER)}


def test_mask_secrets_marks_only_what_changed():
    old = {"apiVersion": "v1", "kind": "Secret", "data": {"a": "1", "b": "2", "gone": "3"}, "stringData": "odd"}
    new = {"apiVersion": "v1", "kind": "Secret", "data": {"a": "1", "b": "9", "new": "4"}}
    a, b = review_diff.mask_secrets(old, new)
    assert a["data"] == {"a": "***", "b": "*** (before)", "gone": "***"} and a["stringData"] == "***"
    assert b["data"] == {"a": "***", "b": "*** (after)", "new": "***"}
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "1"}}
    assert review_diff.mask_secrets(cm, cm) == (cm, cm)


def test_exit_status_is_only_0_1_or_2_for_a_broken_stdout(fn, repo, env):
    _job(repo, "a", nodes=2)
    _commit(repo, env)
    done = subprocess.run(f'"{fn}" diff HEAD~1 HEAD >&-', shell=True, cwd=repo, capture_output=True, text=True, env=env)
    assert done.returncode == 2, done.stderr


def test_plain_parameters_nested_100000_deep_are_an_error():
    from kpt_fn.cli import plain

    fc, problems = plain.config_from_argocd_env({"ARGOCD_APP_PARAMETERS": "[" * 100_000 + "]" * 100_000})
    assert fc is None and len(problems) == 1 and "nested too deeply" in problems[0].message


# --- what diff follows and what it refuses (issue 33, point 1) -------------------------------------


def _two_commits(repo, env, change):
    """The repository's commit, then `change(repo)` committed: (old, new) revisions HEAD~1 and HEAD."""
    change(repo)
    _commit(repo, env)


def test_a_link_into_a_hidden_directory_is_compared_as_render_reads_it(fn, repo, env):
    hidden = repo / ".stash"
    hidden.mkdir()
    _job(hidden, "big", nodes=64)
    os.symlink(".stash", repo / "more")  # render walks `more/` and reads the 64-node TrainJob
    _commit(repo, env)
    done = _diff(fn, repo, env, "HEAD~1", "HEAD", "--format", "json")
    assert done.returncode == 1, done.stderr
    assert [j["trainJob"] for j in _json(done)["trainJobs"]] == ["ml/big"]
    # A link to a file of any name below a hidden directory: its content is what is compared.
    (hidden / "job.txt").write_text(TRAINJOB.format(name="txt", nodes=2, image="x"))
    os.symlink(".stash/job.txt", repo / "txt.yaml")
    _commit(repo, env)
    done = _diff(fn, repo, env, "HEAD~1", "HEAD", "--format", "json")
    assert [j["trainJob"] for j in _json(done)["trainJobs"]] == ["ml/txt"]


def test_an_app_directory_reached_through_a_link_in_the_working_directory_is_refused(fn, repo, env, tmp_path):
    apps = repo / "apps"
    for name, nodes in (("a", 1), ("b", 8)):
        (apps / name).mkdir(parents=True)
        _job(apps / name, name, nodes=nodes)
    _commit(repo, env)
    shutil.rmtree(apps / "a")
    os.symlink("b", apps / "a")
    _commit(repo, env)
    # As the workflow runs it: `cd "$app" && diff` (the shell's PWD names the link).
    done = subprocess.run(["sh", "-c", f'cd "{apps}/a" && exec "{fn}" diff HEAD~1 HEAD'], capture_output=True,
                          text=True, env=env)
    assert done.returncode == 2, done.stderr
    assert "reached through apps/a, a symbolic link in the repository" in done.stderr
    assert str(tmp_path) not in done.stderr and "Traceback" not in done.stderr
    # The directory the link leads to is compared as itself (the control).
    done = _diff(fn, apps / "b", env, "HEAD~1", "HEAD")
    assert done.returncode == 0, done.stderr
    (apps / "a").unlink()
    (apps / "a").mkdir()
    _job(apps / "a", "a", nodes=2)
    _commit(repo, env)
    # HEAD~1 has apps/a as a link to b: Argo CD renders the app at apps/a through it (argo-cd v3.5.1
    # util/app/path/path.go:17-36, Path: os.Stat follows the link), so app a deployed TrainJob b there,
    # and the change to its own TrainJob a is what the sync does: b removed, a added.
    done = _diff(fn, apps / "a", env, "HEAD~1", "HEAD", "--format", "json")
    assert done.returncode == 1, done.stderr
    assert {j["trainJob"]: j["change"] for j in _json(done)["trainJobs"]} == {"ml/a": "added", "ml/b": "removed"}


def test_a_submodule_render_reads_is_refused_one_elsewhere_is_not(fn, repo, env):
    # Argo CD checks submodules out when the repository has a .gitmodules (argo-cd v3.5.1
    # util/git/client.go:793-797) and renders their files, which are not in this repository's objects.
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True,
                          env=env, check=True).stdout.strip()
    (repo / "app").mkdir()
    _job(repo / "app", "c")
    # Each gitlink named with its url: one .gitmodules names none for stops Argo CD's whole checkout
    # (gitrev.submodule_refusals; tests/behaviour/test_repository_refused_by_argocd.py).
    (repo / ".gitmodules").write_text("".join(f'[submodule "{p}"]\n\tpath = {p}\n\turl = https://example.com/lib\n'
                                              for p in ("vendor/lib", "app/.cache/lib", "app/models")))
    for path in ("vendor/lib", "app/.cache/lib", "app/models"):  # empty, as an uninitialised submodule is
        (repo / path).mkdir(parents=True)
    _git(repo, "add", "-A", env=env)
    _git(repo, "update-index", "--add", "--cacheinfo", f"160000,{head},vendor/lib", env=env)
    _git(repo, "update-index", "--add", "--cacheinfo", f"160000,{head},app/.cache/lib", env=env)
    _git(repo, "commit", "-q", "-m", "submodules render does not read", env=env)
    _job(repo / "app", "c", nodes=2)
    _commit(repo, env)
    assert _diff(fn, repo / "app", env, "HEAD~1", "HEAD").returncode == 1  # the controls
    _git(repo, "update-index", "--add", "--cacheinfo", f"160000,{head},app/models", env=env)
    _git(repo, "commit", "-q", "-m", "a submodule in the app", env=env)
    done = _diff(fn, repo / "app", env, "HEAD~1", "HEAD")
    assert done.returncode == 2 and "HEAD:app/models is a git submodule that render reads" in done.stderr, done.stderr
    # Reached through a link into a hidden directory: read, so refused too.
    _git(repo, "rm", "-q", "--cached", "app/models", env=env)
    (repo / "app" / "models").rmdir()
    os.symlink(".cache/lib", repo / "app" / "lib")
    _commit(repo, env)
    done = _diff(fn, repo / "app", env, "HEAD~2", "HEAD")
    assert done.returncode == 2 and "HEAD:app/.cache/lib is a git submodule that render reads" in done.stderr


def test_a_million_tiny_files_are_refused_before_anything_is_written(fn, repo, env, tmp_path):
    # One tree of 1,000 entries listed 250 times: 250,000 entries, more than a run reads, built from
    # objects (a checkout would take minutes), refused while git lists them.
    genv = gitrev.git_env(env)
    blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=repo, input=b"a: 1\n", check=True,
                          capture_output=True, env=genv).stdout.decode().strip()
    leaf = subprocess.run(["git", "mktree"], cwd=repo, check=True, capture_output=True, env=genv,
                          input="".join(f"100644 blob {blob}\tf{i}.yaml\n" for i in range(1000)).encode()
                          ).stdout.decode().strip()
    top = subprocess.run(["git", "mktree"], cwd=repo, check=True, capture_output=True, env=genv,
                         input="".join(f"040000 tree {leaf}\td{i}\n" for i in range(250)).encode()).stdout.decode().strip()
    commit = subprocess.run(["git", "commit-tree", top, "-p", "HEAD", "-m", "many"], cwd=repo, check=True,
                            capture_output=True, env=env).stdout.decode().strip()
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    done = _diff(fn, repo, {**env, "TMPDIR": str(scratch)}, "HEAD", commit)
    assert done.returncode == 2, done.stderr
    assert "more than 200000 entries" in done.stderr and "nothing was written" in done.stderr
    assert str(tmp_path) not in done.stderr and list(scratch.iterdir()) == []


def test_names_the_file_system_cannot_hold_and_duplicate_entries_are_clear_errors(fn, repo, env, tmp_path):
    genv = gitrev.git_env(env)
    blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=repo, input=b"a: 1\n", check=True,
                          capture_output=True, env=genv).stdout.decode().strip()
    tree = subprocess.run(["git", "mktree"], cwd=repo, check=True, capture_output=True, env=genv,
                          input=f"100644 blob {blob}\t{'n' * 300}.yaml\n".encode()).stdout.decode().strip()
    commit = subprocess.run(["git", "commit-tree", tree, "-m", "long"], cwd=repo, check=True,
                            capture_output=True, env=env).stdout.decode().strip()
    done = _diff(fn, repo, env, "HEAD", commit)
    assert done.returncode == 2 and "more than a file system allows (255)" in done.stderr, done.stderr
    assert str(tmp_path) not in done.stderr and "Traceback" not in done.stderr


def test_a_file_render_would_read_and_cannot_is_named_without_the_temporary_path(fn, repo, env, tmp_path):
    (repo / "expand-trainjobs.yaml").write_text(
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  files: "[.stash/missing.yaml]"\n')
    _commit(repo, env)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    done = _diff(fn, repo, {**env, "TMPDIR": str(scratch)}, "HEAD", ".", "--format", "json")
    assert done.returncode == 2
    assert "not found: tried <HEAD>/" in done.stderr and "(relative to the app directory <HEAD>)" in done.stderr
    assert str(scratch) not in done.stderr + done.stdout


def test_an_env_swap_that_changes_what_pods_see_is_a_change(fn, repo, env):
    def job(order):
        text = TRAINJOB.format(name="a", nodes=1, image="registry.example.com/torch:1")
        entries = {"A": '{name: A, value: "1"}', "B": '{name: B, value: "$(A)-x"}'}
        return text + "    env: [" + ", ".join(entries[n] for n in order) + "]\n"

    (repo / "a.yaml").write_text(job("AB"))
    _commit(repo, env)
    (repo / "a.yaml").write_text(job("BA"))  # B is now defined before A: "$(A)" stays literal
    _commit(repo, env)
    done = _diff(fn, repo, env, "HEAD~1", "HEAD", "--format", "json")
    assert done.returncode == 1, done.stderr
    [jobset] = _json(done)["trainJobs"][0]["objects"]
    orders = [f for f in jobset["fields"] if f["path"].endswith(".env")]
    assert orders and orders[0]["old"][:2] == ["A", "B"] and orders[0]["new"][:2] == ["B", "A"], jobset["fields"]
