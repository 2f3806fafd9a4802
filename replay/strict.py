"""Strict reading of the files that are not recordings: golden files, math.json, traces,
fuzz logs (ADR 0210).

Every file a command reads is untrusted input, whoever wrote it. A reader here gets the
treatment recordings have (:mod:`replay.document`): a size limit, a non-regular file
refused from its ``stat`` (a FIFO is never opened, so it cannot hang the command),
strict UTF-8, strict JSON (no NaN or infinity, no duplicate key, bounded nesting), and
then every field checked for type and range by a :class:`Checker`, whose errors start
with the file and the field's JSON pointer. Each reader raises its own
:class:`engine.errors.SkidpadError` subclass: one line, exit 2.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from skidpad.engine.errors import SkidpadError
from skidpad.replay.document import (
    MAX_EXACT_INT,
    RecordingError,
    check_numbers,
    decode_utf8,
    is_hex16,
    is_int,
    parse_json,
    read_bytes_limited,
    shown,
    type_name,
)

#: Golden files, math.json and traces larger than this are refused unread (bytes).
MAX_SIDE_FILE_BYTES = 256 * 1024 * 1024
#: Objects and arrays in these files nest at most this deep.
MAX_DEPTH = 16

_HEX = frozenset("0123456789abcdef")


def parse_text(text: str, source: str, error: type[SkidpadError]) -> Any:
    """Strict JSON of ``text`` with numbers finite and nesting bounded; ``error`` if not."""
    try:
        doc = parse_json(text)
        check_numbers(doc, "", max_depth=MAX_DEPTH)
    except RecordingError as exc:
        raise error(f"{source}: {exc}") from None
    return doc


def read_json_file(
    path: str | os.PathLike, error: type[SkidpadError], limit: int = MAX_SIDE_FILE_BYTES
) -> Any:
    """The strict JSON document in the regular file ``path`` (see the module docstring)."""
    try:
        text = decode_utf8(read_bytes_limited(path, limit), str(path))
    except RecordingError as exc:
        raise error(str(exc)) from None
    return parse_text(text, str(path), error)


def is_hex64(v: Any) -> bool:
    """A SHA-256 as the files write it: 64 lowercase hex digits."""
    return isinstance(v, str) and len(v) == 64 and all(c in _HEX for c in v)


class Checker:
    """Field checks for one document: every failure names ``source`` and the JSON pointer."""

    def __init__(self, source: str, error: type[SkidpadError]) -> None:
        self.source = source
        self.error = error

    def fail(self, path: str, message: str) -> NoReturn:
        raise self.error(f"{self.source}: {path or '/'}: {message}")

    def object(
        self, v: Any, path: str, required: Sequence[str], optional: Sequence[str] = ()
    ) -> dict:
        """``v`` is an object with every ``required`` key and no key outside both lists."""
        if not isinstance(v, dict):
            self.fail(path, f"must be an object, not {type_name(v)}")
        for k in required:
            if k not in v:
                self.fail(f"{path}/{k}", "missing required field")
        for k in v:
            if k not in required and k not in optional:
                self.fail(f"{path}/{_pointer(k)}", "unknown field")
        return v

    def integer(self, v: Any, path: str, lo: int = 0, hi: int = MAX_EXACT_INT) -> int:
        if not is_int(v):
            self.fail(path, f"must be an integer, not {type_name(v)}")
        if not lo <= v <= hi:
            self.fail(path, f"{shown(v)} is outside [{lo}, {hi}]")
        return v

    def number(self, v: Any, path: str, lo: float = -math.inf, hi: float = math.inf) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            self.fail(path, f"must be a number, not {type_name(v)}")
        if not lo <= v <= hi:
            self.fail(path, f"{shown(v)} is outside [{lo}, {hi}]")
        return v

    def string(self, v: Any, path: str, max_len: int = 4096, nullable: bool = False) -> str | None:
        if v is None and nullable:
            return None
        if not isinstance(v, str):
            self.fail(path, f"must be a string{' or null' if nullable else ''}, not {type_name(v)}")
        if len(v) > max_len:
            self.fail(path, f"a string of {len(v)} characters (at most {max_len})")
        return v

    def hash16(self, v: Any, path: str, nullable: bool = False) -> str | None:
        if v is None and nullable:
            return None
        if not is_hex16(v):
            self.fail(path, f"must be 16 lowercase hex digits{' or null' if nullable else ''}")
        return v

    def hash64(self, v: Any, path: str) -> str:
        if not is_hex64(v):
            self.fail(path, "must be 64 lowercase hex digits (a SHA-256)")
        return v

    def array(
        self, v: Any, path: str, max_len: int = MAX_EXACT_INT, nullable: bool = False
    ) -> list | None:
        if v is None and nullable:
            return None
        if not isinstance(v, list):
            self.fail(path, f"must be an array{' or null' if nullable else ''}, not {type_name(v)}")
        if len(v) > max_len:
            self.fail(path, f"has {len(v)} entries (at most {max_len})")
        return v

    def each(self, items: list, path: str, check: Callable[[Any, str], Any]) -> list:
        return [check(x, f"{path}/{i}") for i, x in enumerate(items)]

    def checkpoints(self, v: Any, path: str, steps: int) -> list[tuple[int, str]]:
        """``[[step, hash16], ...]`` with steps rising within ``0..steps``."""
        out: list[tuple[int, str]] = []
        for i, pair in enumerate(self.array(v, path, max_len=steps + 1) or []):
            where = f"{path}/{i}"
            if not isinstance(pair, list) or len(pair) != 2:
                self.fail(where, "must be a pair [step, hash]")
            step = self.integer(pair[0], f"{where}/0", 0, steps)
            if out and step <= out[-1][0]:
                self.fail(f"{where}/0", f"step {step} does not come after step {out[-1][0]}")
            out.append((step, self.hash16(pair[1], f"{where}/1")))
        return out

    def physics_version(self, doc: dict) -> None:
        """The optional ``physics_version`` stamp: an integer >= 1 when present."""
        if "physics_version" in doc:
            self.integer(doc["physics_version"], "/physics_version", 1, 10**6)


def _pointer(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")[:80]
