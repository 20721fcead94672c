"""No code of the project reaches into another object's or module's private names (issue 32):
``x._name`` (one underscore, not a dunder) on anything but ``self``, ``cls``, ``super()`` or the
enclosing class; ``getattr``/``setattr``/``hasattr``/``delattr`` of such a name; and
``from module import _name``. What another object or module needs is public there (a method,
an attribute, a hook or a counter). The one exception is a library's kernel, kept on purpose
with its fallback (``audio/onset.py``: scipy's ``sosfilt`` kernel)."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("session", "rules", "vision", "audio", "calibration", "referee", "benchmarks", "fixtures")
#: a namedtuple's documented methods and fields start with an underscore
NAMEDTUPLE_API = {"_replace", "_asdict", "_fields", "_make", "_field_defaults"}
ALLOWED = {("audio/onset.py", "from scipy.signal._sosfilt import _sosfilt")}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__") and name not in NAMEDTUPLE_API


class _Finder(ast.NodeVisitor):
    def __init__(self):
        self.classes: list[str] = []
        self.found: list[tuple[int, str]] = []

    def _own(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            return node.id in ("self", "cls") or node.id in self.classes
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.classes.append(node.name)
        self.generic_visit(node)
        self.classes.pop()

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if _private(node.attr) and not self._own(node.value):
            self.found.append((node.lineno, f"{ast.unparse(node.value)}.{node.attr}"))
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        f, args = node.func, node.args
        if (isinstance(f, ast.Name) and f.id in ("getattr", "setattr", "hasattr", "delattr") and len(args) >= 2
                and isinstance(args[1], ast.Constant) and isinstance(args[1].value, str) and _private(args[1].value)
                and not self._own(args[0])):
            self.found.append((node.lineno, f"{f.id}({ast.unparse(args[0])}, {args[1].value!r})"))
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for alias in node.names:
            if _private(alias.name):
                self.found.append((node.lineno, f"from {'.' * node.level}{node.module or ''} import {alias.name}"))


def reach_ins(source: str) -> list[tuple[int, str]]:
    finder = _Finder()
    finder.visit(ast.parse(source))
    return finder.found


def test_the_finder_sees_each_kind_of_reach_in_and_not_ones_own():
    source = """
from m import _hidden
class A:
    _table = {}
    def f(self, other):
        self._x, cls_ok = 1, A._table
        super()._g()
        other._y()
        getattr(other, "_z")
        getattr(self, "_w")
        return other._replace(a=1)
"""
    assert [what for _, what in reach_ins(source)] == ["from m import _hidden", "other._y", "getattr(other, '_z')"]


def test_no_module_reaches_into_another_objects_private_names():
    offenders = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for line, what in reach_ins(path.read_text(encoding="utf-8")):
                if (rel, what) not in ALLOWED:
                    offenders.append(f"{rel}:{line}: {what}")
    assert offenders == []
