"""Flux: wrap the trainer in a Flux cluster (pkg/runtime/framework/plugins/flux/flux.go at v2.3.0).

Upstream: pkg/runtime/framework/plugins/flux/flux.go. EnforceMLPolicy rewrites the TrainJob's
command to run `entrypoint.sh` with the original command line, adds the `flux-installer` init
container and the view, config, CURVE and shared-memory volumes to the PodSet named `node`. Build
emits the `<tj>-flux-entrypoint` ConfigMap (entrypoint.sh, init.sh; broker.toml is embedded in
init.sh) and the CURVE Secret.

What changed between Trainer releases is asked of the release's switches (`behaviour`, the row of
kpt_fn.upstream.behaviour: flux_shared_memory, flux_runtime_command, flux_installer_in_pod_set,
flux_trainjob_num_proc, flux_cores_and_gpus, each citing v2.2.1's source): the same templates, the
same helpers, one copy of the logic. The templates of both releases are the same (init.sh and
broker.toml differ in the licence header only).

Deviations, by design:
* The scripts come from our own jinja2 templates in flux_templates/, not upstream's files: every
  command line, heredoc body and echo is the same as upstream's, so the scripts behave the same;
  upstream's licence header and explanatory comments are replaced by our own comments, so the
  ConfigMap bytes differ in comment lines only (tests/upstream/trainer/test_plugins_flux.py checks this against the
  upstream templates when a mirror is available).
* Upstream derives the CURVE key from SHA-256 of the TrainJob UID, which does not exist offline. The
  Secret follows the policy of kpt_fn.engine.secrets (default: not emitted, an info result names
  the Secret the cluster must provide; fluxCurveSecret=generate: seed-derived, with a warning).
* Upstream panics (recovered, nothing created) when spec.trainer or spec.trainer.numNodes is
  missing; here that is a render error with a message.
"""

from __future__ import annotations

from functools import lru_cache

from kpt_fn.engine import secrets
from kpt_fn.engine.apply import upsert_volume_mounts, upsert_volumes
from kpt_fn.engine.framework import RenderError
from kpt_fn.engine.info import Container, resources_per_node
from kpt_fn.plugins import jobset
from kpt_fn.quantity import num_gpu
from kpt_fn.trainer_names import NODE, TRAINER
from kpt_fn.problems import Problem, Rule

NAME = "Flux"

INSTALLER = "flux-installer"
INSTALLER_IMAGE = "ghcr.io/converged-computing/flux-view-ubuntu:tag-jammy"
INSTALL_VOLUME = "flux-install"
INSTALL_PATH = "/mnt/flux"
SPACK_VOLUME = "spack-install"
SPACK_PATH = "/opt/software"
CONFIG_PATH = "/etc/flux-config"
CURVE_VOLUME = "flux-curve"
CURVE_PATH = "/curve"
MEMORY_VOLUME = "shared-memory"
MEMORY_PATH = "/dev/shm"
ENTRYPOINT_SUFFIX = "-flux-entrypoint"

# Broker settings a runtime or TrainJob may override through env vars of the trainer container.
BROKER_DEFAULTS = {
    "FLUX_VIEW_IMAGE": INSTALLER_IMAGE,
    "FLUX_NETWORK_DEVICE": "eth0",
    "FLUX_QUEUE_POLICY": "fcfs",
}

RULE_NUM_PROC = "trainer-webhook/flux-num-proc-per-node"
RULE_INSTALLER = "trainer-webhook/flux-reserved-init-container"
RULE_TRAINER_REQUIRED = "trainer-controller/flux-num-nodes-required"
RULES = [
    Rule(RULE_NUM_PROC, "TrainJob",
         "Flux needs numProcPerNode (TrainJob, else runtime) >= 1.", behaviour="flux_trainjob_num_proc"),
    Rule(RULE_NUM_PROC, "TrainJob",
         "Flux needs the runtime's flux numProcPerNode >= 1 (v2.2.1: the TrainJob's numProcPerNode is not checked)",
         behaviour="not flux_trainjob_num_proc"),
    Rule(RULE_INSTALLER, "TrainJob",
         "The runtime's node job must not already have an init container named flux-installer."),
    Rule(RULE_TRAINER_REQUIRED, "TrainJob",
         "Flux TrainJobs need spec.trainer.numNodes (upstream's controller crashes without it)."),
] + [r for r in secrets.RULES if r.id.startswith("secret-policy/flux-")]

# Go's strings.TrimSpace trims the Unicode White_Space characters (not Python's isspace set).
_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


@lru_cache(maxsize=None)
def _templates():
    import jinja2
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    # Only our own packaged templates are ever loaded; user values (TrainJob names, commands) are
    # passed as variables. The sandbox makes sure a value can never reach Python attributes anyway.
    env = ImmutableSandboxedEnvironment(
        loader=jinja2.PackageLoader("kpt_fn.plugins", "flux_templates"),
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        autoescape=False,
    )
    return {n: env.get_template(n) for n in ("broker.toml", "init.sh", "entrypoint.sh")}


def _i32(value: int) -> int:
    # The controller computes these in int32; keep its wrap-around for absurd inputs.
    return (value + 2**31) % 2**32 - 2**31


def generate_range(size: int, start: int = 0) -> str:
    """"0" for one element, else "<start>-<start+size-1>" (so size 0 gives "0--1", like upstream)."""
    if size == 1:
        return str(start)
    return f"{start}-{_i32(start + size - 1)}"


def host_list(prefix: str, size: int) -> str:
    return f"{prefix}-{NODE}-0-[{generate_range(size)}]"


def broker_settings(info, trainjob: dict) -> dict:
    """Defaults, then literal env values of the trainer `node` container, then the TrainJob's env."""
    settings = dict(BROKER_DEFAULTS)
    container = info.container_by_ancestor(TRAINER, NODE)
    for e in container.env if container is not None else ():
        # Upstream reads only set values; a runtime `value: ""` is dropped by its typed round trip
        # (omitempty). A user's "" arrives through the TrainJob loop below anyway.
        if e.get("name") in settings and e.get("value"):
            settings[e["name"]] = e["value"]
    for e in ((trainjob.get("spec") or {}).get("trainer") or {}).get("env") or ():
        if e.get("name") in settings:
            # A valueFrom entry has no value: upstream then uses "".
            settings[e["name"]] = e.get("value") or ""
    return settings


def original_command(info, trainjob: dict, behaviour) -> str:
    """The command line Flux wraps: runtime command unless the TrainJob sets one, plus TrainJob args."""
    container = info.container_by_ancestor(TRAINER, NODE) if behaviour.flux_runtime_command else None
    command = list(container.command or ()) if container is not None else []
    args: list = []
    trainer = (trainjob.get("spec") or {}).get("trainer")
    if trainer is not None:
        if trainer.get("command") is not None:
            command = list(trainer["command"])
        if trainer.get("args") is not None:
            args = list(trainer["args"])
    # No shell quoting: one argv element, words joined by single spaces (flux.go getOriginalCommand).
    return " ".join(command + args).strip(_GO_SPACE)


def _trainer(trainjob: dict, bundle) -> dict:
    release = bundle.release  # named in the message
    trainer = (trainjob.get("spec") or {}).get("trainer")
    if trainer is None:
        raise RenderError(f"a Flux runtime needs spec.trainer with numNodes set (Trainer {release}'s "
                          "controller crashes on this TrainJob and creates nothing)", path="spec.trainer.numNodes",
                          rule=RULE_TRAINER_REQUIRED)
    return trainer


def view_volumes(config_map: str, curve_secret: str, behaviour) -> tuple[list, list]:
    """The node pod's Flux volumes, in upstream's two upserts: the view's, then the CURVE Secret's.
    Fresh dicts on every call: output objects never share (alias) sub-trees."""
    view = [
        {"name": SPACK_VOLUME, "emptyDir": {}},
        {"name": INSTALL_VOLUME, "emptyDir": {}},
        {"name": config_map, "configMap": {"name": config_map, "defaultMode": 0o755}},
    ]
    if behaviour.flux_shared_memory:
        view.append({"name": MEMORY_VOLUME, "emptyDir": {"medium": "Memory"}})
    return view, [{"name": CURVE_VOLUME, "secret": {"secretName": curve_secret, "defaultMode": 0o400}}]


def node_volume_mounts(config_map: str, behaviour) -> list[dict]:
    mounts = [
        {"name": INSTALL_VOLUME, "mountPath": INSTALL_PATH},
        {"name": SPACK_VOLUME, "mountPath": SPACK_PATH},
        {"name": config_map, "mountPath": CONFIG_PATH, "readOnly": True},
        {"name": CURVE_VOLUME, "mountPath": CURVE_PATH, "readOnly": True},
    ]
    if behaviour.flux_shared_memory:
        mounts.append({"name": MEMORY_VOLUME, "mountPath": MEMORY_PATH, "readOnly": True})
    return mounts


def installer(image: str, config_map: str) -> Container:
    return Container(
        name=INSTALLER,
        image=image,
        command=["/bin/bash", f"{CONFIG_PATH}/init.sh"],
        volume_mounts=[
            {"name": INSTALL_VOLUME, "mountPath": INSTALL_PATH},
            {"name": config_map, "mountPath": CONFIG_PATH, "readOnly": True},
        ],
    )


def _installer_dict(c: Container) -> dict:
    return {"name": c.name, "image": c.image, "command": list(c.command), "volumeMounts": list(c.volume_mounts)}


def enforce_ml_policy(info, trainjob, options) -> None:
    behaviour = options.bundle.behaviour
    trainer = _trainer(trainjob, options.bundle)
    settings = broker_settings(info, trainjob)
    name = (trainjob.get("metadata") or {}).get("name") or ""
    config_map = name + ENTRYPOINT_SUFFIX
    curve_secret = secrets.render_secret_name(options, secrets.FLUX_CURVE, name)

    command = original_command(info, trainjob, behaviour)
    trainer["command"] = ["/bin/bash", f"{CONFIG_PATH}/entrypoint.sh", command]
    # Only the TrainJob's args are cleared: runtime args stay on the container (flux.go EnforceMLPolicy).
    trainer.pop("args", None)

    for index, ps in enumerate(info.pod_sets):
        if ps.name != NODE:  # by name, not by ancestor
            continue
        view, curve = view_volumes(config_map, curve_secret, behaviour)
        upsert_volumes(ps.volumes, view)
        upsert_volumes(ps.volumes, curve)
        init = installer(settings["FLUX_VIEW_IMAGE"], config_map)
        if behaviour.flux_installer_in_pod_set:
            ps.init_containers.append(init)
        else:
            # PodSets and replicated jobs share their index (runtime_info builds one per job).
            pod = jobset.writable_pod_spec(info.replicated_jobs[index])
            pod["initContainers"] = [*(pod.get("initContainers") or ()), _installer_dict(init)]
        for c in ps.containers:
            if c.name == NODE:
                upsert_volume_mounts(c.volume_mounts, node_volume_mounts(config_map, behaviour))


def resource_spec(tasks: int, gpus: int, behaviour) -> str:
    """The resource options of `flux R encode` in entrypoint.sh."""
    if not behaviour.flux_cores_and_gpus:
        return "--local"
    rspec = f"--cores={generate_range(tasks)}"
    if gpus > 0:
        rspec += f" --gpu={generate_range(gpus)}"
    return rspec


def render_scripts(info, trainjob: dict, bundle) -> dict:
    """The ConfigMap data: entrypoint.sh for the node container, init.sh for the installer (flux.go
    buildInitScriptConfigMap); `bundle`: the release (its switches, its name in messages)."""
    release, behaviour = bundle.release, bundle.behaviour
    trainer = _trainer(trainjob, bundle)
    if trainer.get("numNodes") is None:
        raise RenderError(f"a Flux runtime needs spec.trainer.numNodes (Trainer {release}'s controller "
                          "crashes on this TrainJob and creates nothing)", path="spec.trainer.numNodes",
                          rule=RULE_TRAINER_REQUIRED)
    md = trainjob.get("metadata") or {}
    name = md.get("name") or ""
    namespace = md.get("namespace") or ""
    settings = broker_settings(info, trainjob)
    templates = _templates()

    nodes = trainer["numNodes"]
    tasks = trainer.get("numProcPerNode")
    if tasks is None:
        tasks = info.runtime_policy.ml_policy_source["flux"].get("numProcPerNode")
    # Flux's -g is GPUs per task; upstream passes the GPUs per node.
    gpus = num_gpu(resources_per_node(info, trainjob))
    flags = f"-N {nodes} -n {_i32(tasks * nodes)}"
    if gpus > 0:
        flags += f" -g {gpus}"
    entrypoint = templates["entrypoint.sh"].render(rspec=resource_spec(tasks, gpus, behaviour),
                                                   main_host=f"{name}-{NODE}-0-0", flags=flags)

    hosts = host_list(name, nodes)
    broker = templates["broker.toml"].render(
        bind=f"tcp://{settings['FLUX_NETWORK_DEVICE']}:%p",
        connect=f"tcp://%h.{name}.{namespace}.svc.cluster.local:%p",
        hosts=hosts,
        queue_policy=settings["FLUX_QUEUE_POLICY"],
    )
    # Upstream's main host for init.sh is `<tj>-0` (unused by the script, kept for parity).
    init = templates["init.sh"].render(flux_root="/opt/view", main_host=f"{name}-0", hosts=hosts, broker_toml=broker)
    return {"entrypoint.sh": entrypoint, "init.sh": init}


def _metadata(name: str, trainjob: dict) -> dict:
    md = {"name": name}
    namespace = (trainjob.get("metadata") or {}).get("namespace")
    if namespace is not None:
        md["namespace"] = namespace
    return md


def build(info, trainjob, options) -> list[dict]:
    md = trainjob.get("metadata") or {}
    name = md.get("name") or ""
    namespace = md.get("namespace")
    objects = [{
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": _metadata(name + ENTRYPOINT_SUFFIX, trainjob),
        "data": render_scripts(info, trainjob, options.bundle),
    }]
    made, note = secrets.render_secret(options, secrets.FLUX_CURVE, name, namespace)
    info.problems.append(note)
    return objects + made


def validate(info, trainjob, options) -> list[Problem]:
    """Admission checks of the Flux plugin (flux.go Validate), upstream's messages and paths."""
    behaviour = options.bundle.behaviour
    problems: list[Problem] = []
    num_proc = info.runtime_policy.ml_policy_source["flux"].get("numProcPerNode")
    trainer = (trainjob.get("spec") or {}).get("trainer")
    if behaviour.flux_trainjob_num_proc and trainer is not None and trainer.get("numProcPerNode") is not None:
        num_proc = trainer["numProcPerNode"]
    if num_proc is not None and num_proc < 1:
        problems.append(Problem(
            message="must be greater than or equal to 1 for Flux TrainJob",
            path="spec.trainer.numProcPerNode",
            rule=RULE_NUM_PROC,
        ))
    for ps in info.pod_sets:
        if ps.name != NODE:
            continue
        for ic in ps.init_containers:
            if ic.name == INSTALLER:
                problems.append(Problem(
                    message="InitContainer 'flux-installer' is reserved",
                    path="spec.trainer.initContainers",
                    rule=RULE_INSTALLER,
                ))
    return problems

