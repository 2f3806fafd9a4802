"""TNO/MF-Tyre ``.tir`` property files: a strict reader into a frozen, typed record.

A ``.tir`` file is plain text in sections::

    [SECTION]
    KEY = value            $ comment
    ! comment line            $ comment line

where a value is a decimal number (``1.75e+005``) or a single-quoted string
(``'LEFT'``). :func:`parse_tir` reads the text of one file into :class:`Mf61Params`, the
parameters of the Magic Formula 6.1 model of :mod:`skidpad.engine.fourwheel.mf61`; :func:`read_tir`
reads a file from disk first (bounded, regular files only). :func:`to_mapping` and
:func:`from_mapping` give the flat form a definition will embed (ADR 0260), checked on the
way back exactly like a file.

Every file is hostile input. Refused, each with one line naming the file, the line, the
section and the key (a :class:`TirError`, which the command line turns into exit 2):
bytes that are not UTF-8, a file over :data:`MAX_BYTES` or a line over
:data:`MAX_LINE`, a line outside any section, an unknown or repeated section, a repeated
key, a key of a coefficient section that MF 6.1 does not define (a misspelt ``PKY1``
must not silently become 0), a missing required key, a string where a number belongs,
NaN, infinity, a number that overflows, a numeric literal longer than
:data:`MAX_NUMBER_CHARS` characters (the 401-digit number), units other than SI, a
``FITTYP`` other than 61 and values that make the model singular (``FNOMIN <= 0``, ...).

Numbers are parsed exactly: the literal is checked against a decimal grammar and then
given to ``float()``, which rounds correctly in every runtime; strict-float applies to
the arithmetic done with them afterwards (:mod:`skidpad.engine.fourwheel.mf61`).

Sections the model reads are checked key by key (:data:`COEFFICIENT_SECTIONS`); the
descriptive sections (``[MDI_HEADER]``, ``[INERTIA]``, ``[OVERTURNING_COEFFICIENTS]``,
``[TURNSLIP_COEFFICIENTS]``, ...) are checked for well-formed values only, and the keys
this model uses from them (``FNOMIN``, ``UNLOADED_RADIUS``, ...) are type-checked.
Defaults of absent optional keys: 1 for a scaling factor except ``LMUV`` (0), 0 for a
coefficient, as the MF-Tyre documentation specifies.
"""

from __future__ import annotations

import os
import re
from math import isfinite
from typing import NamedTuple

from skidpad.engine.errors import SkidpadError
from skidpad.engine.files import read_regular_file

#: A .tir file is a few tens of kB; this bounds memory and time for a hostile one.
MAX_BYTES = 1 << 20
#: The longest line accepted (characters).
MAX_LINE = 4096
#: The longest numeric literal accepted: 17 significant digits, sign, point and a
#: three-digit exponent fit in 25; longer literals carry digits no double can hold.
MAX_NUMBER_CHARS = 32
#: The longest quoted string accepted (characters).
MAX_STRING_CHARS = 256

_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SECTION = re.compile(r"\[([A-Za-z_][A-Za-z0-9_]*)\]")


class TirError(SkidpadError, ValueError):
    """A ``.tir`` file is refused; the message names the file, line, section and key."""


class Mf61Params(NamedTuple):
    """The parameters of one MF 6.1 tire, as read from its ``.tir`` file (SI units).

    Field names are the file's keys, so :mod:`skidpad.engine.fourwheel.mf61` reads like the
    MF-Tyre equations. Optional descriptive values absent from the file are ``None``.
    """

    # [MODEL]
    FITTYP: int
    TYRESIDE: str
    LONGVL: float  # reference speed V0 (m/s)
    VXLOW: float
    # [DIMENSION]
    UNLOADED_RADIUS: float  # R0 (m)
    WIDTH: float | None
    # [OPERATING_CONDITIONS]
    INFLPRES: float | None  # Pa
    NOMPRES: float | None  # Pa
    # [VERTICAL]
    FNOMIN: float  # Fz0 (N)
    VERTICAL_STIFFNESS: float | None  # N/m
    # [STRUCTURAL] (relaxation lengths when PTX1/PTY1 are absent)
    LONGITUDINAL_STIFFNESS: float | None  # N/m
    LATERAL_STIFFNESS: float | None  # N/m
    PCFX1: float
    PCFX2: float
    PCFX3: float
    PCFY1: float
    PCFY2: float
    PCFY3: float
    # validity ranges (descriptive; the model does not clamp)
    FZMIN: float | None
    FZMAX: float | None
    KPUMIN: float | None
    KPUMAX: float | None
    ALPMIN: float | None
    ALPMAX: float | None
    CAMMIN: float | None
    CAMMAX: float | None
    # [SCALING_COEFFICIENTS]
    LFZO: float
    LCX: float
    LMUX: float
    LEX: float
    LKX: float
    LHX: float
    LVX: float
    LCY: float
    LMUY: float
    LEY: float
    LKY: float
    LKYC: float
    LKZC: float
    LHY: float
    LVY: float
    LTR: float
    LRES: float
    LXAL: float
    LYKA: float
    LVYKA: float
    LS: float
    LMY: float
    LMUV: float
    LSGKP: float
    LSGAL: float
    # [LONGITUDINAL_COEFFICIENTS]
    PCX1: float
    PDX1: float
    PDX2: float
    PDX3: float
    PEX1: float
    PEX2: float
    PEX3: float
    PEX4: float
    PKX1: float
    PKX2: float
    PKX3: float
    PHX1: float
    PHX2: float
    PVX1: float
    PVX2: float
    PPX1: float
    PPX2: float
    PPX3: float
    PPX4: float
    RBX1: float
    RBX2: float
    RBX3: float
    RCX1: float
    REX1: float
    REX2: float
    RHX1: float
    PTX1: float
    PTX2: float
    PTX3: float
    # [LATERAL_COEFFICIENTS]
    PCY1: float
    PDY1: float
    PDY2: float
    PDY3: float
    PEY1: float
    PEY2: float
    PEY3: float
    PEY4: float
    PEY5: float
    PKY1: float
    PKY2: float
    PKY3: float
    PKY4: float
    PKY5: float
    PKY6: float
    PKY7: float
    PHY1: float
    PHY2: float
    PVY1: float
    PVY2: float
    PVY3: float
    PVY4: float
    PPY1: float
    PPY2: float
    PPY3: float
    PPY4: float
    PPY5: float
    RBY1: float
    RBY2: float
    RBY3: float
    RBY4: float
    RCY1: float
    REY1: float
    REY2: float
    RHY1: float
    RHY2: float
    RVY1: float
    RVY2: float
    RVY3: float
    RVY4: float
    RVY5: float
    RVY6: float
    PTY1: float
    PTY2: float
    # [ALIGNING_COEFFICIENTS]
    QBZ1: float
    QBZ2: float
    QBZ3: float
    QBZ4: float
    QBZ5: float
    QBZ9: float
    QBZ10: float
    QCZ1: float
    QDZ1: float
    QDZ2: float
    QDZ3: float
    QDZ4: float
    QDZ6: float
    QDZ7: float
    QDZ8: float
    QDZ9: float
    QDZ10: float
    QDZ11: float
    QEZ1: float
    QEZ2: float
    QEZ3: float
    QEZ4: float
    QEZ5: float
    QHZ1: float
    QHZ2: float
    QHZ3: float
    QHZ4: float
    PPZ1: float
    PPZ2: float
    SSZ1: float
    SSZ2: float
    SSZ3: float
    SSZ4: float
    # [ROLLING_COEFFICIENTS]
    QSY1: float
    QSY2: float
    QSY3: float
    QSY4: float
    QSY5: float
    QSY6: float
    QSY7: float
    QSY8: float


#: The keys of the sections the model reads, in the order of the MF-Tyre documentation.
_COEFFICIENT_KEYS: dict[str, str] = {
    "SCALING_COEFFICIENTS": (
        "LFZO LCX LMUX LEX LKX LHX LVX LCY LMUY LEY LKY LKYC LKZC LHY LVY LTR LRES LXAL "
        "LYKA LVYKA LS LMY LMUV LSGKP LSGAL"
    ),
    "LONGITUDINAL_COEFFICIENTS": (
        "PCX1 PDX1 PDX2 PDX3 PEX1 PEX2 PEX3 PEX4 PKX1 PKX2 PKX3 PHX1 PHX2 PVX1 PVX2 PPX1 "
        "PPX2 PPX3 PPX4 RBX1 RBX2 RBX3 RCX1 REX1 REX2 RHX1 PTX1 PTX2 PTX3"
    ),
    "LATERAL_COEFFICIENTS": (
        "PCY1 PDY1 PDY2 PDY3 PEY1 PEY2 PEY3 PEY4 PEY5 PKY1 PKY2 PKY3 PKY4 PKY5 PKY6 PKY7 "
        "PHY1 PHY2 PVY1 PVY2 PVY3 PVY4 PPY1 PPY2 PPY3 PPY4 PPY5 RBY1 RBY2 RBY3 RBY4 RCY1 "
        "REY1 REY2 RHY1 RHY2 RVY1 RVY2 RVY3 RVY4 RVY5 RVY6 PTY1 PTY2"
    ),
    "ALIGNING_COEFFICIENTS": (
        "QBZ1 QBZ2 QBZ3 QBZ4 QBZ5 QBZ9 QBZ10 QCZ1 QDZ1 QDZ2 QDZ3 QDZ4 QDZ6 QDZ7 QDZ8 QDZ9 "
        "QDZ10 QDZ11 QEZ1 QEZ2 QEZ3 QEZ4 QEZ5 QHZ1 QHZ2 QHZ3 QHZ4 PPZ1 PPZ2 SSZ1 SSZ2 "
        "SSZ3 SSZ4"
    ),
    "ROLLING_COEFFICIENTS": ("QSY1 QSY2 QSY3 QSY4 QSY5 QSY6 QSY7 QSY8"),
}

#: Keys an MF 6.1 file must give (no default is meaningful for them).
_REQUIRED = frozenset(
    "PCX1 PDX1 PKX1 RBX1 RCX1 PCY1 PDY1 PKY1 PKY2 PKY4 RBY1 RCY1 QBZ1 QCZ1 QDZ1 QSY1".split()
)


def _default(section: str, key: str) -> float | None:
    """The value of an absent key (None: required): scaling 1 (LMUV 0), coefficients 0."""
    if section == "SCALING_COEFFICIENTS":
        return 0.0 if key == "LMUV" else 1.0
    return None if key in _REQUIRED else 0.0


#: The sections whose every key this reader knows: key -> default (None = required).
COEFFICIENT_SECTIONS: dict[str, dict[str, float | None]] = {
    section: {key: _default(section, key) for key in keys.split()}
    for section, keys in _COEFFICIENT_KEYS.items()
}

#: Descriptive sections: any well-formed key; the keys listed are typed and read.
#: (key -> kind: "num" a number, "int" an integer, "str" a quoted string).
DESCRIPTIVE_SECTIONS: dict[str, dict[str, str]] = {
    "MDI_HEADER": {},
    "UNITS": {"LENGTH": "str", "FORCE": "str", "ANGLE": "str", "MASS": "str", "TIME": "str"},
    "MODEL": {"FITTYP": "int", "TYRESIDE": "str", "LONGVL": "num", "VXLOW": "num"},
    "DIMENSION": {"UNLOADED_RADIUS": "num", "WIDTH": "num"},
    "OPERATING_CONDITIONS": {"INFLPRES": "num", "NOMPRES": "num"},
    "INERTIA": {},
    "VERTICAL": {"FNOMIN": "num", "VERTICAL_STIFFNESS": "num"},
    "STRUCTURAL": {
        k: "num"
        for k in "LONGITUDINAL_STIFFNESS LATERAL_STIFFNESS PCFX1 PCFX2 PCFX3 PCFY1 PCFY2 "
        "PCFY3".split()
    },
    "CONTACT_PATCH": {},
    "INFLATION_PRESSURE_RANGE": {},
    "VERTICAL_FORCE_RANGE": {"FZMIN": "num", "FZMAX": "num"},
    "LONG_SLIP_RANGE": {"KPUMIN": "num", "KPUMAX": "num"},
    "SLIP_ANGLE_RANGE": {"ALPMIN": "num", "ALPMAX": "num"},
    "INCLINATION_ANGLE_RANGE": {"CAMMIN": "num", "CAMMAX": "num"},
    "OVERTURNING_COEFFICIENTS": {},
    "TURNSLIP_COEFFICIENTS": {},
    "SHAPE": {},
}

#: [UNITS] this reader accepts (value, lower case): SI only, never converted silently.
SI_UNITS = {
    "LENGTH": ("meter", "metre", "m"),
    "FORCE": ("newton", "n"),
    "ANGLE": ("radian", "radians", "rad"),
    "MASS": ("kg", "kilogram"),
    "TIME": ("second", "sec", "s"),
}


class _Value(NamedTuple):
    value: float | str
    line: int


def read_tir(path: str | os.PathLike) -> Mf61Params:
    """Read and parse the ``.tir`` file at ``path`` (a regular file of at most MAX_BYTES)."""
    data = read_regular_file(path, MAX_BYTES, TirError, "a .tir file")
    return parse_tir(data, str(path))


def parse_tir(data: bytes, source: str) -> Mf61Params:
    """Parse the bytes of one ``.tir`` file; ``source`` names it in every error."""
    if len(data) > MAX_BYTES:
        raise TirError(f"{source}: too large (more than {MAX_BYTES} bytes)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TirError(f"{source}: not UTF-8 text (invalid byte at offset {exc.start})") from None
    sections = _sections(text, source)
    return _record(sections, source)


def _sections(text: str, source: str) -> dict[str, dict[str, _Value]]:
    """section -> key -> value, every line checked; the order of the file is kept."""
    sections: dict[str, dict[str, _Value]] = {}
    current: str | None = None
    for n, raw in enumerate(text.split("\n"), start=1):
        where = f"{source}:{n}"
        if len(raw) > MAX_LINE:
            raise TirError(f"{where}: line longer than {MAX_LINE} characters")
        line = raw.strip()
        if not line or line[0] in "$!":
            continue
        m = _SECTION.fullmatch(line.split("$")[0].split("!")[0].strip())
        if m:
            current = m.group(1).upper()
            if current not in COEFFICIENT_SECTIONS and current not in DESCRIPTIVE_SECTIONS:
                raise TirError(f"{where}: unknown section [{_show(current)}]")
            if current in sections:
                raise TirError(f"{where}: section [{current}] appears twice")
            sections[current] = {}
            continue
        if current is None:
            raise TirError(f"{where}: {_show(line)!r} before the first [SECTION]")
        if current == "SHAPE":
            _shape_row(line, f"{where}: [SHAPE]")
            continue
        key, value = _key_value(line, f"{where}: [{current}]")
        ctx = f"{where}: [{current}] {key}"
        if key in sections[current]:
            first = sections[current][key].line
            raise TirError(f"{ctx}: given twice (first on line {first})")
        known = COEFFICIENT_SECTIONS.get(current)
        if known is not None and key not in known:
            raise TirError(f"{ctx}: not an MF 6.1 key of this section")
        sections[current][key] = _Value(_typed(current, key, value, ctx), n)
    return sections


def _show(s: str) -> str:
    """At most 40 printable characters of ``s`` (a hostile name must not flood the line)."""
    s = "".join(ch if ch.isprintable() else "?" for ch in s)
    return s if len(s) <= 40 else s[:40] + "..."


def _key_value(line: str, ctx: str) -> tuple[str, str]:
    if "=" not in line:
        raise TirError(f"{ctx}: {_show(line)!r} is not KEY = value")
    key, rest = line.split("=", 1)
    key = key.strip()
    if not _KEY.fullmatch(key):
        raise TirError(f"{ctx}: {_show(key)!r} is not a key name")
    key = key.upper()
    return key, _value_text(rest.strip(), f"{ctx} {key}")


def _value_text(rest: str, ctx: str) -> str:
    """The value token of ``KEY = value [$ comment]``: a quoted string keeps its quotes."""
    if rest.startswith("'"):
        end = rest.find("'", 1)
        if end < 0:
            raise TirError(f"{ctx}: string without its closing quote")
        tail = rest[end + 1 :].strip()
        token = rest[: end + 1]
    else:
        parts = rest.split(None, 1)
        if not parts or parts[0][0] in "$!":
            raise TirError(f"{ctx}: no value")
        token = parts[0]
        for mark in "$!":
            token = token.split(mark)[0]
        tail = rest[len(token) :].strip()
    if tail and tail[0] not in "$!":
        raise TirError(f"{ctx}: unexpected {_show(tail.split()[0])!r} after the value")
    return token


def _typed(section: str, key: str, token: str, ctx: str) -> float | str:
    if section in COEFFICIENT_SECTIONS:
        kind = "num"
    else:
        kind = DESCRIPTIVE_SECTIONS[section].get(key, "any")
    if token.startswith("'"):
        if kind in ("num", "int"):
            raise TirError(f"{ctx}: a string ({_show(token)}) where a number belongs")
        body = token[1:-1]
        if len(body) > MAX_STRING_CHARS or not body.isprintable():
            raise TirError(f"{ctx}: string too long or not printable")
        return body
    if kind == "str":
        raise TirError(f"{ctx}: a number where a quoted string belongs")
    value = parse_number(token, ctx)
    if kind == "int" and (not _NUMBER.fullmatch(token) or value != int(value)):
        raise TirError(f"{ctx}: {_show(token)} is not an integer")
    return value


def parse_number(token: str, ctx: str) -> float:
    """The float of a decimal literal, refusing anything else with one line (``ctx: ...``)."""
    if len(token) > MAX_NUMBER_CHARS:
        raise TirError(
            f"{ctx}: number too long ({len(token)} characters; at most {MAX_NUMBER_CHARS})"
        )
    if not _NUMBER.fullmatch(token):
        if token.lower().lstrip("+-") in ("nan", "inf", "infinity"):
            raise TirError(f"{ctx}: {token} is not a finite number")
        raise TirError(f"{ctx}: {_show(token)!r} is not a number")
    value = float(token)  # exact: the literal is a checked decimal, float() rounds correctly
    if not isfinite(value):
        raise TirError(f"{ctx}: {token} overflows a double")
    return value


def _shape_row(line: str, ctx: str) -> None:
    """A [SHAPE] line: the ``{radial width}`` header or a row of numbers (not used)."""
    if line.startswith("{") and line.endswith("}"):
        return
    for token in line.split("$")[0].split():
        parse_number(token, ctx)


def _record(sections: dict[str, dict[str, _Value]], source: str) -> Mf61Params:
    """Check what the model needs and build the record."""
    _check_units(sections.get("UNITS", {}), source)
    get = _Getter(sections, source)
    fittyp = get.required("MODEL", "FITTYP")
    if fittyp != 61:
        get.refuse("MODEL", "FITTYP", f"{fittyp:g}: this reader implements MF 6.1 (FITTYP = 61)")
    side = get.optional("MODEL", "TYRESIDE")
    side = "LEFT" if side is None else str(side).upper()
    if side not in ("LEFT", "RIGHT", "SYMMETRIC"):
        get.refuse("MODEL", "TYRESIDE", f"{_show(side)!r} is not LEFT, RIGHT or SYMMETRIC")
    values: dict[str, object] = {
        "FITTYP": 61,
        "TYRESIDE": side,
        "LONGVL": get.positive("MODEL", "LONGVL", 16.7),
        "VXLOW": get.positive("MODEL", "VXLOW", 1.0),
        "UNLOADED_RADIUS": get.positive("DIMENSION", "UNLOADED_RADIUS"),
        "WIDTH": get.optional("DIMENSION", "WIDTH"),
        "INFLPRES": get.positive("OPERATING_CONDITIONS", "INFLPRES", None),
        "NOMPRES": get.positive("OPERATING_CONDITIONS", "NOMPRES", None),
        "FNOMIN": get.positive("VERTICAL", "FNOMIN"),
        "VERTICAL_STIFFNESS": get.optional("VERTICAL", "VERTICAL_STIFFNESS"),
        "LONGITUDINAL_STIFFNESS": get.positive("STRUCTURAL", "LONGITUDINAL_STIFFNESS", None),
        "LATERAL_STIFFNESS": get.positive("STRUCTURAL", "LATERAL_STIFFNESS", None),
    }
    for k in ("PCFX1", "PCFX2", "PCFX3", "PCFY1", "PCFY2", "PCFY3"):
        values[k] = get.optional("STRUCTURAL", k, 0.0)
    for section, keys in (
        ("VERTICAL_FORCE_RANGE", ("FZMIN", "FZMAX")),
        ("LONG_SLIP_RANGE", ("KPUMIN", "KPUMAX")),
        ("SLIP_ANGLE_RANGE", ("ALPMIN", "ALPMAX")),
        ("INCLINATION_ANGLE_RANGE", ("CAMMIN", "CAMMAX")),
    ):
        for k in keys:
            values[k] = get.optional(section, k)
    if values["INFLPRES"] is not None and values["NOMPRES"] is None:
        get.refuse("OPERATING_CONDITIONS", "NOMPRES", "missing (INFLPRES is given)")
    for section, keys in COEFFICIENT_SECTIONS.items():
        for k, default in keys.items():
            values[k] = (
                get.required(section, k) if default is None else get.optional(section, k, default)
            )
    _check_model(values, get)
    return Mf61Params(**values)  # type: ignore[arg-type]


def _check_model(v: dict[str, object], get: _Getter) -> None:
    """Values that would make the equations singular or meaningless."""
    for section, key in (
        ("LONGITUDINAL_COEFFICIENTS", "PCX1"),
        ("LONGITUDINAL_COEFFICIENTS", "PDX1"),
        ("LATERAL_COEFFICIENTS", "PCY1"),
        ("LATERAL_COEFFICIENTS", "PDY1"),
        ("SCALING_COEFFICIENTS", "LFZO"),
    ):
        if not v[key] > 0.0:  # type: ignore[operator]
            get.refuse(section, key, f"{v[key]!r} must be > 0")
    for key in ("PKY2", "PKY4"):
        if v[key] == 0.0:
            get.refuse("LATERAL_COEFFICIENTS", key, "must not be 0")
    for key in COEFFICIENT_SECTIONS["SCALING_COEFFICIENTS"]:
        if v[key] < 0.0:  # type: ignore[operator]
            get.refuse("SCALING_COEFFICIENTS", key, f"{v[key]!r} must be >= 0")
    has_pt = get.has("LONGITUDINAL_COEFFICIENTS", "PTX1") and get.has(
        "LATERAL_COEFFICIENTS", "PTY1"
    )
    if has_pt:
        for key in ("PTX1", "PTY1", "PTY2"):
            section = "LONGITUDINAL_COEFFICIENTS" if key == "PTX1" else "LATERAL_COEFFICIENTS"
            if not v[key] > 0.0:  # type: ignore[operator]
                get.refuse(section, key, f"{v[key]!r} must be > 0 (relaxation length)")
    elif v["LONGITUDINAL_STIFFNESS"] is None or v["LATERAL_STIFFNESS"] is None:
        get.refuse(
            "LATERAL_COEFFICIENTS",
            "PTY1",
            "missing: relaxation lengths need PTX1, PTY1, PTY2 or [STRUCTURAL] "
            "LONGITUDINAL_STIFFNESS and LATERAL_STIFFNESS",
        )


def _check_units(units: dict[str, _Value], source: str) -> None:
    for key, accepted in SI_UNITS.items():
        if key in units and str(units[key].value).lower() not in accepted:
            raise TirError(
                f"{_at(source, units[key].line)}: [UNITS] {key}: "
                f"{_show(str(units[key].value))!r} "
                f"is not SI ({accepted[0]}); convert the file"
            )


class _Getter:
    """Typed access to the parsed sections, refusing with file, line, section and key."""

    def __init__(self, sections: dict[str, dict[str, _Value]], source: str) -> None:
        self.sections = sections
        self.source = source

    def has(self, section: str, key: str) -> bool:
        return key in self.sections.get(section, {})

    def refuse(self, section: str, key: str, message: str) -> None:
        v = self.sections.get(section, {}).get(key)
        where = f"{self.source}:{v.line}" if v is not None and v.line else self.source
        raise TirError(f"{where}: [{section}] {key}: {message}")

    def required(self, section: str, key: str) -> float:
        v = self.sections.get(section, {}).get(key)
        if v is None:
            raise TirError(f"{self.source}: [{section}] {key}: missing (required for MF 6.1)")
        return v.value  # type: ignore[return-value]

    def optional(self, section: str, key: str, default: float | None = None) -> float | None:
        v = self.sections.get(section, {}).get(key)
        return default if v is None else v.value  # type: ignore[return-value]

    def positive(
        self, section: str, key: str, default: float | None | type[KeyError] = KeyError
    ) -> float | None:
        if default is KeyError:
            value: float | None = self.required(section, key)
        else:
            value = self.optional(section, key, default)  # type: ignore[arg-type]
        if value is not None and not value > 0.0:
            self.refuse(section, key, f"{value!r} must be > 0")
        return value


def _at(source: str, line: int) -> str:
    """``source:line``, or ``source`` alone for a value that has no line (a mapping)."""
    return f"{source}:{line}" if line else source


#: key -> (section, kind) of every key the record holds, for :func:`from_mapping`.
def _record_keys() -> dict[str, tuple[str, str]]:
    keys = {
        key: (section, kind)
        for section, typed in DESCRIPTIVE_SECTIONS.items()
        for key, kind in typed.items()
        if key in Mf61Params._fields
    }
    for section, coefficients in COEFFICIENT_SECTIONS.items():
        keys.update({key: (section, "num") for key in coefficients})
    return keys


_RECORD_KEYS = _record_keys()


def to_mapping(p: Mf61Params) -> dict[str, float | int | str]:
    """The record as a flat JSON-ready mapping (absent optional values left out): the form
    a definition embeds, so its hash covers the parameters and not the file's layout."""
    return {k: v for k, v in zip(Mf61Params._fields, p, strict=True) if v is not None}


def from_mapping(m: object, source: str) -> Mf61Params:
    """The record from a mapping written by :func:`to_mapping` (an embedded definition is
    hostile input too): every key known, every value of its type and finite, and the
    same checks as a file."""
    if not isinstance(m, dict):
        raise TirError(f"{source}: not an object of MF 6.1 parameters")
    sections: dict[str, dict[str, _Value]] = {}
    for key, value in m.items():
        if not isinstance(key, str) or key not in _RECORD_KEYS:
            raise TirError(f"{source}: {_show(str(key))!r} is not an MF 6.1 parameter")
        section, kind = _RECORD_KEYS[key]
        ctx = f"{source}: [{section}] {key}"
        if kind == "str":
            if not isinstance(value, str) or len(value) > MAX_STRING_CHARS:
                raise TirError(f"{ctx}: must be a string")
        elif isinstance(value, bool) or not isinstance(value, int | float):
            raise TirError(f"{ctx}: must be a number")
        elif not isfinite(value):
            raise TirError(f"{ctx}: {value} is not a finite number")
        elif kind == "int" and value != int(value):
            raise TirError(f"{ctx}: {value} is not an integer")
        sections.setdefault(section, {})[key] = _Value(value if kind == "str" else float(value), 0)
    return _record(sections, source)
