"""Pass-through without a client (docs/yaml.md): krm writes every input item it does not replace as
the very text it came as, and falls back to dumping where that text cannot stand alone."""

from __future__ import annotations

import pytest

from kpt_fn import yamlio
from kpt_fn.cli import krm
from support.door import run_with

HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
ITEMS = (
    "- # a head comment, as kpt writes it\n"
    "  apiVersion: v1\n"
    "  kind: ConfigMap\n"
    "  metadata: {name: a, labels: {x: \"1\"}}   # trailing\n"
    "  data:\n"
    "    t: \"true\"\n"
    "    True: upper\n"
    "    ~: tilde\n"
    "    mode: 0400\n"
    "    base: &b {k: v}\n"
    "    use: {<<: *b, j: w}\n"
    "\n"
    "# a comment between items\n"
    "- {\"apiVersion\": \"v1\", \"kind\": \"Secret\", \"metadata\": {\"name\": \"s\"}}\n"
    "- apiVersion: v1\n"
    "  kind: ConfigMap\n"
    "  metadata:\n"
    "    name: last\n"
    "  data:\n"
    "    block: |+\n"
    "      kept\n"
    "\n"
)
FC = "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: fc}\n"


def _items_text(out: str) -> str:
    return out[out.index("items:\n") + len("items:\n") : out.index("results:\n")]


def _run(text: str) -> str:
    out, _, code = krm.process(text.encode())
    assert code == 0, out
    return out


def test_items_come_back_as_their_text():
    out = _run(HEAD + ITEMS + FC)
    assert _items_text(out) == ITEMS
    assert yamlio.load(out)["items"] == yamlio.load(HEAD + ITEMS)["items"]


def test_indented_items_are_written_at_column_0():
    indented = "".join("  " + line if line.strip() else line for line in ITEMS.splitlines(True))
    out = _run(HEAD + indented + FC)
    assert _items_text(out) == ITEMS


def test_last_item_without_a_line_break():
    out = _run(HEAD + "- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}")
    assert _items_text(out) == "- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n"


def test_non_ascii_text_is_cut_by_characters():
    items = "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: é}\n  data: {ü: \"ß\"}\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: b}\n"
    assert _items_text(_run(HEAD + items + FC)) == items


@pytest.mark.parametrize(
    "items",
    [
        # an alias to another item's anchor: neither item's text stands alone
        "- &cm {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n- *cm\n",
        # a flow sequence of items
        "[{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}]\n",
    ],
)
def test_falls_back_to_dumping(items):
    text = HEAD.replace("items:\n", "items: ") + items if items.startswith("[") else HEAD + items
    out = _run(text)
    assert yamlio.load(out)["items"] == yamlio.load(text)["items"]
    assert "&cm" not in out and "{" not in _items_text(out)


def test_a_bom_falls_back_to_dumping():
    text = "\ufeff" + HEAD + ITEMS
    out, _, code = krm.process(text.encode())
    assert code == 0 and yamlio.load(out)["items"] == yamlio.load(HEAD + ITEMS)["items"]


def test_rendered_trainjob_and_replaced_objects():
    """A TrainJob passes through as text; its JobSet is generated; a stale copy of that JobSet among
    the inputs is replaced (dumped), everything around it stays text."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "fixtures" / "examples" / "first-job"
    docs = [d for f in ("runtime.yaml", "trainjob.yaml") for d in yamlio.load_all((root / f).read_text())]
    runtime = yamlio.dump([docs[0]])
    trainjob = "- # my job\n  " + yamlio.dump(docs[1]).replace("\n", "\n  ").rstrip(" ") 
    stale = "- apiVersion: jobset.x-k8s.io/v1alpha2\n  kind: JobSet\n  metadata:\n    name: first-job\n    namespace: default\n    annotations: {expand-trainjobs.fn.kpt.dev/trainjob: first-job}\n  spec: {}\n"
    other = "- {apiVersion: v1, kind: ConfigMap, metadata: {name: x}, data: {a: \"1\"}}\n"
    out = _run(HEAD + runtime + trainjob + stale + other)
    items = _items_text(out)
    assert items.startswith(runtime + trainjob) and items.endswith(other)
    assert stale not in items and "kind: JobSet" in items


def test_the_function_never_changes_an_input_item_in_place():
    """Pass-through writes an output element that *is* an input item as that item's text: sound only
    while nothing edits input items in place (the function adds and replaces)."""
    import copy

    from bench.generate import generate

    rl = generate(60)
    items = rl["items"]
    before = copy.deepcopy(items)
    outcome = run_with(items, rl.get("functionConfig"))
    assert outcome.errors == 0
    assert items == before
    out = {id(o) for o in outcome.items}
    assert all(id(i) in out for i in items)


def test_a_generated_object_ending_in_a_kept_blank_line_after_verbatim_text():
    """A `|+` scalar ending in a blank line makes the emitter close its piece with `...`; the pieces
    around it -- Verbatim text with its comments among them -- are written as they are, and the output
    reads back whole (it was once re-dumped from the start and cut at a character count that the
    Verbatim text does not share, which corrupted it)."""
    trainjob = ("- apiVersion: trainer.kubeflow.org/v1alpha1\n  kind: TrainJob\n  metadata: {name: job, namespace: ml}\n"
                "  spec:\n    runtimeRef: {name: torch-distributed}\n    trainer:\n      command:\n      - sh\n"
                "      - |+\n        echo hi\n\n")
    out = _run(HEAD + "- # verbatim, comment and all\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: keep}\n"
               + trainjob + FC)
    items = yamlio.load(out)["items"]
    assert [i["kind"] for i in items] == ["ConfigMap", "TrainJob", "JobSet"]
    assert "- # verbatim, comment and all\n" in out
    [container] = items[2]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"]
    assert container["command"] == ["sh", "echo hi\n\n"]
