"""kpt_fn.output: placement of generated objects among the items, results, plain output."""

from __future__ import annotations

from kpt_fn import output, results
from kpt_fn.function import Rendered
from kpt_fn.problems import Problem

PATH, INDEX = "internal.config.kubernetes.io/path", "internal.config.kubernetes.io/index"
LPATH, LINDEX = "config.kubernetes.io/path", "config.kubernetes.io/index"
MARK = output.MARKER
KPT_IDS = {"internal.config.kubernetes.io/id": "7", "config.k8s.io/id": "7", "internal.config.kubernetes.io/seqindent": "compact"}


def place(items: list, rendered: list, results_out: list, namespace: str = "") -> list:
    """The output items as function.run builds them: for each TrainJob, conflicts first (error
    results and nothing placed), then its objects placed."""
    placement = output.Placement(items, namespace)
    for entry in rendered:
        problems = placement.conflicts(entry.objects)
        if problems:
            results_out.extend(results.from_problem(p, entry.origin) for p in problems)
            entry.objects = []
        placement.add(entry, results_out)
    return placement.finish(results_out)


def obj(kind, name, ns="team-a", api="v1", **annotations):
    o = {"apiVersion": api, "kind": kind, "metadata": {"name": name, "namespace": ns}}
    if annotations:
        o["metadata"]["annotations"] = dict(annotations)
    return o


def trainjob(name, path=None, index=0, **more):
    ann = {PATH: path, INDEX: str(index), LPATH: path, LINDEX: str(index), **KPT_IDS, **more} if path else more
    return obj("TrainJob", name, api="trainer.kubeflow.org/v1alpha1", **ann)


def jobset(name, ns="team-a", **ann):
    return obj("JobSet", name, ns, api="jobset.x-k8s.io/v1alpha2", **ann)


def annotations(o):
    return o["metadata"].get("annotations", {})


def test_new_objects_follow_their_trainjob_in_their_own_file():
    tj = trainjob("llama", "jobs/train.yaml", 1)
    cm, other = obj("ConfigMap", "settings"), obj("Service", "svc")
    items = [cm, tj, other]
    gen = [obj("ConfigMap", "llama-hosts"), jobset("llama")]
    results = []
    out = place(items, [Rendered(1, tj, gen)], results)
    assert [o["metadata"]["name"] for o in out] == ["settings", "llama", "llama-hosts", "llama", "svc"]
    assert out[0] is cm and out[1] is tj and out[4] is other  # inputs untouched, in order
    for i, o in enumerate(out[2:4]):
        assert annotations(o) == {
            MARK: "llama", PATH: "jobs/llama.generated.yaml", INDEX: str(i), LPATH: "jobs/llama.generated.yaml", LINDEX: str(i)
        }
    assert results == []
    assert "annotations" not in gen[0]["metadata"]  # the engine's objects are not modified


def test_no_client_annotation_of_the_trainjob_is_copied():
    tj = trainjob("llama", "train.yaml", 0, **{"kustomize.config.k8s.io/id": "x", "team": "a"})
    (placed,) = place([tj], [Rendered(0, tj, [jobset("llama")])], [])[1:]
    assert set(annotations(placed)) == {MARK, PATH, INDEX, LPATH, LINDEX}
    assert annotations(placed)[PATH] == "llama.generated.yaml"


def test_indexes_continue_after_objects_already_in_the_file():
    tj = trainjob("a", "train.yaml", 0)
    kept = obj("ConfigMap", "unrelated", **{PATH: "a.generated.yaml", INDEX: "0"})
    out = place([tj, kept], [Rendered(0, tj, [jobset("a")])], [])
    assert annotations(out[1])[INDEX] == "1"


def test_two_trainjobs_in_one_file_get_two_files():
    a, b = trainjob("a", "train.yaml", 0), trainjob("b", "train.yaml", 1)
    out = place([a, b], [Rendered(0, a, [jobset("a")]), Rendered(1, b, [jobset("b")])], [])
    assert [(o["metadata"]["name"], annotations(o).get(PATH)) for o in out] == [
        ("a", "train.yaml"), ("a", "a.generated.yaml"), ("b", "train.yaml"), ("b", "b.generated.yaml")
    ]
    assert annotations(out[1])[INDEX] == annotations(out[3])[INDEX] == "0"


def test_previous_output_is_replaced_in_place_keeping_its_annotations():
    tj = trainjob("a", "train.yaml", 0)
    previous = jobset("a", **{MARK: "a", PATH: "a.generated.yaml", INDEX: "0", LPATH: "a.generated.yaml", LINDEX: "0", **KPT_IDS})
    previous["spec"] = {"old": True}
    new = {**jobset("a"), "spec": {"new": True}}
    results = []
    out = place([tj, previous], [Rendered(0, tj, [new])], results)
    assert len(out) == 2 and out[0] is tj
    assert out[1]["spec"] == {"new": True}
    assert annotations(out[1]) == annotations(previous)
    (r,) = results
    assert r.severity == "info" and r.message.startswith("updated JobSet team-a/a rendered earlier from TrainJob team-a/a")
    assert r.file == "a.generated.yaml"

    # Same content again: replaced silently, byte-identical output.
    results = []
    again = place(out, [Rendered(0, tj, [new])], results)
    assert again == out and results == []


def test_identity_is_group_kind_namespace_name():
    tj = trainjob("a", "train.yaml", 0)
    same_name_other_ns = jobset("a", ns="team-b")
    out = place([tj, same_name_other_ns], [Rendered(0, tj, [jobset("a")])], [])
    assert len(out) == 3 and out[2] is same_name_other_ns
    # An item without a namespace is in the default namespace (Argo CD's, the config's).
    own = jobset("a", ns=None, **{MARK: "a"})
    del own["metadata"]["namespace"]
    out = place([tj, own], [Rendered(0, tj, [jobset("a")])], [], namespace="team-a")
    assert len(out) == 2 and out[1]["metadata"]["namespace"] == "team-a"


def test_config_trainjobs_and_pathless_trainjobs():
    inline = trainjob("inline")
    pathless = trainjob("pathless")
    out = place([pathless], [Rendered(None, inline, [jobset("inline")]), Rendered(0, pathless, [jobset("pathless")])], [])
    assert [o["metadata"]["name"] for o in out] == ["pathless", "pathless", "inline"]
    assert [annotations(o) for o in out[1:]] == [{MARK: "pathless"}, {MARK: "inline"}]


def test_nothing_rendered_returns_the_items():
    items = [obj("ConfigMap", "a"), "not an object"]
    assert place(items, [Rendered(None, trainjob("x"), [])], []) == items


# --- results -------------------------------------------------------------------------------------------


def test_result_names_resource_field_and_file():
    tj = trainjob("a", "jobs/train.yaml", 2)
    r = results.from_problem(Problem("must be >= 1", "spec.trainer.numNodes", rule="schema/minimum"), tj).krm()
    assert r == {
        "message": "must be >= 1 (in jobs/train.yaml)",
        "severity": "error",
        "resourceRef": {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "name": "a", "namespace": "team-a"},
        "field": {"path": "spec.trainer.numNodes"},
        "file": {"path": "jobs/train.yaml", "index": 2},
        "tags": {"rule": "schema/minimum"},
    }


def test_result_for_a_generated_object_points_at_the_trainjobs_file():
    tj = trainjob("a", "train.yaml", 0)
    r = results.from_problem(Problem("bad", "spec.x", subject=jobset("a"), severity="warning"), tj).krm()
    assert r["resourceRef"]["kind"] == "JobSet" and r["file"] == {"path": "train.yaml", "index": 0}
    assert r["severity"] == "warning"


def test_result_without_resource():
    assert results.from_problem(Problem("unknown option", "data.x")).krm() == {"message": "data.x: unknown option", "severity": "error"}
    assert results.from_problem(Problem("no path"), None).krm() == {"message": "no path", "severity": "error"}


# --- plain output --------------------------------------------------------------------------------------


def test_plain_items_drop_inputs_and_client_annotations():
    local = obj("ConfigMap", "local", **{"config.kubernetes.io/local-config": "true"})
    cfg = {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs", "metadata": {"name": "c"}}
    tj = trainjob("a", "train.yaml")
    runtime = obj("ClusterTrainingRuntime", "rt", ns=None, api="trainer.kubeflow.org/v1alpha1")
    js = jobset("a", **{PATH: "a.generated.yaml", INDEX: "0", "kustomize.config.k8s.io/id": "x", "team": "a"})
    bare = jobset("b", **{PATH: "b.generated.yaml"})
    is_config = lambda o: o.get("kind") == "ExpandTrainJobs"  # noqa: E731
    out = output.plain_items([local, cfg, tj, runtime, js, bare, "junk"], keep_trainer_inputs=False, is_config=is_config)
    assert out == [jobset("a", team="a"), jobset("b")]
    assert js["metadata"]["annotations"][PATH] == "a.generated.yaml"  # the item itself is not modified
    kept = output.plain_items([tj, runtime], keep_trainer_inputs=True)
    assert [o["kind"] for o in kept] == ["TrainJob", "ClusterTrainingRuntime"]
    assert "annotations" not in kept[0]["metadata"]


def test_stale_generated_objects_are_removed_from_the_functions_own_files_only():
    gone = jobset("gone", **{MARK: "gone", PATH: "jobs/gone.generated.yaml", INDEX: "0"})
    tj = trainjob("llama", "jobs/train.yaml", 0)
    old_hosts = obj("ConfigMap", "llama-mpi-hostfile", **{MARK: "llama", PATH: "jobs/llama.generated.yaml", INDEX: "0"})
    user_cm = obj("ConfigMap", "settings", **{PATH: "jobs/settings.yaml", INDEX: "0"})
    # Someone else's object in a *.generated.yaml file is theirs: never called stale.
    hand = obj("ConfigMap", "notes", **{PATH: "jobs/llama.generated.yaml", INDEX: "1"})
    # The function's object moved by hand into a file of the user's: kept, with a warning.
    moved = obj("ConfigMap", "llama-old", **{MARK: "llama", PATH: "jobs/mine.yaml", INDEX: "0"})
    items = [gone, tj, old_hosts, user_cm, hand, moved]
    found = []
    out = place(items, [Rendered(1, tj, [jobset("llama")])], found)
    assert gone not in out and old_hosts not in out
    assert user_cm in out and hand in out and moved in out
    messages = {r.resource["name"]: (r.severity, r.krm()) for r in found if r.severity in ("info", "warning")}
    assert messages["gone"] == ("info", {
        "message": "removed JobSet team-a/gone from jobs/gone.generated.yaml, which this function writes: "
                   "no TrainJob team-a/gone is left to generate it (in jobs/gone.generated.yaml)",
        "severity": "info", "resourceRef": messages["gone"][1]["resourceRef"],
        "file": {"path": "jobs/gone.generated.yaml", "index": 0}, "tags": {"rule": "output/stale"}})
    assert messages["llama-mpi-hostfile"][1]["message"] == (
        "removed ConfigMap team-a/llama-mpi-hostfile from jobs/llama.generated.yaml, which this function writes: "
        "TrainJob team-a/llama no longer generates it (in jobs/llama.generated.yaml)")
    assert messages["llama-old"] == ("warning", messages["llama-old"][1])
    assert messages["llama-old"][1]["message"] == (
        "stale generated object ConfigMap team-a/llama-old in jobs/mine.yaml: TrainJob team-a/llama no longer "
        "generates it; delete it from that file (a file this function does not write: it is left as it is) (in jobs/mine.yaml)")


def test_an_earlier_content_hash_run_is_replaced_in_the_right_direction():
    tj = trainjob("llama", "train.yaml", 0)
    old = jobset("llama-0123abcd", **{MARK: "llama", PATH: "llama.generated.yaml", INDEX: "0"})
    found = []
    out = place([tj, old], [Rendered(0, tj, [jobset("llama-89abcdef")])], found)
    assert [o["metadata"]["name"] for o in out] == ["llama", "llama-89abcdef"]
    assert [r.message for r in found] == [
        "replaced JobSet team-a/llama-0123abcd, rendered earlier from TrainJob team-a/llama, by JobSet "
        "team-a/llama-89abcdef: the TrainJob's content changed, and under jobSetNames: contentHash that is a new "
        "object (a new run)"]


def test_output_of_a_failed_trainjob_is_kept_silently():
    tj = trainjob("llama", "train.yaml", 0)
    previous = jobset("llama", **{MARK: "llama", PATH: "llama.generated.yaml", INDEX: "0"})
    found = []
    out = place([tj, previous], [Rendered(0, tj, [])], found)
    assert out == [tj, previous] and found == []


def test_output_all_prints_marked_trainer_inputs_but_no_other_local_config():
    lc = {"config.kubernetes.io/local-config": "true"}
    tj = trainjob("llama", "train.yaml", 0, **lc)
    kptfile = obj("Kptfile", "pkg", api="kpt.dev/v1", **lc)
    names = [o["metadata"]["name"] for o in output.plain_items([tj, kptfile, jobset("llama")], True)]
    assert names == ["llama", "llama"]
    assert [o["kind"] for o in output.plain_items([tj, kptfile, jobset("llama")], False)] == ["JobSet"]


def test_empty_plain_output_is_a_counted_error(tmp_path):
    from kpt_fn.cli import plain

    (tmp_path / "a.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations:\n"
        '    config.kubernetes.io/local-config: "true"\n'
    )
    stdout, lines, code = plain.render([], str(tmp_path), {})
    assert (stdout, code) == ("", 1)
    assert lines[0].startswith("expand-trainjobs: FAILED: 1 error(s)")
    assert plain.NOTHING_TO_APPLY in lines[1]


def test_incremental_placement_with_freeze_is_place():
    from kpt_fn import yamlio

    a, b = trainjob("a", "jobs/a.yaml"), trainjob("b", "jobs/b.yaml")
    old = jobset("a", **{MARK: "a", PATH: "jobs/a.generated.yaml", INDEX: "0"})
    stale = obj("ConfigMap", "gone", **{MARK: "b", PATH: "jobs/b.generated.yaml", INDEX: "0"})
    items = [a, old, b, stale]
    rendered = [Rendered(0, a, [{**jobset("a"), "spec": {"x": 1}}]), Rendered(2, b, [jobset("b")])]
    expected_results: list = []
    expected = place(items, rendered, expected_results)
    placement, found = output.Placement(items), []
    placed = [placement.add(r, found, yamlio.freeze) for r in rendered]
    out = placement.finish(found)
    assert all(isinstance(p, yamlio.Frozen) for ps in placed for p in ps)
    assert found == expected_results and len(found) == 2  # updated JobSet a, stale ConfigMap gone
    assert yamlio.dump({"items": out}) == yamlio.dump({"items": expected})


# --- whose objects may be replaced ---------------------------------------------------------------------


def test_a_hand_written_object_with_a_generated_identity_is_never_replaced():
    tj = trainjob("a", "train.yaml", 0)
    hand = {**jobset("a", **{PATH: "hand.yaml", INDEX: "0"}), "spec": {"mine": True}}
    items = [tj, hand]
    found = []
    out = place(items, [Rendered(0, tj, [obj("ConfigMap", "a-hosts"), jobset("a")])], found)
    assert out == items and out[1] is hand  # nothing of the TrainJob is placed, the item is untouched
    (r,) = [r.krm() for r in found]
    assert r["severity"] == "error" and r["resourceRef"]["kind"] == "TrainJob" and r["file"]["path"] == "train.yaml"
    assert "this TrainJob generates JobSet team-a/a, but JobSet team-a/a (in hand.yaml) is already defined" in r["message"]
    assert MARK in r["message"]


def test_someone_elses_item_wins_over_earlier_output_with_the_same_identity():
    tj = trainjob("a", "train.yaml", 0)
    own, hand = jobset("a", **{MARK: "a"}), jobset("a", **{PATH: "hand.yaml"})
    placement = output.Placement([tj, own, hand])
    assert len(placement.conflicts([jobset("a")])) == 1


def test_marker_is_not_read_on_trainer_inputs():
    assert output.marker_of(trainjob("a", **{MARK: "a"})) is None
    assert output.marker_of(jobset("a", **{MARK: ""})) is None
    assert output.marker_of(jobset("a", **{MARK: "a"})) == "a"


def test_duplicates_once_the_default_namespace_is_applied():
    bare = obj("ConfigMap", "settings", ns=None, **{PATH: "a.yaml"})
    del bare["metadata"]["namespace"]
    same = obj("ConfigMap", "settings", **{PATH: "b.yaml"})
    (r,) = output.duplicates([bare, same], "team-a", False)
    assert "ConfigMap team-a/settings (in b.yaml) and ConfigMap settings (in a.yaml) are the same object once namespace 'team-a' is applied" in r.message
    assert output.duplicates([bare, same], "", False) == []


# --- objects of the function's own (the review report) -------------------------------------------------


def test_own_object_replaces_its_earlier_copy_in_place_or_goes_last_at_the_next_free_index():
    report = obj("ConfigMap", "report", ns=None, **{"x/report": "markdown"})
    del report["metadata"]["namespace"]
    earlier = {**report, "data": {"old": "1"}}
    earlier["metadata"] = {**report["metadata"], "annotations": {"x/report": "json", PATH: "r.yaml", INDEX: "3"}}
    tj = trainjob("a", "a.yaml")
    placement = output.Placement([earlier, tj])
    assert placement.own(report, "x/report", "r.yaml", "report") == []
    out = placement.finish([])
    assert out[0]["metadata"]["annotations"] == {"x/report": "markdown", PATH: "r.yaml", INDEX: "3"} and out[1] is tj

    mine = obj("ConfigMap", "notes", **{PATH: "r.yaml", INDEX: "0"})
    placement = output.Placement([mine, tj])
    assert placement.own(report, "x/report", "r.yaml", "report") == []
    out = placement.finish([])
    assert out[:2] == [mine, tj] and out[2]["metadata"]["annotations"][INDEX] == "1"


def test_own_object_never_replaces_someone_elses_item():
    report = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "report"}}
    theirs = {**report, "data": {"a": "b"}}
    placement = output.Placement([theirs])
    (r,) = placement.own(report, "x/report", "r.yaml", "report")
    assert r.severity == "error" and "is not a report of this function (no x/report annotation)" in r.message
    assert placement.finish([]) == [theirs]
