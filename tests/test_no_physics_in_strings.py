"""No physics in strings (issue 29): no string constant anywhere in ``engine/`` (docstrings
aside) parses as Python statements doing arithmetic. The physics has one text, the readable
stages; the fast paths are derived from it by ``engine.specialise``, never written again in
templates. An f-string, and a ``str.format`` template, is read with each replacement field
as a name.

No file is exempt: the four-wheel fast path's last templates (the patch sliding after the
driveline solve, the engine kept from turning backwards) are derived from ``wheel.solve``'s
own functions too; what its text still holds is glue: it moves names, calls the shared
parts, counts the substep and checks that the state is finite.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARITHMETIC = (ast.BinOp, ast.AugAssign)


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of a module, its classes and functions."""
    out: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                out.add(id(value))
    return out


def _text_of(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            parts.append(v.value if isinstance(v, ast.Constant) else "N")
        return "".join(parts)
    return None


_FIELD = re.compile(r"\{\w*(?:\[\w*\])?(?:![rsa])?(?::[^{}]*)?\}")


def is_physics(text: str) -> bool:
    """``text`` parses as statements (not a lone expression) of which one does arithmetic; a
    ``str.format`` template is read with each replacement field as a name."""
    formatted = _FIELD.sub("N", text).replace("{{", "{").replace("}}", "}")
    for candidate in (text, text.strip(), formatted, formatted.strip()):
        try:
            tree = ast.parse(candidate)
        except (SyntaxError, ValueError):
            continue
        for stmt in tree.body:
            if isinstance(stmt, ast.Expr):
                continue
            if isinstance(stmt, ast.AnnAssign):  # "name: a/b" is prose (a message), not code
                if stmt.value is None:
                    continue
                stmt = stmt.value
            if any(isinstance(n, ARITHMETIC) for n in ast.walk(stmt)):
                return True
    return False


def offending_strings(path: Path) -> list[str]:
    tree = ast.parse(path.read_text("utf-8"))
    docs = _docstrings(tree)
    inner = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    found = []
    for node in ast.walk(tree):
        if id(node) in docs or id(node) in inner:
            continue
        text = _text_of(node)
        if text is not None and is_physics(text):
            found.append(text)
    return found


def test_no_string_in_the_engine_holds_arithmetic_statements() -> None:
    offenders = {}
    for path in sorted((ROOT / "engine").rglob("*.py")):
        found = offending_strings(path)
        if found:
            offenders[path.relative_to(ROOT).as_posix()] = found
    shown = {f: s[:2] for f, s in offenders.items()}
    assert not shown, f"physics written in strings: {shown}"


def test_the_check_finds_a_template_and_passes_prose() -> None:
    assert is_physics("x = a * b\n")
    assert is_physics("if v > 0.0:\n    f = 1.0 - v * k\n")
    assert is_physics("cap{i} += {rr} * fz{i}".replace("{i}", "N").replace("{rr}", "N"))
    # a str.format template, its fields unfilled (the four-wheel fast path's were)
    assert is_physics("uxn{i} = relax_x{i} * (ux{i} + {h} * ({rad} * wn{i} - v_x{i}))\n")
    assert is_physics("if slid{i}:\n    uxn{i} *= {scale!r}\n")
    assert not is_physics("a * b")  # a lone expression (a formula quoted in a message)
    assert not is_physics("initial.grade: must be within -1..1 (100 %)")
    assert not is_physics("x = 3")  # an assignment without arithmetic
    assert not is_physics("track: segments/2")  # an annotation, as a message reads


def test_an_f_string_template_is_found(tmp_path: Path) -> None:
    f = tmp_path / "m.py"
    f.write_text('def g(k):\n    """doc = a * b"""\n    return f"y = {k} * x\\n"\n', "utf-8")
    assert offending_strings(f) == ["y = N * x\n"]
