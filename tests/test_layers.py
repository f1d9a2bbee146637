"""Stages depend only backwards: grammar < the foundation < compiler < resolver < planner <
executor < the drivers and tools. A module that imports from a later stage fails here, type-only
imports included (they are how a forward reach starts)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The folders as installed under `jiayu` (pyproject's package-dir), each with its rank.
FOLDERS = {
    "grammar": ("jiayu.grammar", 0),
    "compiler": ("jiayu.compiler", 2),
    "resolver": ("jiayu.resolver", 3),
    "planner": ("jiayu.planner", 4),
    "executor": ("jiayu.executor", 5),
}
FOUNDATION = {
    "jiayu.errors",
    "jiayu.text",
    "jiayu.deadline",
    "jiayu.ir",
    "jiayu.jsonfile",
    "jiayu.catalog",
    "jiayu.actions",
    "jiayu.home",
    "jiayu.preferences",
    "jiayu.result",
    "jiayu.cases",
}
TOP = 6  # jiayu's drivers and tools: engine, runtime, drivers, cli, replay, coverage, importers


def rank(module: str) -> int:
    if module in FOUNDATION or module == "jiayu":
        return 1
    for name, level in FOLDERS.values():
        if module == name or module.startswith(name + "."):
            return level
    return TOP


def modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for folder, (package, _) in FOLDERS.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            name = ".".join((package, *parts)).removesuffix(".__init__")
            found[name] = path
    for path in (ROOT / "jiayu").rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        found[".".join(parts).removesuffix(".__init__")] = path
    return found


def imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return {n for n in names if n == "jiayu" or n.startswith("jiayu.")}


def test_no_module_imports_from_a_later_stage() -> None:
    known = modules()
    forward = []
    for name, path in sorted(known.items()):
        for imported in imports(path):
            # `from jiayu.planner import clauses` names a module; `from jiayu.ir import Clause`
            # names a thing in one: judge by the longest prefix that is a module.
            target = imported if imported in known else imported.rpartition(".")[0]
            if rank(target) > rank(name):
                forward.append(f"{path.relative_to(ROOT)} imports {target}")
    assert forward == []


def test_the_check_sees_every_stage() -> None:
    known = modules()
    for package, _ in FOLDERS.values():
        assert any(m.startswith(package) for m in known)
    assert rank("jiayu.engine") == TOP and rank("jiayu.planner.turn") == 4


def test_a_forward_import_is_caught(tmp_path: Path) -> None:
    # The check must be able to fail: the resolver reaching into the executor is caught.
    reach = tmp_path / "bad.py"
    reach.write_text("from jiayu.executor.hubs import HubError\n", encoding="utf-8")
    assert rank(sorted(imports(reach))[0].rpartition(".")[0]) > rank("jiayu.resolver.resolve")
