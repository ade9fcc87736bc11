"""The package layering that keeps the Pi platform and the bench from tangling again.

- the whole package runs one way, games -> board -> table -> service -> web -> bench ->
  cli (``LAYERS``): a module imports only its own layer and those below, at the top or
  inside a function, and no modules import each other in a circle;
- ``companion.pi`` (installer, hotspot, systemd notify, pin factory, USB ports, firmware
  install) imports nothing of the game services, and its installer runs on the system's
  python3 before any venv exists;
- ``companion.bench``'s modules import each other one way only (no circle, not even
  through an import inside a function), ``figures`` at the bottom, ``run`` on top.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GAME_SERVICES = ("companion.games", "companion.table", "companion.web", "companion.service")

#: The layers, bottom first: every module of the package is in one (the longest prefix
#: that names it).  Beside the chain: the words and errors every layer uses at the
#: bottom; the Pi platform and the build guide's generators with the board they serve;
#: the journal (storage) under the table; ``companion run``'s composition root on top.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "base",
        (
            "companion",
            "companion.errors",
            "companion.inputs",
            "companion.closing",
            "companion.i18n",
            "companion.firmware",
        ),
    ),
    ("games", ("companion.games", "companion.mazes")),
    ("board", ("companion.board", "companion.pi", "companion.hardware", "companion.tunnel")),
    ("storage", ("companion.journal", "companion.writes")),
    ("table", ("companion.table",)),
    ("service", ("companion.service",)),
    ("web", ("companion.web",)),
    ("bench", ("companion.bench",)),
    ("cli", ("companion.runner", "companion.cli", "companion.__main__")),
)


def imports_of(path: Path, package: str) -> set[str]:
    """Every ``companion...`` module ``path`` imports, at the top or inside a function
    (relative imports resolved against ``package``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}
    return {name for name in found if name.startswith("companion")}


def modules(package: str) -> dict[str, Path]:
    folder = ROOT / package.replace(".", "/")
    return {
        f"{package}.{path.stem}": path for path in sorted(folder.glob("*.py"))
        if path.stem != "__init__"
    }  # fmt: skip


def circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of ``graph`` (module -> modules it imports), or None."""
    state: dict[str, str] = {}
    trail: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        trail.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return [*trail[trail.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        state[node] = "done"
        trail.pop()
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def bench_graph() -> dict[str, set[str]]:
    bench = modules("companion.bench")
    return {
        name: {other for other in imports_of(path, "companion.bench") if other in bench}
        for name, path in bench.items()
    }


def test_the_circle_finder_finds_a_circle_through_an_import_inside_a_function(tmp_path):
    """The check below can fail: the old bench's shape (bench imports bench_streams at
    the top, bench_streams imports bench inside a function) is a circle to it."""
    (tmp_path / "bench.py").write_text("from companion.bench_streams import bench_streams\n")
    (tmp_path / "bench_streams.py").write_text(
        "def bench_streams():\n    from companion.bench import Figure\n"
    )
    names = {"companion.bench", "companion.bench_streams"}
    graph = {
        f"companion.{p.stem}": imports_of(p, "companion") & names for p in tmp_path.glob("*.py")
    }
    assert circle(graph) == ["companion.bench", "companion.bench_streams", "companion.bench"]


def test_the_bench_modules_import_one_way():
    graph = bench_graph()
    assert {"companion.bench.figures", "companion.bench.clients", "companion.bench.run"} <= set(
        graph
    )
    assert circle(graph) is None
    assert graph["companion.bench.figures"] == set()  # the bottom
    assert graph["companion.bench.clients"] <= {"companion.bench.figures"}
    assert not [name for name, uses in graph.items() if "companion.bench.run" in uses]  # the top
    # The package's __init__ imports nothing, so importing one module loads no other.
    assert imports_of(ROOT / "companion/bench/__init__.py", "companion.bench") == set()


def test_each_bench_module_imports_alone_bottom_up():
    """Each module imported first in a fresh interpreter, in the order the graph gives
    (a module's imports before it): a circle would fail here with a half-built module."""
    graph, order = bench_graph(), []
    while len(order) < len(graph):
        ready = sorted(n for n in graph if n not in order and graph[n] <= set(order))
        assert ready, f"no module can come next after {order}"
        order += ready
    code = (
        "import importlib, sys\n"
        "for name in sys.argv[1:]:\n"
        "    for loaded in [m for m in sys.modules if m.startswith('companion')]:\n"
        "        del sys.modules[loaded]\n"
        "    importlib.import_module(name)\n"
        "    print('ok', name)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *order], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [word for name in order for word in ("ok", name)]


def test_the_pi_package_imports_none_of_the_game_services():
    pi = modules("companion.pi")
    assert set(pi) >= {
        f"companion.pi.{name}"
        for name in ("install", "hotspot", "notify", "pin_factory", "usb_ports", "firmware_install")
    }
    for name, path in pi.items():
        wrong = sorted(m for m in imports_of(path, "companion.pi") if m.startswith(GAME_SERVICES))
        assert not wrong, f"{name} imports {wrong}"
    # ... nor through what it imports: every module loaded, none of theirs in sys.modules.
    code = (
        "import importlib, sys\n"
        f"for name in {sorted(pi)!r}:\n"
        "    importlib.import_module(name)\n"
        f"print(sorted(m for m in sys.modules if m.startswith({GAME_SERVICES!r})))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_installer_runs_on_the_bare_system_python_at_both_addresses():
    """``sudo ./install.sh`` runs before any venv: no site-packages (``-S``).  The old
    address, ``-m companion.service.install``, is what a table installed before the move
    runs in the new version during ``install.sh update``: it reaches the same installer."""
    for module in ("companion.pi.install", "companion.service.install"):
        done = subprocess.run(
            [sys.executable, "-S", "-m", module, "--print-paths"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        assert "VENV=/opt/pyramid-companion/venv" in done.stdout.splitlines(), module
    done = subprocess.run(
        ["sh", str(ROOT / "install.sh"), "--print-paths"], capture_output=True, text=True
    )
    assert "UNIT=/etc/systemd/system/pyramid-companion.service" in done.stdout.splitlines()


def package_modules() -> dict[str, tuple[Path, str]]:
    """Every module of ``companion``: name -> (file, the package its relative imports
    start from)."""
    found = {}
    for path in sorted((ROOT / "companion").rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
            found[".".join(parts)] = (path, ".".join(parts))
        else:
            found[".".join(parts)] = (path, ".".join(parts[:-1]))
    return found


def package_graph() -> dict[str, set[str]]:
    """module -> the package's modules it imports (``from a.b import name`` is an import
    of ``a.b``, or of ``a.b.name`` where that is a module)."""
    found = package_modules()
    graph: dict[str, set[str]] = {}
    for name, (path, package) in found.items():
        uses = set()
        for target in imports_of(path, package):
            while target not in found and "." in target:
                target = target.rsplit(".", 1)[0]
            if target in found and target != name:
                uses.add(target)
        graph[name] = uses
    return graph


def layer(module: str) -> int:
    """The index in ``LAYERS`` of the layer ``module`` is in (the longest prefix)."""
    best, rank = -1, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, rank = len(prefix), index
    if rank < 0:
        raise LookupError(f"{module} is in no layer of tests/test_layers.py's LAYERS")
    return rank


def upward(graph: dict[str, set[str]]) -> list[str]:
    """Every import of ``graph`` that runs up the layers, as "importer -> imported"."""
    return sorted(
        f"{name} ({LAYERS[layer(name)][0]}) -> {used} ({LAYERS[layer(used)][0]})"
        for name, uses in graph.items()
        for used in uses
        if layer(used) > layer(name)
    )


def test_the_layer_check_finds_the_imports_that_ran_against_the_layers():
    """The shapes this package had: the composition root in the service importing the
    web and the bench, the table importing the service's journal."""
    graph = {
        "companion.service.runner": {"companion.web", "companion.bench.trace"},
        "companion.table.hub": {"companion.service.journal"},
        "companion.web.pages": {"companion.service.startup", "companion.table.hub"},
    }
    assert upward(graph) == [
        "companion.service.runner (service) -> companion.bench.trace (bench)",
        "companion.service.runner (service) -> companion.web (web)",
        "companion.table.hub (table) -> companion.service.journal (service)",
    ]
    assert circle({"companion.i18n.grammar": {"companion.i18n.message"},
                   "companion.i18n.message": {"companion.i18n.grammar"}})  # fmt: skip


def test_every_module_is_in_a_layer_and_imports_only_its_own_and_those_below():
    graph = package_graph()
    assert {"companion.runner", "companion.journal", "companion.web.pages"} <= set(graph)
    for name in graph:
        layer(name)  # a new package must be given its place in LAYERS
    assert upward(graph) == []


def test_no_modules_of_the_package_import_each_other_in_a_circle():
    """Not even through an import inside a function or a package's ``__init__``."""
    graph = package_graph()
    assert graph["companion.i18n.grammar"] == set()  # the words of cases, at the bottom
    assert circle(graph) is None
