"""The inlined fast kernels (engine.smath.inline) give the bits of the functions they copy."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

import pytest

from engine.floatbits import bits_float, float_bits
from engine.smath import inline
from engine.smath.trig import atan_fast, cos_fast, sin_fast

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location(
    "strict_float_lint", ROOT / "ci/strict_float_lint.py"
)
lint = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("strict_float_lint", lint)
_spec.loader.exec_module(lint)

SPECIAL = [
    0.0, -0.0, 5e-324, -5e-324, 7.450580596923828e-09, 7.4505805969238e-09, 1.4901161193847656e-08,
    1e-8, 0.00390625, 0.5, 1.0, -1.0, 1.0000000000000002, 0.9999999999999999, 6.25,
    6.249999999999999, -6.25, 3.0, 1.5707963267948966, 1.152921504606847e18, 1.2e18, 1e300,
    float("inf"), float("-inf"), float("nan"),
]


def _compile(lines: list[str]):
    text = "def f(x):\n" + "".join(f"    {line}\n" for line in lines) + "    return y\n"
    names = inline.namespace()
    exec(compile(text, "<inline test>", "exec"), names)  # strict: allow dynamic-code -- test
    return names["f"]


def _arguments(nonneg: bool) -> list[float]:
    rng = random.Random(20261202)
    xs = list(SPECIAL)
    for _ in range(4000):
        xs.append(rng.uniform(-8.0, 8.0))
        xs.append(rng.uniform(-1.0, 1.0))
        xs.append(2.0 ** rng.uniform(-40.0, 70.0) * rng.choice((-1.0, 1.0)))
        xs.append(bits_float(rng.getrandbits(64)))
    return [x for x in xs if not nonneg or not x < 0.0]


def _outcome(fn, x: float) -> object:
    try:
        y = fn(x)
    except ValueError as exc:  # sin and cos of an infinity
        return str(exc)
    return "nan" if y != y else float_bits(y)


CASES = [
    ("atan", atan_fast, lambda: inline.atan_fast_lines("y", "x"), False),
    ("atan nonneg", atan_fast, lambda: inline.atan_fast_lines("y", "x", nonneg=True), True),
    ("sin", sin_fast, lambda: inline.sin_fast_lines("y", "x"), False),
    ("sin nonneg", sin_fast, lambda: inline.sin_fast_lines("y", "x", nonneg=True), True),
    ("cos", cos_fast, lambda: inline.cos_fast_lines("y", "x"), False),
]


@pytest.mark.parametrize(("name", "fn", "lines", "nonneg"), CASES, ids=[c[0] for c in CASES])
def test_inlined_kernel_gives_the_functions_bits(name, fn, lines, nonneg) -> None:
    inlined = _compile(lines())
    wrong = [x for x in _arguments(nonneg) if _outcome(inlined, x) != _outcome(fn, x)]
    assert not wrong, f"{name}: inlined text differs from the function at {wrong[:5]}"


def test_a_one_ulp_change_of_the_table_value_is_caught() -> None:
    text = inline.atan_fast_lines("y", "x")
    planted = [line.replace("_s = _ah + (", "_s = _ah * 1.0000000000000002 + (") for line in text]
    assert planted != text
    inlined = _compile(planted)
    assert any(_outcome(inlined, x) != _outcome(atan_fast, x) for x in _arguments(False))


def test_inlined_text_passes_the_strict_float_lint() -> None:
    for _, _, lines, _ in CASES:
        text = "def f(x):\n" + "".join(f"    {line}\n" for line in lines()) + "    return y\n"
        assert lint.lint_source(text, "<inline>") == []
