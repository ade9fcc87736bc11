"""The package layering that keeps the Pi platform and the bench from tangling again.

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
