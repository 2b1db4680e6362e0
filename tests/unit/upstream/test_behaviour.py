"""kpt_fn.upstream.behaviour: one row of named switches per Trainer release, and the rules of the
release seam held over the package's code (docs/architecture.md, "Adding a Trainer release"): no
release string compared in code, no check's problems filtered after the fact, no module reaching
into another module's private names."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from kpt_fn import upstream
from kpt_fn.upstream import behaviour
from kpt_fn.upstream.behaviour import BEHAVIOUR, SWITCHES, VARIANTS, Behaviour, switch_on

PACKAGE = Path(__file__).resolve().parents[3] / "kpt_fn"
RELEASE_LITERAL = re.compile(r"^v\d+\.\d+\.\d+$")


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path.relative_to(PACKAGE.parent).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def test_every_release_has_one_row_and_every_row_sets_every_switch():
    assert set(BEHAVIOUR) == set(upstream.RELEASES) == set(VARIANTS)
    names = [name for name, *_ in SWITCHES]
    assert len(names) == len(set(names)) and list(Behaviour._fields) == names
    for release, row in BEHAVIOUR.items():
        assert all(isinstance(value, bool) for value in row), release
    # Every switch describes what it does, where the older release differs, and what shows it.
    assert all(len(entry) == 4 and all(entry) for entry in SWITCHES)


def test_a_bundle_carries_its_releases_row_and_variants():
    for release in upstream.RELEASES:
        b = upstream.bundle(release)
        assert b.behaviour is BEHAVIOUR[release] and b.variants is VARIANTS[release]


def test_a_variant_is_the_function_of_the_named_module_else_the_callers_own():
    from kpt_fn.engine import runtime_info, v2_2_1

    merge = runtime_info.merge_runtime_patches
    assert upstream.bundle("v2.3.0").variant(merge) is merge
    assert upstream.bundle("v2.2.1").variant(merge) is v2_2_1.merge_runtime_patches
    # Every variant a row names exists, under the name of the function it replaces.
    for release, row in VARIANTS.items():
        for function, module in row.items():
            __import__(module)
            assert callable(getattr(__import__(module, fromlist=[function]), function)), (release, function)


@pytest.mark.parametrize("condition, expected", [
    (None, True), ("flux_shared_memory", True), ("not flux_shared_memory", False)])
def test_switch_on_reads_a_switch_or_its_negation(condition, expected):
    row = BEHAVIOUR["v2.3.0"]
    assert switch_on(row, condition) is expected
    assert switch_on(row._replace(flux_shared_memory=False), condition) is (expected if condition is None else not expected)


def test_every_rule_switch_names_a_switch():
    from kpt_fn import convert, engine, policy, rerun
    from kpt_fn.engine import framework
    from kpt_fn.profiles import controller, kueue_names
    from kpt_fn.validation import admitted, runtime_webhook

    for rule in [*engine.RULES, *controller.RULES, *framework.rules(), *runtime_webhook.RULES, *convert.RULES, *kueue_names.RULES,
                 *policy.RULES, *rerun.RULES, *admitted.RULES]:
        if rule.behaviour is not None:
            assert rule.behaviour.removeprefix("not ") in Behaviour._fields, rule


# --- the seam's rules, over the code ------------------------------------------------------------------


def test_no_release_string_is_compared_in_code():
    """A difference between releases is a switch of the table (bundle.behaviour.X), never
    `release == "v2.2.1"` or `release in ("v2.3.0",)`."""
    found = []
    for name, tree in _modules():
        if name.startswith("kpt_fn/upstream/"):
            continue  # where the releases are declared
        for node in ast.walk(tree):
            if not isinstance(node, ast.Compare):
                continue
            for operand in [node.left, *node.comparators]:
                for const in ast.walk(operand):
                    if isinstance(const, ast.Constant) and isinstance(const.value, str) \
                            and RELEASE_LITERAL.match(const.value):
                        found.append(f"{name}:{node.lineno}")
    assert found == [], "ask bundle.behaviour (kpt_fn/upstream/behaviour.py) instead of comparing releases"


def test_no_release_travels_as_a_string_parameter():
    """Below the command line the release is a Bundle (messages read `bundle.release`): no function
    takes a Trainer release string. kpt_fn/upstream/ makes the bundles; a JobSet release (the
    bundle's `jobset_release`) is the JobSet modules' own axis."""
    allowed = ("kpt_fn/upstream/", "kpt_fn/validation/jobset_webhook.py", "kpt_fn/lifecycle/jobset_update.py")
    found = []
    for name, tree in _modules():
        if name.startswith(allowed):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.Lambda)):
                args = node.args
                names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
                found += [f"{name}:{node.lineno}" for n in names if n in ("release", "releases", "trainer_version")
                          and not name.startswith("kpt_fn/cli/")]  # the command line's flag is a string
    assert found == []


def _names_problems(node) -> bool:
    """`problems`, `expansion.problems`, `more_problems`: a list of problems handed over by a check."""
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
    return "problem" in name.lower()


def _is_problem_filter(comp) -> bool:
    """`[p for p in <a call> if p.rule != ... / "..." not in p.message]` or the same over a list of
    problems (`for p in problems if p.rule != RULE`): the problems of a check, filtered afterwards."""
    for gen in comp.generators:
        if not isinstance(gen.target, ast.Name) or not (isinstance(gen.iter, ast.Call) or _names_problems(gen.iter)):
            continue
        var = gen.target.id
        for cond in gen.ifs:
            for compare in ast.walk(cond):
                if not isinstance(compare, ast.Compare):
                    continue
                for node in [compare.left, *compare.comparators]:  # the field itself compared
                    if isinstance(node, ast.Attribute) and node.attr in ("rule", "message") \
                            and isinstance(node.value, ast.Name) and node.value.id == var:
                        return True
    return False


@pytest.mark.parametrize("code", [
    "[p for p in check(x) if 'text' not in p.message]",
    "[p for p in problems if p.rule != RULE_DEADLINE]",             # the Kueue profile's old filter
    "(p for p in expansion.problems if p.rule not in DROPPED)",
])
def test_a_filter_of_problems_is_recognised(code):
    assert _is_problem_filter(ast.parse(code, mode="eval").body)


@pytest.mark.parametrize("code", [
    "[p for p in problems if p.severity == ERROR]",                 # by severity: what a run reports
    "[o for o in objects if o.rule != 'x']",                        # not problems
    "[p.rule for p in problems]",
])
def test_other_comprehensions_are_not_filters(code):
    assert not _is_problem_filter(ast.parse(code, mode="eval").body)


def test_no_checks_problems_are_filtered_after_the_fact():
    """A check that does not apply to a release is not run there (its switch), rather than run and
    its problems dropped by rule id or message text."""
    found = [f"{name}:{node.lineno}" for name, tree in _modules() for node in ast.walk(tree)
             if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)) and _is_problem_filter(node)]
    assert found == []


def _imported_modules(tree) -> set:
    """The local names bound to kpt_fn modules by `import` statements anywhere in a module."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.asname for a in node.names if a.name.startswith("kpt_fn") and a.asname}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("kpt_fn"):
            for a in node.names:
                try:
                    __import__(f"{node.module}.{a.name}")
                except ImportError:
                    continue  # a name, not a module
                names.add(a.asname or a.name)
    return names


def test_no_module_calls_another_modules_private_names():
    """`other._helper` or `from kpt_fn.other import _helper` couples a module to what another keeps to
    itself: make it public (and say so) or move it."""
    found = []
    for name, tree in _modules():
        modules = _imported_modules(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("kpt_fn"):
                found += [f"{name}:{node.lineno} {a.name}" for a in node.names
                          if a.name.startswith("_") and not a.name.startswith("__")]
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules \
                    and node.attr.startswith("_") and not node.attr.startswith("__"):
                found.append(f"{name}:{node.lineno} {node.value.id}.{node.attr}")
    assert found == []


def test_the_module_says_where_the_fidelity_table_comes_from():
    assert "docs/fidelity.md" in behaviour.__doc__
