"""Items the function does not generate go back exactly (docs/yaml.md "Pass-through"): with real kpt,
every file the function does not generate is byte for byte what `kpt fn eval --exec cat` leaves, for
every shipped package, including fixtures/packages/yaml-constructs, which uses every YAML construct
kpt keeps (quote styles, flow collections, anchors, aliases, merge keys, `True:`/`~:` keys, `0400`,
comments, CRLF, a JSON file)."""

from __future__ import annotations

import pytest

from clients import kit
from kpt_fn import yamlio

pytestmark = pytest.mark.clients

CONSTRUCTS = kit.FIXTURES / "packages" / "yaml-constructs"
PACKAGES = [kit.DEMO, *sorted((kit.FIXTURES / "examples").iterdir()), CONSTRUCTS]


def _eval(kpt, pkg, fn, tmp_path, env):
    return kit.run([kpt, "fn", "eval", pkg, "--exec", fn], cwd=tmp_path, env=env).ok()


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_files_not_generated_are_what_cat_leaves(kpt, fn, env, tmp_path, package):
    by_cat = kit.copy_tree(package, tmp_path / "cat")
    by_fn = kit.copy_tree(package, tmp_path / "fn")
    _eval(kpt, by_cat, "cat", tmp_path, env)
    _eval(kpt, by_fn, fn, tmp_path, env)
    cat_files, fn_files = kit.snapshot(by_cat), kit.snapshot(by_fn)
    generated = {f for f in fn_files if f.endswith(".generated.yaml")}
    assert generated, "the package renders nothing"
    assert sorted(set(fn_files) - generated) == sorted(cat_files)
    for name, text in cat_files.items():
        assert fn_files[name] == text, f"{name} differs from what `--exec cat` leaves"
    # Generated files are the function's own; a second run on them changes nothing at all.
    _eval(kpt, by_fn, fn, tmp_path, env)
    assert kit.snapshot(by_fn) == fn_files


def test_numbers_reach_the_jobset_as_go_clients_read_them(kpt, fn, env, tmp_path):
    pkg = kit.copy_tree(CONSTRUCTS, tmp_path / "pkg")
    _eval(kpt, pkg, fn, tmp_path, env)
    (jobset,) = yamlio.load_all((pkg / "octal-job.generated.yaml").read_text())
    job = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]
    assert job["parallelism"] == 2  # numNodes: 0x2
    pod = job["template"]["spec"]
    secret = pod["volumes"][0]["secret"]
    assert secret["defaultMode"] == 256 and secret["items"][0]["mode"] == 0x1A4  # 0400 and 0x1A4
    env_ = {e["name"]: e["value"] for e in pod["containers"][0]["env"]}
    assert env_ == {"EPOCHS": "3", "EPOCHS_COPY": "3", "TIER": "ml"}  # merge key and alias
