"""The math self-test (engine/smath/selftest.py) and ``skidpad selftest``.

See docs/architecture.md §3 and §7.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from skidpad.cli import main as cli
from skidpad.engine import smath
from skidpad.engine.floatbits import float_bits
from skidpad.engine.smath import selftest
from skidpad.engine.state import hash_bytes

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "hashes" / "math.json"


# ----------------------------------------------------------------- the battery

def test_battery_is_deterministic_and_fresh_processes_agree():
    b = selftest.battery()
    assert b == selftest.battery()
    here = selftest.selftest_hash()
    code = "from skidpad.engine.smath.selftest import selftest_hash; print(selftest_hash())"
    for seed in ("0", "12345"):  # string hashing randomised differently: must not matter
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env=env, cwd=ROOT, check=True).stdout.strip()
        assert out == here


def test_battery_visits_every_function_in_order():
    b = selftest.battery()
    order = []
    for name, args in b:
        if not order or order[-1] != name:
            order.append(name)
        assert len(args) == smath.FUNCTIONS[name][1]
    assert order == list(smath.FUNCTIONS), "each function once, as one block, in FUNCTIONS order"
    for name in smath.FUNCTIONS:
        assert sum(1 for n, _ in b if n == name) >= selftest.POINTS_PER_FUNCTION + 19


@pytest.mark.parametrize("name", list(smath.FUNCTIONS))
def test_battery_has_edge_cases_and_spread(name):
    pts = [args for n, args in selftest.battery() if n == name]
    firsts = [a[0] for a in pts]
    got_bits = {float_bits(x) for x in firsts}
    for special in (0.0, -0.0, math.inf, -math.inf, 5e-324, 1.7976931348623157e308):
        assert float_bits(special) in got_bits, f"{name}: edge case {special!r} missing"
    assert any(math.isnan(x) for x in firsts)
    subnormal = [x for x in firsts if x != 0.0 and abs(x) < 2.2250738585072014e-308]
    assert len(subnormal) >= 30, f"{name}: too few subnormals"
    exps = {math.frexp(x)[1] for x in firsts if x != 0.0 and math.isfinite(x)}
    assert len(exps) >= 100, f"{name}: inputs span only {len(exps)} binades"
    assert len(set(pts)) >= 0.9 * selftest.POINTS_PER_FUNCTION


def test_trig_battery_has_huge_and_near_half_pi_arguments():
    xs = [a[0] for n, a in selftest.battery() if n == "sin"]
    assert sum(1 for x in xs if math.isfinite(x) and abs(x) > 1e300) >= 5
    near = [x for x in xs if math.isfinite(x) and 1.0 < abs(x) < 1e12
            and abs(math.remainder(x, math.pi / 2)) < 1e-6]
    assert len(near) >= 20


def test_generated_points_are_in_the_domain():
    # edge cases may raise on purpose; the generated points should exercise the numerics
    per = {}
    for name, args in selftest.battery():
        per.setdefault(name, []).append(args)
    for name, pts in per.items():
        generated = pts[-selftest.POINTS_PER_FUNCTION:]
        outside = [a for a in generated if not selftest._in_domain(name, a)]
        assert len(outside) <= 2, (name, outside[:3])


# ----------------------------------------------------------------- results and hash

def test_results_are_little_endian_binary64_in_battery_order():
    b = selftest.battery()
    res = selftest.selftest_results()
    assert len(res) == 8 * len(b)
    assert selftest.selftest_hash() == hash_bytes(res)
    for i in (0, 1, 500, len(b) - 1):
        name, args = b[i]
        try:
            y = smath.FUNCTIONS[name][0](*args)
        except ValueError:
            assert res[8 * i:8 * i + 8] == struct.pack("<Q", selftest.EXCEPTION_BITS[ValueError])
            continue
        except OverflowError:
            assert res[8 * i:8 * i + 8] == struct.pack("<Q",
                                                       selftest.EXCEPTION_BITS[OverflowError])
            continue
        want = struct.pack("<d", y) if y == y else struct.pack("<Q", 0x7FF8000000000000)
        assert res[8 * i:8 * i + 8] == want


def test_a_one_bit_change_in_any_result_changes_the_hash():
    res = bytearray(selftest.selftest_results())
    base = hash_bytes(bytes(res))
    n = len(res) // 8
    for i in list(range(0, n, 97)) + [n - 1]:
        for bit in range(64):
            res[8 * i + bit // 8] ^= 1 << (bit % 8)
            assert hash_bytes(bytes(res)) != base, (i, bit)
            res[8 * i + bit // 8] ^= 1 << (bit % 8)


def test_one_ulp_in_one_function_changes_the_selftest_hash(monkeypatch):
    base = selftest.selftest_hash()
    fn, arity = smath.FUNCTIONS["cbrt"]

    def off_by_one_ulp(x):
        y = fn(x)
        return math.nextafter(y, math.inf) if x == 27.0 else y

    monkeypatch.setitem(smath.FUNCTIONS, "cbrt", (off_by_one_ulp, arity))
    assert selftest.selftest_hash() != base


def test_exceptions_and_nans_are_packed_as_documented(monkeypatch):
    b = selftest.battery()
    i = next(k for k, (n, a) in enumerate(b) if n == "atan" and a == (1.0,))
    j = next(k for k, (n, a) in enumerate(b) if n == "atan" and a == (-1.0,))
    fn, arity = smath.FUNCTIONS["atan"]

    def odd_atan(x):
        if x == 1.0:
            raise ValueError("math domain error")
        if x == -1.0:
            return struct.unpack("<d", struct.pack("<Q", 0xFFF8000000000123))[0]  # odd NaN
        return fn(x)

    monkeypatch.setitem(smath.FUNCTIONS, "atan", (odd_atan, arity))
    res = selftest.selftest_results()
    assert res[8 * i:8 * i + 8] == struct.pack("<Q", 0x7FF80000000DEAD1)
    assert res[8 * j:8 * j + 8] == struct.pack("<Q", 0x7FF8000000000000)

    def not_a_float(x):
        return 1

    monkeypatch.setitem(smath.FUNCTIONS, "atan", (not_a_float, arity))
    with pytest.raises(TypeError, match="not float"):
        selftest.selftest_results()


def test_selftest_module_obeys_the_strict_float_contract():
    spec = importlib.util.spec_from_file_location("sfl", ROOT / "ci" / "strict_float_lint.py")
    lint = importlib.util.module_from_spec(spec)
    sys.modules["sfl"] = lint  # dataclasses look their module up there
    try:
        spec.loader.exec_module(lint)
    finally:
        del sys.modules["sfl"]
    found = lint.lint_paths([ROOT / "engine" / "smath" / "selftest.py"])
    assert found == [], [str(v) for v in found]


def test_selftest_hash_equals_the_golden_file():
    if not GOLDEN.is_file():
        pytest.fail(f"{GOLDEN} does not exist: the golden math hash has not been blessed yet "
                    f"(this runtime computes {selftest.selftest_hash()})")
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))["math_hash"]
    assert selftest.selftest_hash() == golden, "the strict math changed: re-bless with physics:"


# ----------------------------------------------------------------- the CLI

def _write(tmp_path: Path, doc) -> Path:
    (tmp_path / "math.json").write_text(doc if isinstance(doc, str) else json.dumps(doc),
                                        encoding="utf-8")
    return tmp_path


def test_cli_match_exits_0(tmp_path, capsys):
    d = _write(tmp_path, {"math_hash": selftest.selftest_hash()})
    assert cli(["selftest", "--hashes", str(d), "--points", "0"]) == 0
    out = capsys.readouterr().out
    assert selftest.selftest_hash() in out and "match" in out and "MISMATCH" not in out


def test_cli_mismatch_exits_1(tmp_path, capsys):
    other = "0123456789abcdef" if selftest.selftest_hash() != "0123456789abcdef" else "f" * 16
    d = _write(tmp_path, {"math_hash": other})
    assert cli(["selftest", "--hashes", str(d), "--points", "0", "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["match"] is False and doc["golden"] == other
    assert doc["math_hash"] == selftest.selftest_hash()


def test_cli_missing_file_exits_2_and_still_prints_the_hash(tmp_path, capsys):
    assert cli(["selftest", "--hashes", str(tmp_path), "--points", "0"]) == 2
    cap = capsys.readouterr()
    assert selftest.selftest_hash() in cap.out
    assert "math.json not found" in cap.err and len(cap.err.strip().splitlines()) == 1


@pytest.mark.parametrize("doc", ["{not json", {"hash": "x"}, {"math_hash": "XYZ"}, [1, 2]])
def test_cli_malformed_file_exits_2(tmp_path, capsys, doc):
    assert cli(["selftest", "--hashes", str(_write(tmp_path, doc)), "--points", "0"]) == 2
    err = capsys.readouterr().err
    assert "math.json" in err and "Traceback" not in err


@pytest.mark.parametrize("doc", ["{not json", {"hash": "x"}, {"math_hash": "XYZ"}, [1, 2]])
def test_replay_reads_math_json_as_strictly_as_selftest(tmp_path, doc):
    from skidpad.replay.golden import GoldenError, read_math

    with pytest.raises(GoldenError, match="math.json"):
        read_math(_write(tmp_path, doc))


def test_cli_bad_points_exits_2(tmp_path, capsys):
    assert cli(["selftest", "--hashes", str(tmp_path), "--points", "-1"]) == 2
    assert "--points" in capsys.readouterr().err


def test_cli_accuracy_summary(tmp_path, capsys):
    pytest.importorskip("mpmath")
    d = _write(tmp_path, {"math_hash": selftest.selftest_hash()})
    rc = cli(["selftest", "--hashes", str(d), "--points", "20", "--json"])
    doc = json.loads(capsys.readouterr().out)
    rows = doc["accuracy"]
    assert [r["function"] for r in rows] == list(smath.FUNCTIONS)
    assert all(r["points"] == 20 for r in rows)
    failed = [r["function"] for r in rows if not r["max_ulp"] < 1.0 or r.get("edge_failures")]
    assert doc["accuracy_failed"] == failed
    assert rc == (1 if failed else 0)


def test_cli_without_mpmath_says_so(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "mpmath", None)  # import mpmath now raises ImportError
    monkeypatch.delitem(sys.modules, "skidpad.parity.accuracy", raising=False)
    d = _write(tmp_path, {"math_hash": selftest.selftest_hash()})
    assert cli(["selftest", "--hashes", str(d)]) == 0
    assert "needs mpmath" in capsys.readouterr().out
