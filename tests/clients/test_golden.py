"""One golden file for every client, canaries for the client behaviour the design relies on,
and the YAML property test (docs/yaml.md).

Every client test compares its normalised output with kpt's `-o unwrap` of the same session
(`demo_objects`); this file pins that to fixtures/golden/demo.yaml. When the engine changes on
purpose, regenerate with `UPDATE_GOLDEN=1 pytest tests/clients/test_golden.py` and review the diff.
"""

from __future__ import annotations

import sys

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from support import argocd_cmp
from clients import kit
from kpt_fn import yamlio


@pytest.mark.clients
def test_golden_demo(demo_objects):
    kit.assert_demo_objects(demo_objects)
    kit.golden_check("demo.yaml", demo_objects)


# --- canaries: if one fails after a client upgrade, update docs/clients.md and the README -------------


@pytest.mark.clients
def test_canary_kubectl_kustomize_skips_exec_functions(kubectl, fn, tmp_path):
    env = kit.client_env(tmp_path)
    app = kit.make_app(tmp_path, "app", "transformers", function={"exec": fn})
    r = kit.run([kubectl, "kustomize", "--enable-alpha-plugins", app], env=env).ok()
    assert [o for o in kit.load_stream(r.stdout) if o["kind"] == "JobSet"] == []
    r = kit.run([kubectl, "kustomize", "--enable-alpha-plugins", "--enable-exec", app], env=env).failed()
    assert "unknown flag: --enable-exec" in r.stderr


@pytest.mark.clients
def test_canary_kustomize_454_needs_enable_exec(kustomize454, fn, tmp_path):
    app = kit.generator_app(tmp_path, "app", function={"exec": fn})
    r = kit.run([kustomize454, "build", "--enable-alpha-plugins", app], env=kit.client_env(tmp_path)).ok()
    assert [o for o in kit.load_stream(r.stdout) if o["kind"] == "JobSet"] == []


@pytest.mark.clients
def test_canary_kpt_passes_error_results_at_exit_0(kpt, tmp_path):
    script = tmp_path / "error-result-fn"
    script.write_text(
        f"#!{sys.executable}\n"
        "import sys, yaml\n"
        "rl = yaml.safe_load(sys.stdin)\n"
        "rl['results'] = [{'message': 'an error result', 'severity': 'error'}]\n"
        "yaml.safe_dump(rl, sys.stdout)\n"
    )
    script.chmod(0o755)
    pkg = kit.copy_tree(kit.CLIENT_FIXTURES / "nons", tmp_path / "pkg")
    r = kit.run([kpt, "fn", "eval", pkg, "--exec", script], cwd=tmp_path, env=kit.client_env(tmp_path)).ok()
    assert "[PASS]" in r.stderr and "[error]: an error result" in r.stderr


@pytest.mark.clients
def test_canary_name_prefix_renames_runtimes_before_a_transformer(kubectl, fn, tmp_path):
    # kustomize's namePrefix also renames the ClusterTrainingRuntime but not spec.runtimeRef.name
    # (it does not know that reference); the function finds the runtime by the previous names
    # kustomize records on it (kpt_fn.kustomize_names, docs/kustomize.md).
    env = kit.client_env(tmp_path, KUSTOMIZE_PLUGIN_HOME=kit.PLUGIN_HOME, EXPAND_TRAINJOBS=fn)
    app = kit.make_app(tmp_path, "app", "transformers", extra={"namePrefix": "p-"})
    r = kit.run([kubectl, "kustomize", "--enable-alpha-plugins", app], env=env).ok()
    kit.assert_demo_objects(kit.normalize(r.stdout), prefix="p-")


@pytest.mark.clients
def test_canary_kustomize_outputs_trainjobs_not_marked_local_config(kubectl, fn, tmp_path):
    # Why the README asks for `config.kubernetes.io/local-config: "true"` on TrainJobs and runtimes:
    # kustomize drops only marked objects, so unmarked ones would be applied next to their JobSets.
    # The legacy plugin's stderr is seen only when it fails, so there the function fails the build on
    # them unless `output: all` says they are meant for the cluster (tests/behaviour/test_newcomer_messages.py).
    env = kit.client_env(tmp_path, KUSTOMIZE_PLUGIN_HOME=kit.PLUGIN_HOME, EXPAND_TRAINJOBS=fn)
    for name, spec in (("app", None), ("kept", {**kit._spec(), "output": "all"})):
        app = kit.make_app(tmp_path, name, "transformers", spec=spec)
        for f in ("trainjobs.yaml", "runtimes.yaml"):
            docs = yamlio.load_all((app / f).read_text())
            for d in docs:
                d["metadata"].pop("annotations")
            (app / f).write_text(yamlio.dump_all(docs))
    failed = kit.run([kubectl, "kustomize", "--enable-alpha-plugins", tmp_path / "app"], env=env)
    assert failed.rc != 0 and "is not marked config.kubernetes.io/local-config" in failed.stderr
    r = kit.run([kubectl, "kustomize", "--enable-alpha-plugins", tmp_path / "kept"], env=env).ok()
    kinds = sorted(o["kind"] for o in kit.load_stream(r.stdout))
    assert kinds == ["ClusterTrainingRuntime", "ConfigMap", "JobSet", "JobSet", "TrainJob", "TrainJob"]


# --- YAML: every tricky string survives a dump under every reader ------------------------------------

TRICKY_SCALARS = [
    "on", "off", "On", "OFF", "yes", "no", "Yes", "NO", "y", "n", "Y", "N", "true", "false", "True", "FALSE",
    "null", "Null", "~", "", " ", "0755", "0o17", "0x1F", "1e3", "1E3", "-1e-3", "1.5", ".5", "+.inf", "-.inf",
    ".nan", ".NaN", "1_000", "0_E0", "1_0.5", "0x_1F", "1:20", "8080:80", "190:20:30", "2024-01-01", "2024-01-01T10:00:00Z", "=", "<<",
    "- x", "? x", "a: b", "#x", "x #y", "@x", "`x", "!x", "&x", "*x", "%x", "|", ">", "'", '"', "{}", "[]",
    "multi\n\nline\n", "no final break\nline", "trailing space \n", " leading", "tab\there", "é ✓", "\\",
]

_numberish = st.from_regex(r"[-+]?[0-9_.eEoxXa-fA-F:]{1,8}", fullmatch=True)
_wordish = st.sampled_from(TRICKY_SCALARS)
_text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")) | st.sampled_from("\n\t "), max_size=20)


def _assert_round_trip(value: str) -> None:
    text = yamlio.dump({"k": value})
    for name, doc in (
        ("yaml-1.2", yamlio.load(text)),
        ("SafeLoader", yaml.safe_load(text)),
        ("argo-1.1", argocd_cmp.argo_load(text)),
    ):
        assert doc == {"k": value} and type(doc["k"]) is str, f"{value!r} dumped as {text!r} reads as {doc!r} under {name}"


@pytest.mark.parametrize("value", TRICKY_SCALARS)
def test_tricky_scalars_survive_every_reader(value):
    _assert_round_trip(value)


@settings(max_examples=300, deadline=None)
@given(st.one_of(_numberish, _wordish, _text))
def test_strings_survive_every_reader(value):
    _assert_round_trip(value)


def test_demo_configmap_survives_every_reader():
    (cm,) = yamlio.load_all((kit.DEMO / "settings.yaml").read_text())
    assert cm["data"] == kit.TRICKY
    kit.assert_tricky_strings(yamlio.dump(cm), "yamlio.dump of the demo ConfigMap")
