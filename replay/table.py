"""The one text-table formatter of the command line: ``skidpad parity``'s matrix,
``skidpad replay``'s rows, ``skidpad diff --stats`` and the strict-math accuracy table all
print through it.

A table is a header row and body rows of strings; columns are padded to their widest cell
(left-aligned, or right-aligned for the indices in ``right``: numbers), separated by two
spaces, with a rule of dashes under the header and no trailing blanks."""

from __future__ import annotations

from collections.abc import Collection, Sequence


def format_table(
    rows: Sequence[Sequence[str]], right: Collection[int] = (), rule: bool = True
) -> str:
    """``rows[0]`` is the header; every row has its length. Columns in ``right`` are
    right-aligned; ``rule=False`` leaves out the dashes under the header."""
    if not rows:
        return ""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]

    def line(cells: Sequence[str]) -> str:
        padded = (
            cell.rjust(width) if i in right else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        )
        return "  ".join(padded).rstrip()

    body = [line(row) for row in rows]
    if rule:
        body.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(body)
