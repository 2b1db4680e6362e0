"""The generated JSON Schemas in the repository's schemas/ (the default release at its top, every release
under schemas/<release>/): in kubeconform's layout, strict, exactly the generator's files
(tests/behaviour/test_generated_artifacts_current.py keeps them current)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import jsonschema_rs
import pytest

REPO = Path(__file__).resolve().parents[2]
# The default release's files where kubeconform users point -schema-location (docs/schemas.md).
SCHEMAS = REPO / "schemas"
INDEX = json.loads((REPO / "kpt_fn" / "upstream" / "v2_3_0" / "schemas.json").read_text())["index"]


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
    """kubeconform's schemaPath() (v0.7.0 pkg/registry/registry.go lines 22-68): Group is the apiVersion
    before '/', so `v1` for the core group; ResourceKind the lower-cased kind; ResourceAPIVersion the
    part after the last '/'."""
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


def _bundle_index(release: str) -> list:
    directory = release.replace(".", "_")
    return json.loads((REPO / "kpt_fn" / "upstream" / directory / "schemas.json").read_text())["index"]


def test_schemas_dir_holds_exactly_the_generated_files():
    """The default release at schemas/, every release under schemas/<release>/, nothing else (a file
    the generator no longer writes would otherwise stay behind, and kubeconform would still read it)."""
    from kpt_fn import upstream

    expected = {e["file"] for e in _bundle_index(upstream.DEFAULT_RELEASE)}
    for release in upstream.RELEASES:
        expected |= {f"{release}/{e['file']}" for e in _bundle_index(release)}
    found = {p.relative_to(SCHEMAS).as_posix() for p in SCHEMAS.rglob("*") if p.is_file()}
    assert found == expected
    for release in upstream.RELEASES:
        for e in _bundle_index(release):
            assert json.loads((SCHEMAS / release / e["file"]).read_text())["$comment"].startswith(
                "generated by scripts/generate.py schemas"), (release, e["file"])


def test_the_default_release_at_the_top_is_its_release_directory():
    from kpt_fn import upstream

    for e in _bundle_index(upstream.DEFAULT_RELEASE):
        assert (SCHEMAS / e["file"]).read_bytes() == (SCHEMAS / upstream.DEFAULT_RELEASE / e["file"]).read_bytes()


def _validate_as_kubeconform(template: str, docs: list) -> list:
    """What kubeconform does with a location template, with jsonschema-rs as the draft-4 validator:
    each object's file by schemaPath, its errors."""
    errors = []
    for doc in docs:
        path = Path(kubeconform_location(template, doc["apiVersion"], doc["kind"]))
        validator = jsonschema_rs.Draft4Validator(json.loads(path.read_text()))
        errors += [f"{doc['kind']} {doc['metadata'].get('name')}: {e.message}" for e in validator.iter_errors(doc)]
    return errors


def test_the_documented_template_validates_fixtures_and_rejects_unknown_fields():
    """The check the kubeconform test below makes, without the binary (not installed here)."""
    import yaml

    template = str(SCHEMAS) + "/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json"
    docs = [d for p in sorted((REPO / "fixtures" / "validation").glob("*.yaml"))
            for d in yaml.safe_load_all(p.read_text()) if d]
    assert docs and _validate_as_kubeconform(template, docs) == []
    bad = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": {"a": "b"}, "bogus": 1}
    assert any("bogus" in e for e in _validate_as_kubeconform(template, [bad]))


def test_docs_give_the_raw_url_template_of_this_release():
    import kpt_fn

    owner_repo = kpt_fn.REPOSITORY.removeprefix("https://github.com/")
    raw = (f"https://raw.githubusercontent.com/{owner_repo}/v{kpt_fn.__version__}/schemas/"
           "{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json")
    assert raw in (REPO / "docs" / "schemas.md").read_text()
