"""The generated JSON Schemas of the default release bundle: in kubeconform's layout, strict (tests/behaviour/test_generated_artifacts_current.py
keeps them current)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import jsonschema_rs
import pytest

REPO = Path(__file__).resolve().parents[2]
SCHEMAS = REPO / "kpt_fn" / "upstream" / "v2_3_0" / "schemas"
INDEX = json.loads((SCHEMAS.parent / "schemas.json").read_text())["index"]


def _load(entry) -> dict:
    return json.loads((SCHEMAS / entry["file"]).read_text())


def _nodes(schema, path="$"):
    """Every schema node with its JSON path."""
    yield path, schema
    for name, sub in (schema.get("properties") or {}).items():
        yield from _nodes(sub, f"{path}.{name}")
    if isinstance(schema.get("additionalProperties"), dict):
        yield from _nodes(schema["additionalProperties"], f"{path}.*")
    if isinstance(schema.get("items"), dict):
        yield from _nodes(schema["items"], f"{path}[]")


def test_index_covers_every_kind_the_function_handles():
    kinds = {(e["apiVersion"], e["kind"]) for e in INDEX}
    assert kinds == {
        ("trainer.kubeflow.org/v1alpha1", "TrainJob"),
        ("trainer.kubeflow.org/v1alpha1", "TrainingRuntime"),
        ("trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime"),
        ("jobset.x-k8s.io/v1alpha2", "JobSet"),
        ("scheduling.x-k8s.io/v1alpha1", "PodGroup"),
        ("scheduling.volcano.sh/v1beta1", "PodGroup"),
        ("v1", "ConfigMap"),
        ("v1", "Secret"),
    }


def kubeconform_location(template: str, api_version: str, kind: str) -> str:
    """kubeconform's schemaPath(): Group is the apiVersion before '/', so `v1` for the core group."""
    parts = api_version.split("/")
    return (template.replace("{{.Group}}", parts[0])
            .replace("{{.ResourceKind}}", kind.lower())
            .replace("{{.ResourceAPIVersion}}", parts[-1]))


@pytest.mark.parametrize("entry", INDEX, ids=lambda e: f"{e['apiVersion']}/{e['kind']}")
def test_kubeconform_template_finds_each_schema(entry):
    template = str(SCHEMAS) + "/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json"
    assert Path(kubeconform_location(template, entry["apiVersion"], entry["kind"])) == SCHEMAS / entry["file"]


def test_core_kinds_resolve_under_v1():
    assert kubeconform_location("schemas/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json",
                                "v1", "ConfigMap") == "schemas/v1/configmap_v1.json"


@pytest.mark.parametrize("entry", INDEX, ids=lambda e: f"{e['apiVersion']}/{e['kind']}")
def test_schema_is_strict_and_standalone(entry):
    schema = _load(entry)
    assert schema["$schema"] == "http://json-schema.org/draft-04/schema#"
    assert jsonschema_rs.meta.is_valid(schema)
    assert schema["additionalProperties"] is False
    assert schema["required"][:2] == ["apiVersion", "kind"]
    assert schema["properties"]["apiVersion"]["enum"] == [entry["apiVersion"]]
    assert schema["properties"]["kind"]["enum"] == [entry["kind"]]
    meta = schema["properties"]["metadata"]
    assert meta["additionalProperties"] is False
    assert meta["properties"]["labels"]["additionalProperties"]["type"] == "string"
    assert meta["properties"]["annotations"]["additionalProperties"]["type"] == "string"
    text = json.dumps(schema)
    assert '"description"' not in text and "$ref" not in text
    for path, node in _nodes(schema):
        if "properties" in node and not node.get("x-kubernetes-preserve-unknown-fields"):
            assert node.get("additionalProperties") is False, path
        if node.get("x-kubernetes-int-or-string"):
            assert node["type"] == ["integer", "string"] and "anyOf" not in node, path
        for name in node.get("required") or ():
            assert "default" not in node["properties"].get(name, {}), (path, name)


def test_trainjob_cel_rules_and_list_markers_are_kept():
    schema = _load(next(e for e in INDEX if e["kind"] == "TrainJob"))
    rules = [r["rule"] for r in schema["x-kubernetes-validations"]]
    assert "size(self.metadata.name) <= 63" in rules
    runtime_patches = schema["properties"]["spec"]["properties"]["runtimePatches"]
    assert runtime_patches["x-kubernetes-list-type"] == "map"
    assert runtime_patches["x-kubernetes-list-map-keys"] == ["manager"]


def test_typed_core_fields_accept_null_and_free_form_fields_stay_open():
    schema = _load(next(e for e in INDEX if e["kind"] == "ConfigMap"))
    assert schema["properties"]["data"]["type"] == ["object", "null"]
    fields_v1 = schema["properties"]["metadata"]["properties"]["managedFields"]["items"]["properties"]["fieldsV1"]
    assert "additionalProperties" not in fields_v1


KUBECONFORM = shutil.which("kubeconform")


@pytest.mark.skipif(KUBECONFORM is None, reason="kubeconform is not installed")
def test_kubeconform_uses_the_schemas(tmp_path):
    """With the documented template kubeconform validates our fixtures and rejects unknown fields."""
    template = "schemas/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json"
    fixtures = sorted(str(p) for p in (REPO / "fixtures" / "validation").glob("*.yaml"))
    ok = subprocess.run([KUBECONFORM, "-summary", "-schema-location", template, *fixtures],
                        cwd=REPO, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: b}\nbogus: 1\n")
    rejected = subprocess.run([KUBECONFORM, "-schema-location", template, str(bad)],
                              cwd=REPO, capture_output=True, text=True)
    assert rejected.returncode == 1 and "bogus" in rejected.stdout
