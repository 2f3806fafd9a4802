"""The fast path (engine/fourwheel/fastpath.py) gives the readable stages' bits: every committed
four-wheel recording (a part of each) and a set of random drives, through both paths in
lockstep, agree on the whole state and the derived values at every host step and on the
state hash every second; a one-ulp change planted in any one stage of the generated code
is caught; the generated text obeys the strict-float contract."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from helpers import cambered, strict_float_lint
from skidpad.engine.floatbits import float_bits
from skidpad.engine.fourwheel import fastpath
from skidpad.engine.fourwheel.definition import PRESET_NAMES, load_preset
from skidpad.engine.fourwheel.simulation import STAGES, Simulation
from skidpad.engine.fourwheel.vehicle_layout import I_YAW
from skidpad.engine.state import NonFiniteStateError
from skidpad.engine.track import drive_ground
from skidpad.replay import recording
from skidpad.replay.fourwheel import build_simulation
from skidpad.scenarios.random_drive import RandomDriver

ROOT = Path(__file__).resolve().parents[1]
lint = strict_float_lint()

SCRIPTED = sorted(ROOT.glob("recordings/*-scripted.json"))
LAPS = sorted(ROOT.glob("recordings/*-lap.json"))
# The first 20 s of each scripted recording (its manoeuvres) and 5 s of each lap: the whole
# files take minutes on the readable path; the blessed hashes of the whole files are checked
# on the fast path by the parity matrix (`nox -s parity`: every recording in CPython 3.11).
SCRIPTED_STEPS = 2000
LAP_STEPS = 500
ASSISTS_ON = (0, 1, 1, 1, 1)


def bits(values: list) -> list:
    return [float_bits(v) if isinstance(v, float) else v for v in values]


def first_mismatch(fast: Simulation, slow: Simulation, frames: list, every: int = 50) -> str:
    """Step both simulations through ``frames``; the first host step where they part ('' if
    none): state and derived values bit for bit each step, the state hash every ``every``."""
    assert fast.path == "fast" and slow.path == "readable"
    for k, values in enumerate(frames):
        fast.step(values)
        slow.step(values)
        if bits(fast.state) != bits(slow.state):
            return f"state at host step {k}"
        if bits(fast.derived.flat()) != bits(slow.derived.flat()):
            return f"derived values at host step {k}"
        if k % every == every - 1 and fast.state_hash() != slow.state_hash():
            return f"state hash at host step {k}"
    if fast.telemetry() != slow.telemetry():
        return "telemetry at the end"
    return ""


def both_paths(rec: recording.Recording) -> tuple[Simulation, Simulation]:
    fast = build_simulation(rec)
    slow = Simulation(
        fast.definition,
        substep_hz=rec.substep_hz,
        host_hz=rec.host_hz,
        initial=rec.initial or None,
        path="readable",
    )
    return fast, slow


@pytest.mark.parametrize("path", SCRIPTED + LAPS, ids=lambda p: p.stem)
def test_recordings_agree_on_both_paths(path: Path) -> None:
    rec = recording.load(path)
    frames = list(rec.inputs())[: LAP_STEPS if path in LAPS else SCRIPTED_STEPS]
    fast, slow = both_paths(rec)
    assert first_mismatch(fast, slow, frames, every=rec.host_hz) == ""


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_random_drives_agree_on_both_paths(preset: str) -> None:
    seed = 1000 + PRESET_NAMES.index(preset)
    driver = RandomDriver(seed, 100, 8.0)
    channels = ("throttle", "brake", "steer", "handbrake")
    # assists on, and a gear request pulse now and then (the manual boxes shift on its edge)
    frames = []
    for k in range(driver.max_steps()):
        v = driver.inputs(k)
        req = 1 if k % 150 == 0 else (2 if k % 150 == 75 else 0)
        frames.append(tuple(v.get(c, 0.0) for c in channels) + (req,) + ASSISTS_ON[1:])
    d = load_preset(preset)
    initial = {"speed_mps": 5.0 + 3.0 * PRESET_NAMES.index(preset), "surface": "wet"}
    fast = Simulation(d, initial=initial)
    slow = Simulation(d, initial=initial, path="readable")
    assert first_mismatch(fast, slow, frames) == ""


def test_a_probed_step_runs_the_readable_stages() -> None:
    class Names:
        def __init__(self) -> None:
            self.names: list = []

        def stage(self, name: str, values: tuple) -> None:
            self.names.append(name)

        def substep(self, tick: int, state: list) -> None:
            pass

    sim = Simulation(load_preset("kart"), initial={"speed_mps": 10.0})
    probe = Names()
    sim.step((0.5, 0.0, 0.2, 0.0), probe)
    n = sim.substeps_in(0)
    assert probe.names == [s.name for s in STAGES] * n


# --------------------------------------------------------------- planted differences
def plant(text: str, target: str, after: str = "") -> str:
    """``text`` with the first assignment ``target = RHS`` (or ``target *= RHS``) made one
    ulp larger (the first after the line ``after``, if given)."""
    pat = re.compile(rf"^(?P<pad> *){re.escape(target)} (?P<op>\*?=) (?P<rhs>.+)$", re.M)
    # the first computed value: not the chained ``a = b = ... = None`` that binds the hot
    # locals first at the top of ``run`` (which names come first depends on the preset)
    # nor the load of a state slot at the start of the host step
    m = next(
        (
            m
            for m in pat.finditer(text, text.index(f"{after}\n") if after else 0)
            if not m["rhs"].endswith("= None") and not m["rhs"].startswith("st[")
        ),
        None,
    )
    assert m, target
    rhs = m["rhs"] if m["op"] == "=" else f"{target} * ({m['rhs']})"
    line = f"{m['pad']}{target} = nextafter({rhs}, inf)"
    return text[: m.start()] + line + text[m.end() :]


# One line of each stage of the generated substep (the stage names of STAGES).
PLANTS = {
    "ground": "lam1",  # (on a circuit with runoff: without one the ground is folded)
    "kinematics": "lean1",  # (of a cambered car: without kinematics the stage is folded)
    "steering": "c0",
    "load_transfer": "fz1",
    "tire_forces": "uyr0",  # the lateral deflection before saturation
    "assists": ("cap0", "# assists"),  # the ABS's scaling of a brake capacity
    "drivetrain": "dt_throttle",
    "wheel_solve": "uxn0",
    "steering_compliance": "dc1",
    "body_integration": "bd_ax",
    "suspension": "sus_roll_rate",
}


def test_every_stage_has_a_plant() -> None:
    assert sorted(PLANTS) == sorted(s.name for s in STAGES)


@pytest.mark.parametrize("stage", sorted(PLANTS))
def test_a_one_ulp_difference_in_one_stage_is_caught(stage: str) -> None:
    d = cambered("hatchbackFwd") if stage == "kinematics" else load_preset("hatchbackFwd")
    fast = Simulation(d, initial={"speed_mps": 12.0})
    slow = Simulation(d, initial={"speed_mps": 12.0}, path="readable")
    if stage == "ground":  # on the sandbox circuit's start straight, with its grass
        for sim in (fast, slow):
            sim.set_ground(drive_ground("sandbox", d, sim.surface))
    target = PLANTS[stage]
    text = plant(fastpath.source(fast), *((target,) if isinstance(target, str) else target))
    fast.fast_run = fastpath.build(fast, text, {"nextafter": math.nextafter, "inf": math.inf})
    frames = [(0.4, 0.2 if k >= 20 else 0.0, 0.1, 0.0, 0) + ASSISTS_ON[1:] for k in range(40)]
    assert first_mismatch(fast, slow, frames) != ""


# --------------------------------------------------------------- the generated text
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_generated_text_obeys_the_strict_float_contract(preset: str) -> None:
    sim = Simulation(load_preset(preset), initial={"speed_mps": 3.0, "grade": 0.1})
    text = fastpath.source(sim)
    assert lint.lint_source(text, f"<fast path of {preset}>") == []
    # nothing but numbers comes from the definition: its strings are not in the text
    assert preset not in text
    for word in re.findall(r"[A-Za-z_]\w*", text):
        assert not word.startswith("__"), word


def test_only_numbers_are_folded() -> None:
    assert fastpath.num(-0.5) == "(-0.5)" and float(fastpath.num(0.1)) == 0.1
    for bad in ("1.0", True, None, (1.0,)):
        with pytest.raises(TypeError):
            fastpath.num(bad)
    with pytest.raises(fastpath.Unfoldable):
        fastpath.num(math.inf)


def test_a_definition_with_a_constant_that_has_no_literal_runs_the_stages(monkeypatch) -> None:
    # the definition's upper bounds keep every folded constant finite; a constant that still
    # had no literal (inf) is refused by the folding, and the simulation then runs the stages
    with pytest.raises(fastpath.Unfoldable):
        fastpath.num(1e300 * 1e300)
    d = load_preset("sportsRwd")

    def unfoldable(sim):
        return fastpath.num(float("inf"))

    monkeypatch.setattr(fastpath, "build", unfoldable)
    fast = Simulation(d, initial={"speed_mps": 10.0})
    slow = Simulation(d, initial={"speed_mps": 10.0}, path="readable")
    frames = [(0.3, 0.0, 0.05, 0.0)] * 20
    assert first_mismatch(fast, slow, frames) == ""
    assert fast.fast_run is not None and fast.fast_run.__name__ == "_run_stages"


def test_a_non_finite_value_is_named_at_its_substep_on_the_fast_path() -> None:
    sim = Simulation(load_preset("kart"), initial={"speed_mps": 5.0})
    sim.step((0.2, 0.0, 0.0, 0.0))
    # body.integrate's yaw acceleration ``dr`` (the body stage's output, named ``bd_dr`` by
    # where the stage stores it): a nan there reaches the pose, the speeds, the yaw
    # (not the chained ``bd_dr = ... = None`` that names the hot locals first)
    pat = re.compile(r"^(?P<pad> *)(?P<dr>bd_dr) = (?P<rhs>(?!.*= None$).+)$", re.M)
    text = pat.sub(r"\g<pad>\g<dr> = (\g<rhs>) if tick < 14 else nan", fastpath.source(sim), 1)
    assert text != fastpath.source(sim)
    sim.fast_run = fastpath.build(sim, text, {"nan": math.nan})
    with pytest.raises(NonFiniteStateError) as err:
        sim.step((0.2, 0.0, 0.0, 0.0))
    assert err.value.where == "tick 15"  # the fifth substep of host step 1
    assert err.value.field == "body.x"  # the first bad field in layout order
    assert sim.tick == 15 and not math.isfinite(sim.state[I_YAW])


class _Unbound(Exception):
    pass


class _DefiniteAssignment:
    """Which names of a generated ``run`` are bound at each read, path by path: an ``if``
    binds what both branches bind (a branch that ends in ``raise``, ``break`` or ``continue``
    does not fall through), a loop over ``range(n)`` or ``range(4)`` runs at least once
    (``n >= 1``: a host step is never shorter than a substep), an ``except`` handler ends in
    ``raise``. Reading a local that some path leaves unbound raises ``_Unbound``."""

    EVERYTHING = None  # the out-set of a block that does not fall through

    def __init__(self, local_names: set) -> None:
        self.locals = local_names
        # flag -> the names bound where the flag was set to True (``loaded0 = True`` in the
        # branch of a loaded wheel): ``if loaded0:`` may read them
        self.implies: dict = {}

    def reads(self, node, bound: set) -> None:
        import ast

        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                if sub.id in self.locals and sub.id not in bound:
                    raise _Unbound(f"line {sub.lineno}: {sub.id} may be unbound")

    def block(self, stmts: list, bound: set, breaks: list) -> set | None:
        for stmt in stmts:
            bound = self.statement(stmt, bound, breaks)
            if bound is self.EVERYTHING:
                return bound
        return bound

    def reads_short_circuit(self, value, bound: set) -> set:
        """Read ``value``; in ``a and b ...`` the operands after a flag ``a`` are read only
        where it is true (with what it implies). The names bound where ``value`` is true."""
        import ast

        first, rest = value, []
        if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.And):
            first, rest = value.values[0], value.values[1:]
        self.reads(first, bound)
        body = set(bound)
        if isinstance(first, ast.Name) and first.id in self.implies:
            body |= self.implies[first.id]
        for operand in rest:  # read only where the first is true
            self.reads(operand, body)
        return body

    @staticmethod
    def flags(branch: list, other: list, truth: object = True) -> list:
        """Names that can be true only after ``branch``: set to True there, or set there and to
        False in ``other`` (``slid0 = r2 > 4.0`` for a loaded wheel, ``slid0 = False`` else).
        With ``truth=None`` only the second kind."""
        import ast

        def is_value(node, value: object) -> bool:
            return value is ... or (isinstance(node, ast.Constant) and node.value is value)

        def assigned(stmts: list, value: object = ...) -> set:
            return {
                t.id
                for st in stmts
                if isinstance(st, ast.Assign) and is_value(st.value, value)
                for t in st.targets
                if isinstance(t, ast.Name)
            }

        out = assigned(branch) & assigned(other, False)
        if truth is True:
            out |= assigned(branch, True)
        return sorted(out)

    @staticmethod
    def meet(a: set | None, b: set | None) -> set | None:
        if a is None:
            return b
        if b is None:
            return a
        return a & b

    def statement(self, stmt, bound: set, breaks: list) -> set | None:
        import ast

        if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            where_true = self.reads_short_circuit(stmt.value, bound)
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if isinstance(stmt, ast.AugAssign):
                self.reads(ast.Name(stmt.target.id, ast.Load(), lineno=stmt.lineno), bound)
            out = set(bound)
            for target in targets:
                for sub in ast.walk(target):
                    if isinstance(sub, ast.Name):
                        out.add(sub.id)
                        value = stmt.value
                        if not (isinstance(value, ast.Constant) and value.value in (True, False)):
                            self.implies.pop(sub.id, None)
                    elif isinstance(sub, ast.Subscript):
                        self.reads(sub.value, bound)
                        self.reads(sub.slice, bound)
            if (
                isinstance(stmt, ast.Assign)
                and isinstance(stmt.targets[0], ast.Name)
                and isinstance(stmt.value, ast.BoolOp)
                and isinstance(stmt.value.op, ast.And)
            ):  # flag = a and b: where the flag is true, a is (with what a implies)
                self.implies[stmt.targets[0].id] = where_true
            return out
        if isinstance(stmt, ast.If):
            if isinstance(stmt.test, ast.Constant) and not stmt.test.value:
                return self.block(stmt.orelse, set(bound), breaks)  # the dropped block
            body = self.reads_short_circuit(stmt.test, bound)
            then = self.block(stmt.body, body, breaks)
            other = self.block(stmt.orelse, set(bound), breaks)
            for flag in self.flags(stmt.body, stmt.orelse):
                self.implies[flag] = then
            for flag in self.flags(stmt.orelse, stmt.body, truth=None):
                self.implies[flag] = other
            return self.meet(then, other)
        if isinstance(stmt, ast.For):
            self.reads(stmt.iter, bound)
            at_least_once = ast.unparse(stmt.iter) in ("range(n)", "range(4)")
            inner: list = []
            body = set(bound) | {stmt.target.id}
            out = self.block(stmt.body, body, inner)
            exits = out
            for b in inner:
                exits = self.meet(exits, b)
            return exits if at_least_once and exits is not None else bound
        if isinstance(stmt, ast.Try):
            out = self.block(stmt.body, set(bound), breaks)
            for handler in stmt.handlers:
                assert self.block(handler.body, set(bound), breaks) is self.EVERYTHING
            return out
        if isinstance(stmt, (ast.Break, ast.Continue)):
            breaks.append(set(bound))
            return self.EVERYTHING
        if isinstance(stmt, ast.Raise):
            if stmt.exc is not None:
                self.reads(stmt.exc, bound)
            return self.EVERYTHING
        if isinstance(stmt, (ast.Expr, ast.Return)):
            if stmt.value is not None:
                self.reads(stmt.value, bound)
            return bound
        if isinstance(stmt, ast.Pass):
            return bound
        raise AssertionError(f"line {stmt.lineno}: no rule for {type(stmt).__name__}")


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_every_local_of_the_generated_run_is_bound_before_it_is_read(preset: str) -> None:
    """The hot-first listing of the locals is never run (an ``if False:`` block), so nothing
    may rely on a name bound there: on every path through ``run`` each local is assigned
    before it is read."""
    import ast

    sim = Simulation(load_preset(preset), host_hz=100)
    run = ast.parse(fastpath.source(sim)).body[0]
    params = {a.arg for a in run.args.args}
    local_names = set(fastpath.build(sim).__code__.co_varnames) - params
    checker = _DefiniteAssignment(local_names)
    checker.block(run.body, set(params), [])


def test_the_definite_assignment_check_sees_a_name_bound_on_one_branch_only() -> None:
    import ast

    text = "def run(sim, host, n):\n    if n > 1:\n        a = 1\n    b = a\n"
    run = ast.parse(text).body[0]
    with pytest.raises(_Unbound, match="a may be unbound"):
        _DefiniteAssignment({"a", "b"}).block(run.body, {"sim", "host", "n"}, [])


def test_the_definite_assignment_check_sees_an_assignment_missing_from_the_generated_run() -> None:
    """Planted: a loaded wheel's tire no longer sets its low-speed damper."""
    import ast

    sim = Simulation(load_preset("sportsRwd"), host_hz=100)
    text = fastpath.source(sim)
    line = re.search(r"^( +)cxd0 = .+\n", text, re.M).group(0)
    planted = text.replace(line, re.sub(r"cxd0 = .+", "pass", line), 1)
    run = ast.parse(planted).body[0]
    names = set(fastpath.build(sim).__code__.co_varnames) - {"sim", "host", "n"}
    with pytest.raises(_Unbound, match="cxd0 may be unbound"):
        _DefiniteAssignment(names).block(run.body, {"sim", "host", "n"}, [])


def test_a_kept_stage_text_is_made_again_for_a_value_one_ulp_away() -> None:
    """The derived texts are kept per definition (fastpath._memo): a definition whose body
    constants differ by one ulp gets its own text, the one a fresh specialisation gives."""
    sim = Simulation(load_preset("kart"), substep_hz=1000, host_hz=100)
    first = fastpath.source(sim)
    near = Simulation(load_preset("kart"), substep_hz=1000, host_hz=100)
    near.body_k = near.body_k._replace(inv_m=math.nextafter(near.body_k.inv_m, 1.0))
    kept = fastpath.source(near)
    fastpath._DERIVED.clear()
    assert kept == fastpath.source(near)  # what a fresh specialisation gives
    assert kept != first
    assert fastpath.source(sim) == first


def test_a_kept_text_s_key_tells_apart_what_equality_does_not() -> None:
    """Equal in Python but not in the text: 0.0 and -0.0, 1 and 1.0 and True, two record
    classes with the same fields; a value with no exact key is refused (not kept)."""
    from typing import NamedTuple

    class A(NamedTuple):
        x: float

    class B(NamedTuple):
        x: float

    keys = [fastpath._frozen(v) for v in (0.0, -0.0, 1, 1.0, True, A(1.0), B(1.0), (1.0,))]
    assert len(set(keys)) == len(keys)
    assert fastpath._frozen({"k": A(0.5)}) == fastpath._frozen({"k": A(0.5)})
    with pytest.raises(TypeError):
        fastpath._frozen(object())
    made: list[int] = []
    for _ in range(2):
        fastpath._memo((object(),), lambda: str(made.append(1)))
    assert len(made) == 2  # made each time, never kept


def test_a_derived_stage_naming_anything_but_the_fast_paths_own_is_refused() -> None:
    """One check for every derived stage: a name bound to something the fast path does not
    give is refused; the tire stage may read the kernels' own tables, and nothing else."""
    from types import SimpleNamespace

    from skidpad.engine.smath import kernels

    table = next(n for n, v in vars(kernels).items() if isinstance(v, tuple) and v)
    spec = SimpleNamespace(namespace={"sqrt": fastpath.sqrt, table: getattr(kernels, table)})
    assert fastpath._names_beyond(spec, ["sqrt"], "x") == {}
    assert fastpath._names_beyond(spec, [table], "x", allowed=kernels) == {
        table: getattr(kernels, table)
    }
    with pytest.raises(fastpath.Unsupported, match=table):
        fastpath._names_beyond(spec, [table], "stage")  # no module allowed
    spec.namespace[table] = tuple(getattr(kernels, table))[:-1]  # not the kernels' own table
    with pytest.raises(fastpath.Unsupported, match=table):
        fastpath._names_beyond(spec, [table], "tire.forces", allowed=kernels)


def test_the_kept_stage_texts_stay_bounded() -> None:
    """A verifier builds strangers' definitions: at most DERIVED_CACHE texts are kept, the
    oldest going first."""
    first = fastpath._memo(("bounded", -1), lambda: "text -1")
    for k in range(fastpath.DERIVED_CACHE + 3):
        assert fastpath._memo(("bounded", k), lambda k=k: f"text {k}") == f"text {k}"
    assert len(fastpath._DERIVED) == fastpath.DERIVED_CACHE
    assert first == "text -1"
    assert fastpath._frozen(("bounded", -1)) not in fastpath._DERIVED
