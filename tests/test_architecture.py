"""The shape of the code: layers that point one way (import-linter contracts of pyproject.toml), no import cycle
between modules (a lazy import inside a function counts too), modules and functions of a readable size."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
PACKAGE = SRC / "kernelscope"


def test_import_contracts_hold():
    """import-linter checks the [tool.importlinter] contracts of pyproject.toml (layers, forbidden imports)."""
    pytest.importorskip("importlinter", reason="import-linter is a test dependency: pip install '.[test]'")
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    assert exe, "lint-imports is not on PATH"
    run = subprocess.run([exe, str(ROOT / "pyproject.toml"), "--no-cache"], cwd=ROOT,
                         capture_output=True, text=True, env={"PYTHONPATH": str(SRC), "PATH": str(Path(exe).parent)})
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


def _module_name(path: Path) -> str:
    name = ".".join(path.relative_to(SRC).with_suffix("").parts)
    return name.removesuffix(".__init__")


def import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports (top level or inside functions), from the source."""
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    edges: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                targets = [f"{base}.{a.name}" for a in node.names] + [base]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            for t in targets:
                while t and t not in modules:
                    t = t.rpartition(".")[0]
                if t and t != name:
                    edges[name].add(t)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = [0]
    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in edges:
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle():
    # the package root imports everything (the public API); nothing below it may import it back
    edges = import_graph()
    found = cycles(edges)
    assert not found, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)
    importers_of_root = sorted(m for m, targets in edges.items() if "kernelscope" in targets and m != "kernelscope")
    assert importers_of_root == [], f"modules importing the package root: {importers_of_root}"


def test_cycle_finder_finds_a_cycle():
    """The check above can fail: a two-module loop and a three-module loop are found, a chain is not."""
    assert cycles({"a": {"b"}, "b": {"a"}, "c": set()}) == [["a", "b"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


#: Modules allowed past the size limits, each with the reason. Empty: every module and function is within them.
SIZE_EXCEPTIONS: dict[str, str] = {}
MAX_MODULE_LINES = 620
MAX_FUNCTION_LINES = 80


def test_modules_and_functions_are_of_a_readable_size():
    too_long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = str(path.relative_to(SRC))
        text = path.read_text(encoding="utf-8")
        lines = text.count("\n")
        if lines > MAX_MODULE_LINES and rel not in SIZE_EXCEPTIONS:
            too_long.append(f"{rel}: {lines} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                body = node.body[1:] if ast.get_docstring(node) else node.body  # the docstring does not count
                length = body[-1].end_lineno - body[0].lineno + 1 if body else 0
                if length > MAX_FUNCTION_LINES and f"{rel}:{node.name}" not in SIZE_EXCEPTIONS:
                    too_long.append(f"{rel}:{node.lineno} {node.name}: {length} lines")
    assert not too_long, "\n".join(too_long)
