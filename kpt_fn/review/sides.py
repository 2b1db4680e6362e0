"""The two sides of a `diff`: OLD and NEW read as a directory, or as the app's files at a git revision
read from git's objects alone (kpt_fn.gitrev) into a scratch directory, with the operator's extra
roots that lie in the repository read at that revision too.
"""

from __future__ import annotations

import os
import tempfile

class SourceError(Exception):
    """OLD or NEW cannot be read (the message says why, for the user)."""


def materialize(spec: str, cwd: str, scratch: str, env: dict, max_bytes: int | None = None) -> tuple:
    """(directory, environment, notes) to render OLD or NEW with: a directory as it is, or the app's
    files at a git revision of the repository the working directory is in, read from git's objects
    alone into a new directory under `scratch`. A name that is both is an error: which was meant?

    At a revision, the operator's extra roots (EXPAND_TRAINJOBS_EXTRA_ROOTS, e.g. a monorepo's shared
    runtimes) that lie in the repository are read at that revision too, laid out as in the repository
    so that the app's relative references reach them: a runtime changed between OLD and NEW must show
    in the diff, not be read twice from today's working tree. Roots outside the repository are read as
    they are now, and a note says so. `env`: the environment the command line passes in."""
    from kpt_fn import gitrev, sources
    from kpt_fn.yamlio import DEFAULT_LIMITS

    path = spec if os.path.isabs(spec) else os.path.join(cwd, spec)
    is_dir = os.path.isdir(path)
    try:
        repo = gitrev.repository(cwd, env)
        commit = gitrev.resolve(repo, spec) if repo is not None and not os.path.isabs(spec) else None
        if commit is not None and is_dir:
            raise SourceError(f"{spec!r} is both a directory and a git revision: write ./{spec} for the directory, "
                              f"or {spec}^{{commit}} for the revision")
        if is_dir:
            return path, env, []
        if commit is None:
            raise SourceError(f"{spec!r} is neither a directory nor a git revision of the repository at {cwd}")
        limit = max_bytes or DEFAULT_LIMITS.max_bytes
        base = tempfile.mkdtemp(dir=scratch)
        top = os.path.realpath(repo.top)
        inside, outside = _split_roots(sources.extra_roots_from_env(env), top)
        for prefix in _outermost([repo.prefix, *inside.values()]):
            if prefix == repo.prefix or gitrev.has_directory(repo, commit, prefix):
                gitrev.extract(repo, commit, spec, _under(base, prefix), limit, prefix)
        for prefix in [repo.prefix, *inside.values()]:  # a root not in that commit, or with no YAML in it, is empty
            os.makedirs(_under(base, prefix), exist_ok=True)
        roots = [_under(base, prefix) for prefix in inside.values()] + outside
        notes = [f"{spec}: extra root {root} is outside the repository: read as it is now, not at {spec}"
                 for root in outside]
        return _under(base, repo.prefix), {**env, sources.EXTRA_ROOTS_ENV: os.pathsep.join(roots)}, notes
    except gitrev.RevisionError as e:
        raise SourceError(str(e)) from None


def _split_roots(roots, top: str) -> tuple[dict, list]:
    """({root: its path in the repository}, [roots outside the repository])."""
    inside, outside = {}, []
    for root in roots:
        rel = os.path.relpath(os.path.realpath(root), top)
        if rel == os.pardir or rel.startswith(os.pardir + os.sep):
            outside.append(root)
        else:
            inside[root] = "" if rel == os.curdir else rel.replace(os.sep, "/")
    return inside, outside


def _outermost(prefixes) -> list:
    """The directories to extract: each prefix once, and none that an extracted one already holds.
    A prefix below a hidden directory of another is extracted on its own: the walk skips hidden
    entries, so the outer extraction does not hold it."""
    out = []
    for prefix in sorted(set(prefixes), key=len):
        if not any(_holds(outer, prefix) for outer in out):
            out.append(prefix)
    return out


def _holds(outer: str, prefix: str) -> bool:
    """Whether extracting `outer` extracts `prefix` (below it, through no hidden directory)."""
    if outer and not prefix.startswith(outer + "/"):
        return False
    return not any(part.startswith(".") for part in prefix[len(outer):].lstrip("/").split("/"))


def _under(base: str, prefix: str) -> str:
    return os.path.join(base, *prefix.split("/")) if prefix else base
