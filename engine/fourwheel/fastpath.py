"""The fast path: the substep's stages specialised to one simulation's definition, as code.

:func:`build` writes the source of one function, ``run(sim, host, n)``, that advances
``sim`` by ``n`` substeps of one host step, and compiles it. Every stage's text is derived
from the readable stages (:data:`engine.fourwheel.stages.STAGES`, which stay the source
of truth) by the one specialiser, :mod:`engine.specialise`: it folds the definition's
constants into literals, drops branches decided by them, unrolls the loops over the four
wheels, inlines the stage functions with renamed locals and keeps records and lists as one
local per field. It moves operations and never changes one, so both paths give the same
bits (``tests/test_fastpath.py``; the mutation test, ``tests/test_specialise_mutations.py``).

Six stages are the readable stage functions themselves (load transfer, assists, drivetrain,
steering compliance, body, suspension), specialised with their records bound to records of
this text's values (ADR 0238); the tire forces and the wheel solve are the functions they
call, specialised per wheel. What this module writes itself is glue, no arithmetic of the
physics: the per-wheel wrappers (``_<piece>_of``) name the locals those texts read and
write; the host step's head loads the state into locals, the substep's end moves the new
values in (:data:`engine.fourwheel.stages.NEW_STATE`), counts the substep and checks that the
state is finite, and the tail writes everything back (and before any error is raised). The
ground's factors, the steering geometry of an assisted steer and the strict math kernels'
rare cases are called, not copied. ``tests/test_no_physics_in_strings.py`` fails if a string
of ``engine/`` holds arithmetic statements.

The text holds nothing of a definition's strings (a verifier runs strangers' definitions):
only names of this module and numbers read back from their ``repr``. The probed variant,
``run(sim, host, n, probe)``, reports every stage to the probe under its name, from its own
values, so ``skidpad diff --fast-path`` names the stage where the fast path parts from the
readable one (ADR 0231).
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import inspect
import textwrap
from collections import namedtuple
from collections.abc import Callable, Iterable
from math import ceil, isfinite, sqrt
from types import FunctionType, ModuleType
from typing import NamedTuple

from skidpad.engine.fourwheel import (
    assists,
    differential,
    mf61,
    steering,
    tir,
    tire,
    wheel,
)
from skidpad.engine.fourwheel.stages import NEW_STATE, STAGES, Produced, derived
from skidpad.engine.fourwheel.telemetry import Derived
from skidpad.engine.fourwheel.vehicle_layout import LAYOUT, START, SubstepStart
from skidpad.engine.smath import kernels
from skidpad.engine.specialise import (  # noqa: F401  (Unfoldable: re-exported)
    AST_LOCK,
    BUILTINS,
    SOURCE_ATTRIBUTE,
    Agg,
    K,
    Maybe,
    NameUse,
    Plan,
    Specialised,
    Unfoldable,
    Unsupported,
    parse_source,
    specialise,
)

WHEELS = range(4)


def num(v: float | int) -> str:
    """A number as source text that reads back to the same value (negatives parenthesised)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"only numbers are folded into generated code, not {type(v)!r}")
    if isinstance(v, float) and not isfinite(v):
        raise Unfoldable(f"cannot fold the non-finite constant {v!r}")
    text = repr(v)
    return f"({text})" if text.startswith("-") else text


# The state slots, as (local variable, layout index): loaded at the start of a host step,
# written back at its end. Each is named as the field of the state at a substep's start
# (vehicle_layout.START), a per-wheel field's with the wheel's index appended.
def _slots() -> tuple:
    out: list = []
    for field, slot in START:
        if isinstance(slot, int):
            out.append((field, slot))
        else:
            out += [(f"{field}{i}", index) for i, index in enumerate(slot)]
    return tuple(out)


SLOTS = _slots()
#: the slots that hold integers (the rest are floats, checked finite after each substep)
INT_SLOTS = tuple(name for name, index in SLOTS if LAYOUT.kinds[index] != "f")


def _indent(text: str, n: int) -> str:
    pad = " " * n
    return "".join(pad + line if line.strip() else line for line in text.splitlines(True))


# ---------------------------------------------------------------------------- templates
HEAD = """\
def run(sim, host, n{probe_param}):
{bind}
    st = sim.state
{load}
    geo = sim.geometry
    geo_steer = geo.steer
    (d_fl, c_fl, s_fl), (d_fr, c_fr, s_fr), {rear} = geo.angles
    jack = geo.jack
    tan_d_l = geo.tan_delta_over_l
    caps0, caps1, caps2, caps3 = host.capacities
    pedal = host.pedal
    braking = host.braking
    gear_req = host.gear_request
    abs_on = host.abs_on
    tc_on = host.tc_on
    esc_on = host.esc_on
    steer_in = host.steer
    sa_on = host.steer_assist_on and steer_in != 0.0
    sa = sim.steer_assist_scale
    tick = sim.tick
    observe = sim.pose_observer
    try:
        for _ in range(n):
"""

# The steering stage: the assist's factor and the compliance rotation are derived (below);
# what is left is the host step's geometry, recomputed by the simulation when the assisted
# steer fraction differs from the one it was computed for, and unpacked into locals.
STEERING = """\
# steering
if sa_on:
{assist}    if steer_sa != geo_steer:
        geo = sim.steer_to(steer_sa)
        geo_steer = geo.steer
        (d_fl, c_fl, s_fl), (d_fr, c_fr, s_fr), {rear} = geo.angles
        jack = geo.jack
        tan_d_l = geo.tan_delta_over_l
{frames}"""


# Stages derived whole from their readable functions: each wrapper names the fast path's
# locals a stage reads and writes, the specialiser inlines the stage's function into it.
def _assist_of(
    wheelbase: float, a_lim: float, max_angle: float, steer_in: float, vx: float, vy: float
) -> float:
    sa, steer_sa = assists.assisted_steer(wheelbase, a_lim, max_angle, steer_in, vx, vy)
    return sa


def _frames_of(
    d_fl: float, c_fl: float, s_fl: float, d_fr: float, c_fr: float, s_fr: float,
    d_rl: float, c2: float, s2: float, d_rr: float, c3: float, s3: float,
    compliance0: float, compliance1: float,
) -> float:  # fmt: skip
    fl = steering.WheelAngle(d_fl, c_fl, s_fl)
    fr = steering.WheelAngle(d_fr, c_fr, s_fr)
    rl = steering.WheelAngle(d_rl, c2, s2)
    rr = steering.WheelAngle(d_rr, c3, s3)
    f = steering.wheel_frames((fl, fr, rl, rr), compliance0, compliance1)
    c0, c1, c2, c3 = f.cos
    s0, s1, s2, s3 = f.sin
    return c0


def _turned_frames_of(
    d_fl: float, c_fl: float, s_fl: float, d_fr: float, c_fr: float, s_fr: float,
    d_rl: float, c_rl: float, s_rl: float, d_rr: float, c_rr: float, s_rr: float,
    compliance0: float, compliance1: float, compliance2: float, compliance3: float,
    turn0: float, turn1: float, turn2: float, turn3: float,
) -> float:  # fmt: skip
    # (a car whose rear wheels turn too, with kinematics or a rear compliance steer: the host
    # step's rear angles keep names of their own, REAR_TURNED; without kinematics the turns
    # are bound to 0.0, TURN_UPRIGHT)
    fl = steering.WheelAngle(d_fl, c_fl, s_fl)
    fr = steering.WheelAngle(d_fr, c_fr, s_fr)
    rl = steering.WheelAngle(d_rl, c_rl, s_rl)
    rr = steering.WheelAngle(d_rr, c_rr, s_rr)
    dc = (compliance0, compliance1, compliance2, compliance3)  # the compliance-steer state
    turn = (turn0, turn1, turn2, turn3)  # the kinematics stage's steer
    f = steering.turned_frames((fl, fr, rl, rr), dc, turn)
    c0, c1, c2, c3 = f.cos
    s0, s1, s2, s3 = f.sin
    return c0


#: the names of the host step's rear wheel angles: the frames' own without kinematics (the
#: rear wheels do not turn in the substep), names of their own with them
REAR = "(d_rl, c2, s2), (d_rr, c3, s3)"
REAR_TURNED = "(d_rl, c_rl, s_rl), (d_rr, c_rr, s_rr)"
#: the kinematic steer of a car without kinematics whose rear wheels turn with their
#: compliance steer: none
TURN_UPRIGHT = {"turn0": 0.0, "turn1": 0.0, "turn2": 0.0, "turn3": 0.0}


def _tires_of(
    wheels: tuple, lam0: float, lam1: float, lam2: float, lam3: float, rrf0: float,
    rrf1: float, rrf2: float, rrf3: float, h: float, c0: float, c1: float, c2: float, c3: float,
    s0: float, s1: float, s2: float, s3: float, vx: float, vy: float, yaw_rate: float,
    omega0: float,
    omega1: float, omega2: float, omega3: float, ux0: float, ux1: float, ux2: float, ux3: float,
    uy0: float, uy1: float, uy2: float, uy3: float, fz0: float, fz1: float, fz2: float,
    fz3: float, caps0: float, caps1: float, caps2: float, caps3: float, lean0: float,
    lean1: float, lean2: float, lean3: float,
) -> tire.TireForces:  # fmt: skip
    tf = tire.forces(
        wheels, (c0, c1, c2, c3), (s0, s1, s2, s3), vx, vy, yaw_rate,
        (omega0, omega1, omega2, omega3),
        (ux0, ux1, ux2, ux3), (uy0, uy1, uy2, uy3), (fz0, fz1, fz2, fz3),
        (lam0, lam1, lam2, lam3), (rrf0, rrf1, rrf2, rrf3), (caps0, caps1, caps2, caps3), h,
        (lean0, lean1, lean2, lean3),
    )  # fmt: skip
    return tf


# ------------------------------------------------------------- stages derived whole
# A stage derived whole is the readable stage function itself (engine.fourwheel.stages),
# specialised with its three records bound to the fast path's values: ``sim`` to the
# definition's constants and the host step's inputs (locals of the text), ``s`` to the state's
# locals (SLOTS), ``out`` to what earlier stages produced, each field a local of the text. Its
# stores into ``out`` and its reported values come back as records of new locals, named by
# where they are (``bd_vx``, ``sus_roll``, ``dc0``); the next stage is given them.
STAGE = {stage.name: stage.function for stage in STAGES}
#: :class:`engine.fourwheel.stages.Produced` as a record class the specialiser reads
PRODUCED = namedtuple("Produced", Produced.__slots__)
_VIEWS: dict = {}


def _value(v: object) -> object:
    """A value of a record the fast path gives a stage: a name (``str``), a tuple of them,
    or a constant (:class:`K`) or record (:class:`Agg`) as it is."""
    if isinstance(v, K | Agg | ast.expr):
        return v
    if isinstance(v, str):
        return ast.Name(v, ast.Load())
    if isinstance(v, tuple):
        return Agg(None, tuple(_value(item) for item in v))
    return v


def _view(name: str, **fields: object) -> Agg:
    """A record of the fast path's values with only these ``fields`` (a stage that reads any
    other is refused): what a stage the fast path writes per wheel produced."""
    key = (name, tuple(fields))
    cls = _VIEWS.get(key)
    if cls is None:
        cls = _VIEWS[key] = namedtuple(name, tuple(fields))
    return Agg(cls, tuple(_value(v) for v in fields.values()))


def _each_name(base: str) -> tuple:
    return tuple(f"{base}{i}" for i in WHEELS)


def _start_record() -> Agg:
    """The state at the substep's start: each field the local of its slot (SLOTS)."""
    items = [
        field if isinstance(slot, int) else tuple(f"{field}{i}" for i in range(len(slot)))
        for field, slot in START
    ]
    return Agg(SubstepStart, tuple(_value(item) for item in items))


START_RECORD = _start_record()
#: the host step's inputs as the fast path holds them (locals of its head)
HOST = _view(
    "HostInputs", steer="steer_in", capacities=_each_name("caps"), pedal="pedal",
    braking="braking", gear_request="gear_req", abs_on="abs_on", tc_on="tc_on",
    esc_on="esc_on",
)  # fmt: skip
#: what a simulation holds that changes within a host step, as the fast path holds it; the
#: fast path runs only without a host (engine.fourwheel.simulation)
PER_STEP = {"host": HOST, "steer_assist_scale": _value("sa"), "host_link": K(None)}


_TREES: dict = {}


def _tree_of(fn: Callable) -> ast.Module:
    """The syntax tree of ``fn``'s text, kept per function (a changed function is another)."""
    got = _TREES.get(fn)
    if got is None:
        text = getattr(fn, SOURCE_ATTRIBUTE, None) or inspect.getsource(fn)
        got = _TREES[fn] = parse_source(textwrap.dedent(text))
    return got


_SIM_READS: dict = {}


def _sim_reads(stage: Callable) -> tuple:
    """The attributes of ``sim`` that ``stage``'s text reads (kept per function). Each is
    folded as a constant of the definition unless it is one of PER_STEP (one that is not,
    read by a new stage, would be folded: the tests that run both paths on every preset
    catch it)."""
    got = _SIM_READS.get(stage)
    if got is None:
        got = _SIM_READS[stage] = tuple(sorted({
            node.attr for node in ast.walk(_tree_of(stage))
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == "sim"
        }))  # fmt: skip
    return got


def _sim_record(sim: object, stage: Callable) -> Agg:
    """``sim`` as ``stage`` reads it: its constants, and the host step's inputs as locals."""
    return _view("Simulation", **{
        attr: PER_STEP[attr] if attr in PER_STEP else K(getattr(sim, attr), attr)
        for attr in _sim_reads(stage)
    })  # fmt: skip


def _key(v: object) -> object:
    """A record of the fast path's values as a key :func:`_frozen` reads."""
    if isinstance(v, Agg):
        cls = v.cls
        name = None if cls is None else (cls.__module__, cls.__qualname__, cls._fields)
        return (name, tuple(_key(item) for item in v.items))
    if isinstance(v, K):
        return ("K", v.value)
    if isinstance(v, ast.Name):
        return ("N", v.id)
    return ("E", ast.dump(v))


class _Derivation(NamedTuple):
    """A stage derived whole: its text, what ``out`` holds after it, what it reports."""

    text: str
    out: Agg
    values: object


def _whole(sim: object, name: str, out: Agg, functions: tuple) -> _Derivation:
    """Stage ``name`` specialised to ``sim``'s definition over the records the fast path
    holds (``out``: what earlier stages produced), with ``functions`` inlined."""
    stage = STAGE[name]
    bound = {"sim": _sim_record(sim, stage), "s": START_RECORD, "out": out}
    key = (_whole, stage, functions, _key(bound["sim"]), _key(out))
    return _memo(key, lambda: _whole_of(name, stage, bound, functions))


def _whole_of(name: str, stage: Callable, bound: dict, functions: tuple) -> _Derivation:
    spec = specialise(stage, bound, Plan(inline=frozenset(functions), fold=frozenset()))
    assigned = set().union(*(_stores_of(st) for st in spec.tree.body[0].body))
    renamed: dict = {}
    given, made = bound["out"], spec.records["out"]
    changed = [
        (field, after)
        for field, before, after in zip(PRODUCED._fields, given.items, made.items, strict=True)
        if after is not before
    ]
    for field, after in changed:
        _named(after, field, field, assigned, renamed)
    _named(spec.returned, name, "", assigned, renamed)
    use = NameUse()
    text = spec.body_text(renamed, use)
    _only_known_names(spec, use.counts, name)
    _uses(text, use)
    out = given._replace(items=tuple(made.items))
    for field, after in changed:
        out = _with_field(out, field, _renamed_value(after, renamed))
    return _Derivation(text, out, _renamed_value(spec.returned, renamed))


def _with_field(record: Agg, field: str, value: object) -> Agg:
    index = record.cls._fields.index(field)
    return Agg(record.cls, record.items[:index] + (value,) + record.items[index + 1 :])


def _stores_of(node: ast.AST) -> set:
    return {
        n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }


def _named(v: object, hint: str, path: str, assigned: set, renamed: dict) -> None:
    """Each name of ``v`` (what a stage stored at ``path`` of ``out``, or reports) that its
    text assigns given a name by where it is: ``hint`` (:data:`TEXT_NAMES` for the values a
    text written per wheel reads), a field's name appended for a record's, an index for a
    tuple's."""
    hint = TEXT_NAMES.get(path, hint)
    if isinstance(v, Agg):
        fields = v.cls._fields if v.cls is not None else range(len(v.items))
        sep = "_" if v.cls is not None else ""
        for field, item in zip(fields, v.items, strict=True):
            inner = f"{path}.{field}" if path and v.cls is not None else ""
            _named(item, f"{hint}{sep}{field}", inner, assigned, renamed)
    elif isinstance(v, ast.Name) and v.id in assigned:
        renamed.setdefault(v.id, hint)
    elif isinstance(v, Maybe):
        raise Unsupported(f"{hint}: a value that may be None")


#: The names of what whole stages make that the texts written per wheel read under names of
#: their own (the tire stage's loads, the driveline's capacities and terms): made under those
#: names, the texts need no renaming (engine.fourwheel.stages.Produced's paths).
TEXT_NAMES = {
    "kin.lean": "lean",
    "kin.turn": "turn",
    "loads.fz": "fz",
    "act.capacity": "cap",
    "dt.ratio": "g",
    "dt.engine_torque": "t_e",
    "dt.clutch_capacity": "c_cap",
}


def _renamed_value(v: object, renamed: dict) -> object:
    if isinstance(v, Agg):
        return Agg(v.cls, tuple(_renamed_value(item, renamed) for item in v.items))
    if isinstance(v, K):
        return v
    if v.__class__ is ast.Name:
        return ast.Name(renamed[v.id], ast.Load()) if v.id in renamed else v
    v = copy.deepcopy(v)
    for node in ast.walk(v):
        if isinstance(node, ast.Name) and node.id in renamed:
            node.id = renamed[node.id]
    return v


def _flat(v: object) -> list:
    """The values of a record or tuple, nested ones in order, each an expression's text."""
    if isinstance(v, Agg):
        return [text for item in v.items for text in _flat(item)]
    if isinstance(v, K) and isinstance(v.value, tuple):  # a stage's constant tuple
        return [text for item in v.value for text in _flat(K(item))]
    if isinstance(v, K):
        return [num(v.value) if not isinstance(v.value, bool) else repr(v.value)]
    return [ast.unparse(v)]


def _text_of(v: object) -> str:
    """A record or tuple of the fast path's values as an expression that builds it."""
    if isinstance(v, Agg) and v.cls is not None:
        fields = ", ".join(
            f"{f}={_text_of(item)}" for f, item in zip(v.cls._fields, v.items, strict=True)
        )
        return f"{v.cls.__name__}({fields})"
    if isinstance(v, Agg):
        return "(" + ", ".join(_text_of(item) for item in v.items) + ")"
    return _flat(v)[0]


def _at(out: Agg, path: str) -> object:
    """The value of ``out`` at ``path`` (``"bd.vx"``: a field of a record of ``out``)."""
    v = out
    for part in path.split("."):
        if not (isinstance(v, Agg) and v.cls is not None and part in v.cls._fields):
            raise Unsupported(f"{path}: no value at {part}")
        v = v.items[v.cls._fields.index(part)]
    return v


def _moves(out: Agg) -> str:
    """The state's locals given their new values (engine.fourwheel.stages.NEW_STATE), in one
    assignment where a new value is an old value of another local (moved before it is read)."""
    targets, values, read = [], [], set()
    for field, slot in START:
        v = _at(out, NEW_STATE[field])
        if isinstance(slot, int):
            pairs = [(field, v)]
        else:
            pairs = list(zip((f"{field}{i}" for i in range(len(slot))), v.items, strict=True))
        for target, value in pairs:
            text = _flat(value)[0]
            if text != target:
                targets.append(target)
                values.append(text)
                if not isinstance(value, K):
                    read |= {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
    if read & set(targets):
        return ", ".join(targets) + " = " + ", ".join(values) + "\n"
    return "".join(f"{t} = {v}\n" for t, v in zip(targets, values, strict=True))


_CALLS: dict = {}


def _calls_of(fn: Callable) -> tuple:
    """The calls ``fn``'s text makes, as ``(name,)`` or ``(module, name)`` (kept per
    function)."""
    got = _CALLS.get(fn)
    if got is None:
        refs = set()
        for node in ast.walk(_tree_of(fn)):
            f = node.func if isinstance(node, ast.Call) else None
            if isinstance(f, ast.Name):
                refs.add((f.id,))
            elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
                refs.add((f.value.id, f.attr))
        got = _CALLS[fn] = tuple(sorted(refs))
    return got


def _called(fn: Callable, ref: tuple) -> object:
    """What ``ref`` (:func:`_calls_of`) names in ``fn``'s module now."""
    obj = fn.__globals__.get(ref[0])
    if len(ref) == 2:
        obj = getattr(obj, ref[1], None) if isinstance(obj, ModuleType) else None
    return obj


def _inlined(stage: Callable) -> tuple:
    """The functions of the four-wheel model that ``stage`` calls, and those they call: what
    the fast path inlines into it (read from their modules when asked: a test may put a
    changed one in its module's place)."""
    found: list = []
    todo = [stage]
    while todo:
        fn = todo.pop()
        for ref in _calls_of(fn):
            obj = _called(fn, ref)
            if (
                isinstance(obj, FunctionType)
                and obj.__module__.startswith(FOUR_WHEEL)
                and obj is not stage
                and obj not in found
            ):
                found.append(obj)
                todo.append(obj)
    return tuple(sorted(found, key=lambda f: (f.__module__, f.__qualname__)))


FOUR_WHEEL = "skidpad.engine.fourwheel."


# What the stages the fast path writes per wheel produce (engine.fourwheel.stages.Produced),
# as its text names them: the steering's geometry and frames, the tire forces, the solve.
GEO = _view("SteerGeometry", jack="jack", tan_delta_over_l="tan_d_l")
FRAMES = _view("WheelFrames", cos=_each_name("c"), sin=_each_name("s"))
TIRE_FORCES = _view(
    "TireForces", v_x=_each_name("v_x"), v_sy=_each_name("v_sy"), capacity=_each_name("tcap")
)
WHEEL_SOLUTION = _view(
    "WheelSolution", omega=_each_name("wn"), ux=_each_name("uxn"), uy=_each_name("uyn"),
    fx=_each_name("fx"), fy=_each_name("fy"), mz=_each_name("mz"),
    brake_torque=_each_name("tb"), held=_each_name("held"), drive_torque=_each_name("xd"),
    engine_omega="w_e_n", clutch_torque="t_c", clutch_locked="c_locked",
)  # fmt: skip
#: the driveline text's parameters that are the drivetrain stage's terms (``_driveline_of``)
DRIVETRAIN_TERMS = {"g": "dt.ratio", "t_e": "dt.engine_torque", "c_cap": "dt.clutch_capacity"}
NOTHING_YET = Agg(PRODUCED, tuple(K(None) for _ in PRODUCED._fields))


def _names_for(params: Iterable[str], values: object, label: str) -> dict:
    """``{param: name}``: a per-wheel text's parameters named as the values a stage made
    (each a name of the text; a parameter already so named is left out)."""
    items = values.items if isinstance(values, Agg) else (values,)
    out = {}
    for param, item in zip(params, items, strict=True):
        if not isinstance(item, ast.Name):
            raise Unsupported(f"{label}: {param} is not a value of the text")
        if item.id != param:
            out[param] = item.id
    return out


def _derived_record(out: Agg) -> str:
    """The simulation's derived record after the last substep (``stages.derived``, over what
    the stages produced), as an expression of the fast path's locals."""
    key = (_derived_record, derived, _key(out))
    return _memo(key, lambda: _derived_record_of(out))


def _derived_record_of(out: Agg) -> str:
    spec = specialise(derived, {"out": out}, Plan(inline=frozenset(), fold=frozenset()))
    if spec.body_text().strip():
        raise Unsupported("stages.derived: more than a record of what the stages produced")
    return _text_of(spec.returned)


# What the rest of the substep's text calls the tire stage's results, wheel i's suffixed
# with i: the fields of tire.TireForces, and of each loaded wheel's tire.PatchTerms (the
# deflection at the start, ``ux`` and ``uy``, is the state's own).
FORCE_NAMES = {"v_x": "v_x", "v_sy": "v_sy", "rhs": "b", "diag": "dg", "capacity": "tcap"}
PATCH_NAMES = {
    "kxs": "kxs", "kys": "kys", "relax_x": "relax_x", "uy_next": "uyr", "damper_x": "cxd",
    "damper_y": "cyd", "p": "p", "q": "q", "trail_k": "mzk", "fx0": "sfx", "fy0": "sfy",
    "dx": "pdx", "dy": "pdy", "mz0": "smz", "step_x": "stx",
}  # fmt: skip


def _tire_functions() -> tuple:
    """The functions the tire stage is specialised from, as their modules hold them now."""
    return (
        tire.forces, tire.patch_terms, tire.load_terms, tire.shape, tire.shape_nonneg,
        tire.dampers, tire.camber_slip, tire.mf61_patch_terms, tire.mirrored, mf61.loaded,
        mf61.at_load_of, mf61.forces_loaded, tire.transient_gain, tire.lateral_relaxation,
    )  # fmt: skip


TIRES_CACHE = 32  # specialised tire stages kept (simulations of one definition share theirs)
_TIRES: dict = {}


def _ground_bound(sim: object) -> dict:
    """The ground and kinematics stages' values folded into the tire stage: without a ground,
    every wheel's λ and rolling factor are constants; on a ground they are the locals the
    ground sets. Each wheel's inclination is the constant 0 without kinematics (the tire then
    reads none), else the local the kinematics stage sets (``lean<i>``)."""
    upright = {} if sim.kinematics_k is not None else dict.fromkeys(_each_name("lean"), 0.0)
    if sim.ground is not None:
        return upright
    return dict(zip(GROUND_NAMES, sim.flat_ground, strict=True)) | upright


#: the fast path's names of the ground stage's values (engine.fourwheel.stages._ground's order)
GROUND_NAMES = ("lam0", "lam1", "lam2", "lam3", "rrf0", "rrf1", "rrf2", "rrf3")


def _tires(sim: object) -> Specialised:
    """The tire stage, ``tire.forces``, specialised to ``sim``'s wheels, ground and step
    (cached by the functions and the values, exactly: :func:`_frozen`)."""
    # (the functions too: a test may put a changed one in its module's place)
    key = _frozen((_tire_functions(), sim.wheels, _ground_bound(sim), sim.h))
    got = _TIRES.get(key)
    if got is None:
        nonneg = None
        for w in sim.wheels:  # a name is declared not below zero if it is for every tire
            names = tire.shape_nonneg(w.tire.c, w.tire.e)
            nonneg = names if nonneg is None else nonneg & names
        plan = Plan(
            # an MF 6.1 patch's own function is inlined, its branches folded; the Magic
            # Formula and the transient gain it calls are called (inlined, they made 10,000
            # lines of text per definition and a cold build of 5 s: ADR 0261)
            inline=frozenset(
                {tire.forces, tire.patch_terms, tire.load_terms, tire.shape, tire.dampers,
                 tire.camber_slip, tire.mf61_patch_terms, tire.lateral_relaxation}
            ),  # fmt: skip
            fold=frozenset({tire.mirrored}),  # (a wheel's side: known with the definition)
            nonneg=frozenset((tire.shape, name) for name in nonneg),
        )
        bound = {"wheels": sim.wheels, **_ground_bound(sim), "h": sim.h}
        got = _keep(_TIRES, TIRES_CACHE, key, specialise(_tires_of, bound, plan))
    return got


def _tires_source(sim: object, inputs: dict) -> str:
    """The tire stage's text, its results under the names the rest of the substep reads, its
    wheel loads under the names ``inputs`` gives them (what the load stage made)."""
    key = (_tires_source, _tire_functions(), sim.wheels, _ground_bound(sim), sim.h, inputs)
    return _memo(key, lambda: _tires_text(sim, inputs))


def _tires_text(sim: object, inputs: dict) -> str:
    spec = _tires(sim)
    tf = spec.returned
    if not (isinstance(tf, Agg) and tf.cls is tire.TireForces):
        raise Unsupported("tire.forces: its result is not a record")
    fields = dict(zip(tire.TireForces._fields, tf.items, strict=True))
    renamed: dict = dict(inputs)

    def name(value: object, target: str) -> None:
        if not isinstance(value, ast.Name) or value.id in renamed:
            raise Unsupported(f"tire.forces: {target} is not a value of its own")
        renamed[value.id] = target

    for i in WHEELS:
        for field, base in FORCE_NAMES.items():
            name(fields[field].items[i], f"{base}{i}")
        terms = fields["terms"].items[i]
        if not isinstance(terms, Maybe):
            raise Unsupported(f"tire.forces: wheel {i}'s patch is not a record or None")
        name(ast.Name(terms.flag, ast.Load()), f"loaded{i}")
        patch = dict(zip(tire.PatchTerms._fields, terms.record.items, strict=True))
        for field, base in PATCH_NAMES.items():
            if not isinstance(patch[field], K):  # (a constant is read as one: mz0 but in MF 6.1)
                name(patch[field], f"{base}{i}")
    use = NameUse()
    return _uses(spec.body_text(renamed, use), use)


def _driveline_of(
    k: object, eta: float, j_e: float, h: float, b0: float, b1: float, b2: float, b3: float,
    dg0: float, dg1: float, dg2: float, dg3: float, cap0: float, cap1: float, cap2: float,
    cap3: float, g: float, engine_omega: float, t_e: float, c_cap: float,
) -> tuple:  # fmt: skip
    sol = differential.solve(
        k, [b0, b1, b2, b3], [dg0, dg1, dg2, dg3], [cap0, cap1, cap2, cap3], g, eta, engine_omega,
        t_e,
        j_e, c_cap, h,
    )  # fmt: skip
    return sol


# What the rest of the substep's text calls the driveline solve's results (the lists' items
# suffixed with the wheel), in the order differential.solve returns them.
DRIVELINE_NAMES = ("wn", "tb", "held", "xd", "w_e_n", "t_c", "c_locked", "w_out")


def _driveline_source(sim: object, inputs: dict) -> str:
    """The coupled driveline solve's text (``differential.solve`` with the bounded solves
    inlined), its results under the names the rest of the substep reads, the brake capacities
    and the drivetrain's terms under the names ``inputs`` gives them (the stages' that made
    them)."""
    bound = {
        "k": sim.drive_k.layout,
        "eta": sim.drive_k.gearbox.efficiency,
        "j_e": sim.engine_inertia,
        "h": sim.h,
    }
    # (the bounded solves as differential.solve names them)
    functions = (differential.solve, differential.bound, differential.bounded_solve)
    key = (_driveline_source, functions, bound, inputs)
    return _memo(key, lambda: _driveline_text(bound, functions, inputs))


def _driveline_text(bound: dict, functions: tuple, inputs: dict) -> str:
    spec = specialise(_driveline_of, bound, Plan(inline=frozenset(functions), fold=frozenset()))
    sol = spec.returned
    if not (isinstance(sol, Agg) and len(sol.items) == len(DRIVELINE_NAMES)):
        raise Unsupported("differential.solve: its result is not a tuple of names")
    renamed: dict = dict(inputs)
    for value, base in zip(sol.items, DRIVELINE_NAMES, strict=True):
        if isinstance(value, Agg):
            for i, item in enumerate(value.items):
                _name_result(renamed, item, f"{base}{i}", "differential.solve")
        else:
            _name_result(renamed, value, base, "differential.solve")
    use = NameUse()
    text = spec.body_text(renamed, use)
    _only_known_names(spec, use.counts, "differential.solve")
    _uses(text, use)
    return text


def _deflect_of(
    w: object, h: float, inv_h: float, kxs: float, kys: float, relax_x: float, uyr: float,
    cxd: float, cyd: float, p: float, q: float, ux: float, uy: float, mzk: float, sfx: float,
    sfy: float, pdx: float, pdy: float, smz: float, stx: float, wn: float, v_x: float,
) -> tire.PatchUpdate:  # fmt: skip
    # (the rolling-resistance bound, 0.0, is the tire stage's: nothing here reads it)
    t = tire.PatchTerms(
        kxs, kys, relax_x, uyr, cxd, cyd, p, q, ux, uy, mzk, sfx, sfy, pdx, pdy, smz, stx, 0.0
    )
    pu = tire.deflect(w, t, wn, v_x, h, inv_h)
    return pu


# What the rest of the substep's text calls a patch's update (tire.PatchUpdate), wheel i's
# suffixed with i; the deflection's inputs are the tire stage's names and the solve's spin.
UPDATE_NAMES = {"ux": "uxn", "uy": "uyn", "fx": "fx", "fy": "fy", "mz": "mz", "slid": "slid"}
DEFLECT_INPUTS = (
    "kxs", "kys", "relax_x", "uyr", "cxd", "cyd", "p", "q", "ux", "uy", "mzk", "sfx", "sfy",
    "pdx", "pdy", "smz", "stx", "wn", "v_x",
)  # fmt: skip


def _deflect_source(sim: object, i: int) -> str:
    """Wheel ``i``'s patch after the solve: ``tire.deflect`` when the wheel is loaded, else
    the update of a wheel off the ground (``wheel._AIRBORNE``), as ``wheel.solve`` does."""
    bound = {"w": sim.wheels[i], "h": sim.h, "inv_h": sim.inv_h}
    key = (_deflect_source, tire.deflect, bound, i, wheel._AIRBORNE)
    return _memo(key, lambda: _deflect_text(bound, i))


def _deflect_text(bound: dict, i: int) -> str:
    plan = Plan(inline=frozenset({tire.deflect}), fold=frozenset())
    spec = specialise(_deflect_of, bound, plan)
    pu = spec.returned
    if not (isinstance(pu, Agg) and pu.cls is tire.PatchUpdate):
        raise Unsupported("tire.deflect: its result is not a record")
    renamed = {name: f"{name}{i}" for name in DEFLECT_INPUTS}
    fields = dict(zip(tire.PatchUpdate._fields, pu.items, strict=True))
    passed = ""  # a result that is one of the inputs as it came (an MF 6.1 patch's moment)
    for field, base in UPDATE_NAMES.items():
        value = fields[field]
        if isinstance(value, ast.Name) and value.id in DEFLECT_INPUTS:
            passed += f"{base}{i} = {value.id}{i}\n"
        else:
            _name_result(renamed, value, f"{base}{i}", "tire.deflect")
    use = NameUse()
    loaded = spec.body_text(renamed, use) + passed
    _only_known_names(spec, use.counts, "tire.deflect")
    if passed:
        use.add(parse_source(passed).body)
    airborne = "".join(
        f"{UPDATE_NAMES[field]}{i} = {value!r}\n"
        for field, value in zip(tire.PatchUpdate._fields, wheel._AIRBORNE, strict=True)
    )
    text = f"if loaded{i}:\n{_indent(loaded, 4)}else:\n{_indent(airborne, 4)}"
    glue = f"if loaded{i}:\n    pass\nelse:\n{_indent(airborne, 4)}"
    return _uses(text, NameUse().merge(use).add(parse_source(glue).body))


def _undamp_of(
    w: object, omega: float, kxs: float, kys: float, relax_x: float, uyr: float, cxd: float,
    cyd: float, p: float, q: float, ux: float, uy: float, mzk: float, sfx: float, sfy: float,
    pdx: float, pdy: float, smz: float, stx: float, slid: bool, b: float, dg: float,
    redo: bool,
) -> tuple:  # fmt: skip
    t = tire.PatchTerms(
        kxs, kys, relax_x, uyr, cxd, cyd, p, q, ux, uy, mzk, sfx, sfy, pdx, pdy, smz, stx, 0.0
    )
    if wheel.slid_damped(t, slid):
        free = tire.sliding(t)
        b, dg = wheel.undamped_row(w, free, omega)
        redo = True
        cxd = free.damper_x
        cyd = free.damper_y
        p = free.p
        q = free.q
    # the names the rest of the substep reads (the final return is not part of the text)
    return (cxd, cyd, p, q, b, dg, redo)


#: the names of wheel i's patch terms and row of the solve in the substep's text, as
#: ``_undamp_of`` names them (suffixed with i); its spin at the start is ``w<i>``, and
#: ``redo`` is the substep's own
UNDAMP_NAMES = DEFLECT_INPUTS[:17] + ("slid", "b", "dg")


def _undamp_source(sim: object, i: int) -> str:
    """Wheel ``i`` after a pass of the solve, as ``wheel.solve`` does it: a damped patch that
    slid is undamped (``tire.sliding``) and its row of the solve written again
    (``wheel.undamped_row``); ``redo`` is set."""
    functions = (wheel.slid_damped, tire.sliding, wheel.undamped_row)
    key = (_undamp_source, functions, sim.wheels[i], i)
    return _memo(key, lambda: _undamp_text(sim.wheels[i], i, functions))


def _undamp_text(w: object, i: int, functions: tuple) -> str:
    spec = specialise(_undamp_of, {"w": w}, Plan(inline=frozenset(functions), fold=frozenset()))
    renamed = {name: f"{name}{i}" for name in UNDAMP_NAMES}
    renamed.update(omega=f"omega{i}", redo="redo")
    use = NameUse()
    text = spec.body_text(renamed, use)
    _only_known_names(spec, use.counts, "wheel.undamped_row")
    _uses(text, use)
    return text


def _forwards_only_of(motor: bool, w_e_n: float) -> float:
    w_e_n = wheel.forwards_only(motor, w_e_n)
    return w_e_n


# ------------------------------------------------------------- derived texts, memoised
# Specialising a stage is most of the cost of a fast path (about 70 ms a definition); a
# verifier, a test suite or a parity run builds the same stages again for every Simulation
# of one definition. Each derived text is kept under a key that tells apart everything it
# is made from: the readable functions themselves (a test may put a changed one in its
# module's place) and every bound value, floats by their bits (ADR 0236).
DERIVED_CACHE = 256  # derived stage texts kept (about 12 per definition)
_DERIVED: dict = {}


def _frozen(value: object) -> object:
    """``value`` as a key that equals another's only if the two are the same values of the
    same types (floats by their bits, records by their class and fields, functions by
    identity); TypeError for a value it cannot tell apart that way."""
    kind = type(value)
    if kind is float:
        return (float, value.hex())  # -0.0 and 0.0 differ; a NaN is refused by the folding
    if value is None or kind in (int, bool, str):
        return (kind, value)
    if isinstance(value, FunctionType):
        return value
    if isinstance(value, tuple | list):  # tuples, lists and NamedTuples (their class kept)
        return (kind, tuple(_frozen(item) for item in value))
    if kind is dict:
        return (dict, tuple((_frozen(k), _frozen(v)) for k, v in value.items()))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = dataclasses.fields(value)
        return (kind, tuple((f.name, _frozen(getattr(value, f.name))) for f in fields))
    raise TypeError(f"no exact key for a {kind.__name__}")


def _memo(parts: tuple, make: Callable[[], str]) -> str:
    """``make()``, kept under the key of ``parts`` (:func:`_frozen`); made afresh, and not
    kept, when a part has no exact key."""
    try:
        key = _frozen(parts)
    except TypeError:
        return make()
    got = _DERIVED.get(key)
    return _keep(_DERIVED, DERIVED_CACHE, key, make()) if got is None else got


def _keep(cache: dict, limit: int, key: object, value: object) -> object:
    """``cache[key] = value``, the oldest entry dropped beyond ``limit``; one thread at a
    time (two evicting the same oldest entry would raise KeyError)."""
    with AST_LOCK:
        if len(cache) >= limit:
            del cache[next(iter(cache))]
        cache[key] = value
    return value


def _name_result(renamed: dict, value: object, target: str, label: str) -> None:
    """``renamed[value] = target`` for a result that is a name of its own in the text."""
    if not isinstance(value, ast.Name) or value.id in renamed:
        raise Unsupported(f"{label}: {target} is not a value of its own")
    renamed[value.id] = target


# The names each derived text holds, kept beside it: the order of the fast path's locals is
# counted from them (:func:`_bind_hot_first`), not from the text parsed again.
_USES: dict = {}


def _uses(text: str, use: NameUse) -> str:
    """``text``, its names ``use`` kept for it."""
    _keep(_USES, 2 * DERIVED_CACHE, text, use)
    return text


def _use_of(text: str) -> NameUse:
    """The names of a piece of the substep's text: kept, or read from its syntax tree."""
    got = _USES.get(text)
    if got is None:
        # a piece of glue; its loop given a body and its ``try`` a handler, so it parses alone
        got = NameUse().add(parse_source(textwrap.dedent(text)).body)
    return got


def _only_known_names(spec: Specialised, named: Iterable[str], label: str) -> None:
    """A derived stage's text (which holds the names ``named``, :meth:`Specialised.body_text`)
    names nothing beyond the fast path's own locals and the built-ins."""
    _names_beyond(spec, named, label)


def _names_beyond(
    spec: Specialised, named: Iterable[str], label: str, allowed: ModuleType | None = None
) -> dict:
    """Of the ``named`` names, those ``spec`` binds to something else than the fast path's
    own names and the built-ins do. They may only be ``allowed``'s own (a module: the tire
    stage's kernel tables); they are returned; any other is refused (Unsupported)."""
    known = {**BUILTINS, **namespace()}
    beyond = {
        name: spec.namespace[name]
        for name in sorted(set(named) & set(spec.namespace))
        if spec.namespace[name] is not known.get(name)
    }
    foreign = [
        n
        for n, v in beyond.items()
        if not isinstance(v, tir.Mf61Params)  # an MF 6.1 tire's parameters, one record
        and (allowed is None or getattr(allowed, n, 0) is not v)
    ]
    if foreign:
        raise Unsupported(f"{label}: needs the names {foreign}")
    return beyond


def _derived(wrapper: Callable, bound: dict, *functions: Callable) -> str:
    """The text of ``wrapper``'s body with ``functions`` inlined and ``bound`` folded."""
    return _memo((_derived, wrapper, functions, bound), lambda: _derive(wrapper, bound, functions))


def _derive(wrapper: Callable, bound: dict, functions: tuple) -> str:
    plan = Plan(inline=frozenset(functions), fold=frozenset())
    spec = specialise(wrapper, bound, plan)
    use = NameUse()
    text = spec.body_text(None, use)
    _only_known_names(spec, use.counts, wrapper.__name__)
    _uses(text, use)
    return text


def _tire_names(sim: object) -> dict:
    """The names the tire stage's text reads beyond the fast path's own and the built-ins:
    the fast kernels' tables and rare-case fallbacks (``engine.smath.kernels``), nothing else."""
    spec = _tires(sim)
    return _names_beyond(spec, spec.names_read(), "tire.forces", allowed=kernels)


# After the stages: the substep's new values moved into the state's locals (:func:`_moves`),
# the substep counted and the state checked (the sum of the float slots, named by the layout:
# a non-finite value or an overflowing sum sends the state to the layout's own check).
END = """\
{moves}tick += 1
if not isfinite({float_sum}):
    # a non-finite value (or a sum that overflowed): the state as it is, named if it is bad
{store}
    sim.tick = tick
    LAYOUT.check_finite(st, "tick " + str(tick))
{probe_substep}if observe is not None:
    observe(tick, x, y, heading_c, heading_s)
"""

TAIL = """\
    except BaseException:
{store8}
        sim.tick = tick
        raise
{store4}
    sim.tick = tick
    sim.steer_assist_scale = sa
    sim.derived = {derived}
"""


# ---------------------------------------------------------------------------- the probe
# The probed variant, ``run(sim, host, n, probe)``, reports each stage's values to the probe
# under the stage's name, in the readable order (engine.fourwheel.stages.STAGES), from the fast
# path's own locals, so ``skidpad diff`` names the stage where a fast run parts from a
# readable one. Only names are listed: the steering's reported angles (the fast path rotates
# the frames directly, without them) come from the readable function, its frames from the
# fast path.
def _probe(stage: str, values: str) -> str:
    items = f"{values}," if values else ""  # a tuple, of one value or none too
    return f"probe.stage({stage!r}, ({items}))\n"


def _each(pattern: str) -> str:
    return ", ".join(pattern.replace("#", str(i)) for i in WHEELS)


def _ground_source(sim: object, tap: Callable[[str], str]) -> str:
    """The ground stage: on a ground, each wheel's factors from the pose at the substep's
    start (``engine.fourwheel.ground.Ground.factors``, called); without one they are folded into the
    tire stage, and the probe is told the constants."""
    if sim.ground is not None:
        text = "# ground\ngf = ground_factors(x, y, heading_c, heading_s)\n"
        text += "".join(f"{name} = gf[{k}]\n" for k, name in enumerate(GROUND_NAMES))
        return text + tap(_probe("ground", ", ".join(GROUND_NAMES)))
    return tap(_probe("ground", ", ".join(num(v) for v in sim.flat_ground)))


PROBE_STEERING = _probe(
    "steering",
    "*steer_angles(geo.angles, compliance0, compliance1), c0, c1, c2, c3, s0, s1, s2, s3",
)
def _turned_steering_probe(turn: str) -> str:
    """The steering stage's report on a car whose rear wheels turn, with the kinematic steer
    ``turn`` (the kinematics stage's locals, or the constant 0 without kinematics)."""
    return _probe(
        "steering",
        f"*steer_angles(geo.angles, compliance0, compliance1, {turn}, "
        "(compliance2, compliance3)), c0, c1, c2, c3, s0, s1, s2, s3",
    )


PROBE_TURNED_STEERING = _turned_steering_probe("(turn0, turn1, turn2, turn3)")
PROBE_UPRIGHT_TURNED_STEERING = _turned_steering_probe("(0.0, 0.0, 0.0, 0.0)")
PROBE_TIRES = _probe(
    "tire_forces",
    ", ".join(f"sfx{i} if loaded{i} else 0.0, sfy{i} if loaded{i} else 0.0" for i in WHEELS),
)
PROBE_WHEELS = _probe(
    "wheel_solve",
    ", ".join((_each("wn#"), _each("fx#"), _each("fy#"), _each("1.0 if held# else 0.0")))
    + ", w_e_n, t_c",
)


def _steer_angles(
    angles: tuple,
    compliance0: float,
    compliance1: float,
    turn: tuple | None = None,
    rear: tuple = (0.0, 0.0),
) -> tuple:
    """The steering stage's reported angles, from the readable stage's own functions."""
    if turn is None:
        return steering.wheel_frames(angles, compliance0, compliance1).angle
    dc = (compliance0, compliance1, rear[0], rear[1])
    return steering.turned_frames(angles, dc, turn).angle


def _probe_substep(store: str, load: str) -> str:
    """After a substep: the state written back, reported, and read again (a probe's hook may
    plant a change in it, as it may on the readable path)."""
    return store + "\nprobe.substep(tick, st)\n" + load + "\n"


# ---------------------------------------------------------------------------- the builder
# CPython numbers a function's locals in the order its compiler first meets them and reads the
# 257th and later through an EXTENDED_ARG prefix, which also keeps it out of the interpreter's
# fused load pairs (3.13 and later fuse only the first 16); the generated run has some 340.
# Naming the substep's locals first, the most often named ones first, gives the hot ones the
# short numbers. The names are read from the text's syntax tree, so only names it assigns are
# listed, and they are listed in an ``if False:`` block: the symbol table meets them there
# (the order of co_varnames in CPython 3.11 to 3.14), the code generator drops the block, so
# the listing costs nothing per host step.
_PARAMETERS = frozenset({"sim", "host", "n", "probe"})


def _bind_hot_first(hot: tuple, head: str) -> str:
    """A block that is never run, naming the locals of the substep (assigned in the pieces
    of text ``hot``, the substep without its rare re-solves, which assign nothing it does
    not, or in the host step's ``head``) in order of use in ``hot``, most used first. Kept
    by its pieces (:func:`_memo`): simulations of a definition ask with the same ones."""
    key = (_bind_hot_first, hot, head)
    return _memo(key, lambda: _bind_hot_first_of(hot, head))


def _bind_hot_first_of(hot: tuple, head: str) -> str:
    # the head's loop is given a body, and its ``try`` a handler, so that it parses alone
    head_tree = parse_source(head + " " * 12 + "pass\n    except BaseException:\n        raise\n")
    use = NameUse()
    for piece in hot:  # each derived piece's names were kept when it was made
        use.merge(_use_of(piece))
    counts = use.counts
    stored = NameUse().add(head_tree.body).stored | use.stored
    names = sorted(stored.intersection(counts) - _PARAMETERS, key=lambda n: (-counts[n], n))
    lines = [" = ".join(names[k : k + 12]) + " = None" for k in range(0, len(names), 12)]
    return "    if False:\n" + "\n".join("        " + line for line in lines)


class _Substep:
    """The substep's text, written stage by stage in the order of
    :data:`engine.fourwheel.stages.STAGES`: a stage the fast path writes per wheel by its
    method of that name, any other derived whole from its stage function. ``out`` is what
    the stages written so far produced, as the text names it; ``hot`` the pieces of text
    that run every substep (what orders the locals)."""

    def __init__(self, sim: object, probed: bool) -> None:
        self.sim = sim
        self.probed = probed
        self.out = NOTHING_YET
        self.hot: list = []

    def tap(self, text: str) -> str:
        """A probe's report, in the probed variant only."""
        return text if self.probed else ""

    def counted(self, text: str) -> str:
        self.hot.append(text)
        return text

    def stage(self, name: str) -> str:
        writer = getattr(self, name, None) if name in PER_WHEEL else None
        return writer() if writer is not None else self.whole(name)

    def whole(self, name: str) -> str:
        stage = _whole(self.sim, name, self.out, _inlined(STAGE[name]))
        self.out = stage.out
        probe = self.counted(self.tap(_probe(name, ", ".join(_flat(stage.values)))))
        return f"# {name}\n" + self.counted(stage.text) + probe

    def ground(self) -> str:
        return self.counted(_ground_source(self.sim, self.tap))

    def steering(self) -> str:
        sim = self.sim
        a_lim, max_angle = sim.assist_k.steer_lat_accel, sim.steer_k.max_angle
        bound = {"wheelbase": sim.wheelbase, "a_lim": a_lim, "max_angle": max_angle}
        assisted = _derived(_assist_of, bound, assists.assisted_steer, assists.steer_scale)
        functions = (steering.wheel_frames, steering.turned, steering.small_rotation)
        if not sim.rear_wheels_turn:
            frames = _derived(_frames_of, {}, *functions)
        else:
            upright = TURN_UPRIGHT if sim.kinematics_k is None else {}
            frames = _derived(_turned_frames_of, upright, steering.turned_frames, *functions)
        rear = _rear(sim)
        text = STEERING.format(
            assist=_indent(self.counted(assisted), 4), frames=self.counted(frames), rear=rear
        )
        self.counted(STEERING.format(assist="    pass\n", frames="", rear=rear))
        self.out = _with_field(_with_field(self.out, "geo", GEO), "frames", FRAMES)
        probe = (
            PROBE_STEERING
            if not sim.rear_wheels_turn
            else PROBE_UPRIGHT_TURNED_STEERING
            if sim.kinematics_k is None
            else PROBE_TURNED_STEERING
        )
        return text + self.counted(self.tap(probe))

    def tire_forces(self) -> str:
        loads = _names_for(_each_name("fz"), _at(self.out, "loads.fz"), "tire.forces")
        text = "# tire_forces\n" + self.counted(_tires_source(self.sim, loads))
        self.out = _with_field(self.out, "tf", TIRE_FORCES)
        return text + self.counted(self.tap(PROBE_TIRES))

    def wheel_solve(self) -> str:
        sim, out = self.sim, self.out
        terms = _names_for(_each_name("cap"), _at(out, "act.capacity"), "differential.solve")
        for param, path in DRIVETRAIN_TERMS.items():
            terms.update(_names_for((param,), _at(out, path), "differential.solve"))
        solve = "# wheel_solve: the driveline\n" + self.counted(_driveline_source(sim, terms))
        deflect = "".join(self.counted(_deflect_source(sim, i)) for i in WHEELS)
        # as wheel.solve: a damped patch that slid is undamped and every wheel solved again,
        # until none is left (four passes at most); the passes after the first are rare
        undamp = "".join(self.counted(_undamp_source(sim, i)) for i in WHEELS)
        slide = self.counted("redo = False\n") + undamp
        self.counted("for _pass in range(4):\n    pass\n")
        rare = "if not redo:\n    break\n" + solve + deflect
        clamp = _derived(_forwards_only_of, {"motor": sim.drive_k.motor}, wheel.forwards_only)
        self.out = _with_field(out, "ws", WHEEL_SOLUTION)
        return (
            solve
            + "# wheel_solve: the patches\n"
            + deflect
            + "for _pass in range(4):\n"
            + _indent(slide + rare, 4)
            + self.counted(clamp)
            + self.counted(self.tap(PROBE_WHEELS))
        )

    def end(self, store: str, reload: str) -> str:
        """After the stages: the new state moved in, the substep counted and checked."""
        return self.counted(
            END.format(
                moves=_moves(self.out),
                float_sum=" + ".join(name for name, _ in SLOTS if name not in INT_SLOTS),
                store=_indent(store, 4),
                probe_substep=self.tap(_probe_substep(store, reload)),
            )
        )


#: the stages the fast path writes per wheel (methods of :class:`_Substep`); every other
#: stage of STAGES is its stage function specialised whole
PER_WHEEL = frozenset({"ground", "steering", "tire_forces", "wheel_solve"})


def source(sim: object, probed: bool = False) -> str:
    """The source of ``run(sim, host, n)`` for ``sim``'s definition and rates (``probed``:
    of ``run(sim, host, n, probe)``, which reports every stage and substep to ``probe``)."""
    substep = _Substep(sim, probed)
    sub = "".join(substep.stage(stage.name) for stage in STAGES)
    store = "".join(f"st[{index}] = {name}\n" for name, index in SLOTS).rstrip("\n")
    reload = "".join(f"{name} = st[{index}]\n" for name, index in SLOTS).rstrip("\n")
    sub += substep.end(store, reload)
    load = "".join(f"    {name} = st[{index}]\n" for name, index in SLOTS).rstrip("\n")
    head = HEAD.format(load=load, bind="", probe_param="", rear=_rear(sim))
    hot = tuple(piece for piece in substep.hot if piece)
    return (
        HEAD.format(
            rear=_rear(sim),
            load=load,
            bind=_bind_hot_first(hot, head),
            probe_param=substep.tap(", probe"),
        )
        + _indent(sub, 12)
        + TAIL.format(
            store8=_indent(store, 8),
            store4=_indent(store, 4),
            derived=_derived_record(substep.out),
        )
    )


def _rear(sim: object) -> str:
    """How the host step's text names its rear wheel angles (:data:`REAR`)."""
    return REAR_TURNED if sim.rear_wheels_turn else REAR


def namespace() -> dict:
    """The names the generated code calls (the shared, uninlined parts of the stages)."""
    return {
        "sqrt": sqrt,
        "isfinite": isfinite,
        "ceil": ceil,
        "Derived": Derived,
        "LAYOUT": LAYOUT,
        "steer_angles": _steer_angles,
        # an MF 6.1 tire's Magic Formula, called with its parameters (engine.fourwheel.mf61)
        "loaded": mf61.loaded,
        "at_load_of": mf61.at_load_of,
        "forces_loaded": mf61.forces_loaded,
        "transient_gain": tire.transient_gain,
    }


CODE_CACHE = 32  # compiled texts kept (simulations of one definition share theirs)
_CODE: dict = {}


def build(
    sim: object, text: str | None = None, extra: dict | None = None, probed: bool = False
) -> Callable:
    """Compile the fast path of ``sim``, ``run(sim, host, n)``, from :func:`source` (or from
    ``text``, a variant of it with the ``extra`` names it calls: the planted-difference tests
    perturb one line; ``probed``: ``run(sim, host, n, probe)``, reporting every stage)."""
    if text is None:
        text = source(sim, probed)
    names = namespace()
    names.update(_tire_names(sim))
    if sim.ground is not None:
        names["ground_factors"] = sim.ground.factors
    names.update(extra or {})
    code = _CODE.get(text)
    if code is None:
        # The generated text is linted by the strict-float lint in tests/test_fastpath.py.
        with AST_LOCK:  # one compile at a time, as every parse (specialise.AST_LOCK)
            code = compile(text, "<fast path>", "exec")  # strict: allow dynamic-code -- generated
        _keep(_CODE, CODE_CACHE, text, code)
    exec(code, names)  # strict: allow dynamic-code -- the generated substep, linted
    return names["run"]


__all__ = ["SLOTS", "Unfoldable", "build", "namespace", "num", "source"]
