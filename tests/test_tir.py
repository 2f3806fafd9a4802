"""The ``.tir`` reader refuses every hostile file in one line naming file, section and key
(ADR 0260), reads the shipped file, and ``skidpad tir check`` turns a refusal into exit 2."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from skidpad.engine.fourwheel.tir import (
    COEFFICIENT_SECTIONS,
    MAX_BYTES,
    Mf61Params,
    TirError,
    from_mapping,
    parse_tir,
    read_tir,
    to_mapping,
)

from skidpad import cli

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "engine" / "fourwheel" / "tires" / "chrono_185_80R14_mf61.tir"
TEXT = SHIPPED.read_text("utf-8")


def _set(key: str, value: str, text: str = TEXT) -> str:
    """The shipped file with ``key``'s value replaced (the key must be there once)."""
    pattern = re.compile(rf"^{key}(\s*)=\s*\S+", re.M)
    assert len(pattern.findall(text)) == 1, key
    return pattern.sub(lambda m: f"{key}{m.group(1)}= {value}", text)


def _drop(key: str, text: str = TEXT) -> str:
    out = re.sub(rf"^{key}\s*=.*\n", "", text, flags=re.M)
    assert out != text, key
    return out


def _refusal(data: bytes | str, source: str = "car.tir") -> str:
    if isinstance(data, str):
        data = data.encode("utf-8")
    with pytest.raises(TirError) as info:
        parse_tir(data, source)
    message = str(info.value)
    assert "\n" not in message and message.startswith(source + ":"), message
    return message


CASES = {
    # case -> (file text, the words the one line must carry)
    "missing required key": (_drop("PKY1"), ("[LATERAL_COEFFICIENTS] PKY1", "missing")),
    "NaN": (_set("PDX1", "nan"), ("[LONGITUDINAL_COEFFICIENTS] PDX1", "not a finite number")),
    "infinity": (_set("PDY1", "-inf"), ("[LATERAL_COEFFICIENTS] PDY1", "not a finite number")),
    "string for a number": (
        _set("QSY1", "'0.01'"),
        ("[ROLLING_COEFFICIENTS] QSY1", "a string ('0.01') where a number belongs"),
    ),
    "bare word for a number": (_set("PCX1", "one"), ("PCX1", "'one' is not a number")),
    "401-digit number": (
        _set("PKX1", "1" * 401),
        ("[LONGITUDINAL_COEFFICIENTS] PKX1", "number too long (401 characters"),
    ),
    "overflow": (_set("PKX2", "1e999"), ("PKX2", "overflows a double")),
    "duplicate key": (
        TEXT.replace("\nPCY1 ", "\nPCY1 = 1.2\nPCY1 ", 1),
        ("[LATERAL_COEFFICIENTS] PCY1", "given twice"),
    ),
    "unknown section": (TEXT + "\n[WHEEL_FLUTTER]\nX = 1\n", ("unknown section [WHEEL_FLUTTER]",)),
    "repeated section": (TEXT + "\n[UNITS]\n", ("section [UNITS] appears twice",)),
    "MF 5.2 key in an MF 6.1 file": (
        TEXT.replace("\nPHY1 ", "\nPHY3 = 0.03\nPHY1 ", 1),
        ("[LATERAL_COEFFICIENTS] PHY3", "not an MF 6.1 key"),
    ),
    "misspelt key": (
        TEXT.replace("\nPKY4 ", "\nPKY44 = 2\nPKY4 ", 1),
        ("[LATERAL_COEFFICIENTS] PKY44", "not an MF 6.1 key"),
    ),
    "other MF version": (_set("FITTYP", "62"), ("[MODEL] FITTYP", "MF 6.1 (FITTYP = 61)")),
    "fractional FITTYP": (_set("FITTYP", "61.5"), ("[MODEL] FITTYP", "not an integer")),
    "non-SI units": (_set("LENGTH", "'mm'"), ("[UNITS] LENGTH", "not SI")),
    "zero nominal load": (_set("FNOMIN", "0"), ("[VERTICAL] FNOMIN", "must be > 0")),
    "negative radius": (_set("UNLOADED_RADIUS", "-0.3"), ("[DIMENSION] UNLOADED_RADIUS",)),
    "zero shape factor": (_set("PCX1", "0"), ("[LONGITUDINAL_COEFFICIENTS] PCX1", "> 0")),
    "number for a string": (_set("TYRESIDE", "5"), ("[MODEL] TYRESIDE", "quoted string")),
    "unknown tyre side": (_set("TYRESIDE", "'UP'"), ("[MODEL] TYRESIDE", "LEFT, RIGHT")),
    "key before any section": ("FNOMIN = 4000\n" + TEXT, ("before the first [SECTION]",)),
    "no relaxation data": (
        _drop("PTY1", _drop("PTX1")),
        ("[LATERAL_COEFFICIENTS] PTY1", "relaxation lengths need"),
    ),
    "unclosed string": (_set("TYRESIDE", "'LEFT"), ("TYRESIDE", "closing quote")),
    "junk after value": (_set("PDX2", "0.1 0.2"), ("PDX2", "unexpected '0.2'")),
    "scaling below zero": (_set("LMUY", "-1"), ("[SCALING_COEFFICIENTS] LMUY", ">= 0")),
    "pressure without nominal": (
        _drop("NOMPRES"),
        ("[OPERATING_CONDITIONS] NOMPRES", "missing (INFLPRES is given)"),
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_hostile_file_is_refused_in_one_line_naming_section_and_key(case: str) -> None:
    text, words = CASES[case]
    message = _refusal(text)
    for w in words:
        assert w in message, (case, message)


def test_the_line_number_points_at_the_bad_line() -> None:
    text = _set("PDX1", "nan")
    line = next(n for n, s in enumerate(text.split("\n"), 1) if s.startswith("PDX1"))
    assert _refusal(text).startswith(f"car.tir:{line}: ")


def test_non_utf8_is_refused_with_its_offset() -> None:
    data = TEXT.encode("utf-8")
    at = data.index(b"PDX1")
    message = _refusal(data[:at] + b"\xff" + data[at:])
    assert f"not UTF-8 text (invalid byte at offset {at})" in message


def test_a_huge_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    big = tmp_path / "big.tir"
    with open(big, "wb") as fh:
        fh.write(TEXT.encode())
        fh.truncate(MAX_BYTES + 1)  # a file one byte too large
    with pytest.raises(TirError, match=r"too large \(1048577 bytes"):
        read_tir(big)


def test_a_long_line_and_a_hostile_name_stay_one_short_line() -> None:
    message = _refusal(TEXT + "\n[" + "A" * 5000 + "]\n")
    assert "line longer than" in message and len(message) < 120
    message = _refusal(TEXT + "\n[" + "B" * 300 + "]\n")
    assert len(message) < 120 and "..." in message


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_opening_it(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.tir"
    os.mkfifo(fifo)
    with pytest.raises(TirError, match="is a FIFO, not a .tir file"):
        read_tir(fifo)  # opening it would wait for a writer for ever


def test_a_missing_file_is_one_line() -> None:
    with pytest.raises(TirError, match="no such file"):
        read_tir("/nonexistent/x.tir")


def test_the_shipped_file_reads_with_its_values_and_defaults() -> None:
    p = read_tir(SHIPPED)
    assert (p.FITTYP, p.TYRESIDE, p.FNOMIN, p.UNLOADED_RADIUS) == (61, "LEFT", 3800.0, 0.376)
    assert (p.PDX1, p.PKY1, p.PVX1, p.VERTICAL_STIFFNESS) == (1.09, -12.536, -9.9052e-6, 1.75e5)
    assert p.LMUV == 0.0  # absent: the speed decay of friction is off
    assert (p.FZMIN, p.FZMAX) == (190.0, 8550.0)


def test_absent_optional_keys_take_the_documented_defaults() -> None:
    text = re.sub(r"\[SCALING_COEFFICIENTS\]\n(?:[A-Z].*\n)+", "", TEXT)
    text = _drop("QSY7", _drop("PEY5", text))
    p = parse_tir(text.encode(), "x.tir")
    for key in COEFFICIENT_SECTIONS["SCALING_COEFFICIENTS"]:
        assert getattr(p, key) == (0.0 if key == "LMUV" else 1.0), key
    assert p.QSY7 == 0.0 and p.PEY5 == 0.0


def test_comments_crlf_and_case_do_not_change_the_record() -> None:
    plain = parse_tir(TEXT.encode(), "a.tir")
    crlf = TEXT.replace("\n", "\r\n").replace("[MODEL]", "[model]  ! the model")
    crlf = crlf.replace("PDX1                     = 1.09", "pdx1 = 1.09 ! a trailing comment")
    assert parse_tir(crlf.encode(), "b.tir") == plain


def test_the_record_and_the_key_tables_agree() -> None:
    coefficient_keys = [k for keys in COEFFICIENT_SECTIONS.values() for k in keys]
    assert len(coefficient_keys) == len(set(coefficient_keys))
    fields = Mf61Params._fields
    assert fields[-len(coefficient_keys) :] == tuple(coefficient_keys)
    assert "PHY3" not in fields and "QBZ6" not in fields  # MF 5.2 / book-only keys


def test_the_record_is_frozen() -> None:
    p = read_tir(SHIPPED)
    with pytest.raises(AttributeError):
        p.PDX1 = 2.0  # type: ignore[misc]


def test_the_shipped_file_says_where_it_comes_from_and_under_which_licence() -> None:
    head = TEXT[: TEXT.index("[MDI_HEADER]")]
    for words in (
        "Project Chrono",
        "BSD-3-Clause",
        "Copyright (c) 2013, Chrono Development Team",
        "THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS",
        "not a TNO-fitted",
    ):
        assert words in head, words


def test_cli_check_prints_a_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["tir", "check", str(SHIPPED)]) == 0
    out = capsys.readouterr().out
    assert "MF 6.1" in out and "Fz0 3800 N" in out and "mu_x 1.090" in out


def test_cli_check_refuses_a_bad_file_in_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.tir"
    bad.write_text(_set("PKX1", "9" * 401), "utf-8")
    assert cli.main(["tir", "check", str(bad)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert err.startswith(f"skidpad tir: {bad}:") and "PKX1: number too long" in err


def test_a_directory_and_an_empty_file_are_refused(tmp_path: Path) -> None:
    with pytest.raises(TirError, match="is a directory, not a .tir file"):
        read_tir(tmp_path)
    empty = tmp_path / "empty.tir"
    empty.write_bytes(b"")
    with pytest.raises(TirError, match=r"\[MODEL\] FITTYP: missing"):
        read_tir(empty)


def test_the_installed_command_exits_2_with_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "nan.tir"
    bad.write_text(_set("PKY1", "NaN"), "utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "skidpad", "tir", "check", str(bad)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"skidpad tir: {bad}:{_line_of('PKY1')}: [LATERAL_COEFFICIENTS] PKY1: NaN is not a "
        "finite number"
    ]


def _line_of(key: str) -> int:
    return next(n for n, s in enumerate(TEXT.split("\n"), 1) if s.startswith(key + " "))


def test_the_embedded_form_round_trips_through_json() -> None:
    p = read_tir(SHIPPED)
    m = json.loads(json.dumps(to_mapping(p)))
    assert from_mapping(m, "definition") == p
    assert "WIDTH" in m and "LONGITUDINAL_STIFFNESS" not in m  # absent stays absent


@pytest.mark.parametrize(
    "change, words",
    [
        ({"PKY9": 1.0}, "'PKY9' is not an MF 6.1 parameter"),
        ({"PDX1": True}, "[LONGITUDINAL_COEFFICIENTS] PDX1: must be a number"),
        ({"PDX1": float("nan")}, "PDX1: nan is not a finite number"),
        ({"PDX1": "1.0"}, "PDX1: must be a number"),
        ({"TYRESIDE": 1}, "[MODEL] TYRESIDE: must be a string"),
        ({"FITTYP": 61.5}, "[MODEL] FITTYP: 61.5 is not an integer"),
        ({"FITTYP": 52}, "this reader implements MF 6.1"),
        ({"PKY1": None}, "[LATERAL_COEFFICIENTS] PKY1: missing"),
        ({"FNOMIN": -1.0}, "[VERTICAL] FNOMIN: -1.0 must be > 0"),
    ],
)
def test_an_embedded_form_is_checked_like_a_file(change: dict, words: str) -> None:
    m = to_mapping(read_tir(SHIPPED))
    for key, value in change.items():
        if value is None:
            del m[key]
        else:
            m[key] = value
    with pytest.raises(TirError) as info:
        from_mapping(m, "definition tires.front.mf61")
    message = str(info.value)
    assert message.startswith("definition tires.front.mf61: ") and words in message
    assert "\n" not in message
