"""The strict-float lint: an AST check that code obeys the contract of docs/architecture.md §3.

Usage: ``python ci/strict_float_lint.py [--only RULE[,RULE]] [PATH ...]`` (default
``engine``). Every
``.py`` file under each path is parsed (never imported or run) and each
violation is printed as ``file:line:col: rule: message``; the exit status is 1
if there is any, 0 otherwise, 2 for a path that does not exist.

Rules (the rationale of each is in docs/adr/0020-strict-float-lint-rules.md):

``banned-math``     any ``math`` name but the exact ones: ``sqrt floor ceil trunc
                    copysign fabs isfinite`` and the constants ``pi e tau inf nan``.
                    ``math.sin``, ``from math import sin``, ``import math as m; m.sin``,
                    ``from math import *`` and ``getattr(math, ...)`` are all caught,
                    whether called or merely referenced.
``pow-operator``    ``**``/``**=``, ``pow()``, ``operator.pow``, ``__pow__`` unless the
                    base is an int literal and the exponent a non-negative int literal
                    (``2 ** 53``): CPython computes float powers with the C library's
                    ``pow``. Three-argument ``pow(a, b, m)`` (integers only) is allowed.
``builtin-sum``     any call of the built-in ``sum`` (its float algorithm changed in 3.12).
``set-iteration``   iterating a set or frozenset: a set literal, set comprehension,
                    ``set(...)``/``frozenset(...)``/``.union(...)`` call, set algebra
                    (also on dict views), or a name assigned one in this or an
                    enclosing scope, used as the iterable of ``for``/a comprehension, passed
                    to ``list tuple enumerate zip iter map filter next reversed dict``,
                    ``str.join``/``dict.fromkeys``/``list.extend``, or unpacked with ``*``.
                    ``sorted(...)`` fixes the order and is allowed, as are ``len`` and
                    membership tests.
``banned-import``   modules with randomness, clocks, hidden contexts or other
                    arithmetic: ``random secrets uuid time datetime calendar zoneinfo
                    statistics decimal cmath numpy threading multiprocessing concurrent
                    asyncio ctypes``, and ``os.urandom``/``os.getrandom``.
``layering``        an import of a higher layer of the project: the packages, from the
                    bottom up, are :data:`LAYERS` (``engine replay scenarios parity
                    sandbox cli``); a module may import its own package and any lower
                    one, never a higher one, also not lazily inside a function. In
                    :data:`STDLIB_ONLY` packages (``engine``, ``scenarios``: they run in
                    every runtime from a wheel with no dependencies) a third-party import
                    is a layering violation too. A file outside the project's packages
                    is held to ``engine``'s rule. ``--only layering`` checks this rule
                    alone, so the layers of the whole tree can be checked
                    (docs/adr/0161-layer-order.md).
``bare-import``     an import of a project package by its folder name (``import engine``,
                    ``from replay.verify import ...``): the one import package is
                    ``skidpad`` (``skidpad.engine``, ...). In a checkout both names would
                    load, as two copies of every module, and an error class or an
                    ``isinstance`` check would split in two (ADR 0204). ``--only
                    bare-import`` checks this alone, for tests and scripts.
``hash-id``         the built-ins ``hash()`` and ``id()``, and ``.__hash__()``:
                    string hashing is randomised per process, ids are addresses.
``complex``         ``complex(...)``, complex literals (``1j``) and ``cmath``.
``float-parse``     ``float(s)`` where ``s`` is a computed string (f-string, ``str()``,
                    ``repr()``, ``format()``, ``%``/``+`` with a string literal, a string
                    method call). ``float("inf")`` and ``float.fromhex`` are fine.
``dynamic-code``    ``eval``, ``exec``, ``compile``, ``__import__``, ``importlib`` and
                    ``getattr``/``vars``/``globals`` on a module: code the lint cannot see.
``pragma``          a malformed or unused ``# strict: allow`` pragma.

A built-in shadowed by a module-level definition or import of the same name
(``engine.smath`` defines its own ``pow``) is not the built-in and is not flagged.

Pragma: a violation on one line may be allowed with a trailing comment
``# strict: allow <rule> -- <reason>`` naming the rule and giving a reason. A
pragma without a reason, naming an unknown rule, or allowing nothing on its
line is itself a violation, so every exception stays visible and justified.
"""

from __future__ import annotations

import ast
import io
import re
import sys
import tokenize
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

#: ``math`` names whose results are exactly defined by IEEE 754 (or are constants).
MATH_ALLOWED = frozenset({
    "sqrt", "floor", "ceil", "trunc", "copysign", "fabs", "isfinite",
    "pi", "e", "tau", "inf", "nan",
})

#: modules that bring randomness, clocks, hidden global contexts, other arithmetic
#: or nondeterministic scheduling. A submodule (``concurrent.futures``) counts as its root.
BANNED_MODULES = {
    "random": "pseudo-random numbers are hidden state; pass integer seeds explicitly",
    "secrets": "randomness",
    "uuid": "random and clock-based identifiers",
    "time": "a clock; time in the engine is integer substep ticks",
    "datetime": "a clock; time in the engine is integer substep ticks",
    "calendar": "clock-related",
    "zoneinfo": "clock-related",
    "statistics": "its float algorithms differ between Python versions",
    "decimal": "a hidden global context sets its precision and rounding",
    "cmath": "complex arithmetic from the platform's libm",
    "numpy": "third-party arithmetic whose results depend on the build (SIMD, BLAS, libm)",
    "threading": "nondeterministic scheduling",
    "multiprocessing": "nondeterministic scheduling",
    "concurrent": "nondeterministic scheduling",
    "asyncio": "nondeterministic scheduling",
    "ctypes": "calls into platform C code",
}

#: attributes of otherwise allowed modules that are banned.
BANNED_ATTRS = {
    ("os", "urandom"): "banned-import",
    ("os", "getrandom"): "banned-import",
    ("operator", "pow"): "pow-operator",
    ("operator", "ipow"): "pow-operator",
    ("operator", "__pow__"): "pow-operator",
    ("operator", "__ipow__"): "pow-operator",
}

#: built-ins that consume an iterable in its iteration order.
ORDER_CONSUMERS = frozenset({"list", "tuple", "enumerate", "zip", "iter", "map", "filter",
                             "next", "reversed", "dict"})

#: str methods: a call of one of these produces a string.
STR_METHODS = frozenset({
    "format", "join", "strip", "lstrip", "rstrip", "replace", "lower", "upper", "decode",
    "removeprefix", "removesuffix", "zfill", "ljust", "rjust", "center", "casefold",
    "title", "swapcase", "expandtabs", "translate", "hex",
})

RULES = (
    "banned-math", "pow-operator", "builtin-sum", "set-iteration", "banned-import",
    "layering", "bare-import", "hash-id", "complex", "float-parse", "dynamic-code", "pragma",
)

_PRAGMA = re.compile(r"#\s*strict:\s*allow\b(?P<rest>.*)$")
_PRAGMA_BODY = re.compile(r"^\s+(?P<rule>[a-z-]+)\s+--\s+(?P<reason>\S.*)$")

_STDLIB = frozenset(sys.stdlib_module_names)

#: the project's packages from the bottom layer up (docs/architecture.md §1, ADR 0161).
LAYERS = ("engine", "replay", "scenarios", "parity", "sandbox", "cli", "skidpad")
#: the one top-level import package; the layers below it are its subpackages, and the
#: ``skidpad`` layer itself (its public API, ``skidpad/*.py``) sits above them all
TOP = "skidpad"
#: packages that may import the standard library and the project only, no third party.
STDLIB_ONLY = ("engine", "scenarios")
#: methods whose result is a set whatever they are called on.
_SET_METHODS = frozenset({"union", "intersection", "difference", "symmetric_difference"})
_SET_ANNOTATIONS = frozenset({"set", "frozenset", "Set", "FrozenSet", "AbstractSet",
                              "MutableSet"})


@dataclass(frozen=True, order=True)
class Violation:
    path: str
    line: int
    col: int
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.rule}: {self.message}"


def _is_int_literal(node: ast.AST, nonneg: bool = False) -> bool:
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    if not nonneg and isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return isinstance(node.operand, ast.Constant) and type(node.operand.value) is int
    return False


def _is_str_literal(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _is_view_call(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("keys", "items"))


def _root(module: str) -> str:
    return module.split(".", 1)[0]


def _layer_of(module: str) -> str:
    """The project layer ``module`` belongs to: ``skidpad.engine.x`` -> ``engine``, bare
    ``skidpad`` (its public API) -> ``skidpad``; else the module's root name."""
    parts = module.split(".")
    if parts[0] == TOP and len(parts) > 1 and parts[1] in LAYERS:
        return parts[1]
    return parts[0]


def package_of(path: Path) -> str | None:
    """The top-level package ``path`` belongs to (the highest folder of its chain of
    ``__init__.py`` folders), or None for a file outside any package."""
    top = None
    folder = path.resolve().parent
    while (folder / "__init__.py").is_file():
        top = folder.name
        if folder.parent == folder:
            break
        folder = folder.parent
    return top


def _layer(package: str) -> int:
    return LAYERS.index(package)


class _Checker(ast.NodeVisitor):
    def __init__(self, path: str, tree: ast.Module, package: str | None = None) -> None:
        self.path = path
        #: the layer this file's imports are judged from: a file outside the project's
        #: packages is held to engine's rule, the strictest
        self.package = package if package in LAYERS else "engine"
        self.found: list[Violation] = []
        self.math_aliases: set[str] = set()  # names bound to the math module
        self.module_aliases: dict[str, str] = {}  # local name -> module (for os, operator)
        self.shadowed = self._module_level_names(tree)
        self.set_names: list[set[str]] = [self._set_names(tree.body)]

    # ------------------------------------------------------------------ helpers
    def report(self, node: ast.AST, rule: str, message: str) -> None:
        self.found.append(Violation(self.path, getattr(node, "lineno", 1),
                                    getattr(node, "col_offset", 0) + 1, rule, message))

    @staticmethod
    def _module_level_names(tree: ast.Module) -> set[str]:
        names: set[str] = set()
        for stmt in tree.body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(stmt.name)
            elif isinstance(stmt, ast.Import | ast.ImportFrom):
                for a in stmt.names:
                    if a.name != "*":
                        names.add((a.asname or a.name).split(".")[0])
            elif isinstance(stmt, ast.Assign):
                for t in stmt.targets:
                    if isinstance(t, ast.Name):
                        names.add(t.id)
        return names

    def _builtin(self, node: ast.AST, *names: str) -> bool:
        return (isinstance(node, ast.Name) and node.id in names
                and node.id not in self.shadowed)

    @staticmethod
    def _is_set_expr_static(node: ast.AST) -> bool:
        if isinstance(node, ast.Set | ast.SetComp):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            return node.func.id in ("set", "frozenset")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            return node.func.attr in _SET_METHODS
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr | ast.BitAnd |
                                                      ast.Sub | ast.BitXor):
            # set algebra, including on dict views (d.keys() - e.keys() is a set)
            return any(_Checker._is_set_expr_static(side) or _is_view_call(side)
                       for side in (node.left, node.right))
        return False

    def _set_names(self, body: Iterable[ast.stmt]) -> set[str]:
        """Names assigned a set expression (or annotated as a set) anywhere in this scope."""
        names: set[str] = set()
        stack = list(body)
        while stack:
            node = stack.pop()
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef |
                          ast.Lambda):
                continue  # its own scope
            if isinstance(node, ast.Assign) and self._is_set_expr_static(node.value):
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                ann = node.annotation
                base = ann.value if isinstance(ann, ast.Subscript) else ann
                base_name = base.attr if isinstance(base, ast.Attribute) else getattr(
                    base, "id", None)
                if base_name in _SET_ANNOTATIONS or (
                        node.value is not None and self._is_set_expr_static(node.value)):
                    names.add(node.target.id)
            stack.extend(ast.iter_child_nodes(node))
        return names

    def _is_set_expr(self, node: ast.AST) -> bool:
        if self._is_set_expr_static(node):
            return True
        # a set bound in this scope or any enclosing one (strict: rebinding is not tracked)
        return isinstance(node, ast.Name) and any(node.id in names for names in self.set_names)

    def _is_math(self, node: ast.AST) -> bool:
        return isinstance(node, ast.Name) and node.id in self.math_aliases

    def _check_iterable(self, node: ast.AST, what: str) -> None:
        if self._is_set_expr(node):
            self.report(node, "set-iteration",
                        f"{what} iterates a set/frozenset, whose order is not fixed; "
                        "iterate a list/tuple/dict or sorted(...)")

    # ------------------------------------------------------------------ scopes
    def _visit_scope(self, node: ast.AST, body: list[ast.stmt]) -> None:
        self.set_names.append(self._set_names(body))
        self.generic_visit(node)
        self.set_names.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._visit_scope(node, node.body)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._visit_scope(node, node.body)

    # ------------------------------------------------------------------ imports
    def _check_module(self, node: ast.AST, module: str) -> bool:
        root = _root(module)
        if root in LAYERS and root != TOP:
            self.report(node, "bare-import",
                        f"import of {module}: write {TOP}.{module} (one name per module; "
                        f"a bare import loads a second copy of it)")
            return False
        root = _layer_of(module)
        if root in BANNED_MODULES:
            rule = "complex" if root == "cmath" else "banned-import"
            self.report(node, rule, f"import of {module}: {BANNED_MODULES[root]}")
            return False
        if root == "importlib":
            self.report(node, "dynamic-code", f"import of {module}: dynamic imports hide code")
            return False
        own = self.package
        if root in LAYERS:
            if _layer(root) > _layer(own):
                self.report(node, "layering",
                            f"{own} may not import {module}: {root} is a higher layer "
                            f"({' < '.join(LAYERS)})")
                return False
            return True
        if root not in _STDLIB and own in STDLIB_ONLY:
            self.report(node, "layering",
                        f"{own} may import only the standard library and the project's "
                        f"lower layers, not the third-party {module}")
            return False
        return True

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            if self._check_module(node, a.name):
                if a.name == "math":
                    self.math_aliases.add(a.asname or "math")
                elif a.asname is None:
                    self.module_aliases[_root(a.name)] = _root(a.name)
                else:
                    self.module_aliases[a.asname] = a.name

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level == 0 and node.module == TOP:
            # ``from skidpad import engine`` imports that layer; ``from skidpad import X``
            # of anything else is the public API, the top layer
            names = [a.name for a in node.names]
            layers = [f"{TOP}.{n}" for n in names if n in LAYERS]
            if len(layers) < len(names):
                layers.append(TOP)
            for module in layers:
                self._check_module(node, module)
            return
        if node.level == 0 and node.module:
            if not self._check_module(node, node.module):
                return
            for a in node.names:
                if node.module == "math":
                    if a.name == "*":
                        self.report(node, "banned-math",
                                    "from math import * brings in every libm function")
                    elif a.name not in MATH_ALLOWED:
                        self.report(node, "banned-math", self._math_msg(a.name))
                rule = BANNED_ATTRS.get((node.module, a.name))
                if rule:
                    self.report(node, rule, f"{node.module}.{a.name} is banned")
                if node.module == "os" and a.name == "*":
                    self.report(node, "banned-import", "from os import * brings in os.urandom")

    @staticmethod
    def _math_msg(name: str) -> str:
        return (f"math.{name} is not allowed: its result depends on the platform's libm "
                "(use engine.smath)")

    # ------------------------------------------------------------------ expressions
    def visit_Attribute(self, node: ast.Attribute) -> None:
        if self._is_math(node.value) and node.attr not in MATH_ALLOWED:
            self.report(node, "banned-math", self._math_msg(node.attr))
        if isinstance(node.value, ast.Name):
            module = self.module_aliases.get(node.value.id)
            rule = BANNED_ATTRS.get((module, node.attr)) if module else None
            if rule:
                self.report(node, rule, f"{module}.{node.attr} is banned")
        if node.attr in ("__pow__", "__rpow__", "__ipow__"):
            self.report(node, "pow-operator", f"{node.attr} is the ** operator")
        if node.attr == "__hash__" and isinstance(node.ctx, ast.Load):
            self.report(node, "hash-id", "__hash__ values differ between processes")
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        if isinstance(node.op, ast.Pow) and not (
                _is_int_literal(node.left) and _is_int_literal(node.right, nonneg=True)):
            self.report(node, "pow-operator",
                        "** is allowed only as int-literal ** non-negative int-literal; "
                        "a float power calls the platform's pow (use x*x, 1 << n, a hex "
                        "literal, or engine.smath.pow)")
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.op, ast.Pow):
            self.report(node, "pow-operator", "**= calls the platform's pow for floats")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, complex):
            self.report(node, "complex", "complex literals are banned")

    def visit_For(self, node: ast.For) -> None:
        self._check_iterable(node.iter, "for loop")
        self.generic_visit(node)

    visit_AsyncFor = visit_For  # type: ignore[assignment]

    def visit_comprehension(self, node: ast.comprehension) -> None:
        self._check_iterable(node.iter, "comprehension")
        self.generic_visit(node)

    def visit_Starred(self, node: ast.Starred) -> None:
        self._check_iterable(node.value, "* unpacking")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        f = node.func
        if self._builtin(f, "sum"):
            self.report(node, "builtin-sum",
                        "built-in sum() changed its float algorithm in Python 3.12; "
                        "add in an explicit loop")
        elif self._builtin(f, "pow") and len(node.args) + len(node.keywords) < 3 and not (
                len(node.args) == 2 and _is_int_literal(node.args[0])
                and _is_int_literal(node.args[1], nonneg=True)):
            self.report(node, "pow-operator", "pow() with two arguments is the ** operator")
        elif self._builtin(f, "hash", "id"):
            self.report(node, "hash-id",
                        f"{f.id}() differs between processes (hash randomisation, addresses)")
        elif self._builtin(f, "complex"):
            self.report(node, "complex", "complex numbers are banned")
        elif self._builtin(f, "eval", "exec", "compile", "__import__"):
            self.report(node, "dynamic-code", f"{f.id}() runs code the lint cannot check")
        elif self._builtin(f, "getattr", "vars") and node.args and (
                self._is_math(node.args[0]) or (isinstance(node.args[0], ast.Name)
                                                 and node.args[0].id in self.module_aliases)):
            self.report(node, "dynamic-code" if not self._is_math(node.args[0])
                        else "banned-math",
                        f"{f.id}() on a module hides which function is used")
        elif self._builtin(f, "globals"):
            self.report(node, "dynamic-code", "globals() hides which name is used")
        elif self._builtin(f, "float") and node.args and self._is_computed_str(node.args[0]):
            self.report(node, "float-parse",
                        "float() of a computed string: keep numbers as floats "
                        "(float.fromhex of a literal is fine)")
        if isinstance(f, ast.Name) and f.id in ORDER_CONSUMERS and f.id not in self.shadowed:
            for a in node.args:
                self._check_iterable(a, f"{f.id}()")
        if isinstance(f, ast.Attribute) and f.attr in ("join", "fromkeys", "extend"):
            for a in node.args:
                self._check_iterable(a, f".{f.attr}()")
        self.generic_visit(node)

    def _is_computed_str(self, node: ast.AST) -> bool:
        if _is_str_literal(node):
            return False
        if isinstance(node, ast.JoinedStr):
            return True
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Mod | ast.Mult):
            return (_is_str_literal(node.left) or _is_str_literal(node.right)
                    or self._is_computed_str(node.left) or self._is_computed_str(node.right))
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id in ("str", "repr", "format",
                                                                     "ascii", "chr"):
                return True
            if isinstance(node.func, ast.Attribute) and node.func.attr in STR_METHODS:
                return True
        if isinstance(node, ast.Subscript):  # a slice of a string literal / computed string
            return _is_str_literal(node.value) or self._is_computed_str(node.value)
        return False


def _pragmas(source: str) -> dict[int, tuple[int, str | None, str | None]]:
    """line -> (col, rule, reason) for every ``# strict: allow`` comment (None when malformed)."""
    out: dict[int, tuple[int, str | None, str | None]] = {}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return out
    for tok in tokens:
        if tok.type != tokenize.COMMENT:
            continue
        m = _PRAGMA.search(tok.string)
        if not m:
            continue
        body = _PRAGMA_BODY.match(m.group("rest"))
        line, col = tok.start[0], tok.start[1] + 1
        if body:
            out[line] = (col, body.group("rule"), body.group("reason").strip())
        else:
            out[line] = (col, None, None)
    return out


def lint_source(source: str, path: str = "<string>", package: str | None = None,
                rules: Iterable[str] | None = None) -> list[Violation]:
    """Every violation of the strict-float contract in ``source``, sorted by position.

    ``package`` is the top-level package the source belongs to (its layer; None: held to
    engine's rule); ``rules`` limits the check to those rules (pragmas for other rules are
    then neither used nor reported)."""
    wanted = set(RULES if rules is None else rules)
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as exc:
        return [Violation(path, exc.lineno or 1, (exc.offset or 0) or 1, "syntax-error",
                          str(exc.msg))]
    checker = _Checker(path, tree, package)
    checker.visit(tree)
    found = [v for v in checker.found if v.rule in wanted]
    pragmas = {line: p for line, p in _pragmas(source).items()
               if p[1] is None or p[1] in wanted or p[1] not in RULES}
    kept: list[Violation] = []
    used: set[int] = set()
    for v in found:
        p = pragmas.get(v.line)
        if p and p[1] == v.rule:
            used.add(v.line)
            continue
        kept.append(v)
    for line, (col, rule, _reason) in pragmas.items():
        if rule is None:
            kept.append(Violation(path, line, col, "pragma",
                                  "malformed pragma; write '# strict: allow <rule> -- <reason>'"))
        elif rule not in RULES:
            kept.append(Violation(path, line, col, "pragma",
                                  f"unknown rule {rule!r} (rules: {', '.join(RULES)})"))
        elif line not in used:
            kept.append(Violation(path, line, col, "pragma",
                                  f"pragma allows {rule} but this line has no such violation"))
    return sorted(set(kept))


def iter_files(paths: Iterable[str | Path]) -> Iterator[Path]:
    for p in paths:
        p = Path(p)
        if p.is_dir():
            yield from sorted(q for q in p.rglob("*.py") if "__pycache__" not in q.parts)
        elif p.is_file():
            yield p
        else:
            raise FileNotFoundError(f"no such file or directory: {p}")


def lint_paths(paths: Iterable[str | Path],
               rules: Iterable[str] | None = None) -> list[Violation]:
    """Every violation in the ``.py`` files under ``paths``, each judged from its own
    package's layer; ``rules`` as for :func:`lint_source`."""
    chosen = None if rules is None else tuple(rules)
    out: list[Violation] = []
    for f in iter_files(paths):
        out.extend(lint_source(f.read_text(encoding="utf-8"), str(f), package_of(f), chosen))
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if any(a in ("-h", "--help") for a in args):
        print(__doc__)
        return 0
    rules = None
    if args and args[0] == "--only" or args and args[0].startswith("--only="):
        value = args[0].partition("=")[2] or (args[1] if len(args) > 1 else "")
        args = args[1:] if "=" in args[0] else args[2:]
        rules = [r for r in value.split(",") if r]
        unknown = [r for r in rules if r not in RULES]
        if not rules or unknown:
            print(f"strict_float_lint: --only needs rules from: {', '.join(RULES)}",
                  file=sys.stderr)
            return 2
    paths = args or ["engine"]
    try:
        files = list(iter_files(paths))
        violations = lint_paths(files, rules)
    except FileNotFoundError as exc:
        print(f"strict_float_lint: {exc}", file=sys.stderr)
        return 2
    for v in violations:
        print(v)
    if violations:
        print(f"strict_float_lint: {len(violations)} violation(s) in {len(files)} file(s)",
              file=sys.stderr)
        return 1
    print(f"strict_float_lint: {len(files)} file(s) clean")
    return 0


if __name__ == "__main__":
    sys.exit(main())
