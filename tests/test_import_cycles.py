"""No module of ``scorekeeper`` imports, however indirectly, a module that imports it.

Imports are read from the source with ``ast``: every ``import`` and ``from … import``,
at the top or inside a function (an import put in a function to dodge a cycle is still
the cycle). An import names the module it loads: ``from pkg import name`` names the
submodule ``pkg.name`` when there is one, else ``pkg`` itself, whose ``__init__`` then
takes part like any module (``from .store import Store`` is an edge to
``store/__init__.py``, which imports the store's parts: one of them importing
``from . import Store`` back would be a cycle). The parent packages Python runs before
a module are not counted: every package's ``__init__`` that gathers its parts would be
a cycle with them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import scorekeeper

PACKAGE = Path(scorekeeper.__file__).resolve().parent


def modules_of(root: Path) -> dict[str, Path]:
    """Dotted module name → file, for every ``.py`` of the package at ``root``."""
    found = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> dict[str, int]:
    """The package's own modules that ``name`` imports → the line of the first import."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    edges: dict[str, int] = {}

    def add(target: str, line: int) -> None:
        if target in modules and target != name:
            edges.setdefault(target, line)

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                add(submodule if submodule in modules else source, node.lineno)
    return edges


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return groups


def import_graph(root: Path) -> dict[str, dict[str, int]]:
    modules = modules_of(root)
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def described(graph: dict[str, dict[str, int]], group: list[str]) -> str:
    return "; ".join(
        f"{a} -> {b} (line {line})"
        for a in group
        for b, line in sorted(graph[a].items())
        if b in group
    )


def test_no_module_of_scorekeeper_is_in_an_import_cycle():
    graph = import_graph(PACKAGE)
    assert "scorekeeper.store" in graph and "scorekeeper.web.tables" in graph
    found = cycles(graph)
    assert not found, "import cycles: " + " | ".join(described(graph, g) for g in found)


def test_the_web_layer_imports_neither_the_app_factory_nor_a_blueprint_of_tables():
    """Views, printing and commands reach the extensions and the shared helpers in their
    own modules, never through ``app`` (which imports every blueprint) or ``web.tables``."""
    graph = import_graph(PACKAGE)
    for name, edges in graph.items():
        if name not in ("scorekeeper", "scorekeeper.cli", "scorekeeper.server"):
            assert "scorekeeper.app" not in edges, name
        if name.startswith("scorekeeper.") and name != "scorekeeper.app":
            assert "scorekeeper.web.tables" not in edges, name


def write_package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "pkg"


def test_a_cycle_through_a_function_level_import_is_found(tmp_path):
    root = write_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from . import b\n",
            "pkg/b.py": "def late():\n    from .a import thing\n    return thing\n",
            "pkg/c.py": "from .a import b\n",
        },
    )
    graph = import_graph(root)
    assert cycles(graph) == [["pkg.a", "pkg.b"]]
    assert (
        described(graph, ["pkg.a", "pkg.b"]) == "pkg.a -> pkg.b (line 1); pkg.b -> pkg.a (line 2)"
    )


def test_a_cycle_through_a_package_init_is_found(tmp_path):
    root = write_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/store/__init__.py": "from .parts import Part\n",
            "pkg/store/parts.py": "import pkg.store.other\n",
            "pkg/store/other.py": "from pkg.store import Part\n",
        },
    )
    assert cycles(import_graph(root)) == [["pkg.store", "pkg.store.other", "pkg.store.parts"]]


def test_a_package_that_gathers_its_parts_is_no_cycle(tmp_path):
    root = write_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/store/__init__.py": "from .parts import Part\nfrom .other import Other\n",
            "pkg/store/parts.py": "from .other import Other\n",
            "pkg/store/other.py": "from .. import helpers\n",
            "pkg/helpers.py": "",
        },
    )
    assert cycles(import_graph(root)) == []


def third_party_imports(path: Path) -> set[str]:
    """The top-level names of what a module imports from outside the package."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found - {"scorekeeper"}


def reachable(graph: dict[str, dict[str, int]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(graph[name])
    return seen


WEB_LIBRARIES = {"flask", "flask_babel", "flask_htmx", "flask_wtf", "flask_limiter", "werkzeug"}


def test_the_deals_the_engines_and_the_panels_know_nothing_of_the_web():
    """A deal in progress (``scorekeeper.deals``), the rules and play states
    (``scorekeeper.games``) and the panels drawn from them (``scorekeeper.views``) reach
    neither the web layer nor Flask, however indirectly: the command line, the HTTP API
    and the screens share them as they are."""
    graph = import_graph(PACKAGE)
    modules = modules_of(PACKAGE)
    pure = [
        n
        for n in graph
        if n.startswith(("scorekeeper.deals", "scorekeeper.games", "scorekeeper.views"))
    ]
    assert "scorekeeper.deals.kvanta" in pure and "scorekeeper.games.play.pegs" in pure
    assert "scorekeeper.views.cowboy" in pure and "scorekeeper.views.fragments" in pure
    for name in pure:
        for reached in reachable(graph, name):
            assert not reached.startswith("scorekeeper.web"), (name, reached)
            assert reached not in ("scorekeeper.app", "scorekeeper.i18n"), (name, reached)
            assert not third_party_imports(modules[reached]) & WEB_LIBRARIES, (name, reached)
