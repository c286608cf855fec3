"""The shape of glueball's imports: no cycle between packages, the composition root imported by entry points only.

The graph is built from the source (every ``import``/``from ... import``, also inside functions
and ``TYPE_CHECKING`` blocks, since those are dependencies too); a node is a top-level package or
module of ``glueball`` (``glueball.catalog``, ``glueball.errors``, ...).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "glueball"
# entry points: the CLI, ``python -m glueball``, the demo; the composition root itself
ENTRY_POINTS = ("glueball.cli", "glueball.__main__", "glueball.demo", "glueball.app", "glueball.server")
# the service areas: the edge knows none of them, and none of them knows the edge
AREAS = ("catalog", "connections", "crawlers", "dataquality", "iam", "jobs", "objects", "recipes", "registry",
         "tagging", "usage", "workflows", "blueprints", "security", "devendpoints", "mltransforms", "logs")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, typing_too: bool = True) -> set[str]:
    """The ``glueball`` modules ``path`` imports (relative imports resolved); without ``typing_too``,
    imports inside ``if TYPE_CHECKING:`` blocks (annotations only, never executed) are left out."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    tree = ast.parse(path.read_text(), str(path))
    typing_only: set[int] = set()
    if not typing_too:
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                typing_only.update(id(inner) for inner in ast.walk(node))
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return {m for m in found if m == "glueball" or m.startswith("glueball.")}


def node_of(module: str) -> str:
    return ".".join(module.split(".")[:2])


def module_graph(typing_too: bool = True) -> dict[str, set[str]]:
    return {module_name(p): imports_of(p, typing_too) for p in ROOT.rglob("*.py")}


def executed_module_graph() -> dict[str, set[str]]:
    """Module -> the modules it imports when it runs (a package's own submodules excluded)."""
    modules = module_graph(typing_too=False)
    known = set(modules)
    graph: dict[str, set[str]] = defaultdict(set)
    for module, targets in modules.items():
        for target in targets:
            if target not in known and target.rpartition(".")[0] in known:
                target = target.rpartition(".")[0]
            if target in known and target != module and not module.startswith(target + "."):
                graph[module].add(target)
    return graph


def package_graph(modules: dict[str, set[str]]) -> dict[str, set[str]]:
    known = set(modules)
    graph: dict[str, set[str]] = defaultdict(set)
    for module, targets in modules.items():
        for target in targets:
            if target not in known and target.rpartition(".")[0] in known:
                target = target.rpartition(".")[0]  # ``from pkg.mod import name``: the module, not the name
            source, sink = node_of(module), node_of(target)
            if source != sink and sink != "glueball":
                graph[source].add(sink)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph.get(node, ())):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def path_within(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    """One cycle through ``component``, to name in the failure message."""
    start = component[0]
    members = set(component)
    trail = [start]
    seen = {start}
    node = start
    while True:
        following = sorted(s for s in graph[node] if s in members)
        back = [s for s in following if s == start]
        if back and len(trail) > 1:
            return [*trail, start]
        fresh = [s for s in following if s not in seen] or following
        node = fresh[0]
        if node in seen:
            return [*trail, node]
        trail.append(node)
        seen.add(node)


def test_the_detector_finds_a_cycle() -> None:
    graph = {"glueball.a": {"glueball.b"}, "glueball.b": {"glueball.c"}, "glueball.c": {"glueball.a"},
             "glueball.d": {"glueball.a"}}
    assert cycles(graph) == [["glueball.a", "glueball.b", "glueball.c"]]
    assert path_within(graph, ["glueball.a", "glueball.b", "glueball.c"]) == [
        "glueball.a", "glueball.b", "glueball.c", "glueball.a"]


def test_no_import_cycle_between_packages() -> None:
    graph = package_graph(module_graph())
    found = cycles(graph)
    assert not found, "import cycles between packages: " + "; ".join(
        " -> ".join(path_within(graph, component)) for component in found)


def test_only_entry_points_import_the_composition_root() -> None:
    offenders = sorted(module for module, targets in module_graph().items()
                       if "glueball.app" in targets and not module.startswith(ENTRY_POINTS))
    assert offenders == [], f"modules importing glueball.app: {offenders}"


def test_the_edge_and_the_areas_do_not_know_each_other() -> None:
    graph = package_graph(module_graph())
    areas = {f"glueball.{area}" for area in AREAS}
    assert not graph["glueball.edge"] & areas, f"the edge imports areas: {sorted(graph['glueball.edge'] & areas)}"
    knowing = sorted(area for area in areas if "glueball.edge" in graph.get(area, set()))
    assert knowing == [], f"areas importing the edge: {knowing}"
    assert "glueball.edge" not in graph.get("glueball.api", set()) and not graph.get("glueball.api", set()) & areas


def test_no_import_cycle_between_modules() -> None:
    """Within packages too (a DynamicFrame and its operations, the CLI's command groups): no module needs
    itself back, not even through an import inside a function. Typing-only imports do not count."""
    graph = executed_module_graph()
    found = cycles(graph)
    assert not found, "import cycles between modules: " + "; ".join(
        " -> ".join(path_within(graph, component)) for component in found)


# names that repeat on purpose, each with its reason; any other repeated module name fails the test
SHARED_NAMES = {
    # the per-area layout (docs/architecture.md) and package markers
    "__init__": "package", "__main__": "entry point", "area": "area layout", "models": "area layout",
    "service": "area layout", "handlers": "area layout", "store": "area layout",
    # one concept on two sides of the server/driver line, or two layers of the runtime
    "bookmarks": "jobs.bookmarks keeps them (server); runtime.bookmarks uses them (driver)",
    "errors": "glueball.errors are the API's errors; runtime.errors the script's; iam.errors and recipes.errors their "
              "services' codes",
    "choice": "runtime.ops.choice implements resolveChoice; runtime.transforms.choice is upstream's class",
    "mapping": "runtime.ops.mapping implements ApplyMapping; runtime.transforms.mapping is upstream's class",
    "base": "the base class of each package (protocols, transforms)",
    "schema": "store.schema is the tables; crawlers.classify.schema a classified file's schema",
    "formats": "runtime.io.formats reads formats; crawlers.classify.formats recognises them",
    "sampling": "streaming sampling (upstream API) and the crawler's file sampling",
    "sources": "batch sources (runtime.io) and streaming sources (runtime.streaming)",
    "logs": "a job run's logs; the crawler's log classifiers",
}


def test_module_names_do_not_collide_across_packages() -> None:
    """One module name, one meaning: ``runner``, ``engine``, ``records`` and ``paths`` each meant two or three
    different things. Names in :data:`SHARED_NAMES` repeat on purpose, each for the reason given."""
    names: dict[str, list[str]] = defaultdict(list)
    for path in ROOT.rglob("*.py"):
        names[path.stem].append(module_name(path))
    repeated = {name: sorted(found) for name, found in names.items()
                if len(found) > 1 and name not in SHARED_NAMES}
    assert not repeated, f"module names used more than once: {repeated}"
    assert {"runner", "engine", "records", "paths"}.isdisjoint(
        name for name, found in names.items() if len(found) > 1)


# declared dependencies no glueball module imports by name, with what uses them
INDIRECT = {"pandas": "PySpark's Arrow integration (mapInArrow) behind Filter and Map",
            "httptools": "uvicorn's HTTP parser, chosen by name in glueball.server.serve"}
IMPORT_NAMES = {"SQLAlchemy": "sqlalchemy", "pyspark": "pyspark", "pymysql": "pymysql", "grpcio-tools": "grpc_tools"}


def test_every_declared_dependency_is_used() -> None:
    import re
    import tomllib

    project = tomllib.loads((ROOT.parent / "pyproject.toml").read_text())["project"]
    declared = [re.split(r"[<>=\[ ;]", spec, maxsplit=1)[0] for spec in project["dependencies"]]
    imported = {target.split(".")[0] for path in [*ROOT.rglob("*.py"), *(ROOT.parent / "awsglue").rglob("*.py")]
                for target in _all_imports(path)}
    unused = [name for name in declared if name not in INDIRECT
              and IMPORT_NAMES.get(name, name.lower().replace("-", "_")) not in imported]
    assert not unused, f"declared in pyproject.toml but imported nowhere: {unused}"


def _all_imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module)
    return found
