"""An app's files at a git revision, read from git's object database exactly as committed.

`diff OLD NEW` compares what Argo CD would render at two commits. Argo CD's repo-server checks the
commit out and reads the files as they are in the tree; so does this module, without a checkout:
`git ls-tree` lists the app directory's entries at the commit and `git cat-file --batch` gives each
blob's bytes. Nothing applies attributes (`export-ignore`, `export-subst`, `filter=`, `eol`), as
`git archive` or a checkout would, and no program named by a git config is run:

- git runs with no system or global config (GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL=/dev/null) and
  none of the caller's GIT_* variables; `-c` options switch off fsmonitor and hooks, replace refs
  (GIT_NO_REPLACE_OBJECTS: `git replace` would show other content than the commit's) and every
  transport (`protocol.allow=never`), so a blob missing from a partial clone is an error instead of a
  fetch that runs `core.sshCommand` from the repository's config;
- a revision is resolved as git resolves it (`git rev-parse --verify REV^{commit}`); a name git finds
  ambiguous, or that is both a revision and a directory (a directory named `HEAD`), is an error;
- only what `render` reads is extracted: the files under the app directory (the working directory's
  place in the repository) that the source reader would read (YAML names, the marker and kustomize
  files), none under hidden directories, each and all together at most the run's input limit;
- a symbolic link is recreated only when it stays inside the app directory (Argo CD refuses a
  repository whose links lead out of it); a link elsewhere, a path that is not UTF-8 or a tree entry
  that is not a plain name is an error.

Every failure is a RevisionError with a message for the user (`diff` exits 2 with it).
"""

from __future__ import annotations

import os
import posixpath
import subprocess

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

_LINK, _BLOB, _TREE = "120000", ("100644", "100755"), "040000"


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
    return Repository(cwd, genv, os.fsdecode(top), prefix.rstrip("/"))


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


def has_directory(repo: Repository, commit: str, prefix: str) -> bool:
    """Whether the commit has a directory at `prefix` (the repository's root for "")."""
    done = _git(["cat-file", "-t", f"{commit}:{prefix}"], repo.cwd, repo.env)
    return done.returncode == 0 and done.stdout.strip() == b"tree"


def _entries(repo: Repository, commit: str, revision: str, prefix: str) -> list:
    """[(mode, kind, object id, path relative to `prefix`)] at the commit."""
    spec = f"{commit}:{prefix}" if prefix else f"{commit}:"
    # --full-tree: run from a subdirectory, ls-tree would otherwise filter by it a second time. No -l:
    # sizes come from cat-file --batch-check, which reports a blob missing from a partial clone.
    done = _git(["ls-tree", "-r", "-z", "--full-tree", spec], repo.cwd, repo.env)
    if done.returncode:
        where = prefix or "the repository's root"
        what = "the app directory" if prefix == repo.prefix else "the directory"
        raise RevisionError(f"{revision}: {what} {where} is not in that commit ({_stderr(done)})")
    out = []
    for record in done.stdout.split(b"\0"):
        if not record:
            continue
        head, _, raw_path = record.partition(b"\t")
        mode, kind, oid = head.split()
        try:
            path = raw_path.decode("utf-8")
        except UnicodeDecodeError:
            shown = raw_path.decode("utf-8", "backslashreplace")
            raise RevisionError(f"{revision}: path {shown!r} in the app directory is not UTF-8 (Kubernetes "
                                "tools cannot name it); rename it") from None
        out.append((mode.decode(), kind.decode(), oid.decode(), path))
    return out


def _checked_path(path: str, revision: str) -> list:
    parts = path.split("/")
    if any(p in ("", ".", "..") or "\0" in p for p in parts):
        raise RevisionError(f"{revision}: tree entry {path!r} is not a plain relative path")
    return parts


def _link_inside(path: str, target: str) -> bool:
    """Whether a link at `path` to `target` stays inside the app directory (both relative to it)."""
    if posixpath.isabs(target):
        return False
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
    return resolved != ".." and not resolved.startswith("../")


def _plan(entries: list, revision: str) -> tuple[list, list]:
    """(files, links) to extract: [(object id, path)] each."""
    files, links = [], []
    for mode, kind, oid, path in entries:
        parts = _checked_path(path, revision)
        if any(p.startswith(".") for p in parts):
            continue  # the reader skips hidden entries below the app directory
        if kind == "commit":
            continue  # a submodule: its files are not in this repository's objects
        if mode == _LINK:
            links.append((oid, path))
        elif kind == "blob" and _wanted(parts[-1]):
            files.append((oid, path))
    return files, links


def _missing(oid: str, revision: str) -> RevisionError:
    return RevisionError(f"{revision}: object {oid} is missing from the repository (a partial or shallow clone? "
                         "fetch it first, or clone in full; nothing is fetched here)")


def _failed(done: subprocess.CompletedProcess, revision: str) -> RevisionError:
    why = _stderr(done)
    if "promisor" in why or "missing" in why:  # a partial clone: git tried to fetch, and was not let
        return RevisionError(f"{revision}: an object is missing from the repository ({why}): a partial clone? fetch "
                             "it first, or clone in full; nothing is fetched here")
    return RevisionError(f"{revision}: git cat-file failed ({why})")


def _sizes(repo: Repository, wanted: list, revision: str, max_bytes: int) -> None:
    """Every object of `wanted` [(object id, path)] is present, and each and all together hold at most
    `max_bytes` bytes (one `git cat-file --batch-check`)."""
    unique = list(dict.fromkeys(oid for oid, _ in wanted))
    if not unique:
        return
    done = _git(["cat-file", "--batch-check"], repo.cwd, repo.env, ("\n".join(unique) + "\n").encode())
    if done.returncode:
        raise _failed(done, revision)
    sizes = {}
    for line in done.stdout.decode("ascii", "replace").splitlines():
        fields = line.split()
        if len(fields) != 3:
            raise _missing(fields[0] if fields else "?", revision)
        sizes[fields[0]] = int(fields[2])
    total = 0
    for oid, path in wanted:
        if oid not in sizes:
            raise _missing(oid, revision)
        if sizes[oid] > max_bytes:
            raise RevisionError(f"{revision}:{path} is {sizes[oid]} bytes, more than the {max_bytes} bytes the input "
                                "may hold (maxInputBytes)")
        total += sizes[oid]
        if total > max_bytes:
            raise RevisionError(f"{revision}: the app's files hold more than {max_bytes} bytes (maxInputBytes)")


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


def extract(repo: Repository, commit: str, revision: str, dest: str, max_bytes: int, prefix: str | None = None) -> str:
    """Write the files of the directory at `prefix` (default: the app directory) at `commit` under
    `dest` (an empty or new directory); the directory to render (dest itself)."""
    files, links = _plan(_entries(repo, commit, revision, repo.prefix if prefix is None else prefix), revision)
    _sizes(repo, files + links, revision, max_bytes)
    blobs = _blobs(repo, [oid for oid, _ in files + links], revision)
    # Files first, links last: no file is ever written through a link made here.
    for oid, path in files:
        full = os.path.join(dest, *path.split("/"))
        os.makedirs(os.path.dirname(full), exist_ok=True)
        fd = os.open(full, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(blobs[oid])
    for oid, path in links:
        try:
            target = blobs[oid].decode("utf-8")
        except UnicodeDecodeError:
            raise RevisionError(f"{revision}:{path} is a symbolic link whose target is not UTF-8") from None
        if not _link_inside(path, target):
            raise RevisionError(f"{revision}:{path} is a symbolic link to {target!r}, outside the app directory: "
                                "only links inside it are followed (Argo CD refuses links out of the repository)")
        full = os.path.join(dest, *path.split("/"))
        os.makedirs(os.path.dirname(full), exist_ok=True)
        try:
            os.symlink(target, full)
        except OSError as e:
            raise RevisionError(f"{revision}:{path}: cannot recreate the symbolic link ({e.strerror})") from None
    return dest
