"""The memory budget (docs/yaml.md "Memory budget"): expand-trainjobs in KRM mode stays within
BASE + FACTOR x the size of its input, held here as an address-space limit (RLIMIT_AS) on the console
script in a subprocess: inputs that used to take gigabytes must now finish (or fail cleanly) inside it.
No timings are asserted. FUZZ_EXAMPLES (any value) runs the inputs at the sizes tests/behaviour/test_random_input.py
uses for its size-amplifying inputs as well."""

from __future__ import annotations

import os
import resource
import subprocess
import sys

import pytest

BASE = 128 << 20
FACTOR = 16
FULL = bool(os.environ.get("FUZZ_EXAMPLES"))
HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"


def budget(size: int) -> int:
    return BASE + FACTOR * size


def _zeros_json(n: int) -> bytes:
    return (
        '{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [{"apiVersion": "v1", '
        '"kind": "ConfigMap", "metadata": {"name": "zeros"}, "zeros": [' + ",".join(["0"] * n) + "]}]}"
    ).encode()


def _long_list_yaml(n: int) -> bytes:
    return (HEAD + "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: list}\n  list:\n" + "  - 0\n" * n).encode()


def _many_items(n: int) -> bytes:
    item = '- {apiVersion: v1, kind: ConfigMap, metadata: {name: c%d, namespace: team-a}, data: {a: "1", b: "true"}}\n'
    return (HEAD + "".join(item % i for i in range(n))).encode()


def _alias_bytes(n: int) -> bytes:
    return (HEAD + "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: big}\n  data:\n    big: &big " + "x" * n
            + "\n    copies: [" + ", ".join(["*big"] * 1000) + "]\n").encode()


def _late_error(n: int) -> bytes:
    # Plain data up to a foreign tag at the very end: the careful path decides the error.
    return _long_list_yaml(n) + b"  - !!binary aGk=\n"


CASES = {
    "json-list-of-zeros": (_zeros_json, 500_000, 8_000_000, 0),
    "yaml-long-list": (_long_list_yaml, 150_000, 1_800_000, 0),
    "many-items": (_many_items, 10_000, 200_000, 0),
    "alias-bytes": (_alias_bytes, 1_000_000, 1_000_000, 1),
    "late-error": (_late_error, 150_000, 1_800_000, 1),
}


def _limit(nbytes: int):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (nbytes, nbytes))

    return apply


@pytest.mark.parametrize("name", sorted(CASES))
def test_within_the_memory_budget(name, tmp_path):
    make, small, full, code = CASES[name]
    for n in (small, full) if FULL else (small,):
        data = make(n)
        path = tmp_path / "input"
        path.write_bytes(data)
        script = os.path.join(os.path.dirname(sys.executable), "expand-trainjobs")
        with open(path, "rb") as stdin:
            p = subprocess.run(
                [script], stdin=stdin, capture_output=True, preexec_fn=_limit(budget(len(data))), timeout=600
            )
        assert p.returncode == code, (n, p.returncode, p.stderr[-2000:])
        assert p.stdout.startswith(b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"), p.stdout[:200]
        assert b"MemoryError" not in p.stderr and b"Traceback" not in p.stderr
