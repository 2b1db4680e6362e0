#!/usr/bin/env python3
"""Build kpt_fn/engine/crd_defaults.json: the `default:` values of the TrainJob and TrainingRuntime
specs, read from the generated schemas (schemas/) by kpt_fn.engine.defaults.defaults_tree.

The engine defaults every TrainJob and runtime it renders; parsing both schemas for that would cost a
one-TrainJob run a few milliseconds, the digest a fraction of one. Format (kpt_fn.engine.defaults):

    {"<kind>": {"<property>": {...}, "<list>": {"[]": {...}}, "<defaulted>": {"=": VALUE, ...}}}

    python scripts/gen_crd_defaults.py [OUTPUT_JSON]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from kpt_fn.engine import defaults  # noqa: E402
from kpt_fn.validation import schemas  # noqa: E402


def build() -> dict:
    out = {}
    for kind in defaults.CRD_DEFAULTS_KINDS:
        schema = schemas.load(schemas.entries()[("trainer.kubeflow.org/v1alpha1", kind)])
        out[kind] = defaults.tree_to_json(defaults.defaults_tree(schema["properties"]["spec"]))
    return out


def main(argv: list[str]) -> None:
    output = Path(argv[1]) if len(argv) > 1 else Path(defaults.CRD_DEFAULTS_FILE)
    kinds = [f"{json.dumps(kind)}: {json.dumps(tree, separators=(',', ':'), ensure_ascii=False)}"
             for kind, tree in build().items()]
    output.write_text("{\n" + ",\n".join(kinds) + "\n}\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv)
