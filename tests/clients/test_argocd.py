"""Argo CD's config-management-plugin contract, emulated (tests/support/argocd_cmp.py), with the shipped
argocd/plugin.yaml and `expand-trainjobs render` running as the sidecar's uid 999 when we are root."""

from __future__ import annotations

import json
import os
import shutil
import tempfile

import pytest

from support import argocd_cmp as cmp
from clients import kit
from kpt_fn import yamlio

pytestmark = pytest.mark.clients

TRAINJOB = {
    "apiVersion": "trainer.kubeflow.org/v1alpha1",
    "kind": "TrainJob",
    "metadata": {"name": "params"},  # no namespace, no local-config: parameters decide
    "spec": {"runtimeRef": {"name": "torch-distributed"}},
}

SCRIPT = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "script"}, "data": {"run.sh": "set -e\necho hi\n"}}


@pytest.fixture(scope="module")
def sidecar(request, fn):
    """(function to put in place of /opt/fn/bin/expand-trainjobs, uid to run it as)."""
    if not kit_is_root():
        return fn, None
    try:
        return request.getfixturevalue("readable_fn"), cmp.SIDECAR_UID
    except pytest.skip.Exception:
        return fn, None


def kit_is_root() -> bool:
    return os.geteuid() == 0 and shutil.which("setpriv") is not None


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """A git checkout with several Argo CD apps (the marker file opts an app in)."""
    root = tmp_path_factory.mktemp("repo")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    kit.copy_tree(kit.DEMO, root / "apps" / "train")
    params = root / "apps" / "params"
    params.mkdir(parents=True)
    (params / "expand-trainjobs.yaml").write_text("")  # opt-in marker only: parameters configure
    (params / "trainjob.yaml").write_text(yamlio.dump(TRAINJOB))
    bad = kit.copy_tree(kit.CLIENT_FIXTURES / "bad", root / "apps" / "bad")
    (bad / "expand-trainjobs.yaml").write_text("")
    (root / "apps" / "empty").mkdir()
    (root / "apps" / "empty" / "expand-trainjobs.yaml").write_text("")
    script = root / "apps" / "script"
    script.mkdir(parents=True)
    (script / "expand-trainjobs.yaml").write_text("")
    (script / "script.yaml").write_text(yamlio.dump(SCRIPT))
    unmarked = kit.copy_tree(kit.DEMO, root / "apps" / "unmarked")
    (unmarked / "expand-trainjobs.yaml").unlink()
    return root


@pytest.fixture(scope="module")
def work_root():
    """ARGOCD_CMP_WORKDIR: outside pytest's 0700 temp tree so that uid 999 can reach it."""
    d = tempfile.mkdtemp(prefix="argocd-cmp-")
    os.chmod(d, 0o711)
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def generate(sidecar, repo, work_root):
    function, uid = sidecar

    def _generate(app_path, plugin=kit.PLUGIN_YAML, **kw):
        kw.setdefault("build_env", cmp.build_env_for_app(namespace="apps-ns"))
        return cmp.generate(
            plugin, repo, app_path, work_root=work_root, command_map={kit.IMAGE_PATH_IN_PLUGIN_YAML: function}, run_as=uid, **kw
        )

    return _generate


# --- plugin.yaml ------------------------------------------------------------------------------------


def test_plugin_yaml():
    cfg = cmp.load_plugin(kit.PLUGIN_YAML)
    assert cmp.plugin_name(cfg) == "expand-trainjobs-v1"
    assert cfg["spec"]["generate"]["command"] == [kit.IMAGE_PATH_IN_PLUGIN_YAML, "render"]
    assert cfg["spec"]["discover"] == {"fileName": "./expand-trainjobs.yaml"}
    assert not cfg["spec"].get("preserveFileMode")
    # Every announced parameter is an option of the function (the function applies the defaults).
    from kpt_fn.config import OPTIONS

    names = {o.name for o in OPTIONS}
    for p in cfg["spec"]["parameters"]["static"]:
        assert p["name"] in names, p


# --- the emulation itself ---------------------------------------------------------------------------


def test_emulated_sidecar_runs_as_999_in_a_0644_copy(generate, sidecar, tmp_path):
    if sidecar[1] is None:
        pytest.skip("not root: generate runs as the current user")
    probe = tmp_path / "probe.yaml"
    script = (
        'printf "apiVersion: v1\\nkind: ConfigMap\\nmetadata: {name: probe}\\ndata: '
        '{uid: \\"%s\\", mode: \\"%s\\", dir: \\"%s\\", git: \\"%s\\"}\\n" '
        '"$(id -u)" "$(stat -c %a expand-trainjobs.yaml)" "$(basename "$PWD")" "$(ls -a ../.. | grep -c .git)"'
    )
    probe.write_text(yamlio.dump({
        "apiVersion": "argoproj.io/v1alpha1", "kind": "ConfigManagementPlugin", "metadata": {"name": "probe"},
        "spec": {"generate": {"command": ["/bin/sh", "-c"], "args": [script]}, "discover": {"fileName": "./expand-trainjobs.yaml"}},
    }))
    (m,) = generate("apps/train", plugin=probe).manifests
    assert m["data"] == {"uid": "999", "mode": "644", "dir": "train", "git": "0"}


def test_environment_and_parameters():
    build = cmp.build_env_for_app(app_name="train")
    params = [
        {"name": "node-selector", "map": {"gpu.type": "h100"}},
        {"name": "files", "array": ["a.yaml"]},
        {"name": "namespace", "string": "ml"},
    ]
    entries = [("GREETING", "hi-$ARGOCD_APP_NAME"), ("EMPTY", ""), ("LITERAL", "$$HOME"), ("", "dropped")]
    env = cmp.plugin_env(build, entries, params)
    assert env["ARGOCD_ENV_GREETING"] == "hi-train"
    assert env["ARGOCD_ENV_EMPTY"] == ""
    assert env["ARGOCD_ENV_LITERAL"] == "$HOME"
    assert "ARGOCD_ENV_" not in env
    assert env["PARAM_NODE_SELECTOR_GPU_TYPE"] == "h100"
    assert env["PARAM_FILES_0"] == "a.yaml"
    assert env["PARAM_NAMESPACE"] == "ml"
    assert env["ARGOCD_APP_PARAMETERS"] == (
        '[{"name":"node-selector","map":{"gpu.type":"h100"}},{"name":"files","array":["a.yaml"]},{"name":"namespace","string":"ml"}]'
    )
    assert env["ARGOCD_APP_REVISION_SHORT"] == build["ARGOCD_APP_REVISION"][:7]
    assert "ARGOCD_ENV_EMPTY" not in cmp.plugin_env(build, entries, params, drop_empty=True)  # Argo CD <= 2.6
    assert cmp.plugin_env(build, [], [])["ARGOCD_APP_PARAMETERS"] == "null"


def test_copy_discovery_and_app_path(repo, tmp_path):
    copy = tmp_path / "copy"
    os.symlink("apps/train", repo / "link")
    try:
        cmp.copy_repo(repo, copy)
    finally:
        os.unlink(repo / "link")
    assert not (copy / ".git").exists()
    assert oct((copy / "apps" / "train" / "trainjobs.yaml").stat().st_mode & 0o777) == "0o644"
    assert oct((copy / "apps" / "train").stat().st_mode & 0o777) == "0o755"
    assert os.readlink(copy / "link") == "apps/train"
    cfg = cmp.load_plugin(kit.PLUGIN_YAML)
    assert cmp.discover(cfg, str(copy / "apps" / "train"), {}, None)
    assert not cmp.discover(cfg, str(copy / "apps" / "unmarked"), {}, None)
    with pytest.raises(cmp.CMPError, match="illegal appPath: out of workDir bound"):
        cmp.resolve_app_dir(str(copy), "../elsewhere")


def test_decoding_stdout():
    parse = cmp.parse_manifests
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}
    assert parse(json.dumps(cm) + "\n" + json.dumps({**cm, "metadata": {"name": "b"}})) == [cm, {**cm, "metadata": {"name": "b"}}]
    assert parse(yamlio.dump({"apiVersion": "v1", "kind": "List", "items": [cm]})) == [cm]
    assert parse("---\n\n---\nnull\n--- # comment\n" + yamlio.dump(cm) + "---\n") == [cm]
    with pytest.raises(cmp.CMPError, match="Object 'Kind' is missing"):
        parse("INFO: rendered 2 TrainJobs\n---\n" + yamlio.dump(cm))
    with pytest.raises(cmp.CMPError):
        parse("rendered 2 TrainJobs\n---\n" + yamlio.dump(cm))
    with pytest.raises(cmp.CMPError):
        parse(yamlio.dump(cm) + "--- foo\n" + yamlio.dump(cm))
    with pytest.raises(cmp.CMPError):
        parse(yamlio.dump([cm]))
    # Why the function's dumper quotes: Argo CD's YAML 1.1 reading of a plain PyYAML dump.
    import yaml

    assert parse(yaml.safe_dump({**cm, "data": {"d": "1e3", "j": "y"}}))[0]["data"] == {"d": 1000.0, "j": True}
    assert parse(yamlio.dump({**cm, "data": {"d": "1e3", "j": "y"}}))[0]["data"] == {"d": "1e3", "j": "y"}


# --- expand-trainjobs render under the emulated sidecar ---------------------------------------------


def test_generate_demo(generate, demo_objects):
    result = generate("apps/train", unshare_net=kit_is_root() and shutil.which("unshare") is not None)
    assert result.plugin_name == "expand-trainjobs-v1" and result.discovered
    kit.assert_local_config_dropped(result.stdout, "expand-trainjobs render")
    objs = kit.normalize(result.manifests)
    kit.assert_demo_objects(objs)
    kit.assert_same_objects(objs, demo_objects, "Argo CD CMP (emulated)")
    # Only manifests to apply: no ResourceList, no Trainer inputs, no client annotations, no logs.
    assert all(m["kind"] not in ("ResourceList", "TrainJob", "ClusterTrainingRuntime", "Kptfile") for m in result.manifests)
    for prefix in kit.CLIENT_PREFIXES:
        assert prefix not in result.stdout
    assert result.stdout.startswith(("apiVersion:", "---"))
    assert result.stderr.startswith("expand-trainjobs: ok:")
    (settings,) = [m for m in result.manifests if m["kind"] == "ConfigMap" and m["metadata"]["name"] == "settings"]
    assert settings["data"] == kit.TRICKY and all(type(v) is str for v in settings["data"].values())
    assert generate("apps/train").stdout == result.stdout


def _jobsets(result) -> list:
    return [(m["metadata"]["name"], m["metadata"].get("namespace", "")) for m in result.manifests if m["kind"] == "JobSet"]


def test_app_namespace_is_the_default_namespace_and_defaults_apply(generate):
    # No parameters sent (Argo CD never sends announced defaults): builtinRuntimes=true and
    # output=generated must hold, and ARGOCD_APP_NAMESPACE places what has no namespace.
    result = generate("apps/params")
    assert _jobsets(result) == [("params", "apps-ns")]
    assert [m for m in result.manifests if m["kind"] == "TrainJob"] == []


def test_parameters_reach_the_function(generate):
    result = generate("apps/params", parameters=[{"name": "namespace", "string": "ml"}, {"name": "output", "string": "all"}])
    assert _jobsets(result) == [("params", "ml")]
    assert [m["metadata"]["name"] for m in result.manifests if m["kind"] == "TrainJob"] == ["params"]
    with pytest.raises(cmp.CMPError, match='ClusterTrainingRuntime.trainer.kubeflow.org "torch-distributed" not found: specified clusterTrainingRuntime must be created before the TrainJob is created'):
        generate("apps/params", parameters=[{"name": "builtinRuntimes", "string": "false"}])


def test_error_result_fails_generation(generate):
    with pytest.raises(cmp.CMPError) as e:
        generate("apps/bad")
    message = str(e.value)
    assert "render` failed exit status 1: expand-trainjobs: FAILED: 1 error(s)" in message
    assert "no-such-runtime" in message


def test_an_app_without_trainjobs_renders_nothing(generate):
    # Its last run ended by a commit: an empty render, so that Argo CD can prune (a manual sync, or
    # automated with allowEmpty); stderr says why the output is empty.
    result = generate("apps/empty")
    assert (result.stdout, result.manifests) == ("", [])
    assert "nothing to apply: no TrainJob here" in result.stderr


def test_last_document_keeps_its_final_line_break(generate):
    # Argo CD trims one trailing newline from stdout; a literal block ending the stream must not
    # lose its own line break with it.
    (m,) = generate("apps/script").manifests
    assert m["data"] == SCRIPT["data"]
