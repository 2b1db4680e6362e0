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

The checkout itself fails first when the repository holds a `.gitmodules`: Argo CD then runs `git
submodule update --init --recursive` (argo-cd v3.5.1 util/git/client.go:763-768, 793-797), which
stops at a `.gitmodules` git cannot parse or a gitlink it names no url for. The same listing gives the
gitlinks (mode 160000) and the `.gitmodules` blob, judged by gitrev.submodule_refusals, as `diff`
judges each revision's tree.

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
SUBMODULE_RULE = "argocd/submodule-without-url"
UNCHECKED_RULE = "argocd/repository-unchecked"

RULES = [
    Rule(OUT_OF_BOUNDS_RULE, "repository",
         "no symbolic link in the git repository is absolute or leads out of it: Argo CD's repo-server refuses "
         "every app of such a repository (argo-cd v3.5.1 util/app/path/path.go:50-107, CheckOutOfBoundsSymlinks)"),
    Rule(SUBMODULE_RULE, "repository",
         "every gitlink (submodule) of a git repository with a .gitmodules has a path and url there, and git can "
         "parse it: Argo CD's checkout runs `git submodule update --init --recursive`, which stops otherwise "
         "(argo-cd v3.5.1 util/git/client.go:763-768, 793-797)"),
    Rule(UNCHECKED_RULE, "repository",
         "the git repository's links could be listed (git ran) to be judged as Argo CD's repo-server judges them"),
]

_LINK = b"120000 "
_GITLINK = b"160000 "
# Links named one by one before the rest are counted: one fix per link, but not a flood.
MAX_NAMED = sources.MAX_FILE_PROBLEMS


class _Index:
    """What `git ls-files -s -z` lists that Argo CD judges, kept as git writes the listing: the links
    [(object id, path)], the gitlinks [path] and the object id of a `.gitmodules` file."""

    def __init__(self):
        self.links: list = []
        self.gitlinks: list = []
        self.gitmodules: str | None = None

    def add(self, record: bytes) -> None:
        head, _, raw_path = record.partition(b"\t")
        if record.startswith(_LINK):
            kept = self.links
        elif record.startswith(_GITLINK):
            kept = self.gitlinks
        else:
            if raw_path == b".gitmodules":
                self.gitmodules = head.split()[1].decode("ascii", "replace")
            return
        if len(self.links) + len(self.gitlinks) >= gitrev.MAX_REPOSITORY_ENTRIES:
            raise gitrev.RevisionError(f"the index holds more than {gitrev.MAX_REPOSITORY_ENTRIES} links")
        path = os.fsdecode(raw_path)
        kept.append((head.split()[1].decode("ascii", "replace"), path) if kept is self.links else path)


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
        submodules = gitrev.submodule_refusals(repo, index.gitlinks, index.gitmodules)
    except gitrev.RevisionError as e:
        return [Result(f"the repository's links were not checked as Argo CD's repo-server checks them: {e}",
                       WARNING, rule=UNCHECKED_RULE)]
    refused = gitrev.refused_links(targets)
    out = [_submodule_result(path, why, top, root) for path, why in submodules[:MAX_NAMED]]
    out += [_result(path, target, top, root) for path, target in refused[:MAX_NAMED]]
    if len(refused) > MAX_NAMED:
        more = Result(f"{len(refused) - MAX_NAMED} more symbolic link(s) leading out of the repository not shown",
                      ERROR, rule=OUT_OF_BOUNDS_RULE)
        out.append(more)
    return out


def _result(path: str, target: str, top: str, root: str) -> Result:
    message = f"{gitrev.link_refusal(path, target)}, so it can sync none of them; {gitrev.LINK_FIX}"
    return _at(Result(message, ERROR, None, "", "", 0, OUT_OF_BOUNDS_RULE), path, top, root)


def _submodule_result(path: str, why: str, top: str, root: str) -> Result:
    """A gitlink (or .gitmodules itself) that stops Argo CD's checkout, pointed at .gitmodules: the file
    to change (or the gitlink to remove)."""
    fix = "fix .gitmodules" if path == ".gitmodules" else gitrev.SUBMODULE_FIX
    message = f"{gitrev.submodule_refusal(path, why)}, so Argo CD can sync no app of the repository; {fix}"
    return _at(Result(message, ERROR, None, "", "", 0, SUBMODULE_RULE), ".gitmodules", top, root)


def _at(result: Result, path: str, top: str, root: str) -> Result:
    """`result` about the repository's `path`, named as results name files (relative to the app
    directory); a name that is not UTF-8 has no such form (every output carries text) and is named in
    the message alone. At line 1 (a link's one line is its target, as git diff shows it), never read
    to find a line: a link may lead to a device or a file outside the repository (kpt_fn.lines would
    open it)."""
    if sources.is_utf8(path):
        result.file = os.path.relpath(os.path.join(top, path), root).replace(os.sep, "/")
        result.lineno = 1
    return result
