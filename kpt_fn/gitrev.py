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
import subprocess
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


def has_directory(repo: Repository, commit: str, prefix: str) -> bool:
    """Whether the commit has a directory at `prefix` (the repository's root for ""); an error when it or
    a parent is a symbolic link or a submodule there (check_app_path)."""
    check_app_path(repo, commit, commit[:12], prefix)
    done = _git(["cat-file", "-t", f"{commit}:{prefix}"], repo.cwd, repo.env)
    return done.returncode == 0 and done.stdout.strip() == b"tree"


# Limits checked while git's listing of the tree is read, before anything is written (docs/limits.md):
# the reader's own (entries, directory depth), and the file system's: a name longer than NAME_MAX bytes,
# or a path longer than PATH_MAX, cannot be written (Linux's limits.h: 255 and 4096).
MAX_NAME_BYTES = 255
MAX_PATH_BYTES = 4095
# Links followed in a row before the path is a loop (Linux's MAXSYMLINKS, as path resolution counts them).
MAX_LINK_HOPS = 40
_READ_CHUNK = 1 << 16


class _Entry:
    __slots__ = ("mode", "kind", "oid")

    def __init__(self, mode: str, kind: str, oid: str):
        self.mode, self.kind, self.oid = mode, kind, oid


def _shown(raw: bytes) -> str:
    """A path for a message: at most 200 characters, never the temporary directory's."""
    text = raw.decode("utf-8", "backslashreplace")
    return text if len(text) <= 200 else text[:100] + "…" + text[-99:]


class _Listing:
    """The entries of `git ls-tree -r -t -z` read as they arrive, each limit checked on the way."""

    def __init__(self, revision: str, max_entries: int, max_depth: int):
        self.revision, self.max_entries, self.max_depth = revision, max_entries, max_depth
        self.entries: dict = {}  # path relative to the listed directory -> _Entry, in git's order

    def add(self, record: bytes) -> None:
        head, tab, raw_path = record.partition(b"\t")
        fields = head.split()
        if not tab or len(fields) != 3:
            raise RevisionError(f"{self.revision}: git listed a tree entry it does not describe")
        if len(self.entries) >= self.max_entries:
            raise RevisionError(f"{self.revision}: the app directory holds more than {self.max_entries} entries "
                                "(files and directories), more than a run reads; nothing was written")
        raw_parts = raw_path.split(b"/")
        for part in raw_parts:
            if len(part) > MAX_NAME_BYTES:
                raise RevisionError(f"{self.revision}: the name {_shown(part)!r} in the app directory is {len(part)} "
                                    f"bytes long, more than a file system allows ({MAX_NAME_BYTES}); rename it")
        if len(raw_path) > MAX_PATH_BYTES - 256:  # room for the directory it is written under
            raise RevisionError(f"{self.revision}: the path {_shown(raw_path)!r} is {len(raw_path)} bytes long, "
                                f"more than a file system allows; shorten it")
        if len(raw_parts) > self.max_depth + 1:
            raise RevisionError(f"{self.revision}: {_shown(raw_path)!r} is more than {self.max_depth} directories "
                                "deep in the app directory, deeper than a run reads")
        try:
            path = raw_path.decode("utf-8")
        except UnicodeDecodeError:
            raise RevisionError(f"{self.revision}: path {_shown(raw_path)!r} in the app directory is not UTF-8 "
                                "(Kubernetes tools cannot name it); rename it") from None
        _checked_path(path, self.revision)
        if path in self.entries:
            # git fsck calls it duplicateEntries: a checkout would write one of them, which is not defined.
            raise RevisionError(f"{self.revision}: the tree holds {path!r} twice (a malformed tree: `git fsck` "
                                "reports duplicateEntries); it cannot be checked out")
        mode, kind, oid = (f.decode("ascii", "replace") for f in fields)
        self.entries[path] = _Entry(mode, kind, oid)


def _entries(repo: Repository, commit: str, revision: str, prefix: str, max_entries: int, max_depth: int) -> dict:
    """{path relative to `prefix`: _Entry} of every entry below the directory at the commit, trees
    included (-t), read as git writes them: a limit reached stops git at once, with nothing written."""
    spec = f"{commit}:{prefix}" if prefix else f"{commit}:"
    # --full-tree: run from a subdirectory, ls-tree would otherwise filter by it a second time. No -l:
    # sizes come from cat-file --batch-check, which reports a blob missing from a partial clone.
    args = ["ls-tree", "-r", "-t", "-z", "--full-tree", spec]
    listing = _Listing(revision, max_entries, max_depth)
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
                listing.add(record)
            if time.monotonic() > deadline:
                raise RevisionError(f"git ls-tree took more than {_TIMEOUT} seconds")
        if pending:
            listing.add(pending)
        stderr = proc.stderr.read(1 << 16)
        code = proc.wait(timeout=_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise RevisionError(f"git ls-tree took more than {_TIMEOUT} seconds") from None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    if code:
        where = prefix or "the repository's root"
        what = "the app directory" if prefix == repo.prefix else "the directory"
        why = _stderr(subprocess.CompletedProcess(args, code, b"", stderr))
        raise RevisionError(f"{revision}: {what} {where} is not in that commit ({why})")
    return listing.entries


def _checked_path(path: str, revision: str) -> list:
    parts = path.split("/")
    if any(p in ("", ".", "..") or "\0" in p for p in parts):
        raise RevisionError(f"{revision}: tree entry {path!r} is not a plain relative path")
    return parts


def resolve_link(links: dict, path: str) -> str | None:
    """Where the link at `path` leads, through the links of the tree as the kernel resolves a path
    (`links`: {path: target}, both relative to the app directory): the path it reaches, relative to the
    app directory, or None when any step leaves it (an absolute target, `..` above it) or the links
    loop (more than MAX_LINK_HOPS). A target that does not exist is returned as it is (a dangling link,
    which a checkout has too)."""
    parts = path.split("/")[:-1]
    todo = links[path].split("/")
    if links[path].startswith("/"):
        return None
    hops = 0
    while todo:
        part = todo.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                return None
            parts.pop()
            continue
        parts.append(part)
        here = "/".join(parts)
        if here in links:
            hops += 1
            target = links[here]
            if hops > MAX_LINK_HOPS or target.startswith("/"):
                return None
            parts.pop()
            todo = target.split("/") + todo
    return "/".join(parts)


def _is_file(e: _Entry) -> bool:
    """A blob that a checkout writes as a file: any blob mode but a link's. Old repositories hold modes
    such as 100664, which git's checkout writes as a plain file (fsck only warns: badFilemode)."""
    return e.kind == "blob" and e.mode != _LINK


def _plan(entries: dict, targets: dict, revision: str, where: str) -> tuple[list, list]:
    """(files, links) to extract, [(object id, path)] each, from the tree's entries and the links'
    targets ({path: target}). What is written is what a checkout of the directory holds that render
    can read: every file with a name the reader reads (below hidden directories too, which a link or
    a configured path can reach), every link, and every file a link leads to whatever its name. What
    cannot be written as a checkout would is an error naming it: a submodule (Argo CD checks them out,
    but their files are not in this repository's objects) and a link that leads out of the directory."""
    files, links = [], []
    for path, e in entries.items():
        if e.kind == "commit":
            raise RevisionError(f"{revision}:{where}{path} is a git submodule: Argo CD checks submodules out and "
                                "renders their files, but they are not in this repository's objects, so diff "
                                "cannot compare them; move the files into the repository, or compare checkouts "
                                "(diff DIR DIR)")
        if e.mode == _LINK:
            resolved = resolve_link(targets, path)
            if resolved is None:
                raise RevisionError(f"{revision}:{where}{path} is a symbolic link to {targets[path]!r}, which leads "
                                    "outside the app directory: only links inside it are followed (Argo CD refuses "
                                    "links out of the repository; render reads none out of the app directory)")
            links.append((e.oid, path))
            target = entries.get(resolved)
            if target is not None and _is_file(target) and not _wanted(resolved.split("/")[-1]):
                files.append((target.oid, resolved))
        elif _is_file(e) and _wanted(path.split("/")[-1]):
            files.append((e.oid, path))
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


def _sizes(repo: Repository, wanted: list, revision: str, max_bytes: int, each: int | None = None,
           what: str = "") -> None:
    """Every object of `wanted` [(object id, path)] is present, each holds at most `each` bytes (default:
    `max_bytes`) and all together at most `max_bytes` (one `git cat-file --batch-check`)."""
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
        if each is not None and sizes[oid] > each:
            raise RevisionError(f"{revision}:{path} is a {what} of {sizes[oid]} bytes, more than a path may hold ({each})")
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


def extract(repo: Repository, commit: str, revision: str, dest: str, max_bytes: int, prefix: str | None = None,
            max_entries: int | None = None) -> str:
    """Write the files of the directory at `prefix` (default: the app directory) at `commit` under
    `dest` (an empty or new directory); the directory to render (dest itself). Every limit is checked
    before the first file is written; no message names `dest`."""
    prefix = repo.prefix if prefix is None else prefix
    where = f"{prefix}/" if prefix else ""
    check_app_path(repo, commit, revision, prefix)
    entries = _entries(repo, commit, revision, prefix, max_entries or sources.MAX_ENTRIES, sources.MAX_DIR_DEPTH)
    link_entries = [(e.oid, p) for p, e in entries.items() if e.mode == _LINK]
    # A link's target is its blob: read first (each at most PATH_MAX bytes), so that it can be judged.
    _sizes(repo, link_entries, revision, max_bytes, each=MAX_PATH_BYTES, what="symbolic link")
    link_blobs = _blobs(repo, [oid for oid, _ in link_entries], revision)
    targets = {}
    for oid, path in link_entries:
        try:
            targets[path] = link_blobs[oid].decode("utf-8")
        except UnicodeDecodeError:
            raise RevisionError(f"{revision}:{where}{path} is a symbolic link whose target is not UTF-8") from None
    files, links = _plan(entries, targets, revision, where)
    _sizes(repo, files + links, revision, max_bytes)
    blobs = _blobs(repo, list(dict.fromkeys(oid for oid, _ in files)), revision)
    try:
        # Files first, links last: no file is ever written through a link made here.
        for oid, path in files:
            full = os.path.join(dest, *path.split("/"))
            os.makedirs(os.path.dirname(full), exist_ok=True)
            fd = os.open(full, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(blobs[oid])
        for _, path in links:
            full = os.path.join(dest, *path.split("/"))
            os.makedirs(os.path.dirname(full), exist_ok=True)
            os.symlink(targets[path], full)
    except OSError as e:
        # The path in the repository, never the temporary directory's (e.strerror has no path).
        raise RevisionError(f"{revision}:{where}{path}: cannot be written as a checkout would ({e.strerror})") from None
    return dest


def check_app_path(repo: Repository, commit: str, revision: str, prefix: str | None = None) -> None:
    """The app directory and each of its parents are directories at the commit: not a symbolic link
    (Argo CD would render the directory it leads to under the app's name: diff would compare another
    app), nor a submodule. One `git ls-tree` of the parents' entries: git descends into a parent that is a
    tree and lists one that is not."""
    prefix = repo.prefix if prefix is None else prefix
    if not prefix:
        return
    parts = prefix.split("/")
    paths = ["/".join(parts[:i + 1]) for i in range(len(parts))]
    done = _git(["ls-tree", "-z", "--full-tree", commit, "--", *paths], repo.cwd, repo.env)
    if done.returncode:
        raise RevisionError(f"{revision}: cannot list the app directory's parents ({_stderr(done)})")
    found = {}
    for record in done.stdout.split(b"\0"):
        head, _, raw = record.partition(b"\t")
        if head:
            found[raw.decode("utf-8", "replace")] = head.split()[0].decode("ascii", "replace")
    for path in paths:
        mode = found.get(path)
        if mode == _LINK:
            raise RevisionError(f"{revision}: {path} is a symbolic link there, so the directory {prefix} is "
                                "another directory under its name: diff cannot follow it; compare the directory it "
                                "leads to")
        if mode == "160000":
            raise RevisionError(f"{revision}: {path} is a git submodule there: its files are not in this "
                                f"repository's objects, so diff cannot read the directory {prefix}")
        # None: a parent git descended into (a tree), or not in that commit (_entries says so).
