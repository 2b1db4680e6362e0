"""Finding and loading the generated JSON Schemas (schemas/ at the repository root).

Installed as a wheel, the directory is the package `kpt_fn.schemas` (pyproject maps it there); in a
source checkout or an editable install without that mapping it is `../../schemas` from this file.
Everything is loaded on first use and kept: the files are immutable data.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

_INDEX = "index.json"


class SchemaEntry:
    """One generated schema. Immutable and equal by value (a cache key); a plain class because a
    dataclass costs more start-up than this whole module."""

    __slots__ = ("api_version", "kind", "file", "namespaced")

    def __init__(self, api_version: str, kind: str, file: str, namespaced: bool):
        object.__setattr__(self, "api_version", api_version)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "file", file)
        object.__setattr__(self, "namespaced", namespaced)

    def __setattr__(self, name, value):
        raise AttributeError(f"SchemaEntry is immutable: cannot set {name}")

    def _key(self) -> tuple:
        return (self.api_version, self.kind, self.file, self.namespaced)

    def __eq__(self, other):
        return self._key() == other._key() if type(other) is SchemaEntry else NotImplemented

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return (f"SchemaEntry(api_version={self.api_version!r}, kind={self.kind!r}, file={self.file!r}, "
                f"namespaced={self.namespaced!r})")

    @property
    def group(self) -> str:
        return self.api_version.rpartition("/")[0]


@functools.cache
def schema_dir():
    """A Path (or Traversable) for the directory holding index.json."""
    # Plain paths first: importlib.resources costs more start-up than loading a schema.
    here = Path(__file__).resolve().parent
    for candidate in (here.parent / "schemas", here.parent.parent / "schemas"):
        if (candidate / _INDEX).is_file():
            return candidate
    from importlib import resources  # an importer without files (a zip, say)

    try:
        packaged = resources.files("kpt_fn.schemas")
        if packaged.joinpath(_INDEX).is_file():
            return packaged
    except (ModuleNotFoundError, TypeError):
        pass
    return here.parent.parent / "schemas"


@functools.cache
def entries() -> dict[tuple[str, str], SchemaEntry]:
    doc = json.loads(schema_dir().joinpath(_INDEX).read_text(encoding="utf-8"))
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
    node = schema_dir()
    for part in entry.file.split("/"):
        node = node.joinpath(part)
    return json.loads(node.read_text(encoding="utf-8"))


@functools.cache
def validator(entry: SchemaEntry):
    import jsonschema_rs  # only runs that validate pay for it

    return jsonschema_rs.Draft4Validator(load(entry), validate_formats=True)
