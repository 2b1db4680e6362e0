"""Finding and loading the generated JSON Schemas (schemas/ at the repository root).

Installed as a wheel, the directory is the package `kpt_fn.schemas` (pyproject maps it there); in a
source checkout or an editable install without that mapping it is `../../schemas` from this file.
Everything is loaded on first use and kept: the files are immutable data.
"""

from __future__ import annotations

import functools
import json
import os
from collections import namedtuple

_INDEX = "index.json"


class SchemaEntry(namedtuple("SchemaEntry", "api_version kind file namespaced")):
    """One generated schema: immutable and equal by value (a cache key). A namedtuple (collections is
    imported anyway); a dataclass would cost ~10 ms of every start-up (dataclasses imports inspect)."""

    __slots__ = ()

    @property
    def group(self) -> str:
        return self.api_version.rpartition("/")[0]


def schema_dir():
    """The directory holding index.json: a path (str), or a Traversable for an importer without files."""
    # Plain paths first (os.path, not pathlib: pathlib and what it imports cost ~3 ms of every start-up;
    # importlib.resources more).
    here = os.path.dirname(os.path.realpath(__file__))
    for candidate in (os.path.join(os.path.dirname(here), "schemas"), os.path.join(os.path.dirname(os.path.dirname(here)), "schemas")):
        if os.path.isfile(os.path.join(candidate, _INDEX)):
            return candidate
    from importlib import resources  # an importer without files (a zip, say)

    try:
        packaged = resources.files("kpt_fn.schemas")
        if packaged.joinpath(_INDEX).is_file():
            return packaged
    except (ModuleNotFoundError, TypeError):
        pass
    return os.path.join(os.path.dirname(os.path.dirname(here)), "schemas")


def _read_text(relative: str) -> str:
    """A file below schema_dir(), by its /-separated relative path."""
    base = schema_dir()
    if isinstance(base, str):
        with open(os.path.join(base, *relative.split("/")), encoding="utf-8") as f:
            return f.read()
    for part in relative.split("/"):
        base = base.joinpath(part)
    return base.read_text(encoding="utf-8")


@functools.cache
def entries() -> dict[tuple[str, str], SchemaEntry]:
    doc = json.loads(_read_text(_INDEX))
    out = {}
    for e in doc["schemas"]:
        entry = SchemaEntry(e["apiVersion"], e["kind"], e["file"], e["scope"] == "Namespaced")
        out[(entry.api_version, entry.kind)] = entry
    return out


def entry_for(obj: dict) -> SchemaEntry | None:
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return None
    return entries().get((api_version, kind))


@functools.cache
def load(entry: SchemaEntry) -> dict:
    return json.loads(_read_text(entry.file))


@functools.cache
def validator(entry: SchemaEntry):
    import jsonschema_rs  # only runs that validate pay for it

    return jsonschema_rs.Draft4Validator(load(entry), validate_formats=True)
