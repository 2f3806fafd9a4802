"""The strict-float lint (ci/strict_float_lint.py) catches every banned construct of
docs/architecture.md §3 at the right line, passes the allowed operations, and passes ``engine/``."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import strict_float_lint

ROOT = Path(__file__).resolve().parents[1]
LINT = ROOT / "ci" / "strict_float_lint.py"

lint = strict_float_lint()


def check(source: str, tmp_path: Path) -> list:
    """Lint ``source`` written to a file, the way the CLI reads files."""
    f = tmp_path / "planted.py"
    f.write_text(textwrap.dedent(source), encoding="utf-8")
    return lint.lint_paths([f])


# Each case: (rule, source). The violating construct is on the line marked "# <-".
PLANTED = [
    ("banned-math", "import math\ny = math.sin(0.5)  # <-\n"),
    ("banned-math", "import math\nf = math.exp  # <-\n"),
    ("banned-math", "import math\ny = math.fsum([0.1, 0.2])  # <-\n"),
    ("banned-math", "import math\ny = math.pow(2.0, 0.5)  # <-\n"),
    ("banned-math", "import math\ny = math.hypot(3.0, 4.0)  # <-\n"),
    ("banned-math", "import math\ny = math.ldexp(1.0, -1074)  # <-\n"),
    ("banned-math", "from math import sqrt, tanh  # <-\n"),
    ("banned-math", "from math import *  # <-\n"),
    ("banned-math", "import math as m\n\n\ndef f(x):\n    return m.atan2(x, 1.0)  # <-\n"),
    ("banned-math", "import math\nf = getattr(math, 'sin')  # <-\n"),
    ("pow-operator", "def f(x):\n    return x ** 0.5  # <-\n"),
    ("pow-operator", "def f(x):\n    return x ** 2  # <-\n"),
    ("pow-operator", "y = 2.0 ** -52  # <-\n"),
    ("pow-operator", "y = 2 ** -3  # <-\n"),
    ("pow-operator", "def f(x):\n    x **= 3\n    return x\n".replace("3\n", "3  # <-\n", 1)),
    ("pow-operator", "def f(x, y):\n    return pow(x, y)  # <-\n"),
    ("pow-operator", "import operator\ng = operator.pow  # <-\n"),
    ("pow-operator", "from operator import pow as p  # <-\n"),
    ("pow-operator", "def f(x):\n    return x.__pow__(2)  # <-\n"),
    ("builtin-sum", "def f(xs):\n    return sum(xs)  # <-\n"),
    ("builtin-sum", "total = sum([1, 2, 3])  # <-\n"),
    ("set-iteration", "for v in {1.0, 2.0}:  # <-\n    pass\n"),
    ("set-iteration", "def f(xs):\n    return [v for v in set(xs)]  # <-\n"),
    ("set-iteration", "def f(xs):\n    for v in frozenset(xs):  # <-\n        print(v)\n"),
    ("set-iteration", "def f(xs):\n    s = set(xs)\n    acc = 0.0\n    for v in s:  # <-\n"
                      "        acc += v\n    return acc\n"),
    ("set-iteration", "def f(xs):\n    s: set[float] = xs\n    return list(s)  # <-\n"),
    ("set-iteration", "def f(a, b):\n    return tuple(set(a) | set(b))  # <-\n"),
    ("set-iteration", "def f(xs):\n    return [*{x for x in xs}]  # <-\n"),
    ("set-iteration", "KEYS = frozenset(('a', 'b'))\n\n\ndef f(d):\n"
                      "    return [d[k] for k in KEYS]  # <-\n"),
    ("set-iteration", "def f(d, e):\n    return ','.join(d.keys() - e.keys())  # <-\n"),
    ("banned-import", "import random  # <-\n"),
    ("banned-import", "from random import random as r  # <-\n"),
    ("banned-import", "import time  # <-\n"),
    ("banned-import", "from time import perf_counter  # <-\n"),
    ("banned-import", "import datetime  # <-\n"),
    ("banned-import", "import statistics  # <-\n"),
    ("banned-import", "import numpy as np  # <-\n"),
    ("banned-import", "import decimal  # <-\n"),
    ("banned-import", "import secrets  # <-\n"),
    ("banned-import", "import uuid  # <-\n"),
    ("banned-import", "import os\nseed = os.urandom(8)  # <-\n"),
    ("banned-import", "from os import urandom  # <-\n"),
    ("banned-import", "import concurrent.futures  # <-\n"),
    ("layering", "from skidpad.replay import recording  # <-\n"),
    ("layering", "import skidpad.scenarios.drives  # <-\n"),
    ("layering", "from skidpad.parity.accuracy import reference  # <-\n"),
    ("layering", "import mpmath  # <-\n"),
    ("bare-import", "import engine  # <-\n"),
    ("bare-import", "from replay.verify import verify_one  # <-\n"),
    ("hash-id", "def f(name):\n    return hash(name) % 7  # <-\n"),
    ("hash-id", "def f(o):\n    return id(o)  # <-\n"),
    ("hash-id", "def f(o):\n    return o.__hash__()  # <-\n"),
    ("complex", "z = complex(1.0, 2.0)  # <-\n"),
    ("complex", "z = 1.0 + 2j  # <-\n"),
    ("complex", "import cmath  # <-\n"),
    ("float-parse", "def f(x):\n    return float(f'{x:.3f}')  # <-\n"),
    ("float-parse", "def f(x):\n    return float(str(x))  # <-\n"),
    ("float-parse", "def f(x):\n    return float('%.17g' % x)  # <-\n"),
    ("float-parse", "def f(s):\n    return float(s.strip())  # <-\n"),
    ("float-parse", "def f(d):\n    return float('1e' + d)  # <-\n"),
    ("dynamic-code", "y = eval('1.0 + 2.0')  # <-\n"),
    ("dynamic-code", "import importlib  # <-\n"),
    ("dynamic-code", "m = __import__('math')  # <-\n"),
]


def _marked_line(source: str) -> int:
    for i, line in enumerate(source.splitlines(), 1):
        if "# <-" in line:
            return i
    raise AssertionError("case has no '# <-' marker")


@pytest.mark.parametrize(("rule", "source"), PLANTED,
                         ids=[f"{r}-{i}" for i, (r, _) in enumerate(PLANTED)])
def test_planted_violation_is_caught_at_its_line(rule, source, tmp_path):
    found = check(source, tmp_path)
    line = _marked_line(source)
    assert [(v.line, v.rule) for v in found] == [(line, rule)], [str(v) for v in found]
    assert str(found[0]).startswith(f"{tmp_path / 'planted.py'}:{line}:")


def test_every_rule_has_a_planted_case():
    planted = {rule for rule, _ in PLANTED}
    assert planted | {"pragma"} == set(lint.RULES)


ALLOWED = '''
"""Everything the strict-float contract (docs/architecture.md §3) allows on floats."""
from __future__ import annotations

import hashlib
import math
import struct
from math import copysign, isfinite, sqrt

from skidpad.engine import smath
from skidpad.engine.state import hash_bytes

from . import sibling

TWO_53 = 2 ** 53
MASK = (1 << 64) - 1
TINY = 5e-324
INF = float("inf")
NAN = float("nan")
HALF = float.fromhex("0x1.0p-1")


def kernel(x: float, y: float, n: int) -> float:
    a = (x + y) * (x - y) / (1.0 + abs(x))
    b = -a if a < 0.0 else min(a, max(x, y))
    c = math.sqrt(abs(b)) + math.floor(x) + math.ceil(y) + math.trunc(x)
    d = math.copysign(math.fabs(c), y) + copysign(1.0, x) + sqrt(2.0)
    if not (math.isfinite(d) and isfinite(c)):
        raise ValueError("not finite")
    e = smath.sin(x) * smath.cos(y) + smath.atan2(y, x) + smath.pow(x, 2.5)
    f = float(n) + float(int(x)) + x.hex().count("p") + math.pi * math.e + math.tau
    g = struct.unpack("<d", struct.pack("<d", f))[0]
    total = 0.0
    for v in (a, b, c, d, e, g):
        total += v
    for k in sorted({1, 3, 2}):
        total += k
    seen = set()
    seen.add(n)
    if n in seen and len(seen) == 1:
        total *= 2.0
    ints = pow(3, n, 7) + divmod(n, 3)[0] + (n << 2) + n // 3 + n % 3
    squares = [k * k for k in range(n)]
    for k, v in enumerate([x, y]):
        total += k * v
    for name, value in {"a": 1.0, "b": 2.0}.items():
        total += value
    return total + ints + len(squares) + hash_bytes(b"").count("0")


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def parse(text: str) -> float:
    return float(text)  # a name: not provably a computed string


def pow(x, y):  # noqa: A001 - shadows the built-in like engine.smath.pow
    return x * y


def uses_own_pow(x):
    return pow(x, 3.0)
'''


def test_allowed_operations_pass(tmp_path):
    found = check(ALLOWED, tmp_path)
    assert found == [], [str(v) for v in found]


def test_pragma_allows_one_rule_with_a_reason(tmp_path):
    src = "def f(o):\n    return id(o)  # strict: allow hash-id -- debug repr only, never hashed\n"
    assert check(src, tmp_path) == []


@pytest.mark.parametrize(
    "comment",
    [
        "# strict: allow hash-id",  # no reason
        "# strict: allow hash-id --",  # empty reason
        "# strict: allow no-such-rule -- because",  # unknown rule
        "# strict: allow builtin-sum -- wrong rule for this line",  # allows nothing here
    ],
)
def test_bad_pragma_is_itself_a_violation(comment, tmp_path):
    src = f"def f(o):\n    return id(o)  {comment}\n"
    found = check(src, tmp_path)
    assert {(v.line, v.rule) for v in found} == {(2, "hash-id"), (2, "pragma")}


def test_unused_pragma_is_reported(tmp_path):
    found = check("x = 1.0  # strict: allow builtin-sum -- not needed\n", tmp_path)
    assert [(v.line, v.rule) for v in found] == [(1, "pragma")]


def test_syntax_error_is_reported_not_raised(tmp_path):
    found = check("def f(:\n", tmp_path)
    assert [v.rule for v in found] == ["syntax-error"]


def test_several_violations_in_one_file_are_all_reported_in_order(tmp_path):
    src = ("import math\nimport random\n\n\n"
           "def f(x):\n    a = math.tan(x)\n    return sum([a, x ** 0.5])\n")
    found = check(src, tmp_path)
    assert [(v.line, v.rule) for v in found] == [
        (2, "banned-import"), (6, "banned-math"), (7, "builtin-sum"), (7, "pow-operator")]


def test_cli_exit_codes(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import math\ny = math.exp(1.0)\n", encoding="utf-8")
    good = tmp_path / "good.py"
    good.write_text("import math\ny = math.sqrt(2.0)\n", encoding="utf-8")
    run = [sys.executable, str(LINT)]
    p = subprocess.run([*run, str(bad)], capture_output=True, text=True)
    assert p.returncode == 1
    assert f"{bad}:2:5: banned-math: math.exp" in p.stdout
    p = subprocess.run([*run, str(good)], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    p = subprocess.run([*run, str(tmp_path / "missing")], capture_output=True, text=True)
    assert p.returncode == 2 and "missing" in p.stderr
    p = subprocess.run([*run, str(tmp_path)], capture_output=True, text=True)  # a directory
    assert p.returncode == 1 and "bad.py:2:5" in p.stdout and "good.py" not in p.stdout


def test_engine_tree_obeys_the_contract():
    """The real engine/ passes (fails while the libm stand-ins of engine/smath remain)."""
    found = lint.lint_paths([ROOT / "engine"])
    assert found == [], "\n".join(str(v) for v in found)


def test_scenarios_tree_obeys_the_contract():
    """The drivers in scenarios/ compute the inputs that get recorded and hashed (everything
    that feeds a hash obeys docs/architecture.md §3), so a lap recorded in a browser is the lap
    recorded natively."""
    found = lint.lint_paths([ROOT / "scenarios"])
    assert found == [], "\n".join(str(v) for v in found)


# ------------------------------------------------------------------------------ layers
# The layering rule judges each file from its own package's layer (ADR 0161): a module may
# import its own package and lower layers, never a higher one, lazily inside a function
# included. Each case: (package the file is in, source, flagged?).
LAYERED = [
    ("replay", "def main():\n    from skidpad.cli import main  # <-\n    return main\n", True),
    ("replay", "import skidpad.scenarios.scripted  # <-\n", True),
    ("replay", "def f():\n    import skidpad.parity.harness  # <-\n", True),
    ("scenarios", "from skidpad.parity import harness  # <-\n", True),
    ("scenarios", "import mpmath  # <-\n", True),  # a third party in a dependency-free layer
    ("parity", "def f():\n    from skidpad.sandbox.serve import page_url  # <-\n", True),
    ("sandbox", "from skidpad.cli import comma_list  # <-\n", True),
    ("engine", "from skidpad.engine.state import hash_bytes\n\n\ndef f():\n"
               "    from skidpad.replay import recording  # <-\n", True),
    ("replay", "from skidpad.replay import output\n"
               "from skidpad.replay.golden import compare\n", False),
    ("replay", "from . import output\nfrom skidpad.engine import smath\n", False),
    ("scenarios", "from skidpad.replay import output\n"
                  "from skidpad.scenarios.validation import run\n", False),
    ("scenarios", "from skidpad.engine.fourwheel.definition import PRESET_NAMES\n", False),
    ("parity", "import mpmath\nfrom skidpad.scenarios import random_drive\n"
               "from skidpad.replay import diff\n", False),
    ("sandbox", "from skidpad.parity.server import LoopbackServer\n"
                "from skidpad.sandbox import WEB_DIR\n", False),
    ("cli", "from skidpad.sandbox.serve import page_url\nfrom skidpad.parity import harness\n"
            "from skidpad.cli import comma_list\n", False),
]


def plant_in_package(package: str, source: str, tmp_path: Path) -> Path:
    """``source`` as a module of a planted package ``package`` (with its ``__init__.py``)."""
    folder = tmp_path / "tree" / package / "sub"
    folder.mkdir(parents=True)
    (folder.parent / "__init__.py").write_text("", encoding="utf-8")
    (folder / "__init__.py").write_text("", encoding="utf-8")
    f = folder / "planted.py"
    f.write_text(source, encoding="utf-8")
    return f


@pytest.mark.parametrize(("package", "source", "flagged"), LAYERED,
                         ids=[f"{p}-{i}" for i, (p, _s, _f) in enumerate(LAYERED)])
def test_layers_are_judged_from_the_files_own_package(package, source, flagged, tmp_path):
    f = plant_in_package(package, source, tmp_path)
    assert lint.package_of(f) == package
    found = lint.lint_paths([f], rules=["layering"])
    if flagged:
        assert [(v.line, v.rule) for v in found] == [(_marked_line(source), "layering")], found
    else:
        assert found == [], [str(v) for v in found]


def test_an_upward_import_names_both_layers(tmp_path):
    f = plant_in_package("parity", "def f():\n    import skidpad.cli\n", tmp_path)
    (found,) = lint.lint_paths([f], rules=["layering"])
    assert "parity may not import skidpad.cli: cli is a higher layer" in found.message


def test_the_layers_cover_every_package_of_the_checkout():
    packages = {p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file()}
    assert set(lint.LAYERS) == packages
    # the public API package sits on top of the command line
    assert lint.LAYERS[0] == "engine" and lint.LAYERS[-2:] == ("cli", "skidpad")


def test_the_whole_tree_obeys_its_layers():
    """No module imports a package above its own anywhere in the project."""
    found = lint.lint_paths([ROOT / p for p in lint.LAYERS], rules=["layering"])
    assert found == [], "\n".join(str(v) for v in found)


def test_a_package_needs_no_pragma_to_import_itself():
    own = [
        f"{f.relative_to(ROOT)}:{i}"
        for p in lint.LAYERS
        for f in sorted((ROOT / p).rglob("*.py"))
        for i, line in enumerate(f.read_text("utf-8").splitlines(), 1)
        if "allow layering" in line and "own package" in line
    ]
    assert own == []


def test_only_checks_the_named_rules_and_ignores_other_pragmas(tmp_path):
    source = (
        "import time  # strict: allow banned-import -- wall time\nfrom skidpad.cli import main\n"
    )
    f = plant_in_package("replay", source, tmp_path)
    found = lint.lint_paths([f], rules=["layering"])
    assert [(v.line, v.rule) for v in found] == [(2, "layering")]
    run = [sys.executable, str(LINT)]
    p = subprocess.run([*run, "--only", "layering", str(f)], capture_output=True, text=True)
    assert p.returncode == 1 and f"{f}:2:1: layering: replay may not import skidpad.cli" in p.stdout
    p = subprocess.run([*run, "--only", "nonsense", str(f)], capture_output=True, text=True)
    assert p.returncode == 2 and "--only needs rules" in p.stderr


# ------------------------------------------------------------------------ bare imports
# One name per module (ADR 0204): the folders are subpackages of `skidpad`, and a bare
# `import engine` in a checkout would load a second copy of every module it reaches.
BARE = [
    "import engine  # <-\n",
    "import engine.smath  # <-\n",
    "from engine.errors import SkidpadError  # <-\n",
    "def f():\n    from replay import verify  # <-\n",
    "import cli as command_line  # <-\n",
]


@pytest.mark.parametrize("source", BARE)
def test_a_bare_import_is_refused_in_a_module(source, tmp_path):
    f = plant_in_package("replay", source, tmp_path)
    found = lint.lint_paths([f])
    assert [(v.line, v.rule) for v in found] == [(_marked_line(source), "bare-import")], found
    assert "write skidpad." in found[0].message


def test_a_bare_import_is_refused_in_a_test_file_by_the_lint_command(tmp_path):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_planted.py").write_text("import pytest\nimport engine\n", encoding="utf-8")
    (tests / "test_fine.py").write_text("from skidpad import engine\nimport pytest\n",
                                         encoding="utf-8")
    p = subprocess.run([sys.executable, str(LINT), "--only", "bare-import", str(tests)],
                       capture_output=True, text=True)
    assert p.returncode == 1, p.stdout + p.stderr
    assert p.stdout.splitlines() == [
        f"{tests / 'test_planted.py'}:2:1: bare-import: import of engine: write skidpad.engine "
        "(one name per module; a bare import loads a second copy of it)"
    ]


def test_the_tests_and_scripts_name_every_module_through_skidpad():
    paths = [ROOT / "tests", ROOT / "benchmarks", ROOT / "ci", ROOT / "noxfile.py"]
    found = lint.lint_paths(paths, rules=["bare-import"])
    assert found == [], "\n".join(str(v) for v in found)
