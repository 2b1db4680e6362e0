"""An app's files at a git revision, read from git's object database exactly as committed.

`diff OLD NEW` compares what Argo CD would render at two commits. Argo CD's repo-server checks the
commit out and renders the app's directory in it, confined to the repository; so does this module,
without a checkout: `git ls-tree` lists the repository's tree at the commit and `git cat-file --batch`
gives each blob's bytes. Nothing applies attributes (`export-ignore`, `export-subst`, `filter=`,
`eol`), as `git archive` or a checkout would, and no program named by a git config is run:

- git runs with no system or global config (GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL=/dev/null) and
  none of the caller's GIT_* variables; `-c` options switch off fsmonitor and hooks, replace refs
  (GIT_NO_REPLACE_OBJECTS: `git replace` would show other content than the commit's) and every
  transport (`protocol.allow=never`), so a blob missing from a partial clone is an error instead of a
  fetch that runs `core.sshCommand` from the repository's config;
- a revision is resolved as git resolves it (`git rev-parse --verify REV^{commit}`); a name git finds
  ambiguous, or that is both a revision and a directory (a directory named `HEAD`), is an error;
- the repository's whole tree is listed once (`Tree`), every limit checked while git writes the
  listing, and every symbolic link in it is judged as Argo CD's repo-server judges the checkout
  (`out_of_bounds`: an absolute link, or one whose target leaves the repository, refuses the whole
  repository), and so is every gitlink (`submodule_refusals`: one `.gitmodules` gives no url for stops
  Argo CD's checkout); kpt_fn.reposerver makes the same judgements on a working tree's index;
- what is written (`Checkout.materialise`) is what `render` reads and nothing else, path by path as
  the reader asks for it (sources.Reader's `prepare`): the app directory, a configured directory or
  file (runtimeDirs, files, policyDirs anywhere in the repository), each with the links it holds
  followed as a checkout follows them; a submodule it reaches is refused (its files are not in this
  repository's objects).

Every failure is a RevisionError with a message for the user (`diff` exits 2 with it); no message
names the directory the files are written to.
"""

from __future__ import annotations

import bisect
import os
import subprocess
import sys
import time

from kpt_fn import sources

# Options for every git call: nothing from the user's git configuration may run a program or fetch.
_GIT_OPTIONS = (
    "-c", "core.fsmonitor=false",
    "-c", "core.hooksPath=/dev/null",
    "-c", "protocol.allow=never",
    "-c", "core.untrackedCache=false",
    "-c", "core.quotePath=false",
)
# Seconds one git call may take: a repository on a hung network filesystem must not hang CI.
_TIMEOUT = 120

_LINK = "120000"


class RevisionError(Exception):
    """The revision cannot be read (the message says why, for the user)."""


def git_env(env) -> dict:
    """The environment for git: the caller's, without any GIT_* variable, plus a configuration that
    reads only the repository's own config and never a replaced object."""
    out = {k: v for k, v in (env or {}).items() if not k.startswith("GIT_")}
    out.update({
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_NO_REPLACE_OBJECTS": "1",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_PROTOCOL_FROM_USER": "0",
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_PAGER": "cat",
        "LC_ALL": "C",
    })
    return out


def _git(args: list, cwd: str, env: dict, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(["git", *_GIT_OPTIONS, *args], cwd=cwd, env=env, input=stdin, capture_output=True,
                              timeout=_TIMEOUT, check=False)
    except FileNotFoundError:
        raise RevisionError("git is not installed (it is needed to read a revision)") from None
    except subprocess.TimeoutExpired:
        raise RevisionError(f"git {args[0]} took more than {_TIMEOUT} seconds") from None
    except OSError as e:
        raise RevisionError(f"cannot run git: {e.strerror}") from None


def run(repo: Repository, args: list) -> subprocess.CompletedProcess:
    """`git ARGS` in the repository, isolated and timed as every git call here."""
    return _git(args, repo.cwd, repo.env)


def _stderr(done: subprocess.CompletedProcess) -> str:
    text = done.stderr.decode("utf-8", "replace").strip()
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else f"git exited {done.returncode}"


class Repository:
    """The repository around a working directory: its working tree's root (`top`, absolute) and the
    directory's place in it (`prefix`)."""

    __slots__ = ("cwd", "env", "top", "prefix")

    def __init__(self, cwd: str, env: dict, top: str, prefix: str):
        self.cwd, self.env, self.top, self.prefix = cwd, env, top, prefix


def repository(cwd: str, env) -> Repository | None:
    """The repository the working directory is in, or None when it is in none."""
    genv = git_env(env)
    done = _git(["rev-parse", "--show-toplevel", "--show-prefix"], cwd, genv)
    if done.returncode:
        return None
    top, _, prefix = done.stdout.rstrip(b"\n").partition(b"\n")
    try:
        prefix = prefix.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise RevisionError("the working directory's path inside the repository is not UTF-8") from None
    top = os.fsdecode(top)
    link = _link_on_the_way(cwd, env, top)
    if link is not None:
        raise RevisionError(f"the working directory is reached through {link}, a symbolic link in the repository: "
                            "at each revision diff would read the directory it leads to, not the app's (Argo CD "
                            "would render the linked directory under the app's name); run diff from the directory "
                            "itself")
    return Repository(cwd, genv, top, prefix.rstrip("/"))


def _link_on_the_way(cwd: str, env, top: str) -> str | None:
    """The first symbolic link inside the working tree on the way to the working directory as the shell
    named it (`$PWD`: `cd "$app"` follows a link, and git sees only where it leads), as a path in the
    repository; None when there is none or the shell's name is not the working directory's."""
    logical = (env or {}).get("PWD")
    if not isinstance(logical, str) or not os.path.isabs(logical):
        return None
    try:
        if not os.path.samefile(logical, cwd):
            return None
    except OSError:
        return None
    real_top = os.path.realpath(top)
    path = os.path.normpath(logical)
    while os.path.dirname(path) != path:
        parent = os.path.realpath(os.path.dirname(path))
        inside = parent == real_top or parent.startswith(real_top.rstrip(os.sep) + os.sep)
        if inside and os.path.islink(path):
            return os.path.relpath(os.path.join(parent, os.path.basename(path)), real_top).replace(os.sep, "/")
        path = os.path.dirname(path)
    return None


def resolve(repo: Repository, revision: str) -> str | None:
    """The commit id of `revision` as git resolves it; None when git knows no such commit. A name git
    finds ambiguous (a tag and a branch of the same name) is an error."""
    done = _git(["rev-parse", "--verify", "--end-of-options", f"{revision}^{{commit}}"], repo.cwd, repo.env)
    if done.returncode:
        return None
    warning = done.stderr.decode("utf-8", "replace")
    if "ambiguous" in warning:
        raise RevisionError(f"revision {revision!r} is ambiguous to git ({_stderr(done)}): name it fully "
                            f"(refs/heads/..., refs/tags/... or a commit id)")
    return done.stdout.decode("ascii").strip()


def _wanted(name: str) -> bool:
    """What the source reader reads in a walked directory, plus the files it reads by name."""
    return name.endswith(sources.EXTENSIONS) or name in sources.SKIPPED_NAMES


# Limits checked while git's listing of the tree is read, before anything is written (docs/limits.md).
# The file system's: a name longer than NAME_MAX bytes, or a path longer than PATH_MAX, cannot be
# checked out (Linux's limits.h: 255 and 4096), by Argo CD's checkout either.
MAX_NAME_BYTES = 255
MAX_PATH_BYTES = 4095
# Links followed in a row before the path is a loop (Linux's MAXSYMLINKS, as path resolution counts them).
MAX_LINK_HOPS = 40
# Entries (files, directories, links) of the whole repository's tree at a revision: the listing is kept
# in memory (about 300 bytes an entry: some 150 MB at the limit) and every link in it is judged, so it
# is bounded. What render reads of it is bounded by the reader's own limit (sources.MAX_ENTRIES).
MAX_REPOSITORY_ENTRIES = 500_000
_READ_CHUNK = 1 << 16
_SUBMODULE = "commit"  # the kind of a gitlink entry (mode 160000)


class _Entry:
    __slots__ = ("mode", "kind", "oid")

    def __init__(self, mode: str, kind: str, oid: str):
        self.mode, self.kind, self.oid = mode, kind, oid


def _shown(raw) -> str:
    """A path for a message: at most 200 characters, never the temporary directory's."""
    text = raw.decode("utf-8", "backslashreplace") if isinstance(raw, bytes) else sources.shown_name(raw)
    return text if len(text) <= 200 else text[:100] + "…" + text[-99:]


def _quoted(raw) -> str:
    """A path in quotes for a message, its bytes that are not UTF-8 as \\xNN once (not repr's doubled
    backslash); control characters are escaped where the message is written (results.escape)."""
    return f"'{_shown(raw)}'"


class _Listing:
    """The entries of `git ls-tree -r -t -z` read as they arrive, each limit checked on the way."""

    def __init__(self, revision: str, max_entries: int):
        self.revision, self.max_entries = revision, max_entries
        self.entries: dict = {}  # path in the repository -> _Entry

    def add(self, record: bytes) -> None:
        head, tab, raw_path = record.partition(b"\t")
        fields = head.split()
        if not tab or len(fields) != 3:
            raise RevisionError(f"{self.revision}: git listed a tree entry it does not describe")
        if len(self.entries) >= self.max_entries:
            raise RevisionError(f"{self.revision}: the repository holds more than {self.max_entries} entries (files "
                                "and directories) at that revision, more than diff reads; nothing was written")
        for part in raw_path.split(b"/"):
            if len(part) > MAX_NAME_BYTES:
                raise RevisionError(f"{self.revision}: the name {_quoted(part)} in the repository is {len(part)} "
                                    f"bytes long, more than a file system allows ({MAX_NAME_BYTES}): no checkout can "
                                    "hold it (Argo CD's neither); rename it")
        if len(raw_path) > MAX_PATH_BYTES - 256:  # room for the directory it is written under
            raise RevisionError(f"{self.revision}: the path {_quoted(raw_path)} is {len(raw_path)} bytes long, "
                                f"more than a file system allows; shorten it")
        # A name that is not UTF-8 is kept as git has it (surrogate escapes): a checkout holds it, and
        # it is an error only where render would read it (Checkout).
        path = os.fsdecode(raw_path)
        _checked_path(path, self.revision)
        if path in self.entries:
            # git fsck calls it duplicateEntries: a checkout would write one of them, which is not defined.
            raise RevisionError(f"{self.revision}: the tree holds {_quoted(path)} twice (a malformed tree: `git "
                                "fsck` reports duplicateEntries); it cannot be checked out")
        mode, kind = (sys.intern(f.decode("ascii", "replace")) for f in fields[:2])  # a few values, shared
        self.entries[path] = _Entry(mode, kind, fields[2].decode("ascii", "replace"))


def _list(repo: Repository, commit: str, revision: str, max_entries: int) -> dict:
    """{path: _Entry} of every entry of the commit's tree, trees included (-t), read as git writes
    them: a limit reached stops git at once, with nothing written."""
    # --full-tree: run from a subdirectory, ls-tree would otherwise list only the part below it. No -l:
    # sizes come from cat-file --batch-check, which reports a blob missing from a partial clone.
    listing = _Listing(revision, max_entries)
    stream(repo, ["ls-tree", "-r", "-t", "-z", "--full-tree", commit], listing.add,
           f"{revision}: cannot list the repository's tree")
    return listing.entries


def stream(repo: Repository, args: list, add, failure: str) -> None:
    """Run `git ARGS` (a -z listing) and hand each NUL-terminated record to `add` as git writes it, so
    that `add` can stop git at once by raising (a limit reached); `failure`: what a failing git means,
    for the RevisionError that says so."""
    try:
        proc = subprocess.Popen(["git", *_GIT_OPTIONS, *args], cwd=repo.cwd, env=repo.env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except FileNotFoundError:
        raise RevisionError("git is not installed (it is needed to read a revision)") from None
    except OSError as e:
        raise RevisionError(f"cannot run git: {e.strerror}") from None
    deadline = time.monotonic() + _TIMEOUT
    try:
        pending = b""
        while chunk := proc.stdout.read1(_READ_CHUNK):
            *records, pending = (pending + chunk).split(b"\0")
            for record in records:
                add(record)
            if time.monotonic() > deadline:
                raise RevisionError(f"git {args[0]} took more than {_TIMEOUT} seconds")
        if pending:
            add(pending)
        stderr = proc.stderr.read(1 << 16)
        code = proc.wait(timeout=_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise RevisionError(f"git {args[0]} took more than {_TIMEOUT} seconds") from None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    if code:
        why = _stderr(subprocess.CompletedProcess(args, code, b"", stderr))
        raise RevisionError(f"{failure} ({why})")


def _checked_path(path: str, revision: str) -> list:
    parts = path.split("/")
    if any(p in ("", ".", "..") or "\0" in p for p in parts):
        raise RevisionError(f"{revision}: tree entry {_quoted(path)} is not a plain relative path")
    return parts


def _is_file(e: _Entry) -> bool:
    """A blob that a checkout writes as a file: any blob mode but a link's. Old repositories hold modes
    such as 100664, which git's checkout writes as a plain file (fsck only warns: badFilemode)."""
    return e.kind == "blob" and e.mode != _LINK


def out_of_bounds(path: str, target: str) -> bool:
    """Whether Argo CD's repo-server refuses the repository for the link at `path` (relative to the
    root) to `target`: an absolute target, or one that takes a step out of the repository, each part
    joined lexically to the link's directory (argo-cd v3.5.1 util/app/path/path.go:85-101,
    CheckOutOfBoundsSymlinks, run on the checkout's root at reposerver/repository/repository.go:479)."""
    if target.startswith("/"):
        return True
    here = path.split("/")[:-1]
    for part in target.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not here:
                return True
            here.pop()
        else:
            here.append(part)
    return False


# What to do about a link Argo CD refuses the repository for.
LINK_FIX = "remove the link, or make it relative and inside the repository"


def refused_links(targets: dict) -> list:
    """[(path, target)] of the links ({path: target}, paths relative to the repository root) for
    which Argo CD's repo-server refuses the whole repository (out_of_bounds), in path order. Argo CD
    names the first its walk meets and stops; every one is named here, so that one fix is enough."""
    return [(path, target) for path, target in sorted(targets.items()) if out_of_bounds(path, target)]


def link_refusal(path: str, target: str) -> str:
    """What is wrong with a link of refused_links, for a message that goes on with what it means."""
    return (f"{_shown(path)} is a symbolic link to {_quoted(target)}, which leads out of the repository: Argo CD "
            "refuses every app of a repository holding such a link (\"repository contains out-of-bounds symlinks\": "
            "argo-cd v3.5.1 util/app/path/path.go:50-107, reposerver/repository/repository.go:479)")


def link_targets(repo: Repository, links: list, revision: str, max_bytes: int) -> dict:
    """{path: target} of the links [(object id, path)]: a link's target is its blob, each at most
    PATH_MAX bytes and all together at most `max_bytes` (one batch-check, then one batch)."""
    if not links:
        return {}
    _sizes(repo, links, revision, max_bytes, each=MAX_PATH_BYTES, what="symbolic link")
    blobs = _blobs(repo, [oid for oid, _ in links], revision)
    return {path: os.fsdecode(blobs[oid]) for oid, path in links}


# What to do about a gitlink Argo CD's checkout cannot initialise.
SUBMODULE_FIX = "add it to .gitmodules with its url, or remove the gitlink (git rm --cached PATH)"
_GITMODULES = ".gitmodules"


def submodule_refusals(repo: Repository, gitlinks: list, gitmodules: str | None) -> list:
    """[(path, why)] for what stops Argo CD's checkout of the repository at `git submodule update --init
    --recursive`, which it runs when the checkout holds a `.gitmodules` (argo-cd v3.5.1
    util/git/client.go:763-768 Submodule, :793-797 Checkout; on by default, ARGOCD_GIT_MODULES_ENABLED):
    a `.gitmodules` git cannot parse ("bad config line", even without a gitlink), and each gitlink
    (`gitlinks`: paths of mode 160000 entries) that no `submodule.<name>.path` with a `url` names ("No
    url found for submodule path ... in .gitmodules"; a name git finds suspicious, empty or with a `..`
    component, is ignored by git, so its entry names nothing). `gitmodules`: the object id of the
    `.gitmodules` blob, None when there is none (then nothing initialises a gitlink: no concern).
    Whether a url can be fetched is not judged: nothing is fetched here."""
    if gitmodules is None:
        return []
    done = run(repo, ["config", "-z", "--blob", gitmodules, "--list"])
    if done.returncode:
        return [(_GITMODULES, f"git cannot parse it ({_stderr(done)})")]
    paths, urls = {}, {}
    for entry in done.stdout.split(b"\0"):
        key, _, value = entry.partition(b"\n")
        name, _, variable = os.fsdecode(key).removeprefix("submodule.").rpartition(".")
        if not key.startswith(b"submodule.") or not _sane_submodule_name(name):
            continue
        if variable == "path":
            paths[name] = os.fsdecode(value)
        elif variable == "url" and value:
            urls[name] = value
    named = {path for name, path in paths.items() if name in urls}
    return [(path, "no url in .gitmodules") for path in sorted(gitlinks) if path not in named]


def _sane_submodule_name(name: str) -> bool:
    """What git's check_submodule_name accepts (submodule-config.c): not empty, no `..` component
    (split at `/` and `\\`)."""
    return bool(name) and ".." not in name.replace("\\", "/").split("/")


def submodule_refusal(path: str, why: str) -> str:
    """What is wrong with an entry of submodule_refusals, for a message that goes on with what it means."""
    what = (f"{_shown(path)} ({why})" if path == _GITMODULES else
            f"{_shown(path)} is a git submodule (a gitlink) that .gitmodules gives no url for")
    return (f"{what}: Argo CD's checkout runs `git submodule update --init --recursive` when the repository has a "
            ".gitmodules, and git stops there (argo-cd v3.5.1 util/git/client.go:763-768, 793-797)")


class _Escape(Exception):
    def __init__(self, link: str | None):
        super().__init__(link)
        self.link = link


def follow(targets: dict, path: str) -> tuple:
    """(where `path` leads, the links passed on the way): `path` (relative to the repository root)
    resolved through the tree's links (`targets`: {path: target}) as the kernel resolves a path; where
    is None when the links loop (more than MAX_LINK_HOPS in a row: ELOOP). A step above the root raises
    _Escape naming the link that led there: Argo CD's lexical check (out_of_bounds) lets through a chain
    such as `x -> l/..` with `l -> .`, which the kernel resolves out of the repository."""
    parts: list = []
    todo = path.split("/")
    passed: list = []
    hops = 0
    while todo:
        part = todo.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                raise _Escape(passed[-1] if passed else None)
            parts.pop()
            continue
        parts.append(part)
        here = "/".join(parts)
        target = targets.get(here)
        if target is not None:
            hops += 1
            if hops > MAX_LINK_HOPS:
                return None, passed
            passed.append(here)
            if target.startswith("/"):
                raise _Escape(here)
            parts.pop()
            todo = target.split("/") + todo
    return "/".join(parts), passed


def _missing(oid: str, revision: str) -> RevisionError:
    return RevisionError(f"{revision}: object {oid} is missing from the repository (a partial or shallow clone? "
                         "fetch it first, or clone in full; nothing is fetched here)")


def _failed(done: subprocess.CompletedProcess, revision: str) -> RevisionError:
    why = _stderr(done)
    if "promisor" in why or "missing" in why:  # a partial clone: git tried to fetch, and was not let
        return RevisionError(f"{revision}: an object is missing from the repository ({why}): a partial clone? fetch "
                             "it first, or clone in full; nothing is fetched here")
    return RevisionError(f"{revision}: git cat-file failed ({why})")


def _sizes(repo: Repository, wanted: list, revision: str, max_bytes: int, each: int | None = None,
           what: str = "", spent: int = 0) -> int:
    """The bytes of `wanted` [(object id, path)], each object present, each holding at most `each`
    bytes (default: `max_bytes`) and all together, with the `spent` before, at most `max_bytes` (one
    `git cat-file --batch-check`)."""
    unique = list(dict.fromkeys(oid for oid, _ in wanted))
    if not unique:
        return 0
    done = _git(["cat-file", "--batch-check"], repo.cwd, repo.env, ("\n".join(unique) + "\n").encode())
    if done.returncode:
        raise _failed(done, revision)
    sizes = {}
    for line in done.stdout.decode("ascii", "replace").splitlines():
        fields = line.split()
        if len(fields) != 3:
            raise _missing(fields[0] if fields else "?", revision)
        sizes[fields[0]] = int(fields[2])
    total = spent
    for oid, path in wanted:
        if oid not in sizes:
            raise _missing(oid, revision)
        if each is not None and sizes[oid] > each:
            raise RevisionError(f"{revision}:{_shown(path)} is a {what} of {sizes[oid]} bytes, more than a path may "
                                f"hold ({each})")
        if sizes[oid] > max_bytes:
            raise RevisionError(f"{revision}:{_shown(path)} is {sizes[oid]} bytes, more than the {max_bytes} bytes "
                                "the input may hold (maxInputBytes)")
        total += sizes[oid]
        if total > max_bytes:
            raise RevisionError(f"{revision}: the files render reads hold more than {max_bytes} bytes (maxInputBytes)")
    return total - spent


def _blobs(repo: Repository, oids: list, revision: str) -> dict:
    """{object id: bytes} read with one `git cat-file --batch` (sizes checked before)."""
    unique = list(dict.fromkeys(oids))
    if not unique:
        return {}
    done = _git(["cat-file", "--batch"], repo.cwd, repo.env, ("\n".join(unique) + "\n").encode())
    if done.returncode:
        raise _failed(done, revision)
    data, at, out = done.stdout, 0, {}
    for oid in unique:
        end = data.find(b"\n", at)
        header = data[at:end].decode("ascii", "replace").split() if end >= 0 else []
        if len(header) != 3:
            raise _missing(oid, revision)
        size = int(header[2])
        out[oid] = data[end + 1:end + 1 + size]
        at = end + 1 + size + 1
    return out


class Tree:
    """The repository's tree at a commit: every entry ({path: _Entry}, trees included), the links'
    targets ({path: target}), and whether a `.gitmodules` file is at the root."""

    def __init__(self, revision: str, entries: dict, targets: dict):
        self.revision, self.entries, self.targets = revision, entries, targets
        self.paths = sorted(entries)  # the entries below a directory are one run of this list
        modules = entries.get(".gitmodules")
        self.gitmodules = modules is not None and _is_file(modules)

    def below(self, directory: str):
        """(path, _Entry) of every entry below `directory` ("" for the root), at any depth."""
        if not directory:
            yield from ((p, self.entries[p]) for p in self.paths)
            return
        start = directory + "/"
        for i in range(bisect.bisect_left(self.paths, start), len(self.paths)):
            path = self.paths[i]
            if not path.startswith(start):
                return
            yield path, self.entries[path]

    def kind(self, path: str) -> str | None:
        """"tree", "blob", "commit" (a submodule) or None (not in the tree)."""
        if not path:
            return "tree"
        e = self.entries.get(path)
        return None if e is None else e.kind


def read_tree(repo: Repository, commit: str, revision: str, max_bytes: int,
              max_entries: int = MAX_REPOSITORY_ENTRIES) -> Tree:
    """The repository's tree at `commit`, listed with every limit checked as git writes it, and every
    link judged as Argo CD judges the checkout: one that is absolute or leads out of the repository,
    anywhere in it (hidden directories too: Argo CD skips only `.git`), refuses the repository."""
    entries = _list(repo, commit, revision, max_entries)
    targets = link_targets(repo, [(e.oid, p) for p, e in entries.items() if e.mode == _LINK], revision, max_bytes)
    for path, target in refused_links(targets)[:1]:
        raise RevisionError(f"{revision}:{link_refusal(path, target)}, so there is nothing to compare; {LINK_FIX}")
    modules = entries.get(_GITMODULES)
    gitlinks = [path for path, e in entries.items() if e.kind == _SUBMODULE]
    for path, why in submodule_refusals(repo, gitlinks, modules.oid if modules and _is_file(modules) else None)[:1]:
        fix = "fix .gitmodules" if path == _GITMODULES else SUBMODULE_FIX
        raise RevisionError(f"{revision}:{submodule_refusal(path, why)}, so Argo CD renders no app of the repository "
                            f"and there is nothing to compare; {fix}")
    return Tree(revision, entries, targets)


class _Plan:
    """What one materialise writes: directories, files [(object id, path)], links, submodules left
    empty; the directories walked, and how many entries they hold."""

    def __init__(self):
        self.dirs, self.files, self.links, self.empty = [], [], [], []
        self.todo, self.walked = [], set()
        self.entries = 0


def _hidden(rel: str) -> bool:
    return any(part.startswith(".") for part in rel.split("/"))


class Checkout:
    """The files of one revision that render reads, written under `dest` as they lie in the
    repository, path by path as the reader asks for them (`prepare`). Each request is planned in full
    (the directory's entries, the links it holds and what they lead to), its limits checked, and only
    then written: the entries walked and the bytes written, over all requests together, stay within
    the run's limits (sources.MAX_ENTRIES, maxInputBytes)."""

    def __init__(self, repo: Repository, tree: Tree, dest: str, max_bytes: int,
                 max_entries: int = sources.MAX_ENTRIES):
        self.repo, self.tree, self.dest = repo, tree, dest
        self.revision = tree.revision
        self.max_bytes, self.max_entries = max_bytes, max_entries
        self.bytes = self.entries = 0
        self.walked: set = set()  # directories written with what the reader's walk reads below them
        self.written: set = set()  # files and links written

    def prepare(self, full: str) -> None:
        """Before the reader reads `full` (a path under `dest`): write what it will find there."""
        rel = os.path.relpath(full, self.dest)
        if rel == os.pardir or rel.startswith(os.pardir + os.sep):
            return  # not in the repository (an extra root outside it, read as it is now)
        self.materialise("" if rel == os.curdir else rel.replace(os.sep, "/"))

    def materialise(self, path: str) -> str | None:
        """Write what the reader reads at `path` (relative to the repository root, normalised): the
        links on the way to it, and, where they lead, a file (whatever its name: it is named), or a
        directory with what the walk reads below it. The kind of what `path` leads to (Tree.kind)."""
        plan = _Plan()
        resolved = self._follow(path, plan)
        kind = None if resolved is None else self.tree.kind(resolved)
        if resolved is not None:
            self._reach(resolved, plan, named=True)
        while plan.todo:
            self._walk(plan.todo.pop(), plan)
        self._write(plan)
        return kind

    # --- planning ---------------------------------------------------------------------------------

    def _follow(self, path: str, plan: _Plan) -> str | None:
        try:
            resolved, passed = follow(self.tree.targets, path)
        except _Escape as e:
            through = f" through the link {_shown(e.link)}" if e.link and e.link != path else ""
            raise RevisionError(f"{self.revision}:{_shown(path)} leads out of the repository{through} (the kernel "
                                "resolves `..` after a link from where the link leads, which Argo CD's lexical check "
                                "does not see); diff cannot follow it") from None
        plan.links += passed
        return resolved

    def _reach(self, path: str, plan: _Plan, named: bool) -> None:
        """Plan what the reader finds at `path` (resolved: no link on the way). `named`: a file is read
        whatever its name (a path the config names, a link the walk reads)."""
        kind = self.tree.kind(path)
        if kind == "tree":
            plan.todo.append(path)
        elif kind == _SUBMODULE:
            self._submodule(path, plan)
        elif kind == "blob":
            e = self.tree.entries[path]
            if _is_file(e) and (named or _wanted(path.rsplit("/", 1)[-1])):
                self._utf8(path)
                plan.files.append((e.oid, path))
        else:
            parts = path.split("/")
            for i in range(1, len(parts)):  # below a submodule: its files are not in the tree
                if self.tree.kind("/".join(parts[:i])) == _SUBMODULE:
                    self._submodule("/".join(parts[:i]), plan)
                    return

    def _walk(self, directory: str, plan: _Plan) -> None:
        """Plan the directory as the reader walks it: every entry not below a hidden name (the walk
        skips them; a link or a configured path that reaches one is planned on its own), the
        directories, the files it reads, the links and what each leads to."""
        if directory in plan.walked or any(self._holds(d, directory) for d in self.walked | plan.walked):
            return
        plan.walked.add(directory)
        plan.dirs.append(directory)
        cut = len(directory) + 1 if directory else 0
        for path, e in self.tree.below(directory):
            rel = path[cut:]
            if _hidden(rel):
                continue
            plan.entries += 1
            if self.entries + plan.entries > self.max_entries:
                raise RevisionError(f"{self.revision}: the directories render reads hold more than {self.max_entries} "
                                    "entries (files and directories), more than a run reads; nothing was written")
            if rel.count("/") > sources.MAX_DIR_DEPTH:
                raise RevisionError(f"{self.revision}: {_quoted(path)} is more than {sources.MAX_DIR_DEPTH} "
                                    f"directories deep below {directory or 'the repository root'}, deeper than a run "
                                    "reads")
            if e.kind == "tree":
                self._utf8(path)
                plan.dirs.append(path)
            elif e.kind == _SUBMODULE:
                self._submodule(path, plan)
            elif e.mode == _LINK:
                self._utf8(path)
                resolved = self._follow(path, plan)
                if resolved is not None:
                    self._reach(resolved, plan, named=_wanted(path.rsplit("/", 1)[-1]))
            elif _is_file(e) and _wanted(path.rsplit("/", 1)[-1]):
                self._utf8(path)
                plan.files.append((e.oid, path))

    @staticmethod
    def _holds(outer: str, directory: str) -> bool:
        """Whether walking `outer` walks `directory` (below it, through no hidden name)."""
        if directory == outer:
            return True
        if outer and not directory.startswith(outer + "/"):
            return False
        return not _hidden(directory[len(outer) + 1 if outer else 0:])

    def _submodule(self, path: str, plan: _Plan) -> None:
        """A submodule render reads. Argo CD's checkout runs `git submodule update --init --recursive`
        when the repository has a `.gitmodules` (argo-cd v3.5.1 util/git/client.go:793-797; on by
        default, ARGOCD_GIT_MODULES_ENABLED) and renders the submodule's files, which are not in this
        repository's objects: refused. Without `.gitmodules` nothing initialises it, and `git
        checkout` leaves the gitlink an empty directory: so it is here."""
        if self.tree.gitmodules:
            raise RevisionError(f"{self.revision}:{_shown(path)} is a git submodule that render reads: Argo CD checks "
                                "submodules out and renders their files (util/git/client.go:793-797 at v3.5.1), but "
                                "they are not in this repository's objects, so diff cannot compare them; move the "
                                "files into the repository, or compare checkouts (diff DIR DIR)")
        plan.empty.append(path)

    def _utf8(self, path: str) -> None:
        if not sources.is_utf8(path):
            raise RevisionError(f"{self.revision}: path {_quoted(path)} is not UTF-8 (Kubernetes tools cannot name "
                                "it); rename it")

    # --- writing ----------------------------------------------------------------------------------

    def _write(self, plan: _Plan) -> None:
        files = [(oid, path) for oid, path in dict.fromkeys(plan.files) if path not in self.written]
        links = [path for path in dict.fromkeys(plan.links) if path not in self.written]
        for path in links:
            self._utf8(self.tree.targets[path])
        spent = _sizes(self.repo, files, self.revision, self.max_bytes, spent=self.bytes)
        blobs = _blobs(self.repo, [oid for oid, _ in files], self.revision)
        path = ""
        try:
            for path in plan.dirs + plan.empty:
                os.makedirs(self._full(path), exist_ok=True)
            # Files first, links last: no file is ever written through a link made here.
            for oid, path in files:
                full = self._full(path)
                os.makedirs(os.path.dirname(full), exist_ok=True)
                fd = os.open(full, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
                with os.fdopen(fd, "wb") as f:
                    f.write(blobs[oid])
                self.written.add(path)
            for path in links:
                full = self._full(path)
                os.makedirs(os.path.dirname(full), exist_ok=True)
                os.symlink(self.tree.targets[path], full)
                self.written.add(path)
        except OSError as e:
            # The path in the repository, never the temporary directory's (e.strerror has no path).
            raise RevisionError(f"{self.revision}:{_shown(path)}: cannot be written as a checkout would "
                                f"({e.strerror})") from None
        self.bytes += spent
        self.entries += plan.entries
        self.walked |= plan.walked

    def _full(self, path: str) -> str:
        return os.path.join(self.dest, *path.split("/")) if path else self.dest
