"""`jobSetNames: contentHash`: an edit starts a new run instead of changing a JobSet that cannot change.

A created JobSet's `spec.replicatedJobs` cannot be changed (jobset_update), so an edited TrainJob
(image, args, numNodes) cannot be applied over the JobSet it rendered before. In this mode the
TrainJob is rendered under the name `<name>-<hash>`, the hash taken from what it renders under its own
name: an edit that changes any rendered object gives a new name, the GitOps tool creates a new JobSet
(a new run) and prunes the old one with everything else named after it; an unchanged TrainJob keeps
its name, so re-syncs change nothing.

The renaming is done to the TrainJob before the expansion, as for kustomize's namePrefix
(kpt_fn/kustomize_names.py, Renames.trainjob): every name the engine derives from the TrainJob's (the
JobSet, PodGroup, ConfigMaps and Secrets, MASTER_ADDR / PET_MASTER_ADDR, the MPI hostfile, the
PodGroup label, the network subdomain) is derived from the new name, so they stay consistent. Objects
whose names do not derive from the TrainJob's (a Secret named without `{name}`) keep theirs.
"""

from __future__ import annotations

import json

from kpt_fn import resource as res

TRAINJOB_NAMES = "trainJob"
CONTENT_HASH = "contentHash"
HASH_LENGTH = 8


def content_hash(objects: list) -> str:
    """A short hash of the rendered objects (key order and YAML layout do not matter)."""
    import hashlib  # only in this mode: importing it costs ~3 ms of every start-up

    text = json.dumps(objects, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:HASH_LENGTH]


def renamed(trainjob: dict, digest: str) -> dict:
    """The TrainJob as it is rendered in this mode."""
    md = dict(res.metadata(trainjob))
    md["name"] = f"{md.get('name') or ''}-{digest}"
    return {**trainjob, "metadata": md}


_HEX = frozenset("0123456789abcdef")


def hashed_parts(trainjob: str, name: str):
    """(hash, rest) when `name` is `<trainjob>-<hash><rest>` (the hash: HASH_LENGTH lower-case hex
    digits; the rest empty or starting with "-"), else None."""
    if not name.startswith(trainjob + "-"):
        return None
    start = len(trainjob) + 1
    digest, rest = name[start:start + HASH_LENGTH], name[start + HASH_LENGTH:]
    if len(digest) != HASH_LENGTH or not _HEX.issuperset(digest) or not (rest == "" or rest[0] == "-"):
        return None
    return digest, rest


def earlier_run(trainjob: str, name: str, earlier: str) -> bool:
    """`earlier` is the same object of TrainJob `trainjob`, rendered in contentHash mode from an earlier
    version: both names are `<trainjob>-<hash><rest>` with the same rest and another hash. The function's
    own earlier output of that name is then replaced in place (kpt keeps the file), not left stale."""
    new, old = hashed_parts(trainjob, name), hashed_parts(trainjob, earlier)
    return new is not None and old is not None and new[1] == old[1] and new[0] != old[0]
