"""The two sides of a `diff`: OLD and NEW read as a directory, or as a git revision of the repository
the working directory is in, read from git's objects alone (kpt_fn.gitrev) into a scratch directory
laid out as the repository, with what render reads written there as it reads it (a Side).
"""

from __future__ import annotations

import os
import tempfile


class SourceError(Exception):
    """OLD or NEW cannot be read (the message says why, for the user)."""


class Side:
    """A revision to render: `top` is the repository's root as written in the scratch directory (the
    root render's paths are confined to, as in a checkout: kpt_fn.cli.plain.expand), and `prepare` writes
    what the reader is about to read there (kpt_fn.gitrev.Checkout)."""

    __slots__ = ("top", "_checkout")

    def __init__(self, top: str, checkout):
        self.top, self._checkout = top, checkout

    def prepare(self, path: str) -> None:
        from kpt_fn import gitrev

        try:
            self._checkout.prepare(path)
        except gitrev.RevisionError as e:
            raise SourceError(str(e)) from None


def materialize(spec: str, cwd: str, scratch: str, env: dict, max_bytes: int | None = None) -> tuple:
    """(directory, environment, notes, side) to render OLD or NEW with: a directory as it is (side
    None), or the app at a git revision of the repository the working directory is in. A name that
    is both is an error: which was meant?

    At a revision, the repository's tree is listed and its links judged as Argo CD's repo-server
    judges a checkout (gitrev.read_tree), and the app directory is written at its place in a new
    directory under `scratch` that stands for the repository's root; the rest of what render reads
    (runtimeDirs, files, policyDirs elsewhere in the repository, what links lead to) is written as the
    reader asks for it (`side.prepare`), so a runtime shared in platform/runtimes is read at that
    revision, never from today's working tree. The operator's extra roots outside the repository
    (EXPAND_TRAINJOBS_EXTRA_ROOTS) are read as they are now, and a note says so; those inside it are
    in the repository already. `env`: the environment the command line passes in."""
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
            return path, env, [], None
        if commit is None:
            raise SourceError(f"{spec!r} is neither a directory nor a git revision of the repository at {cwd}")
        limit = max_bytes or DEFAULT_LIMITS.max_bytes
        tree = gitrev.read_tree(repo, commit, spec, limit)
        base = tempfile.mkdtemp(dir=scratch)
        checkout = gitrev.Checkout(repo, tree, base, limit)
        kind = checkout.materialise(repo.prefix)
        if kind not in ("tree", "commit"):  # a submodule left empty is an (empty) directory, as in a checkout
            what = "is not a directory" if kind else "is not"
            raise SourceError(f"{spec}: the app directory {repo.prefix} {what} in that commit")
        outside = _outside(sources.extra_roots_from_env(env), os.path.realpath(repo.top))
        notes = [f"{spec}: extra root {root} is outside the repository: read as it is now, not at {spec}"
                 for root in outside]
        return _under(base, repo.prefix), {**env, sources.EXTRA_ROOTS_ENV: os.pathsep.join(outside)}, notes, \
            Side(base, checkout)
    except gitrev.RevisionError as e:
        raise SourceError(str(e)) from None


def _outside(roots, top: str) -> list:
    """The roots that are not in the repository at `top`."""
    out = []
    for root in roots:
        rel = os.path.relpath(os.path.realpath(root), top)
        if rel == os.pardir or rel.startswith(os.pardir + os.sep):
            out.append(root)
    return out


def _under(base: str, prefix: str) -> str:
    return os.path.join(base, *prefix.split("/")) if prefix else base
