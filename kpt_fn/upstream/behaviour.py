"""What the controller and webhooks of each Trainer release do differently: one table, one switch per difference.

The model is upstream's own feature gates (Trainer's pkg/features/features.go, JobSet's, this project's
`kpt_fn.validation.jobset_webhook.GATES`) and black's VERSION_TO_FEATURES: a release is a row of named
switches, code asks `bundle.behaviour.<switch>` where the releases differ by one condition, and a
rule of the catalogue names the switch it belongs to (problems.Rule `behaviour`). No module compares
release strings. A bundle (kpt_fn.upstream.Bundle) carries its release's row.

Where a whole function differs, the release's row of VARIANTS names the module that holds that
release's function (`bundle.variant(name)`); every other release runs the function of the module that
asks. Every switch and variant is read off `git diff v2.2.1 v2.3.0 -- pkg manifests` of
github:kubeflow/trainer (the v2.2.1 side is cited in SWITCHES); docs/fidelity.md's per-release table
is generated from SWITCHES (scripts/generate.py behaviour).

Adding a release (docs/architecture.md, "Adding a Trainer release"): a new row here, every switch
set, new switches for what the release changes (False in the older rows), and a bundle directory.
"""

from __future__ import annotations

from collections import namedtuple

# (switch, what it does when on, the v2.2.1 side upstream, golden cases and tests that show it)
SWITCHES = (
    ("managed_by_check",
     "a TrainJob whose spec.managedBy names another controller is not reconciled (nothing is rendered)",
     "pkg/controller/trainjob_controller.go Reconcile has no IsManagedByExternalController check",
     "`managed-by-multikueue-still-rendered`"),
    ("runtime_webhook_object_selector",
     "the runtime webhooks skip runtimes labelled `trainer.kubeflow.org/webhook-validation: disabled`",
     "manifests/base/webhook/manifests.yaml has no objectSelector",
     "`tests/behaviour/test_trainer_version.py`"),
    ("per_replica_endpoints",
     "pod endpoints (the MPI hostfile) name the pods of every replica of a replicated job",
     "jobset.go IdentifyPodNetwork uses replica index 0 only (`constants.DefaultJobReplicas`)",
     "`mpi-network-subdomain`"),
    ("rpn_merged_in_core",
     "resourcesPerNode is merged per resource name into the node container, in the runtime core, for "
     "the PodSet and the JobSet alike",
     "newRuntimeInfo :181-195 replaces the PodSet's copy (claims included, `{}` empties it) and "
     "builder.go Trainer() :142-166 replaces the JobSet's limits and requests (trainer job, MPI "
     "launcher-as-node; no mlPolicy needed)",
     "`core-resources-per-node-merge-gpu-only`, `coscheduling-resources-per-node-empty`, "
     "`mpi-resources-launcher-and-node`"),
    ("init_containers_written_back",
     "the JobSet builder writes PodSet init containers back, with upserts",
     "jobset.go Build :279-302 copies volumes and containers only",
     "`builder-init-container-not-written-back`"),
    ("mpi_ssh_file_modes",
     "the MPI SSH Secret volume has defaultMode 0400 and item modes 0640/0644",
     "mpi.go EnforceMLPolicy :128-150 sets neither (the kubelet's 0644 applies)",
     "`mpi-ssh-volume-without-modes`"),
    ("mpi_reserved_env_check",
     "admission refuses the OMPI_MCA_* env names the MPI plugin manages in spec.trainer.env",
     "mpi.go Validate has no reserved-env check",
     "`mpi-reserved-env-not-checked`"),
    ("initializer_volume_check",
     "admission needs the initializer containers to mount the `initializer` volume",
     "jobset.go Validate checks the job and container names only",
     "`initializer-data-cache-rejected`"),
    ("torch_env_injection",
     "the Torch policy has envInjection (the TrainJob API field and its target check)",
     "TorchMLPolicySource has no envInjection (the CRD refuses it as an unknown field)",
     "schemas of the bundle"),
    ("torchtune_bool_args",
     "torchtune's QLoRA and DoRA switches are read as `name=true` arguments",
     "torchtune.go isUseQLoraFinetune matches both names as substrings of any argument, whatever the value",
     "`torchtune-qlora-by-substring`"),
    ("torchtune_v2_3_checks",
     "torchtune admission refuses LoRA on several nodes and runtime-managed config items in args",
     "torchtune.go validateTorchTune has neither check",
     "`torchtune-lora-multi-node-admitted`, `tests/upstream/trainer/test_plugins_torch_v2_2_1.py`"),
    ("flux_shared_memory",
     "Flux adds a Memory emptyDir mounted at /dev/shm to the node container",
     "flux.go getViewVolumes :293-310 returns spack, install and config volumes only",
     "`flux-mutations-applied`"),
    ("flux_runtime_command",
     "Flux wraps the runtime container's command when the TrainJob sets none",
     "runtime.go toPodSetContainer :157-171 copies no command, so getOriginalCommand sees the TrainJob's only",
     "`flux-runtime-command-dropped`"),
    ("flux_installer_in_pod_set",
     "the flux-installer init container goes into the PodSet (the builder writes it back)",
     "flux.go EnforceMLPolicy :190-194 appends it to the JobSet's node job directly",
     "`flux-integration`"),
    ("flux_trainjob_num_proc",
     "Flux admission checks the TrainJob's numProcPerNode first, else the runtime's",
     "flux.go Validate :112-116 checks the runtime's only",
     "`flux-trainjob-num-proc-not-checked`"),
    ("flux_cores_and_gpus",
     "Flux encodes `--cores=0-(tasks-1)` and `--gpu=0-(gpus-1)` instead of `flux R encode --local`",
     "templates/entrypoint.sh :72 encodes the host's own resources (`--local`)",
     "`flux-gpus-local-resources`"),
)

Behaviour = namedtuple("Behaviour", [name for name, *_ in SWITCHES])
Behaviour.__doc__ = "One release's row of switches (SWITCHES says what each does)."

BEHAVIOUR = {
    "v2.2.1": Behaviour(**{name: False for name, *_ in SWITCHES}),
    "v2.3.0": Behaviour(**{name: True for name, *_ in SWITCHES}),
}

# Functions that differ whole: release -> {function name -> module holding that release's function}.
VARIANTS = {
    "v2.2.1": {
        # mergeRuntimePatches at v2.2.1 merges each patch job's template into the runtime job of that
        # name (pkg/runtime/core/trainingruntime.go :205-238), not one merge over the JobSet spec.
        "merge_runtime_patches": "kpt_fn.engine.v2_2_1",
    },
    "v2.3.0": {},
}


def switch_on(behaviour: Behaviour, condition: str | None) -> bool:
    """Whether `condition` holds for a release's row: None (always), "<switch>" or "not <switch>"."""
    if condition is None:
        return True
    negated = condition.startswith("not ")
    return bool(getattr(behaviour, condition[4:] if negated else condition)) != negated
