"""What Argo CD's repo-server refuses about a whole repository, judged on a git working tree's index.

Before it renders any app of a repository, the repo-server checks the commit out and walks the whole
checkout (only `.git` skipped) for symbolic links that are absolute or whose target takes a step out of
the repository; one such link anywhere refuses every app ("repository contains out-of-bounds symlinks":
argo-cd v3.5.1 reposerver/repository/repository.go:478-492, util/app/path/path.go:50-107). CI and
pre-commit run `validate` in a git working tree: without this check they would pass an app that Argo CD
cannot sync. The judgement is gitrev's (`refused_links`), the one `diff` makes on each revision's tree.

What is judged is the index (`git ls-files -s -z`: the links as they will be committed, mode 120000,
each target read from its blob), not a walk of the working tree: git lists a large repository's index
in milliseconds, and an untracked link is never part of a commit Argo CD checks out. Only the links are
kept from the listing (memory bounded by gitrev.MAX_REPOSITORY_ENTRIES), their targets are read in one
`git cat-file --batch` (each at most PATH_MAX bytes, together at most the run's maxInputBytes), and
every git call has gitrev's timeout and isolation (no configured program runs).

Where it applies is the command line's business (kpt_fn.cli.plain): `render` and `validate` in a git
working tree. Not under the Argo CD sidecar (the repo-server has judged the checkout before the sidecar
runs; an operator's `--allow-oob-symlinks` permits what it would refuse), not for a revision `diff`
reads (gitrev.read_tree judges its tree), and not on the kpt and kustomize routes, which never go
through Argo CD's repo-server (kpt packages and kustomizations are not refused for a link; an Argo CD
app of either kind is checked by `validate` in CI like any other).
"""

from __future__ import annotations

import os

from kpt_fn import gitrev, sources
from kpt_fn.problems import ERROR, WARNING, Rule
from kpt_fn.results import Result

OUT_OF_BOUNDS_RULE = "argocd/out-of-bounds-symlink"
UNCHECKED_RULE = "argocd/repository-unchecked"

RULES = [
    Rule(OUT_OF_BOUNDS_RULE, "repository",
         "no symbolic link in the git repository is absolute or leads out of it: Argo CD's repo-server refuses "
         "every app of such a repository (argo-cd v3.5.1 util/app/path/path.go:50-107, CheckOutOfBoundsSymlinks)"),
    Rule(UNCHECKED_RULE, "repository",
         "the git repository's links could be listed (git ran) to be judged as Argo CD's repo-server judges them"),
]

_LINK = b"120000"
# Links named one by one before the rest are counted: one fix per link, but not a flood.
MAX_NAMED = sources.MAX_FILE_PROBLEMS


class _Index:
    """The links of `git ls-files -s -z` [(object id, path)], kept as git writes the listing."""

    def __init__(self):
        self.links: list = []

    def add(self, record: bytes) -> None:
        if not record.startswith(_LINK + b" "):
            return
        head, _, raw_path = record.partition(b"\t")
        if len(self.links) >= gitrev.MAX_REPOSITORY_ENTRIES:
            raise gitrev.RevisionError(f"the index holds more than {gitrev.MAX_REPOSITORY_ENTRIES} symbolic links")
        self.links.append((head.split()[1].decode("ascii", "replace"), os.fsdecode(raw_path)))


def refusals(top: str, root: str, env, max_bytes: int) -> list:
    """Results for what Argo CD's repo-server refuses about the repository whose working tree is at
    `top` (the app directory `root` in it): an error per out-of-bounds link, each naming the link (its
    file relative to `root`, as results name files). [] when git does not know `top` as a working
    tree (nothing is committed there); a warning when git cannot be run to list it."""
    repo = gitrev.Repository(top, gitrev.git_env(env), top, "")
    try:
        if gitrev.run(repo, ["rev-parse", "--is-inside-work-tree"]).returncode:
            return []
        index = _Index()
        gitrev.stream(repo, ["ls-files", "-s", "-z"], index.add, "cannot list the repository's index")
        targets = gitrev.link_targets(repo, index.links, "index", max_bytes)
    except gitrev.RevisionError as e:
        return [Result(f"the repository's links were not checked as Argo CD's repo-server checks them: {e}",
                       WARNING, rule=UNCHECKED_RULE)]
    refused = gitrev.refused_links(targets)
    out = [_result(path, target, top, root) for path, target in refused[:MAX_NAMED]]
    if len(refused) > MAX_NAMED:
        more = Result(f"{len(refused) - MAX_NAMED} more symbolic link(s) leading out of the repository not shown",
                      ERROR, rule=OUT_OF_BOUNDS_RULE)
        out.append(more)
    return out


def _result(path: str, target: str, top: str, root: str) -> Result:
    message = f"{gitrev.link_refusal(path, target)}, so it can sync none of them; {gitrev.LINK_FIX}"
    # The link as results name files (relative to the app directory); a name that is not UTF-8 has no
    # such form (every output carries text) and is named in the message alone.
    file = os.path.relpath(os.path.join(top, path), root).replace(os.sep, "/") if sources.is_utf8(path) else ""
    result = Result(message, ERROR, None, "", file, 0, OUT_OF_BOUNDS_RULE)
    # A link is the one line its target is (git diff shows it so); never read to find a line: it may
    # lead to a device or a file outside the repository (kpt_fn.lines would open it).
    result.lineno = 1 if file else 0
    return result
