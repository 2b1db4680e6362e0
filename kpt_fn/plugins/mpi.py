"""MPI: node counts, slots, SSH and hostfile volumes, OpenMPI env, hostfile ConfigMap, SSH Secret.

Upstream: pkg/runtime/framework/plugins/mpi/mpi.go at v2.3.0 (EnforceMLPolicy, the SSH Secret, the
hostfile ConfigMap, and its admission checks). OpenMPI is the only implementation upstream
supports; anything else (the CRD also admits "") fails the render like upstream's reconcile.

Deviation by design: the SSH Secret holds a random key pair upstream. Offline it is governed by the
secret policy of kpt_fn.engine.secrets: by default no Secret is emitted and an info result names the
Secret the cluster must provide; with mpiSSHSecret=generate a seed-derived key pair is emitted
with a warning. The volume points at the policy's Secret name (default `<tj>-mpi-ssh-auth`, as
upstream).
"""

from __future__ import annotations

from kpt_fn.engine import secrets
from kpt_fn.engine.apply import upsert_env_vars, upsert_volume_mounts, upsert_volumes
from kpt_fn.engine.framework import RenderError
from kpt_fn.engine.info import resources_per_node
from kpt_fn.quantity import num_gpu
from kpt_fn.trainer_names import NODE
from kpt_fn.problems import Problem, Rule
from kpt_fn.validation.names import MAX_DATA_SIZE, RULE_DATA_KEYS

NAME = "MPI"
# PlainML does not run beside this plugin (upstream's PlainML skips the Torch, MPI and JAX policies).
REPLACES = ("plainml",)

LAUNCHER = "launcher"
OPENMPI = "OpenMPI"

SSH_AUTH_VOLUME = "mpi-ssh-auth"
HOSTFILE_VOLUME = "mpi-hostfile"
HOSTFILE_DIR = "/etc/mpi"
HOSTFILE_NAME = "hostfile"
HOSTFILE_SUFFIX = "-mpi-hostfile"

ENV_HOSTFILE = "OMPI_MCA_orte_default_hostfile"
ENV_KEEP_FQDN = "OMPI_MCA_orte_keep_fqdn_hostnames"
ENV_DEFAULT_SLOTS = "OMPI_MCA_orte_set_default_slots"
ENV_RSH_ARGS = "OMPI_MCA_plm_rsh_args"
RESERVED_ENV = frozenset((ENV_HOSTFILE, ENV_RSH_ARGS, ENV_KEEP_FQDN, ENV_DEFAULT_SLOTS))

RULE_LAUNCHER_AS_NODE = "trainer-webhook/mpi-launcher-as-node-jobs"
RULE_RESERVED_ENV = "trainer-webhook/mpi-reserved-env"
RULE_IMPLEMENTATION = "trainer-controller/mpi-implementation"

RULES = [
    Rule(RULE_LAUNCHER_AS_NODE, "TrainJob",
         "With runLauncherAsNode, numNodes >= 2 needs a runtime with both a launcher and a node job."),
    Rule(RULE_RESERVED_ENV, "TrainJob",
         "spec.trainer.env must not set the OMPI_MCA_* variables the MPI plugin manages.",
         behaviour="mpi_reserved_env_check"),
    Rule(RULE_IMPLEMENTATION, "TrainJob",
         "mpiImplementation must be OpenMPI, the only implementation upstream supports."),
] + [r for r in secrets.RULES if r.id.startswith("secret-policy/mpi-") or r.id == secrets.RULE_OPTIONS]


def TRAINING_NODES(runtime: dict):
    """The training nodes among the pod sets (kpt_fn.workload): this plugin sizes the replicated job
    `node` from numNodes (one less when the launcher runs as a node) while the trainer label sits on
    the launcher, so the nodes are the `node` pods, plus the launcher's with runLauncherAsNode.
    None (no opinion) for an mlPolicy.mpi that is not an object."""
    mpi = ((runtime.get("spec") or {}).get("mlPolicy") or {}).get("mpi")
    if not isinstance(mpi, dict):
        return None
    with_launcher = bool(mpi.get("runLauncherAsNode"))
    return lambda ps: ps.name == NODE or (with_launcher and ps.name == LAUNCHER)


def _trainer(trainjob: dict) -> dict | None:
    return (trainjob.get("spec") or {}).get("trainer")


def ssh_auth_volume(secret_name: str, modes: bool) -> dict:
    """The SSH Secret volume; `modes`: the release's mpi_ssh_file_modes switch (without it the
    kubelet's default 0644 applies: mpi.go EnforceMLPolicy :128-150 at v2.2.1)."""
    items = [
        {"key": "ssh-privatekey", "path": "id_rsa", "mode": 0o640},
        {"key": "ssh-publickey", "path": "id_rsa.pub", "mode": 0o644},
        {"key": "ssh-publickey", "path": "authorized_keys", "mode": 0o644},
    ]
    if not modes:
        return {"name": SSH_AUTH_VOLUME, "secret": {"secretName": secret_name,
                                                     "items": [{k: v for k, v in i.items() if k != "mode"} for i in items]}}
    return {"name": SSH_AUTH_VOLUME, "secret": {"secretName": secret_name, "defaultMode": 0o400, "items": items}}


def hostfile_volume(trainjob_name: str) -> dict:
    return {
        "name": HOSTFILE_VOLUME,
        "configMap": {
            "name": trainjob_name + HOSTFILE_SUFFIX,
            "items": [{"key": HOSTFILE_NAME, "path": HOSTFILE_NAME, "mode": 0o444}],
        },
    }


def enforce_ml_policy(info, trainjob, options) -> None:
    ml = info.runtime_policy.ml_policy_source
    # Replace rather than mutate: the nested mlPolicy dict may be shared with the runtime copy.
    mpi = dict(ml["mpi"])
    ml["mpi"] = mpi
    launcher_as_node = bool(mpi.get("runLauncherAsNode"))
    trainer = _trainer(trainjob)

    if trainer is not None and trainer.get("numNodes") is not None:
        # By name: the SSH worker job, not the trainer-ancestor launcher (mpi.go EnforceMLPolicy).
        node = info.pod_set_by_name(NODE)
        if node is not None:
            num_nodes = trainer["numNodes"]
            node.count = max(num_nodes - 1, 1) if launcher_as_node else num_nodes

    if trainer is not None and trainer.get("numProcPerNode") is not None:
        mpi["numProcPerNode"] = trainer["numProcPerNode"]
    elif mpi.get("numProcPerNode") == 1:
        gpus = num_gpu(resources_per_node(info, trainjob))
        if gpus > 1:
            mpi["numProcPerNode"] = gpus

    name = (trainjob.get("metadata") or {}).get("name") or ""
    secret_name = secrets.render_secret_name(options, secrets.MPI_SSH, name)
    for ps in info.pod_sets:
        if ps.name not in (NODE, LAUNCHER):
            continue
        # Fresh dicts per pod template: output objects never share (alias) sub-trees.
        upsert_volumes(ps.volumes, [ssh_auth_volume(secret_name, options.bundle.behaviour.mpi_ssh_file_modes)])
        if ps.name == LAUNCHER:
            upsert_volumes(ps.volumes, [hostfile_volume(name)])
        for c in ps.containers:
            if c.name != NODE:
                continue
            upsert_volume_mounts(c.volume_mounts, [{"name": SSH_AUTH_VOLUME, "mountPath": mpi.get("sshAuthMountPath")}])
            if ps.name != LAUNCHER:
                continue
            upsert_volume_mounts(c.volume_mounts, [{"name": HOSTFILE_VOLUME, "mountPath": HOSTFILE_DIR}])
            implementation = mpi.get("mpiImplementation")
            if implementation != OPENMPI:
                raise RenderError(
                    # Upstream's message prints a pointer here; quoting the value is more useful.
                    f'MPI implementation for "{implementation}" doesn\'t supported (the runtime\'s '
                    "spec.mlPolicy.mpi.mpiImplementation; only OpenMPI is implemented)",
                    path="spec.runtimeRef",
                    rule=RULE_IMPLEMENTATION,
                )
            upsert_env_vars(c.env, [
                {"name": ENV_HOSTFILE, "value": f"{HOSTFILE_DIR}/{HOSTFILE_NAME}"},
                {"name": ENV_KEEP_FQDN, "value": "true"},
                {"name": ENV_DEFAULT_SLOTS, "value": str(mpi.get("numProcPerNode"))},
                {"name": ENV_RSH_ARGS, "value": "-o ConnectionAttempts=10"},
            ])


def _metadata(name: str, trainjob: dict) -> dict:
    md = {"name": name}
    namespace = (trainjob.get("metadata") or {}).get("namespace")
    if namespace is not None:
        md["namespace"] = namespace
    return md


def _hostfile_too_big(hosts: int) -> RenderError:
    return RenderError(
        f"the MPI hostfile ConfigMap would list {hosts} hosts, more than fit in {MAX_DATA_SIZE} bytes, the most "
        "the API server accepts in a ConfigMap's data (1 MiB)",
        path="spec.trainer.numNodes",
        rule=RULE_DATA_KEYS,
    )


def _replicas(info, ps) -> int:
    for rj in info.replicated_jobs:
        if rj.get("name") == ps.name:
            replicas = rj.get("replicas")
            return 1 if replicas is None else replicas
    return 1


def hostfile(info) -> str:
    """One `<endpoint> slots=<n>` line per MPI host, in replicated-job order (mpi.go buildHostFileConfigMap).

    numNodes and replicas are int32s the schema admits up to 2^31-1: the host count is checked
    before any line is made (each line takes at least 10 bytes), and the text stops growing at the
    API server's 1 MiB ConfigMap limit, so time and memory stay bounded whatever the input says."""
    mpi = info.runtime_policy.ml_policy_source["mpi"]
    launcher_as_node = bool(mpi.get("runLauncherAsNode"))
    slots = mpi.get("numProcPerNode")
    slots = 1 if slots is None else slots
    chosen = [
        ps for ps in info.pod_sets
        if (ps.name == NODE or (launcher_as_node and ps.name == LAUNCHER))
        and mpi.get("mpiImplementation") == OPENMPI and ps.network is not None
    ]
    hosts = sum(max(_replicas(info, ps), 0) * max(ps.count, 0) for ps in chosen)
    if hosts * len(f"x slots={slots}\n") > MAX_DATA_SIZE:
        raise _hostfile_too_big(hosts)
    lines, size = [], 0
    for ps in chosen:
        for endpoint in ps.endpoints():
            line = f"{endpoint} slots={slots}\n"
            size += len(line)
            if size > MAX_DATA_SIZE:
                raise _hostfile_too_big(hosts)
            lines.append(line)
    return "".join(lines)


def build(info, trainjob, options) -> list[dict]:
    md = trainjob.get("metadata") or {}
    name = md.get("name") or ""
    namespace = md.get("namespace")
    objects, note = secrets.render_secret(options, secrets.MPI_SSH, name, namespace)
    info.problems.append(note)
    objects.append({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": _metadata(name + HOSTFILE_SUFFIX, trainjob),
        "data": {HOSTFILE_NAME: hostfile(info)},
    })
    return objects


def validate(info, trainjob, options) -> list[Problem]:
    """Admission checks of the MPI plugin (mpi.go Validate), upstream's messages and paths."""
    problems: list[Problem] = []
    trainer = _trainer(trainjob)
    if trainer is None:
        return problems
    mpi = info.runtime_policy.ml_policy_source["mpi"]
    num_nodes = trainer.get("numNodes")
    num_nodes = 1 if num_nodes is None else num_nodes
    if num_nodes >= 2 and mpi.get("runLauncherAsNode"):
        if info.pod_set_by_name(LAUNCHER) is None or info.pod_set_by_name(NODE) is None:
            problems.append(Problem(
                message="must have 1 when MPI trainingRuntime with enabled runLauncherAsNode does not have either launcher and node",
                path="spec.trainer.numNodes",
                rule=RULE_LAUNCHER_AS_NODE,
            ))
    reserved = sorted({e.get("name") for e in trainer.get("env") or () if e.get("name") in RESERVED_ENV})
    if reserved and options.bundle.behaviour.mpi_reserved_env_check:
        problems.append(Problem(
            message=f"must not have reserved envs, invalid envs configured: [{' '.join(reserved)}]",
            path="spec.trainer.env",
            rule=RULE_RESERVED_ENV,
        ))
    return problems

