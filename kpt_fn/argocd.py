"""What the function knows of Argo CD: the sidecar it runs in (where the repository root is) and the
per-resource sync options it asks for (`argocd.argoproj.io/sync-options`).

The repo-server streams the repository to the config-management-plugin sidecar, which unpacks it in a
fresh work directory and runs `generate` in the app's directory below it (argo-cd v3.5
`cmpserver/plugin/plugin.go` GenerateManifest: `appPath = workDir + metadata.AppRelPath`, the command's
`Dir` is appPath). The app's path in the repository reaches the command as ARGOCD_APP_SOURCE_PATH (the
Application's `spec.source.path`; `reposerver/repository/repository.go` getPluginEnvs). So the
repository root is the working directory with that path taken off its end.

With the repo-server's `--plugin-use-manifest-generate-paths`, only the common root of the app path and
its `argocd.argoproj.io/manifest-generate-paths` is streamed (`reposerver/repository/utils.go`
getApplicationRootPath), and AppRelPath is the app's path below that root: a tail of the source path.
Taking off the longest tail of the source path that the working directory ends with finds the
unpacked root in both cases (the work directory itself is a random name, never a repository path).
"""

from __future__ import annotations

import os
from kpt_fn.problems import Rule

# The rules of the Argo CD plugin's parameters (`expand-trainjobs rules`).
RULE_PARAMETER = "argocd/parameter"
RULE_PARAMETERS_IGNORED = "argocd/parameters-ignored"
RULES = [
    Rule(RULE_PARAMETER, "Application", "ARGOCD_APP_PARAMETERS is a JSON list of string or array parameters"),
    Rule(RULE_PARAMETERS_IGNORED, "Application", "parameters that the app's expand-trainjobs.yaml overrides are named"),
]

from kpt_fn import resource as res

SOURCE_PATH_ENV = "ARGOCD_APP_SOURCE_PATH"

# A resource's sync options: one annotation holding a comma-separated list (argo-cd v3.5.1
# gitops-engine/pkg/sync/common/types.go:12 AnnotationSyncOptions), read item by item with the blanks
# around each trimmed and empty items dropped (gitops-engine/pkg/sync/resource/annotations.go:17
# GetAnnotationCSVs, :36 HasAnnotationOption).
SYNC_OPTIONS = "argocd.argoproj.io/sync-options"
SERVER_SIDE_APPLY = "ServerSideApply=true"


def sync_options(obj: dict) -> list:
    """The sync options `obj` asks Argo CD for, in their written order ([] when the annotation is not a
    string: Argo CD reads annotations as strings only)."""
    current = res.annotations(obj).get(SYNC_OPTIONS)
    return [o.strip() for o in current.split(",") if o.strip()] if isinstance(current, str) else []


def has_sync_option(obj: dict, option: str) -> bool:
    """Argo CD syncs `obj` with `option` (e.g. SERVER_SIDE_APPLY)."""
    return option in sync_options(obj)


def with_sync_option(obj: dict, option: str) -> dict:
    """obj with `option` among its Argo CD sync options (the others kept; one of the same name replaced)."""
    name = option.split("=")[0]
    options = [o for o in sync_options(obj) if o.split("=")[0] != name] + [option]
    return res.with_annotations(obj, {SYNC_OPTIONS: ",".join(options)})


def repository_root(app_dir: str, env) -> str | None:
    """The root of the tree the sidecar unpacked, for a run in `app_dir`; None outside Argo CD (no
    ARGOCD_APP_SOURCE_PATH) or when the source path cannot be a path inside a repository."""
    source = (env or {}).get(SOURCE_PATH_ENV)
    if source is None:
        return None
    app_dir = os.path.normpath(os.path.abspath(app_dir))
    if source in ("", "."):
        return app_dir  # the app is the repository root
    if os.path.isabs(source):
        return None
    parts = [p for p in os.path.normpath(source).split(os.sep) if p not in ("", ".")]
    if not parts or ".." in parts:
        return None
    tail = app_dir.split(os.sep)
    for k in range(len(parts), 0, -1):
        if len(tail) > k and tail[-k:] == parts[-k:]:
            return os.sep.join(tail[:-k]) or os.sep
    return app_dir


def git_top_level(app_dir: str) -> str | None:
    """The top level of the git working tree holding `app_dir` (None outside git): what Argo CD's
    confinement to the repository means in a checkout (CI, pre-commit, a laptop), with no environment
    variable. Found as git itself finds it: the nearest directory upwards holding `.git`, a directory
    or a gitfile (a worktree, a submodule) -- git setup.c setup_git_directory_gently_1, which walks up
    the parents checking is_git_directory / read_gitfile. No git binary is run."""
    here = os.path.normpath(os.path.abspath(app_dir))
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def kueue_patch() -> dict:
    """The Application fields that let Kueue own `spec.suspend` of the JobSets of `profile: kueue`
    (`expand-trainjobs argocd-kueue-patch`).

    Kueue unsuspends an admitted JobSet (and suspends a preempted one); a sync that applies Git's
    `suspend: true` would stop a running training. This version renders no `spec.suspend`
    (kpt_fn/profiles/kueue.py), so the patch matters only for JobSets an earlier version rendered. Ignoring `/spec/suspend` with
    RespectIgnoreDifferences=true makes the sync apply the live value instead (argo-cd v3.5
    `controller/sync.go` normalizeTargetResources). Nothing is ignored inside `replicatedJobs`: for a
    custom resource the live values come back through a JSON merge patch, which carries the whole list,
    and `restoreNonIgnoredFields` then puts back either Git's whole list (Kueue's node selectors and
    tolerations dropped) or live's whole list (Git's changes dropped), never a mix. Kueue's fields in
    the pod templates are kept by the server-side apply the profile's JobSets ask for
    (`argocd.argoproj.io/sync-options: ServerSideApply=true`, `with_sync_option` above): fields the apply does
    not set stay with their owner.
    """
    return {
        "spec": {
            "ignoreDifferences": [
                {"group": "jobset.x-k8s.io", "kind": "JobSet", "jsonPointers": ["/spec/suspend"]},
            ],
            "syncPolicy": {"syncOptions": ["RespectIgnoreDifferences=true"]},
        }
    }
