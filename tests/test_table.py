"""The one table formatter (replay/table.py) that `skidpad parity`, `replay`, `diff --stats`
and the accuracy table print through."""

from __future__ import annotations

from skidpad.replay.table import format_table


def test_columns_are_padded_to_the_widest_cell_with_a_rule_under_the_header() -> None:
    text = format_table([["name", "n"], ["kart", "12"], ["sportsRwd", "7"]], right={1})
    assert text.splitlines() == [
        "name        n",
        "---------  --",
        "kart       12",
        "sportsRwd   7",
    ]


def test_no_line_ends_in_blanks_and_the_rule_can_be_left_out() -> None:
    text = format_table([["field", "verdict"], ["body.vx", ""], ["wheel.omega", "EXCEEDED"]],
                        rule=False)
    lines = text.splitlines()
    assert lines[0] == "field        verdict"
    assert lines[1] == "body.vx"
    assert all(line == line.rstrip() for line in lines)


def test_a_header_alone_is_a_table() -> None:
    assert format_table([["recording", "steps"]], right={1}) == "recording  steps\n---------  -----"
    assert format_table([]) == ""
