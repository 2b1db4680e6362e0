"""kpt_fn.results: the one result type, its wire format, escaping, caps, and one line per required Secret."""

from __future__ import annotations

from kpt_fn import results, yamlio
from kpt_fn.cli import krm
from kpt_fn.engine import secrets
from kpt_fn.problems import Problem
from kpt_fn.results import Result
from support.door import run_with


def test_must_know_rules_are_the_secret_policy_rules():
    assert results.MUST_KNOW_RULES == {secrets.RULE_MPI_REFERENCE, secrets.RULE_FLUX_REFERENCE}
    assert results.PER_SECRET_RULES - results.MUST_KNOW_RULES == {secrets.RULE_MPI_GENERATED, secrets.RULE_FLUX_GENERATED}


def test_escape_control_characters():
    assert results.escape("a\nb\r\tc\0d\x1b[31me\x7f\x85\u2028\u202e") == "a\\nb\\r\\tc\\0d\\x1b[31me\\x7f\\x85\\u2028\\u202e"
    text = "nothing to escape: ünïcode, quotes \" and \\ stay"
    assert results.escape(text) is text


def test_krm_wire_format_and_escaping():
    r = Result("bad\nname", "warning", {"apiVersion": "v1", "kind": "ConfigMap", "name": "x\ny"}, "data[a\nb]", "f\n.yaml", 3, "r")
    r.lineno, r.column = 7, 3
    assert r.krm() == {
        # where it is in the message: kpt's console shows no result's file
        "message": "bad\\nname (in f\\n.yaml:7:3)",
        "severity": "warning",
        "resourceRef": {"apiVersion": "v1", "kind": "ConfigMap", "name": "x\\ny"},
        "field": {"path": "data[a\\nb]"},
        "file": {"path": "f\\n.yaml", "index": 3},
        "tags": {"rule": "r"},
    }


def test_location_is_compilers_form_and_a_colon_of_a_path_is_escaped():
    assert results.location("a/b.yaml", 12, 3) == "a/b.yaml:12:3"
    assert results.location("a/b.yaml") == "a/b.yaml"
    assert results.location("a/b.yaml", 12) == "a/b.yaml:12:1"
    # a name that holds a place, a finding or a runner command reads as one name
    assert results.location("::error::x.yaml:1:2: error: forged") == "\\x3a\\x3aerror\\x3a\\x3ax.yaml\\x3a1\\x3a2\\x3a error\\x3a forged"
    assert results.location("a\n.yaml", 1, 1) == "a\\n.yaml:1:1"


def test_a_name_with_a_newline_cannot_forge_a_stderr_line():
    forged = "x\nexpand-trainjobs: ok: 0 error(s), 0 warning(s)"
    data = yamlio.dump({
        "apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList",
        "items": [{"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
                   "metadata": {"name": forged, "namespace": "ml"}, "spec": {"runtimeRef": {"name": "torch-distributed"}}}],
    }).encode()
    stdout, lines, code = krm.process(data, env={})
    assert code == 1
    assert all("\n" not in line for line in lines)
    assert not any(line.startswith("expand-trainjobs: ok") for line in "\n".join(lines).splitlines())
    out = yamlio.load(stdout)
    assert all("\n" not in r["message"] and "\n" not in (r.get("resourceRef") or {}).get("name", "") for r in out["results"])


def _many(n, severity="warning"):
    return [
        Result(f"ConfigMap cm-{i} is odd (in f{i}.yaml)", severity, {"apiVersion": "v1", "kind": "ConfigMap", "name": f"cm-{i}"},
               file=f"f{i}.yaml", rule="odd")
        for i in range(n)
    ]


def test_results_of_one_kind_are_capped_and_counted():
    many = _many(1000) + [Result("other", "error")]
    kept = results.capped(many, 10)
    assert kept[:10] == many[:10]
    assert kept[10].message == "... and 990 more like this (rule odd)" and kept[10].severity == "warning"
    assert kept[11] is many[-1]
    assert results.capped(many[:10], 10) == many[:10]


def test_a_million_identical_warnings_are_capped_in_the_krm_results():
    same = [Result("the same warning", "warning")] * 1_000_000
    assert len(results.krm(same)) == results.RESULTS_PER_KIND + 1


def test_shown_on_stderr_errors_warnings_and_what_must_exist_only():
    shown = [Result("e"), Result("w", "warning"), Result("i", "info"), Result("secret", "info", rule=secrets.RULE_MPI_REFERENCE)]
    assert [r.message for r in shown if r.shown] == ["e", "w", "secret"]


def test_one_result_per_required_secret():
    tj = lambda name: {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",  # noqa: E731
                       "metadata": {"name": name, "namespace": "ml", "annotations": {"config.kubernetes.io/path": f"{name}.yaml"}}}
    shared = secrets.mpi_ssh_reference_problem("team-ssh", "ml")
    own = secrets.mpi_ssh_reference_problem("e-mpi-ssh-auth", "ml")
    found = [results.from_problem(shared, tj(n)) for n in "abcd"] + [results.from_problem(own, tj("e"))]
    merged = results.merge_per_secret(found + [Result("unrelated")])
    assert len(merged) == 3
    assert merged[0].message.endswith('(needed by 4 TrainJobs: ml/a, ml/b, ml/c and 1 more)')
    assert merged[0].file == "a.yaml" and merged[0].resource["name"] == "a"
    assert merged[1] is found[4] and merged[2].message == "unrelated"


def test_from_problem_without_a_resource():
    assert results.from_problem(Problem("x", "data.y", rule="r")).krm() == {"message": "data.y: x", "severity": "error", "tags": {"rule": "r"}}


def test_counted_results_join_their_kind_when_capped():
    made = _many(20)
    pre = results.more_like(made[-1], 1000)  # what a stage made instead of 1,000 more results
    kept = results.capped(made + [pre], 10)
    assert len(kept) == 11 and kept[10].message == "... and 1010 more like this (rule odd)" and kept[10].count == 1010
    assert sum(r.count for r in kept) == 1020
    assert results.capped(made[:5] + [pre], 10) == made[:5] + [pre]


def test_thousands_of_unmarked_trainjobs_are_counted_not_made():
    tjs = [{"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": {"name": f"t{i}", "namespace": "ml"},
            "spec": {"runtimeRef": {"name": "no-such-runtime"}}} for i in range(results.RESULTS_PER_KIND + 50)]

    outcome = run_with(tjs, None)
    unmarked = [r for r in outcome.results if "is not marked config.kubernetes.io/local-config" in r.message or r.like]
    assert len(unmarked) == results.RESULTS_PER_KIND + 1 and unmarked[-1].count == 50
    assert outcome.warnings == results.RESULTS_PER_KIND + 50


def test_every_stderr_line_the_cli_writes_is_escaped(capsys):
    import pytest

    from kpt_fn.cli import modes

    with pytest.raises(SystemExit):
        modes.finish("", ["expand-trainjobs: FAILED: internal error: KeyError: 'a\nexpand-trainjobs: ok'"], 1)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "\\nexpand-trainjobs: ok" in err


def test_escape_leaves_no_legacy_workflow_command_and_no_character_xml_or_utf8_refuses():
    from kpt_fn.results import escape

    assert escape("a ##[stop-commands]tok") == "a ##\\x5bstop-commands]tok"
    assert escape("#[x] ## [y] #") == "#[x] ## [y] #"                     # controls: no `##[`
    assert escape("bad-\udcff.yaml") == "bad-\\xff.yaml"                   # a name that is not UTF-8: its byte
    assert escape("\ud800 \udc7f") == "\\ud800 \\udc7f"                     # other lone surrogates: as they are
    assert escape("\ufffe\uffff\ufdd0\U0001fffe") == "\\ufffe\\uffff\\ufdd0\\U0001fffe"
    assert escape("é 日本 \U0001f600") == "é 日本 \U0001f600"                # controls: printable text as it is
