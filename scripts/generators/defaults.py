"""`scripts/generate.py defaults`: crd_defaults.json of a release bundle, the `default:` values of the
TrainJob, TrainingRuntime and JobSet specs read from the bundle's generated schemas (run `schemas` first).

The engine defaults every TrainJob and runtime it renders, and kpt_fn.lifecycle every JobSet; walking
the schemas for that would cost a one-TrainJob run a few milliseconds, the digest a fraction of one. Format (kpt_fn.upstream.defaults):

    {"generated": MARKER, "kinds": {"<kind>": {"<property>": {...}, "<list>": {"[]": {...}},
                                                "<defaulted>": {"=": VALUE, ...}}}}
"""

from __future__ import annotations

import json

from kpt_fn import upstream
from kpt_fn.upstream import defaults

PER_RELEASE = True


def build(ctx) -> dict[str, str]:
    bundle = upstream.Bundle(ctx.release.name, str(ctx.bundle_dir), None, {})  # fresh: not a cached, older copy; data only
    kinds = []
    for kind, api_version in defaults.CRD_DEFAULTS_KINDS.items():
        schema = bundle.schema(bundle.schema_entries()[(api_version, kind)])
        tree = defaults.defaults_tree(schema["properties"]["spec"])
        kinds.append(f"{json.dumps(kind)}: {json.dumps(tree, separators=(',', ':'), ensure_ascii=False)}")
    text = "{" + f'"generated": {json.dumps(ctx.marker)},\n"kinds": {{\n' + ",\n".join(kinds) + "\n}}\n"
    return {ctx.output("crd_defaults.json"): text}
