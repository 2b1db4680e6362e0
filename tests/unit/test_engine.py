"""kpt_fn.engine: EngineOptions, and what admission and expand do around the plugins' checks: inactive
plugins' checks do not run, admission can be switched off for rendering, runtimePatches that the strategic
merge would turn into nonsense are refused, and bad input is reported, never raised."""

from __future__ import annotations

import pytest

from kpt_fn import upstream
from kpt_fn.engine import EngineOptions, admission, expand

from support.admission_kit import job, runtime, trainjob, errors, patch, NODE, TORCH


def test_engine_options_are_the_configs_options_by_name():
    from kpt_fn import config

    cfg = config.FunctionConfig(mpiSSHSecret="generate", trainerVersion="v2.2.1", secretSeed="x" * 16)
    opts = EngineOptions(cfg, bundle=upstream.bundle("v2.2.1"))
    assert (opts.config, opts.mpiSSHSecret, opts.admission) == (cfg, "generate", True)
    assert opts.bundle is upstream.bundle("v2.2.1")
    # The release is the bundle, the only carrier below the door: never the config's trainerVersion.
    with pytest.raises(AttributeError, match="options.bundle"):
        opts.trainerVersion  # noqa: B018
    with pytest.raises(TypeError):
        EngineOptions(cfg)  # no bundle: a forgotten pass fails, it never answers for the default release
    # Without a config, the options by name; the others are their declared defaults.
    assert EngineOptions(mpiSSHSecret="generate", trainerVersion="v2.2.1", bundle=upstream.bundle("v2.2.1"),
                         secretSeed="x" * 16) == opts
    assert all(getattr(EngineOptions(bundle=upstream.bundle("v2.3.0")), o.name) == o.default
               for o in config.OPTIONS if o.name != "trainerVersion")
    assert EngineOptions(admission=False, bundle=upstream.bundle("v2.3.0")) != EngineOptions(bundle=upstream.bundle("v2.3.0"))
    assert "x" * 16 not in repr(opts)
    with pytest.raises(TypeError):
        EngineOptions(cfg, mpiSSHSecret="reference", bundle=upstream.bundle("v2.3.0"))
    with pytest.raises(TypeError):
        EngineOptions(noSuchOption=1, bundle=upstream.bundle("v2.3.0"))
    with pytest.raises(AttributeError):
        opts.noSuchOption  # noqa: B018
    with pytest.raises(upstream.UnknownRelease):
        EngineOptions(bundle=upstream.bundle("v0.0.1"))


def test_checks_of_inactive_plugins_do_not_run():
    rt = runtime(job("node", ["node"], priority_class="x"))
    assert admission(trainjob(trainer={"env": [{"name": "PET_NNODES", "value": "1"}]}), rt, EngineOptions(bundle=upstream.bundle("v2.3.0"))) == []


def test_admission_can_be_switched_off_for_rendering():
    tj = trainjob(runtimePatches=[{"manager": "not-a-domain"}])
    assert errors(expand(tj, runtime(NODE), EngineOptions(bundle=upstream.bundle("v2.3.0"))).problems)
    assert expand(tj, runtime(NODE), EngineOptions(admission=False, bundle=upstream.bundle("v2.3.0"))).objects


# --- runtimePatches the strategic merge would turn into nonsense ------------------------------------


def test_patch_changing_volume_source_is_rejected():
    rt = runtime(job("node", ["node"], ancestor="trainer"))
    rt["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["volumes"] = [
        {"name": "data", "emptyDir": {}}]
    tj = trainjob(runtimePatches=[patch("acme.io/m", volumes=[{"name": "data", "secret": {"secretName": "s"}}])])
    assert errors(admission(tj, rt, EngineOptions(bundle=upstream.bundle("v2.3.0")))) == [(
        "spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec.template.spec"
        ".volumes[0]", 'must not change the source of runtime volume "data" (emptyDir -> secret): the merge would '
                       "keep both sources")]
    same = trainjob(runtimePatches=[patch("acme.io/m", volumes=[{"name": "data", "emptyDir": {"medium": "Memory"}}])])
    assert errors(admission(same, rt, EngineOptions(bundle=upstream.bundle("v2.3.0")))) == []


def test_patch_switching_env_to_value_from_is_rejected():
    rt = runtime(job("node", ["node", "side"], ancestor="trainer"))
    pod = rt["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    pod["containers"][1]["env"] = [{"name": "A", "value": "1"}]
    tj = trainjob(runtimePatches=[patch("acme.io/m", containers=[
        {"name": "side", "env": [{"name": "A", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]}])])
    assert [m for _, m in errors(admission(tj, rt, EngineOptions(bundle=upstream.bundle("v2.3.0"))))] == [
        'must not switch runtime env var "A" between value and valueFrom: the merge would keep both']


def test_the_project_only_patch_checks_are_recommendations():
    """No upstream webhook runs these checks (docs/fidelity.md, deliberate deviations): their rules are
    in the project's `recommendation` family, not `trainer-webhook`."""
    rt = runtime(job("node", ["node"], ancestor="trainer"))
    directive = patch("acme.io/m", **{"$patch": "replace"})
    unknown = patch("acme.io/m", containers=[{"name": "no-such-container"}])
    rules = {p.rule for p in admission(trainjob(runtimePatches=[directive, unknown]), rt, EngineOptions(bundle=upstream.bundle("v2.3.0"))) if p.severity == "error"}
    assert rules == {"recommendation/runtime-patch-directive", "recommendation/runtime-patch-target"}


def test_string_num_proc_per_node_is_a_render_error_not_a_crash():
    result = expand(trainjob(trainer={"numProcPerNode": "auto"}), runtime(NODE, ml_policy=TORCH), EngineOptions(bundle=upstream.bundle("v2.3.0")))
    assert errors(result.problems) == [("spec.trainer.numProcPerNode", "numProcPerNode must be an integer, got 'auto'")]


def test_merge_failure_is_reported_at_the_patch():
    tj = trainjob(runtimePatches=[{"manager": "acme.io/a"}, patch("acme.io/m", volumes=[{"emptyDir": {}}])])
    rt = runtime(NODE)
    rt["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["volumes"] = [
        {"name": "v", "emptyDir": {}}]
    result = expand(tj, rt, EngineOptions(admission=False, bundle=upstream.bundle("v2.3.0")))
    assert result.objects == []
    [(path, _)] = errors(result.problems)
    assert path.startswith("spec.runtimePatches[1].trainingRuntimeSpec.template.spec")


def test_malformed_input_is_reported_not_raised():
    result = expand(trainjob(trainer="three nodes"), runtime(NODE, ml_policy={}), EngineOptions(bundle=upstream.bundle("v2.3.0")))
    assert result.objects == [] and errors(result.problems)
