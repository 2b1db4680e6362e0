"""What a platform team installs: deploy/argocd (the repo-server sidecar Component, the plugin
configuration, the JobSet health check, the example Application), built with kubectl kustomize
against a stand-in for Argo CD's install manifest, and the health check run by a real Lua 5.1
(lupa; Argo CD runs health checks in gopher-lua, a Lua 5.1)."""

from __future__ import annotations

import posixpath
from pathlib import Path

import lupa.lua51  # a test extra
import pytest

from support import argocd_cmp as cmp
from clients import kit
import kpt_fn
from kpt_fn import quantity, yamlio

DEPLOY = kit.ROOT / "deploy" / "argocd"
# Each health check: its directory in Argo CD's resource_customizations layout, and its argocd-cm key.
HEALTH_CHECKS = {
    "JobSet": (DEPLOY / "health" / "jobset.x-k8s.io" / "JobSet", "resource.customizations.health.jobset.x-k8s.io_JobSet"),
    "TrainJob": (DEPLOY / "health" / "trainer.kubeflow.org" / "TrainJob",
                 "resource.customizations.health.trainer.kubeflow.org_TrainJob"),
}

# The parts of Argo CD's install.yaml the Component touches, as upstream names them (written for
# this test, not copied): the repo-server with its init-copied var-files, plugins and tmp volumes.
STANDIN_INSTALL = [
    {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "argocd-repo-server", "labels": {"app.kubernetes.io/name": "argocd-repo-server"}},
        "spec": {
            "selector": {"matchLabels": {"app.kubernetes.io/name": "argocd-repo-server"}},
            "template": {
                "metadata": {"labels": {"app.kubernetes.io/name": "argocd-repo-server"}},
                "spec": {
                    "initContainers": [{
                        "name": "copyutil", "image": "quay.io/argoproj/argocd:v3.5.1",
                        "command": ["/bin/cp", "-n", "/usr/local/bin/argocd", "/var/run/argocd/argocd-cmp-server"],
                        "volumeMounts": [{"mountPath": "/var/run/argocd", "name": "var-files"}],
                    }],
                    "containers": [{
                        "name": "argocd-repo-server", "image": "quay.io/argoproj/argocd:v3.5.1",
                        "volumeMounts": [
                            {"mountPath": "/tmp", "name": "tmp"},
                            {"mountPath": "/home/argocd/cmp-server/plugins", "name": "plugins"},
                        ],
                    }],
                    "volumes": [
                        {"name": "tmp", "emptyDir": {}},
                        {"name": "var-files", "emptyDir": {}},
                        {"name": "plugins", "emptyDir": {}},
                    ],
                },
            },
        },
    },
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "argocd-cm"}, "data": {"url": "https://argocd.example.com"}},
]


@pytest.fixture(scope="module")
def built(kubectl, tmp_path_factory) -> dict:
    """{(kind, name): object} of `kubectl kustomize` of an overlay using the Component."""
    d = tmp_path_factory.mktemp("argocd-overlay")
    (d / "install.yaml").write_text(yamlio.dump_all(STANDIN_INSTALL))
    (d / "kustomization.yaml").write_text(yamlio.dump({
        "namespace": "argocd",
        "resources": ["install.yaml"],
        "components": [posixpath.relpath(DEPLOY.as_posix(), d.as_posix())],
        # A mirror, as docs/deploy.md shows it: only the name changes, the tag and digest stay.
        "images": [{"name": kpt_fn.IMAGE, "newName": "registry.example.com/mirror/expand-trainjobs"}],
    }))
    r = kit.run([kubectl, "kustomize", d], env=kit.client_env(d)).ok()
    return {(o["kind"], o["metadata"]["name"]): o for o in kit.load_stream(r.stdout)}


def _locked_image() -> str:
    return next(line for line in (kit.ROOT / "deploy" / "image.lock").read_text().splitlines()
                if line and not line.startswith("#"))


@pytest.mark.clients
def test_sidecar_as_argo_cd_prescribes(built):
    pod = built[("Deployment", "argocd-repo-server")]["spec"]["template"]["spec"]
    containers = {c["name"]: c for c in pod["containers"]}
    assert sorted(containers) == ["argocd-repo-server", "expand-trainjobs"]
    sidecar = containers["expand-trainjobs"]
    assert sidecar["command"] == ["/var/run/argocd/argocd-cmp-server"]
    # Pinned by tag and digest (deploy/image.lock); the mirror overlay keeps both.
    assert sidecar["image"] == _locked_image().replace(kpt_fn.IMAGE, "registry.example.com/mirror/expand-trainjobs")
    assert sidecar["image"].split("@")[0].endswith(f":v{kpt_fn.__version__}")
    assert sidecar["securityContext"]["runAsUser"] == 999 and sidecar["securityContext"]["runAsNonRoot"] is True
    mounts = {m["mountPath"]: m for m in sidecar["volumeMounts"]}
    assert mounts["/var/run/argocd"]["name"] == "var-files"
    assert mounts["/home/argocd/cmp-server/plugins"]["name"] == "plugins"
    config = mounts["/home/argocd/cmp-server/config/plugin.yaml"]
    assert config["subPath"] == "plugin.yaml"
    # Its own /tmp: never the repo-server's (Argo CD >= 2.4, path traversal mitigation).
    assert mounts["/tmp"]["name"] not in {m["name"] for m in containers["argocd-repo-server"]["volumeMounts"]}
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert volumes[mounts["/tmp"]["name"]] == {"name": mounts["/tmp"]["name"], "emptyDir": {}}
    assert {"var-files", "plugins", "tmp"} <= set(volumes)
    # The plugin configuration volume names the generated (hash-suffixed) ConfigMap holding plugin.yaml.
    cm_name = volumes[config["name"]]["configMap"]["name"]
    assert cm_name.startswith("expand-trainjobs-cmp-plugin-")
    cm = built[("ConfigMap", cm_name)]
    assert cm["metadata"]["namespace"] == "argocd"
    assert cm["data"]["plugin.yaml"] == kit.PLUGIN_YAML.read_text()
    # The repo-server itself is untouched.
    assert containers["argocd-repo-server"] == STANDIN_INSTALL[0]["spec"]["template"]["spec"]["containers"][0]


@pytest.mark.clients
def test_sidecar_requests_and_limits(built):
    """A sidecar without requests is scheduled as if it cost nothing, and without limits a runaway render
    can starve the repo-server in the same pod: both are set, each limit at least its request."""
    pod = built[("Deployment", "argocd-repo-server")]["spec"]["template"]["spec"]
    resources = {c["name"]: c for c in pod["containers"]}["expand-trainjobs"]["resources"]
    for name in ("cpu", "memory"):
        request, limit = resources["requests"][name], resources["limits"][name]
        assert quantity.parse(str(request)) <= quantity.parse(str(limit)), (name, request, limit)


@pytest.mark.parametrize("kind", sorted(HEALTH_CHECKS))
def test_health_check_links_the_controller_code_it_follows(kind):
    """Argo CD's health check guide (docs/operator-manual/health.md, "Way 2") asks the script itself to
    link the controller code it is based on."""
    script = (HEALTH_CHECKS[kind][0] / "health.lua").read_text()
    header = "".join(line for line in script.splitlines(keepends=True) if line.startswith("--"))
    source = {"JobSet": "https://github.com/kubernetes-sigs/jobset/blob/v0.12.0/pkg/controllers/jobset_controller.go",
              "TrainJob": "https://github.com/kubeflow/trainer/blob/v2.3.0/pkg/controller/trainjob_controller.go"}[kind]
    assert source in header
    assert "https://github.com/argoproj/argo-cd/blob/v3.5.1/docs/operator-manual/health.md" in header


@pytest.mark.clients
def test_health_check_merged_into_argocd_cm(built):
    cm = built[("ConfigMap", "argocd-cm")]
    assert cm["data"]["url"] == "https://argocd.example.com"
    for directory, key in HEALTH_CHECKS.values():
        assert cm["data"][key] == (directory / "health.lua").read_text()


def test_plugin_config_is_the_shipped_one():
    assert (DEPLOY / "plugin.yaml").read_bytes() == kit.PLUGIN_YAML.read_bytes(), "deploy/argocd/plugin.yaml must be a copy of argocd/plugin.yaml"


def test_example_application_names_the_plugin_and_lists_runtime_dirs():
    app = yamlio.load((DEPLOY / "application.yaml").read_text())
    source = app["spec"]["source"]
    assert source["plugin"]["name"] == cmp.plugin_name(cmp.load_plugin(kit.PLUGIN_YAML))
    assert "discover" not in source["plugin"]
    # Every runtimeDirs entry is inside a path of manifest-generate-paths (else the sidecar never gets it).
    paths = app["metadata"]["annotations"]["argocd.argoproj.io/manifest-generate-paths"].split(";")
    roots = [p.lstrip("/") if p.startswith("/") else posixpath.normpath(posixpath.join(source["path"], p)) for p in paths]
    (dirs,) = [p["array"] for p in source["plugin"]["parameters"] if p["name"] == "runtimeDirs"]
    for d in dirs:
        target = posixpath.normpath(posixpath.join(source["path"], d))
        assert any(target == r or target.startswith(r + "/") for r in roots), (d, roots)
    assert source["path"] in roots


# --- the JobSet health check under Lua 5.1 ---------------------------------------------------------


def run_health(script: str, obj: dict) -> dict:
    """What Argo CD does: `obj` global, the script's return value is the health status."""
    lua = lupa.lua51.LuaRuntime(unpack_returned_tuples=True)
    g = lua.globals()
    for unsafe in ("os", "io", "debug", "package", "require", "dofile", "loadfile", "load", "loadstring"):
        g[unsafe] = None
    g.obj = lua.table_from(obj, recursive=True)
    hs = lua.execute(script)
    return {k: hs[k] for k in ("status", "message") if hs[k] is not None}


def _cases(kind: str) -> list:
    directory = HEALTH_CHECKS[kind][0]
    return [(kind, c) for c in yamlio.load((directory / "health_test.yaml").read_text())["tests"]]


CASES = _cases("JobSet") + _cases("TrainJob")


@pytest.mark.parametrize("kind, case", CASES, ids=[f"{k}-{Path(c['inputPath']).stem}" for k, c in CASES])
def test_health(kind, case):
    directory = HEALTH_CHECKS[kind][0]
    obj = yamlio.load((directory / case["inputPath"]).read_text())
    assert obj["kind"] == kind
    assert run_health((directory / "health.lua").read_text(), obj) == case["healthStatus"]


@pytest.mark.parametrize("kind", sorted(HEALTH_CHECKS))
def test_every_testdata_file_has_a_case_and_names_its_source(kind):
    directory = HEALTH_CHECKS[kind][0]
    files = sorted(p.name for p in (directory / "testdata").iterdir())
    assert files == sorted(Path(c["inputPath"]).name for k, c in CASES if k == kind)
    # A state with a status is one the controller writes: the file links the code that writes it.
    source = {"JobSet": "https://github.com/kubernetes-sigs/jobset/blob/v0.12.0/",
              "TrainJob": "https://github.com/kubeflow/trainer/blob/v2.3.0/"}[kind]
    for name in files:
        text = (directory / "testdata" / name).read_text()
        if "\nstatus:" in text:
            assert source in text, name


@pytest.mark.parametrize("kind", sorted(HEALTH_CHECKS))
def test_a_queued_object_is_progressing_and_a_paused_one_suspended(kind):
    # The documented choice (docs/deploy.md): waiting in a Kueue queue must not make the app "Suspended".
    directory = HEALTH_CHECKS[kind][0]
    script = (directory / "health.lua").read_text()
    queued = yamlio.load((directory / "testdata" / "kueue-queued.yaml").read_text())
    paused = yamlio.load((directory / "testdata" / "suspended.yaml").read_text())
    assert run_health(script, queued)["status"] == "Progressing"
    assert run_health(script, paused)["status"] == "Suspended"
