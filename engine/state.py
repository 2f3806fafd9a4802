"""Named, flat simulation state and its hash (docs/architecture.md §2).

The state of a simulation is one flat Python list of floats and ints. A
:class:`StateLayout` names every slot (``body.vx``, ``wheel.FL.omega``,
``drivetrain.gear``), gives its kind (``"f"`` binary64, ``"i"`` signed 64-bit
integer) and its unit, and groups the slots into contiguous per-subsystem
slices, so that the hot path can index the list directly while everything
outside it (diff, telemetry, recordings) speaks in names.

The state hash is SHA-256 over, in order:

* the layout version, packed ``<q``;
* the step counter, packed ``<q``;
* every field in layout order, packed ``<d`` (floats) or ``<q`` (ints).

Its first 16 hex digits are the hash. Raw bits are hashed: ``-0.0`` and
``0.0`` hash differently, and a NaN or infinity is never hashed — it is an
error that names the field (:class:`NonFiniteStateError`).
"""

from __future__ import annotations

import hashlib
import math
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

FLOAT = "f"
INT = "i"

_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1


class NonFiniteStateError(ArithmeticError):
    """A NaN or infinity appeared in the state; ``field`` names the slot."""

    def __init__(self, field: str, value: float, where: str = "") -> None:
        self.field = field
        self.value = value
        self.where = where
        at = f" at {where}" if where else ""
        super().__init__(f"state field {field} became {value!r}{at}")


class StepArithmeticError(NonFiniteStateError):
    """A step's arithmetic failed before its end-of-substep finiteness check could run.

    An intermediate that overflowed reaches a strict-math domain check
    (``smath.sin(inf)`` raises, as ``math.sin`` does), or a quantity the
    physics divides by vanished. It is the same failure as a NaN in the state,
    caught one operation earlier, so it is reported the same way: the physics
    failed at ``where``. ``field`` and ``value`` are None.
    """

    def __init__(self, cause: BaseException, where: str) -> None:
        ArithmeticError.__init__(
            self, f"the arithmetic failed at {where}: {type(cause).__name__}: {cause}"
        )
        self.field = None
        self.value = None
        self.where = where


@dataclass(frozen=True)
class Field:
    """One named slot of the state: name, kind (``"f"``/``"i"``), unit, meaning."""

    name: str
    kind: str = FLOAT
    unit: str = ""
    doc: str = ""


class StateLayout:
    """An ordered, immutable set of named fields with a version number.

    ``layout.index[name]`` is the slot of a field in the flat state list;
    ``layout.group(prefix)`` is the ``range`` of slots whose names start with
    ``prefix + "."`` (subsystems own contiguous slices, which is checked).
    """

    __slots__ = ("version", "fields", "names", "kinds", "index", "_format", "_groups")

    def __init__(self, version: int, fields: Iterable[Field]) -> None:
        fields = tuple(fields)
        names = tuple(f.name for f in fields)
        if len(set(names)) != len(names):
            dup = next(n for i, n in enumerate(names) if n in names[:i])
            raise ValueError(f"duplicate state field {dup}")
        for f in fields:
            if f.kind not in (FLOAT, INT):
                raise ValueError(f"state field {f.name}: kind must be 'f' or 'i', not {f.kind!r}")
        self.version = int(version)
        self.fields = fields
        self.names = names
        self.kinds = tuple(f.kind for f in fields)
        self.index = {n: i for i, n in enumerate(names)}
        self._format = "<qq" + "".join("d" if k == FLOAT else "q" for k in self.kinds)
        self._groups: dict[str, range] = {}
        self._check_contiguous_groups()

    def __len__(self) -> int:
        return len(self.fields)

    def __repr__(self) -> str:
        return f"StateLayout(version={self.version}, fields={len(self.fields)})"

    def _check_contiguous_groups(self) -> None:
        # Every dotted prefix (``wheel``, ``wheel.FL``) must cover one contiguous run.
        seen_closed: set[str] = set()
        open_prefixes: list[str] = []
        for i, name in enumerate(self.names):
            parts = name.split(".")[:-1]
            prefixes = [".".join(parts[: j + 1]) for j in range(len(parts))]
            for p in list(open_prefixes):
                if p not in prefixes:
                    open_prefixes.remove(p)
                    seen_closed.add(p)
            for p in prefixes:
                if p in seen_closed:
                    raise ValueError(f"state group {p} is not contiguous (field {name})")
                if p not in open_prefixes:
                    open_prefixes.append(p)
                    self._groups[p] = range(i, i + 1)
                else:
                    self._groups[p] = range(self._groups[p].start, i + 1)

    def group(self, prefix: str) -> range:
        """The contiguous slots of every field named ``prefix.*``."""
        try:
            return self._groups[prefix]
        except KeyError:
            raise KeyError(f"no state group {prefix!r}") from None

    def zeros(self) -> list:
        """A fresh state list: 0.0 for float fields, 0 for int fields."""
        return [0.0 if k == FLOAT else 0 for k in self.kinds]

    def as_dict(self, values: Sequence) -> dict[str, float | int]:
        """The state as ``{name: value}`` in layout order."""
        return dict(zip(self.names, values, strict=True))

    def from_dict(self, mapping: dict) -> list:
        """A state list from ``{name: value}``; every field must be present, no extras."""
        missing = [n for n in self.names if n not in mapping]
        if missing:
            raise KeyError(f"state field {missing[0]} is missing")
        extra = [n for n in mapping if n not in self.index]
        if extra:
            raise KeyError(f"unknown state field {extra[0]}")
        out = []
        for f in self.fields:
            v = mapping[f.name]
            out.append(float(v) if f.kind == FLOAT else int(v))
        return out

    def check_finite(self, values: Sequence, where: str = "") -> None:
        """Raise :class:`NonFiniteStateError` naming the first NaN/inf float field."""
        for name, kind, v in zip(self.names, self.kinds, values, strict=True):
            if kind == FLOAT and not math.isfinite(v):
                raise NonFiniteStateError(name, v, where)

    def pack(self, step: int, values: Sequence) -> bytes:
        """The exact bytes the state hash is taken over (see module docstring)."""
        if len(values) != len(self.fields):
            raise ValueError(f"state has {len(values)} values, layout has {len(self.fields)}")
        self.check_finite(values)
        for name, kind, v in zip(self.names, self.kinds, values, strict=True):
            if kind == INT and not (isinstance(v, int) and _INT64_MIN <= v <= _INT64_MAX):
                raise ValueError(f"state field {name} must be a 64-bit int, got {v!r}")
            if kind == FLOAT and not isinstance(v, float):
                raise ValueError(f"state field {name} must be a float, got {type(v).__name__}")
        return struct.pack(self._format, self.version, step, *values)

    def hash(self, step: int, values: Sequence) -> str:
        """The 16-hex-digit state hash of ``values`` at host step ``step``."""
        return hash_bytes(self.pack(step, values))


def hash_bytes(data: bytes) -> str:
    """SHA-256 of ``data``, first 16 hex digits: the project's one hash format."""
    return hashlib.sha256(data).hexdigest()[:16]


