"""The generated MB derivative equals the readable equations bit for bit.

``mb_fast`` writes ``mb.derivatives_ext`` specialised to one parameter set (constants folded,
the tires and kernels inlined, repeated subexpressions formed once) and ``mb_fast.derivatives`` runs
it; the recordings' hashes depend on every bit, so the generated body is held to the readable
one on random and special states of vehicles 1-3, its text passes the strict-float lint, and a
one-ulp change planted in it is seen.
"""

from __future__ import annotations

import math
import random
import re
import struct
from pathlib import Path

import pytest
from helpers import strict_float_lint
from skidpad.engine.commonroad import mb, mb_fast
from skidpad.engine.commonroad.params import load_vehicle
from skidpad.engine.memo import IdentityMemo

ROOT = Path(__file__).resolve().parents[1]
lint = strict_float_lint()


def outcome(fn, x, u, p=None) -> tuple:
    """The result's bits (nan as text), or the exception's type: both paths must agree on it."""
    try:
        f = fn(x, u) if p is None else fn(x, u, p)
    except (ValueError, ZeroDivisionError, OverflowError) as exc:
        return ("raised", type(exc).__name__)
    return tuple("nan" if math.isnan(v) else struct.pack("<d", v) for v in f)


def mb_state(rng: random.Random, p) -> list:
    """A state spread over every branch of the equations: low speed and reverse, wheels with
    a ground speed <= 0 (high yaw rate), locked and reversed wheel spins, zero and tiny angles
    (the kernels' small-argument paths), yaw beyond the sine table, inputs at the limits."""
    c = rng.choice
    U = rng.uniform
    vx = c(
        [
            U(0.1, 50.0),
            U(0.1, 50.0),
            U(-1.0, 0.3),
            0.1,
            0.09999999999999999,
            p.longitudinal.v_switch,
            p.longitudinal.v_max,
            U(0.1, 2.0),
        ]
    )
    small_angle = [0.0, -0.0, 3e-9, -1e-8, 2e-8, U(-0.1, 0.1), U(-0.1, 0.1)]
    r = c([0.0, U(-1.5, 1.5), U(-1.5, 1.5), U(-40.0, 40.0)])
    spin = [c([vx / p.R_w * (1.0 + U(-0.3, 0.3)), 0.0, U(-5.0, 5.0), vx / p.R_w]) for _ in range(4)]
    return [
        U(-100.0, 100.0),
        U(-100.0, 100.0),
        c([0.0, -0.0, U(-1.1, 1.1), U(-0.2, 0.2), p.steering.max, p.steering.min, 1e-9]),
        vx,
        c([0.0, U(-3.2, 3.2), U(-30.0, 30.0), -7.0, 6.25]),
        r,
        c(small_angle),
        U(-1.0, 1.0),
        U(-0.05, 0.05),
        U(-0.5, 0.5),
        c([0.0, U(-3.0, 3.0), U(-30.0, 30.0)]),
        U(-0.05, 0.05),
        U(-0.5, 0.5),
        c(small_angle),
        U(-1.0, 1.0),
        U(-3.0, 3.0),
        c([U(-0.01, 0.05), 0.0, U(-0.5, 0.5)]),
        U(-0.5, 0.5),
        c(small_angle),
        U(-1.0, 1.0),
        U(-3.0, 3.0),
        c([U(-0.01, 0.05), 0.0, U(-0.5, 0.5)]),
        U(-0.5, 0.5),
        *spin,
        U(-0.1, 0.1),
        U(-0.1, 0.1),
    ]


def mb_input(rng: random.Random) -> list:
    c = rng.choice
    return [
        c([0.0, -0.0, rng.uniform(-1.0, 1.0), 0.4, -0.4]),
        c([0.0, -0.0, rng.uniform(-15.0, 15.0), 11.5, -11.5, rng.uniform(-1.0, 1.0)]),
    ]


@pytest.mark.parametrize("vid", [1, 2, 3])
def test_generated_mb_is_the_readable_equations(vid: int) -> None:
    p = load_vehicle(vid)
    fast = mb_fast.derivatives_for(p)
    assert mb_fast.derivatives_for(p) is fast  # built once per parameter set
    rng = random.Random(f"mb-fast-{vid}")
    low = 0
    for _ in range(3000):
        x, u = mb_state(rng, p), mb_input(rng)
        assert outcome(fast, x, u) == outcome(mb.derivatives, x, u, p), (x, u)
        low += x[3] < mb.LOW_SPEED
    assert 100 < low < 1500  # both branches, the kinematic one (and reverse) and the tires'


@pytest.mark.parametrize("vid", [2])
def test_generated_mb_special_values(vid: int) -> None:
    """Non-finite and extreme slots: the same bits, nan or exception on both paths."""
    p = load_vehicle(vid)
    fast = mb_fast.derivatives_for(p)
    rng = random.Random("mb-fast-special")
    for _ in range(400):
        x, u = mb_state(rng, p), mb_input(rng)
        x[3] = rng.uniform(0.1, 40.0)
        slot = rng.randrange(29)
        x[slot] = rng.choice([math.inf, -math.inf, math.nan, 1e300, -1e300, 1e-300, -0.0])
        assert outcome(fast, x, u) == outcome(mb.derivatives, x, u, p), (slot, x, u)


def test_mb_derivatives_runs_the_generated_body() -> None:
    """``mb_fast.derivatives`` (what the daemon, replay and parity call) is the generated path."""
    p = load_vehicle(2)
    x, u = mb_state(random.Random(5), p), [0.1, 1.0]
    x[3] = 12.0
    assert outcome(mb_fast.derivatives, x, u, p) == outcome(mb.derivatives, x, u, p)
    assert mb_fast._LAST == (p, mb_fast.derivatives_for(p))


@pytest.mark.parametrize("vid", [1, 2, 3])
def test_generated_mb_passes_the_strict_lint(vid: int) -> None:
    assert lint.lint_source(mb_fast.source(load_vehicle(vid)), f"<mb of {vid}>") == []


def planted_lines(text: str) -> list[tuple[str, str]]:
    """(line, the line with its last folded number other than 0, 0.5, 1 moved by one ulp)."""
    number = re.compile(r"(?<![\w.])(\d+\.\d+(?:e[+-]?\d+)?)")
    out = []
    for line in text.splitlines():
        found = [m for m in number.finditer(line) if float(m.group(1)) not in (0.0, 0.5, 1.0)]
        if not found or line.strip().startswith(("if", "elif", "#", "_a_", "_c_")):
            continue
        m = found[-1]
        v = float(m.group(1))
        moved = repr(math.nextafter(v, math.inf))
        out.append((line, line[: m.start()] + moved + line[m.end() :]))
    return out


@pytest.mark.parametrize("target", ["tors_f = ", "sumY_ur", "F_z_RR = ", "_D_v_1 = ", "* sumL_uf"])
def test_generated_mb_planted_difference_is_caught(target: str) -> None:
    """One number in one line of the generated text moved by one ulp: the comparison above
    sees it (lines in the body, the suspension, the tire and the returned list, each copy of
    a line the kinematic branch repeats)."""
    p = load_vehicle(2)
    text = mb_fast.source(p)
    old, new = next((a, b) for a, b in planted_lines(text) if target in a)
    rng = random.Random(11)
    cases = [(mb_state(rng, p), mb_input(rng)) for _ in range(300)]
    want = [outcome(mb.derivatives, x, u, p) for x, u in cases]
    copies = text.count(old)
    assert copies >= 1
    for i in range(copies):
        at = -1
        for _ in range(i + 1):
            at = text.index(old, at + 1)
        planted = mb_fast.build(p, text[:at] + new + text[at + len(old) :])
        differ = sum(outcome(planted, x, u) != w for (x, u), w in zip(cases, want, strict=True))
        assert differ > 0, (old, i)


def test_generated_text_holds_only_numbers_and_templates() -> None:
    """Nothing but repr'd numbers varies between two vehicles' texts."""
    number = r"\(?-?[0-9][0-9.e+-]*\)?"
    texts = [re.sub(number, "N", mb_fast.source(load_vehicle(v))) for v in (1, 2, 3)]
    assert texts[0] == texts[1] == texts[2]
    assert "BMW" not in texts[0] and "Ford" not in texts[0] and "VW" not in texts[0]


def test_the_parity_check_drives_mb_on_both_paths() -> None:
    """``parity/fastpath_check`` (run in every runtime of the parity matrix) finds the paths
    equal on its MB drives, and sees a one-ulp plant in the generated body."""
    from skidpad.parity import fastpath_check

    assert fastpath_check.compare_commonroad_mb()["first_difference"] is None


def test_a_planted_mb_body_fails_the_parity_check(monkeypatch: pytest.MonkeyPatch) -> None:
    from skidpad.parity import fastpath_check

    real_build = mb_fast.build

    def planted_build(p, text=None):
        text = mb_fast.source(p)
        inv = mb.constants(p).inv_I_uf
        old = f"{inv!r} * sumL_uf"
        assert text.count(old) == 1
        return real_build(p, text.replace(old, f"{math.nextafter(inv, math.inf)!r} * sumL_uf"))

    monkeypatch.setattr(mb_fast, "build", planted_build)
    fresh = IdentityMemo(mb_fast.build_or_readable)  # nothing built before the plant
    monkeypatch.setattr(mb_fast, "derivatives_for", fresh)
    monkeypatch.setattr(mb_fast, "_LAST", (None, None))
    first = fastpath_check.compare_commonroad_mb()["first_difference"]
    assert first is not None and first["host_step"] == 0, first


def test_a_constant_without_a_literal_runs_the_readable_equations() -> None:
    """Parameters built past validation with a non-finite value have no literal to fold:
    ``mb_fast.derivatives`` then runs the readable equations (the same results, infinite ones
    included)."""
    from dataclasses import replace

    p = replace(load_vehicle(2), K_ras=math.inf)
    rng = random.Random(23)
    for _ in range(50):
        x, u = mb_state(rng, p), mb_input(rng)
        assert outcome(mb_fast.derivatives, x, u, p) == outcome(mb.derivatives, x, u, p)
