"""Helpers shared by the client tests: running a client, normalising its output,
and what every client must produce for the demo package.

Assertions here are about structure (which objects exist, names, namespaces, annotations), never
about what the engine puts inside a JobSet: the engine changes, the contract with the clients does not.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import yaml

from kpt_fn import yamlio

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
DEMO = FIXTURES / "packages" / "demo"
CLIENT_FIXTURES = FIXTURES / "clients"
GOLDEN = FIXTURES / "golden"
PLUGIN_HOME = ROOT / "kustomize" / "plugin"
PLUGIN_YAML = ROOT / "argocd" / "plugin.yaml"
IMAGE_PATH_IN_PLUGIN_YAML = "/opt/fn/bin/expand-trainjobs"

CLIENT_PREFIXES = ("config.kubernetes.io/", "internal.config.kubernetes.io/", "config.k8s.io/", "kustomize.config.k8s.io/")
LOCAL_CONFIG = "config.kubernetes.io/local-config"
UPDATE_GOLDEN = os.environ.get("UPDATE_GOLDEN") == "1"

# The tricky ConfigMap of the demo package: every value must stay this string through every client.
TRICKY = {
    "a": "on",
    "b": "0755",
    "c": "yes",
    "d": "1e3",
    "e": "true",
    "h": "8080:80",
    "i": "2024-01-01",
    "j": "y",
    "l": "multi\n\nline\n",
}

# Comments of demo files the function does not own: they must survive kpt's write-back.
DEMO_COMMENTS = {
    "trainjobs.yaml": [
        "# TrainJobs of team A. This comment must survive every client.",
        "name: mnist # the MNIST example",
        "numNodes: 2 # two nodes",
        "# The plain ML job from the design discussion.",
    ],
    "runtimes.yaml": ["# The plain-ML runtime from the original design discussion, in the v2.3.0 API."],
    "settings.yaml": ["# Values that YAML 1.1 readers would mangle; every client must keep them strings."],
}


@dataclass
class Run:
    argv: list
    rc: int
    stdout: str
    stderr: str

    def ok(self) -> "Run":
        assert self.rc == 0, f"{self.argv!r} exited {self.rc}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}"
        return self

    def failed(self) -> "Run":
        assert self.rc != 0, f"{self.argv!r} should have failed\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}"
        return self


def run(argv, cwd=None, env=None, input=None, timeout=60) -> Run:
    argv = [str(a) for a in argv]
    p = subprocess.run(argv, cwd=cwd, env=env, input=input, capture_output=True, text=True, timeout=timeout)
    return Run(argv, p.returncode, p.stdout, p.stderr)


def client_env(tmp_path: Path, **extra) -> dict:
    """The caller's environment, minus anything that could steer a client or the function, with
    every temp/plugin/config location inside tmp_path."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ARGOCD_", "PARAM_", "KUSTOMIZE_", "EXPAND_TRAINJOBS", "KPT_", "XDG_", "DOCKER_"))
    }
    tmp = tmp_path / "tmp"
    tmp.mkdir(exist_ok=True)
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.touch()
    env.update(
        TMPDIR=str(tmp),
        KUBECONFIG=str(kubeconfig),
        XDG_CONFIG_HOME=str(tmp_path / "xdg"),
        ARGOCD_CMP_WORKDIR=str(tmp_path / "cmp"),
        KUSTOMIZE_PLUGIN_HOME=str(tmp_path / "no-plugins"),
    )
    env.update({k: str(v) for k, v in extra.items()})
    return env


def copy_tree(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, symlinks=True)
    return dst


def snapshot(path: Path) -> dict:
    """{relative path: bytes} of every file under path."""
    return {
        str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file() and not p.is_symlink()
    }


# --- YAML -----------------------------------------------------------------------------------------


def load_stream(text: str) -> list:
    """Documents of a YAML stream under the project's YAML 1.2 loader; Lists are expanded."""
    out = []
    for doc in yamlio.load_all(text):
        if doc is None:
            continue
        if isinstance(doc, dict) and str(doc.get("kind", "")).endswith("List") and isinstance(doc.get("items"), list):
            out.extend(doc["items"])
        else:
            out.append(doc)
    return out


def _strip_client_annotations(obj: dict) -> dict:
    md = obj.get("metadata")
    if not isinstance(md, dict) or not isinstance(md.get("annotations"), dict):
        return obj
    kept = {k: v for k, v in md["annotations"].items() if not k.startswith(CLIENT_PREFIXES)}
    md = dict(md)
    if kept:
        md["annotations"] = kept
    else:
        md.pop("annotations")
    return {**obj, "metadata": md}


def is_local_config(obj: dict) -> bool:
    ann = ((obj.get("metadata") or {}).get("annotations")) or {}
    return str(ann.get(LOCAL_CONFIG, "")).lower() == "true"


def sort_key(obj: dict) -> tuple:
    md = obj.get("metadata") or {}
    return (obj.get("apiVersion", ""), obj.get("kind", ""), md.get("namespace") or "", md.get("name") or "")


def normalize(source) -> list:
    """Objects to apply, comparable across clients: parsed with
    the 1.2 loader, local-config objects dropped, client annotations dropped, sorted."""
    docs = load_stream(source) if isinstance(source, str) else list(source)
    objs = [_strip_client_annotations(d) for d in docs if isinstance(d, dict) and not is_local_config(d)]
    return sorted(objs, key=sort_key)


def resource_list_items(text: str) -> list:
    docs = yamlio.load_all(text)
    assert len(docs) == 1 and docs[0].get("kind") == "ResourceList", text[:500]
    return docs[0].get("items") or []


def ids(objs) -> list:
    """(kind, namespace, name) of each object, sorted."""
    return sorted(
        (o.get("kind"), (o.get("metadata") or {}).get("namespace") or "", (o.get("metadata") or {}).get("name")) for o in objs
    )


def assert_same_objects(actual: list, expected: list, what: str) -> None:
    if actual == expected:
        return
    assert ids(actual) == ids(expected), f"{what}: different objects"
    for a, e in zip(actual, expected):
        assert a == e, f"{what}: {a.get('kind')} {(a.get('metadata') or {}).get('name')} differs:\n{yamlio.dump(a)}\n--- expected\n{yamlio.dump(e)}"


GOLDEN_HEADER = (
    "# What every client (kpt, kustomize routes A/B/C, the Argo CD plugin) must produce for\n"
    "# fixtures/packages/demo, normalised (tests/clients/kit.normalize). Written by\n"
    "# `UPDATE_GOLDEN=1 pytest tests/clients/test_golden.py`; review every diff against the change that caused it.\n"
)


def assert_local_config_dropped(text: str, where: str) -> None:
    """The TrainJobs, runtimes and the function's config are marked local-config in the demo: a
    client that outputs manifests to apply must have dropped them (kustomize does so itself)."""
    kinds = sorted({o.get("kind") for o in load_stream(text)} & {"TrainJob", "ClusterTrainingRuntime", "TrainingRuntime", "ExpandTrainJobs", "Kptfile"})
    assert kinds == [], f"{where} outputs local-config objects: {kinds}"


def golden_check(name: str, objs: list) -> None:
    """Compare with fixtures/golden/<name>; UPDATE_GOLDEN=1 rewrites it (and fails when it changed)."""
    path = GOLDEN / name
    text = GOLDEN_HEADER + yamlio.dump_all(objs)
    if UPDATE_GOLDEN:
        path.parent.mkdir(parents=True, exist_ok=True)
        old = path.read_text() if path.exists() else None
        path.write_text(text)
        # Never a silent pass: a rewrite fails the test, so the new file is looked at.
        assert old == text, f"rewrote {path.relative_to(ROOT)}: review it and run again without UPDATE_GOLDEN"
    assert path.exists(), f"{path} is missing: run the suite with UPDATE_GOLDEN=1 and review the file"
    expected = normalize(path.read_text())
    assert_same_objects(
        objs, expected, f"{path.relative_to(ROOT)} is stale or a client output changed (UPDATE_GOLDEN=1 regenerates it; review the diff)"
    )


def three_loaders(text: str) -> dict:
    """The document as read by the 1.2 loader, PyYAML's SafeLoader and the Argo-like 1.1 loader."""
    from support import argocd_cmp

    return {
        "yaml-1.2": yamlio.load(text),
        "SafeLoader": yaml.safe_load(text),
        "argo-1.1": argocd_cmp.argo_load(text),
    }


def assert_tricky_strings(text: str, where: str) -> None:
    for loader, doc in three_loaders(text).items():
        data = doc.get("data")
        assert data == TRICKY, f"{where} under {loader}: {data!r}"
        assert all(type(v) is str for v in data.values()), f"{where} under {loader}: {data!r}"


# --- the demo package ------------------------------------------------------------------------------


def demo_trainjobs(pkg: Path = DEMO) -> list:
    """(namespace, name) of the demo package's TrainJobs, from its files."""
    out = []
    for f in sorted(pkg.glob("*.yaml")):
        for d in yamlio.load_all(f.read_text()):
            if isinstance(d, dict) and d.get("kind") == "TrainJob":
                out.append((d["metadata"].get("namespace", ""), d["metadata"]["name"]))
    return out


def demo_inputs(pkg: Path = DEMO) -> set:
    """(kind, name) of every object in the demo package's files."""
    out = set()
    for f in sorted(pkg.iterdir()):
        if f.is_file():
            for d in yamlio.load_all(f.read_text()):
                if isinstance(d, dict):
                    out.add((d.get("kind"), (d.get("metadata") or {}).get("name")))
    return out


def generated(objs: list, prefix: str = "") -> list:
    """Objects the function generated: those that are not (prefixed) input objects of the demo."""
    inputs = demo_inputs()
    out = []
    for o in objs:
        name = (o.get("metadata") or {}).get("name") or ""
        if (o.get("kind"), name[len(prefix):] if name.startswith(prefix) else name) in inputs:
            continue
        out.append(o)
    return out


def assert_demo_objects(objs: list, namespace: str = "team-a", prefix: str = "", trainjobs=None) -> None:
    """A JobSet per TrainJob (named after it, in `namespace`), every generated object in
    `namespace`, and no client annotations left on any of them."""
    jobs = trainjobs if trainjobs is not None else demo_trainjobs()
    gen = generated(objs, prefix)
    jobsets = {(o["metadata"].get("namespace", ""), o["metadata"]["name"]) for o in gen if o.get("kind") == "JobSet"}
    for _, name in jobs:
        assert (namespace, prefix + name) in jobsets, f"no JobSet {namespace}/{prefix}{name} among {sorted(jobsets)}"
    assert len(jobsets) == len(jobs), f"one JobSet per TrainJob expected, found {sorted(jobsets)}"
    for o in gen:
        md = o.get("metadata") or {}
        assert md.get("namespace") == namespace, f"{o.get('kind')} {md.get('name')} is not in {namespace}"
        leaked = [k for k in (md.get("annotations") or {}) if k.startswith(CLIENT_PREFIXES)]
        assert not leaked, f"{o.get('kind')} {md.get('name')} carries client annotations {leaked}"


# --- kustomizations -------------------------------------------------------------------------------

TRANSFORMER_FILES = ("trainjobs.yaml", "runtimes.yaml", "settings.yaml")


def _demo_docs(*names) -> list:
    return [d for n in names for d in yamlio.load_all((DEMO / n).read_text()) if d]


def _spec() -> dict:
    return yamlio.load((DEMO / "expand-trainjobs.yaml").read_text())["spec"]


def make_app(tmp_path, name, form, *, files=TRANSFORMER_FILES, source=DEMO, spec=None, function=None, extra=None):
    """A kustomization dir: `files` as resources, expander.yaml under `form` (transformers|generators)."""
    d = tmp_path / name
    d.mkdir()
    for f in files:
        shutil.copy(source / f, d / f)
    cfg = {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs", "metadata": {"name": "expand"}, "spec": spec or _spec()}
    if function is not None:
        if "exec" in function:  # route C: path relative to the kustomization dir
            function = {"exec": {"path": os.path.relpath(function["exec"], d)}}
        cfg["metadata"]["annotations"] = {"config.kubernetes.io/function": yamlio.dump(function)}
    (d / "expander.yaml").write_text(yamlio.dump(cfg))
    (d / "kustomization.yaml").write_text(yamlio.dump({"resources": list(files), form: ["expander.yaml"], **(extra or {})}))
    return d


def generator_app(tmp_path, name, **kw):
    """The generator form: TrainJobs and runtimes inline in the config (what a container can see)."""
    spec = {**_spec(), "trainJobs": _demo_docs("trainjobs.yaml", "runtimes.yaml")}
    return make_app(tmp_path, name, "generators", files=("settings.yaml",), spec=spec, **kw)


# A TrainJob of the built-in torch runtime, marked local-config, as users keep them in Git.
LOCAL_TRAINJOB = """apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {name}
  namespace: team-a
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  runtimeRef:
    name: torch-distributed
"""
