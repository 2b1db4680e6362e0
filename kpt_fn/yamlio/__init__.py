"""YAML that means the same thing to every reader in the pipeline, read with limits on hostile input and
written back byte for byte where the function leaves an item alone.

One module per job, dependencies running one way (errors under all of them):

    schema       YAML 1.2 / go-yaml scalar resolution: Loader, PyLoader, Dumper
    limits       Limits and the checks that stop hostile input (schema)
    read         load_all, load, load_json: the only entry for reading (schema, limits)
    write        block YAML written directly, PyYAML's Dumper as each scalar's oracle (schema)
    stream       dump, dump_pieces, freeze, Frozen, ListWriter: the output in pieces (write, read)
    printable    PyYAML's pattern of non-printable characters, seeded before PyYAML is imported
    passthrough  ItemMarks, item_source, ItemSource, Verbatim, PassThrough: untouched items as their
                 own text (stream, limits)

`from kpt_fn.yamlio import ...` is how the rest of the package reads and writes YAML; the names below
are that interface.
"""

# First, before anything imports PyYAML: its pattern of non-printable characters, compiled cheaply
# (kpt_fn.yamlio.printable; about 5 ms of every start-up).
import re as _re

from kpt_fn.yamlio import printable as _printable

_printable.seed(getattr(_re, "_cache", None))

from kpt_fn.yamlio.errors import YAMLInputError
from kpt_fn.yamlio.limits import DEFAULT_LIMITS, Limits, check_limits
from kpt_fn.yamlio.read import load, load_all, load_json
from kpt_fn.yamlio.schema import MAX_INT_DIGITS, Dumper
from kpt_fn.yamlio.write import dump_all

# The output in pieces and the pass-through serve the KRM function (kpt_fn.cli.krm) and the modes
# that print one document; `render`, `validate` and the kustomize plugin never touch them, so they
# are imported when one of their names is first asked for (PEP 562), not on every start-up.
_LATER = {
    "Frozen": "stream", "ListWriter": "stream", "dump": "stream", "dump_pieces": "stream", "freeze": "stream",
    "ItemMarks": "passthrough", "ItemSource": "passthrough", "PassThrough": "passthrough",
    "Verbatim": "passthrough", "item_source": "passthrough",
}


def __getattr__(name: str):
    module = _LATER.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if module == "stream":
        from kpt_fn.yamlio import stream as found
    else:
        from kpt_fn.yamlio import passthrough as found
    value = getattr(found, name)
    globals()[name] = value  # asked once
    return value

__all__ = [
    "DEFAULT_LIMITS",
    "MAX_INT_DIGITS",
    "Dumper",
    "Frozen",
    "ItemMarks",
    "ItemSource",
    "Limits",
    "ListWriter",
    "PassThrough",
    "Verbatim",
    "YAMLInputError",
    "check_limits",
    "dump",
    "dump_all",
    "dump_pieces",
    "freeze",
    "item_source",
    "load",
    "load_all",
    "load_json",
]
