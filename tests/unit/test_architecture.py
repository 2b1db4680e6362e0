"""The package's structure, checked over the whole import graph (lazy imports inside functions
included): the four layers of docs/architecture.md ("The layers") read from the page itself, no
import cycle, the narrower rules the page names (the engine never imports a plugin, ...), the
environment read at the edge only, no module over 900 lines, and the page naming every module.

The page is the declaration: a module joins a layer by being named in its paragraph, and a test here
fails when an import goes up, or when a module or package is in no layer (or in two).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "architecture.md"


# --- the import graph --------------------------------------------------------------------------------


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
    return out


def package_graph() -> dict[str, set[str]]:
    """kpt_fn module -> the kpt_fn modules it imports anywhere (at the top or inside a function: a lazy
    import that closes a circle is still a circle). A package counts only where it is named itself,
    not as the parent of the submodule imported."""
    modules = {_module_name(p): p for p in (REPO / "kpt_fn").rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        out = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                out |= {a.name for a in node.names if a.name in modules}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([node.module] if node.module else []))
                for a in node.names:
                    if f"{base}.{a.name}" in modules:
                        out.add(f"{base}.{a.name}")
                    elif base in modules:
                        out.add(base)
        graph[name] = out - {name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    cycles = []
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done
    for start in sorted(graph):
        if state.get(start):
            continue
        path, stack = [start], [iter(sorted(graph[start]))]
        state[start] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                cycles.append(path[path.index(nxt):] + [nxt])
            elif not state.get(nxt):
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(sorted(graph[nxt])))
    return cycles


def test_no_import_cycle_in_the_package():
    assert _cycles(package_graph()) == []


def test_no_import_cycle_between_rooms():
    """Nor between the top-level modules and packages (the rooms of the layers below): two rooms of one
    layer import each other in one direction only (the Kueue profile's update checks live in
    profiles/, which the lifecycle's classification reads, never the other way round)."""
    rooms: dict[str, set[str]] = {}
    for module, imported in package_graph().items():
        here = _room(module)
        if here:
            rooms.setdefault(here, set()).update(_room(t) for t in imported if _room(t) not in ("", here))
    assert _cycles(rooms) == []


# --- the documented layers ---------------------------------------------------------------------------


def page_layers() -> dict[str, list[int]]:
    """room (a top-level module or package of kpt_fn, as the page writes it: `resolve`, `cli/`) -> the
    numbers of the layers whose paragraph names it."""
    text = PAGE.read_text()
    section = text[text.index("## The layers"):text.index("## The seams")]
    found: dict[str, list[int]] = {}
    for item in re.finditer(r"^(\d)\. \*\*.+?\*\* — (.*?)(?=^\d\. |\Z)", section, re.M | re.S):
        for name in dict.fromkeys(re.findall(r"`([a-z_0-9]+)/?`", item.group(2))):
            found.setdefault(name, []).append(int(item.group(1)))
    return found


def _room(module: str) -> str:
    """The top-level module or package of kpt_fn a module belongs to ("" for kpt_fn itself)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_the_page_puts_every_room_in_exactly_one_layer():
    layers = page_layers()
    rooms = {_room(m) for m in package_graph()} - {""}
    assert sorted(r for r in rooms if r not in layers) == [], "name it in one layer of docs/architecture.md"
    assert {r: n for r, n in layers.items() if len(n) > 1} == {}
    assert sorted(set(layers) - rooms) == [], "the page names a module that is gone"


def test_imports_go_down_the_documented_layers():
    """Every import, lazy ones included, goes to the importer's layer or one below it. kpt_fn itself
    (its `__version__`) is below every layer."""
    layers = {room: numbers[0] for room, numbers in page_layers().items()}
    up = []
    for module, imported in sorted(package_graph().items()):
        for target in sorted(imported):
            here, there = _room(module), _room(target)
            if here and there and layers.get(there, 0) < layers.get(here, 0):
                up.append(f"{module} (layer {layers[here]}) imports {target} (layer {layers[there]})")
    assert up == []


@pytest.mark.parametrize("files, forbidden", [
    ("kpt_fn/engine/*.py", "kpt_fn.plugins"),  # plugins import the engine, not the other way round
    # The engine names objects with apimachinery's syntax (kpt_fn.apimachinery), never the checks.
    ("kpt_fn/engine/*.py", "kpt_fn.validation"),
    # apimachinery is below the checks that use it.
    ("kpt_fn/apimachinery/*.py", "kpt_fn.validation"),
    # The conversion runs before the engine and knows nothing of it (GPU/CPU counts come from kpt_fn.quantity).
    ("kpt_fn/convert.py", "kpt_fn.engine"),
    # resolve finds runtimes; it does not run them.
    ("kpt_fn/resolve.py", "kpt_fn.engine"),
    # review builds data from the Outcomes the commands (kpt_fn.cli.modes) give it; formats only write data:
    # no builder of review is imported by a writer, and review writes nothing itself.
    ("kpt_fn/review/*.py", "kpt_fn.cli"),
    ("kpt_fn/review/*.py", "kpt_fn.formats"),
    ("kpt_fn/formats/*.py", "kpt_fn.cli"),
    ("kpt_fn/formats/*.py", "kpt_fn.review.report"),
    ("kpt_fn/formats/*.py", "kpt_fn.review.diff"),
    ("kpt_fn/formats/*.py", "kpt_fn.review.upgrade"),
    ("kpt_fn/formats/*.py", "kpt_fn.review.sides"),
    # The functionConfig, policy section included, is parsed without the checks that use it.
    ("kpt_fn/config.py", "kpt_fn.policy"),
    # Output placement and results know items and problems, not the config or the engine.
    ("kpt_fn/output.py", "kpt_fn.config"),
    ("kpt_fn/results.py", "kpt_fn.config"),
])
def test_no_upward_imports(files, forbidden):
    bad = {str(p.relative_to(REPO)): sorted(m for m in _imports(p) if m == forbidden or m.startswith(forbidden + "."))
           for p in REPO.glob(files)}
    assert {p: ms for p, ms in bad.items() if ms} == {}


# --- the profiles own their behaviour ----------------------------------------------------------------


def test_no_branch_on_a_profile_name_outside_the_profiles():
    """A comparison with a profile's name (`profile == "kueue"`, `cfg.profile != KUEUE`) outside
    kpt_fn/profiles/: what a profile does belongs to its class (profiles.base.Profile's hooks)."""
    from kpt_fn import config

    names = set(config.PROFILES)
    found = []
    for path in sorted((REPO / "kpt_fn").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if rel.startswith("kpt_fn/profiles/"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Compare):
                continue
            sides = [node.left, *node.comparators]
            named = any((isinstance(s, ast.Name) and "profile" in s.id.lower())
                        or (isinstance(s, ast.Attribute) and "profile" in s.attr.lower()) for s in sides)
            constant = any(isinstance(s, ast.Constant) and s.value in names for s in sides)
            kueue = any(isinstance(s, ast.Name) and s.id == "KUEUE" for s in sides)
            if named and (constant or kueue):
                found.append(f"{rel}:{node.lineno}")
    assert found == []


# --- the edge, sizes and the page --------------------------------------------------------------------


def test_environment_and_collector_only_at_the_edge():
    """The environment is read in kpt_fn/cli alone (everything else is handed `env`), and the cyclic
    collector is configured there alone (a render leaves no cycles for it: test_acyclic_render)."""
    found = []
    for path in sorted((REPO / "kpt_fn").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)):
                continue
            if node.value.id == "os" and node.attr in ("environ", "getenv", "putenv") and not rel.startswith("kpt_fn/cli/"):
                found.append(f"{rel}: os.{node.attr}")
            if node.value.id == "gc" and not rel.startswith("kpt_fn/cli/"):
                found.append(f"{rel}: gc.{node.attr}")
    assert found == []


def test_no_module_over_900_lines():
    # One job per module: past this size a module is doing several (kpt_fn/yamlio was six).
    sizes = {str(p.relative_to(REPO)): len(p.read_text().splitlines()) for p in (REPO / "kpt_fn").rglob("*.py")}
    assert {p: n for p, n in sizes.items() if n > 900} == {}


def test_the_architecture_page_names_every_module():
    # docs/architecture.md is where a newcomer finds a module's one job: a module it does not name is
    # a module nobody can find.
    text = PAGE.read_text()
    top = {p.stem for p in (REPO / "kpt_fn").glob("*.py") if p.stem != "__init__"}
    top |= {p.name + "/" for p in (REPO / "kpt_fn").iterdir() if (p / "__init__.py").is_file()}
    assert sorted(m for m in top if f"| `{m}` |" not in text) == [], "add a row to docs/architecture.md's module table"
    # ... and every module inside a package, by its path ("Inside the packages"), none that is gone
    inside = {p.relative_to(REPO / "kpt_fn").with_suffix("").as_posix() for p in (REPO / "kpt_fn").rglob("*.py")
              if p.parent != REPO / "kpt_fn" and p.stem != "__init__"}
    assert sorted(m for m in inside if f"| `{m}` |" not in text) == [], "add a row to docs/architecture.md"
    assert sorted(set(re.findall(r"^\| `([a-z0-9_]+/[a-z0-9_/]+)` \|", text, re.M)) - inside) == []
    rows = set(re.findall(r"^\| `([a-z0-9_]+/?)` \|", text, re.M)) - {"__init__"}  # kpt_fn itself
    assert sorted(rows - top) == [], "the module table names a module that is gone"
