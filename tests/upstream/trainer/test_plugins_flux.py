"""Flux plugin helpers and script templates (upstream pkg/runtime/framework/plugins/flux/flux.go and its templates at v2.3.0).

Ported from upstream pkg/runtime/framework/plugins/flux/flux_test.go (TestGenerateRange,
TestGenerateHostlist, TestGetOriginalCommand, TestValidate) plus checks of our own templates.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from support import upstream_data

from kpt_fn.engine.info import Container, Info, PodSet, RuntimePolicy, Scheduler
from kpt_fn import upstream
from kpt_fn.engine import EngineOptions
from kpt_fn.plugins import flux

# The switches of each release (kpt_fn.upstream.behaviour), and this release's options.
V2_3_0, V2_2_1 = upstream.bundle("v2.3.0").behaviour, upstream.bundle("v2.2.1").behaviour
OPTIONS = EngineOptions(bundle=upstream.bundle("v2.3.0"))

# Upstream's templates per release, copied into the shared data (relative to the checkout, like all shared data).
TEMPLATES = Path("pkg") / "runtime" / "framework" / "plugins" / "flux" / "templates"


def _info(pod_sets=(), flux_policy=None, ml=True) -> Info:
    return Info(
        labels={},
        annotations={},
        runtime_policy=RuntimePolicy(ml_policy_source={"flux": flux_policy or {}} if ml else None),
        scheduler=Scheduler(),
        obj_apply={"replicatedJobs": []},
        pod_sets=list(pod_sets),
    )


@pytest.mark.parametrize("size, start, want", [(1, 0, "0"), (4, 0, "0-3"), (3, 10, "10-12"), (0, 0, "0--1")])
def test_generate_range(size, start, want):
    assert flux.generate_range(size, start) == want


@pytest.mark.parametrize(
    "prefix, size, want",
    [("lammps-job", 1, "lammps-job-node-0-[0]"), ("flux-cluster", 4, "flux-cluster-node-0-[0-3]"), ("", 2, "-node-0-[0-1]")],
)
def test_host_list(prefix, size, want):
    assert flux.host_list(prefix, size) == want


# TestGetOriginalCommand has the same table at v2.2.1 (tests/upstream/trainer/test_plugins_flux_v2_2_1.py
# says where v2.2.1 differs): both releases' switches run it.
@pytest.mark.parametrize("behaviour", [V2_3_0, V2_2_1], ids=["v2.3.0", "v2.2.1"])
@pytest.mark.parametrize(
    "command, args, want",
    [(["python"], ["train.py", "--epochs", "10"], "python train.py --epochs 10"),
     (["  python  "], [" script.py "], "python    script.py")],
)
def test_original_command(command, args, want, behaviour):
    tj = {"spec": {"trainer": {"image": "image", "command": command, "args": args}}}
    assert flux.original_command(_info(), tj, behaviour) == want


def test_original_command_falls_back_to_runtime_command_and_keeps_only_trainjob_args():
    ps = PodSet(name="node", ancestor="trainer", count=1, containers=[Container(name="node", command=["lmp", "-in", "in.reaxc"])])
    tj = {"spec": {"trainer": {"numNodes": 4, "args": ["-nocite"]}}}
    assert flux.original_command(_info([ps]), tj, V2_3_0) == "lmp -in in.reaxc -nocite"


def test_original_command_trims_go_whitespace_only():
    tj = {"spec": {"trainer": {"command": ["\x1ccmd\u3000"]}}}
    # U+001C is whitespace for Python's str.strip() but not for Go's strings.TrimSpace.
    assert flux.original_command(_info(), tj, V2_3_0) == "\x1ccmd"


def test_broker_settings_runtime_then_trainjob_env():
    ps = PodSet(name="node", ancestor="trainer", count=1, containers=[Container(name="node", env=[
        {"name": "FLUX_NETWORK_DEVICE", "value": "ib0"},
        {"name": "FLUX_QUEUE_POLICY", "valueFrom": {"fieldRef": {"fieldPath": "x"}}},
        {"name": "OTHER", "value": "y"},
    ])])
    tj = {"spec": {"trainer": {"env": [
        {"name": "FLUX_QUEUE_POLICY", "value": "easy"},
        {"name": "FLUX_VIEW_IMAGE", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}},
    ]}}}
    assert flux.broker_settings(_info([ps]), tj) == {
        "FLUX_VIEW_IMAGE": "", "FLUX_NETWORK_DEVICE": "ib0", "FLUX_QUEUE_POLICY": "easy"}


# --- Validate (upstream TestValidate) -------------------------------------------------------------


def test_validate_valid_when_policy_present():
    assert flux.validate(_info(), {}, OPTIONS) == []


@pytest.mark.parametrize("runtime_npn, trainjob", [(0, {}), (1, {"spec": {"trainer": {"numProcPerNode": 0}}})])
def test_validate_num_proc_per_node(runtime_npn, trainjob):
    [p] = flux.validate(_info(flux_policy={"numProcPerNode": runtime_npn}), trainjob, OPTIONS)
    assert (p.path, p.message, p.severity) == (
        "spec.trainer.numProcPerNode", "must be greater than or equal to 1 for Flux TrainJob", "error")


def test_validate_reserved_installer():
    ps = PodSet(name="node", ancestor=None, count=1, init_containers=[Container(name="flux-installer")])
    [p] = flux.validate(_info([ps]), {}, OPTIONS)
    assert (p.path, p.message) == ("spec.trainer.initContainers", "InitContainer 'flux-installer' is reserved")


# --- templates -------------------------------------------------------------------------------------

# A worked example: TrainJob lammps in hpc, 4 nodes, 2 tasks per node, no GPUs.
EXAMPLE = {
    "broker": {"bind": "tcp://eth0:%p", "connect": "tcp://%h.lammps.hpc.svc.cluster.local:%p",
               "hosts": "lammps-node-0-[0-3]", "queue_policy": "fcfs"},
    "init": {"flux_root": "/opt/view", "main_host": "lammps-0", "hosts": "lammps-node-0-[0-3]"},
    "entrypoint": {"rspec": "--cores=0-1", "main_host": "lammps-node-0-0", "flags": "-N 4 -n 8"},
}


def _ours(entrypoint: dict = EXAMPLE["entrypoint"]):
    t = flux._templates()
    broker = t["broker.toml"].render(**EXAMPLE["broker"])
    return broker, t["init.sh"].render(broker_toml=broker, **EXAMPLE["init"]), t["entrypoint.sh"].render(**entrypoint)


def test_templates_render_the_parameters():
    broker, init, entrypoint = _ours()
    assert tomllib.loads(broker) == {
        "access": {"allow-guest-user": True, "allow-root-owner": True},
        "resource": {"path": "/mnt/flux/config/etc/flux/system/R"},
        "bootstrap": {"curve_cert": "/mnt/flux/config/etc/curve/curve.cert", "default_port": 8050,
                      "default_bind": "tcp://eth0:%p", "default_connect": "tcp://%h.lammps.hpc.svc.cluster.local:%p",
                      "hosts": [{"host": "lammps-node-0-[0-3]"}]},
        "archive": {"dbpath": "/mnt/flux/config/var/lib/flux/job-archive.sqlite", "period": "1m", "busytimeout": "50s"},
        "sched-fluxion-qmanager": {"queue-policy": "fcfs"},
    }
    assert "fluxroot=/opt/view\nmainHost=lammps-0\n" in init
    assert 'hosts="lammps-node-0-[0-3]"\n' in init
    assert f"cat <<EOT >> ${{installRoot}}/etc/flux/config/broker.toml\n{broker}\nEOT\n" in init
    assert "flux R encode --hosts=${hosts} --cores=0-1 > /tmp/R\n" in entrypoint
    assert 'mainHost="lammps-node-0-0"\n' in entrypoint
    assert 'flags="-N 4 -n 8  "\n' in entrypoint
    for text in (broker, init, entrypoint):
        assert text.endswith("\n") and not text.endswith("\n\n")
        assert "Kubeflow Authors" not in text and "Apache License" not in text
    # broker.toml goes into an unquoted heredoc: nothing in it may expand.
    assert not re.search(r"[`$]", broker)


def _code_lines(text: str) -> list[str]:
    """Lines that execute or are written out: drops blank lines and comments (also TOML comments
    inside heredocs), keeps heredoc bodies, including their `#!` lines."""
    out, heredoc = [], None
    for line in text.split("\n"):
        stripped = line.strip()
        if heredoc is not None:
            if line == heredoc:
                heredoc = None
            elif not stripped or (stripped.startswith("#") and not stripped.startswith("#!")):
                continue
            out.append(line)
            continue
        if match := re.search(r"<<\s*(\w+)", line):
            heredoc = match.group(1)
        if stripped and not stripped.startswith("#"):
            out.append(line)
    return out


def _upstream(directory: str, name: str) -> str:
    path = upstream_data.UPSTREAM / directory / TEMPLATES / name
    assert path.is_file(), f"{path} is missing: the upstream Flux templates must be in ../shared"
    return path.read_text(encoding="utf-8")


def _sprintf(template: str, *args: str) -> str:
    # Go Sprintf with only %s verbs: the arguments contain %p/%h, which stay literal.
    parts = template.split("%s")
    assert len(parts) == len(args) + 1
    return parts[0] + "".join(a + p for a, p in zip(args, parts[1:]))


@pytest.mark.upstream
@pytest.mark.parametrize("directory, behaviour, entrypoint_args", [
    ("trainer", V2_3_0, ("rspec", "main_host", "flags")),
    # v2.2.1's entrypoint.sh has `--local` written in; our one template gets it from resource_spec.
    ("trainer-v2.2.1", V2_2_1, ("main_host", "flags")),
], ids=["v2.3.0", "v2.2.1"])
def test_scripts_behave_like_upstream_templates(directory, behaviour, entrypoint_args):
    """Same commands, heredoc bodies and messages as upstream's rendering; only comments differ."""
    b, i = EXAMPLE["broker"], EXAMPLE["init"]
    e = {**EXAMPLE["entrypoint"], "rspec": flux.resource_spec(2, 0, behaviour)}
    up_broker = _sprintf(_upstream(directory, "broker.toml"), b["bind"], b["connect"], b["hosts"], b["queue_policy"])
    up_init = _sprintf(_upstream(directory, "init.sh"), i["flux_root"], i["main_host"], i["hosts"], up_broker)
    up_entry = _sprintf(_upstream(directory, "entrypoint.sh"), *(e[k] for k in entrypoint_args))
    broker, init, entrypoint = _ours(e)
    assert tomllib.loads(broker) == tomllib.loads(up_broker)
    assert _code_lines(broker) == _code_lines(up_broker)
    assert _code_lines(init) == _code_lines(up_init)
    assert _code_lines(entrypoint) == _code_lines(up_entry)
    # Same trailing layout (a blank line before EOT comes from broker.toml's final newline).
    assert (init.endswith("\n"), entrypoint.endswith("\n")) == (up_init.endswith("\n"), up_entry.endswith("\n"))


def test_broker_settings_ignore_empty_runtime_values_but_not_user_ones():
    ps = PodSet(name="node", ancestor="trainer", count=1, containers=[Container(name="node", env=[
        {"name": "FLUX_NETWORK_DEVICE", "value": ""}, {"name": "FLUX_QUEUE_POLICY", "value": ""}])])
    tj = {"spec": {"trainer": {"env": [{"name": "FLUX_QUEUE_POLICY", "value": ""}]}}}
    settings = flux.broker_settings(_info([ps]), tj)
    assert settings["FLUX_NETWORK_DEVICE"] == "eth0" and settings["FLUX_QUEUE_POLICY"] == ""
