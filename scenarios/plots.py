"""Plots for the generated docs pages, drawn and written the same way by every report.

matplotlib runs without a display (Agg) and is imported only when a plot is drawn; a PNG
carries no ``Software`` metadata, so the same figure gives the same bytes on every machine;
every file goes through :mod:`replay.output` (written whole beside its target, then
renamed: never a half-written page or plot).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from skidpad.engine.errors import SkidpadError


def require() -> None:
    """Refuse at once, before any run, where matplotlib is not installed (``--docs`` pages
    carry plots); the plain commands do not need it."""
    try:
        import matplotlib  # noqa: F401  # strict: allow layering -- plots for the docs, not physics
    except ImportError:
        raise SkidpadError(
            "--docs draws its plots with matplotlib, which is not installed "
            "(pip install 'skidpad[dev]')"
        ) from None


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend."""
    import matplotlib  # strict: allow layering -- plots for the docs, not physics

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # strict: allow layering -- plots for the docs

    return plt


def write_file(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` whole, making its folder first."""
    from skidpad.replay import output

    output.make_directory(path.parent)
    output.write_bytes(path, data)
    return path


def save_png(fig: Any, path: Path, dpi: int) -> Path:
    """Lay ``fig`` out, write it as a PNG to ``path`` and close it."""
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    pyplot().close(fig)
    return write_file(path, buf.getvalue())


def panel_grid(n: int, width: float, height: float) -> tuple[Any, list]:
    """A figure of ``n`` panels ``width`` x ``height`` inches, three a row; the axes of the
    ``n`` panels in order (the grid's spare cells are hidden)."""
    cols = min(3, n)
    rows = (n + cols - 1) // cols
    fig, axes = pyplot().subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False)
    cells = list(axes.flat)
    for ax in cells[n:]:
        ax.set_visible(False)
    return fig, cells[:n]


def label_panel(ax: Any, title: str, xlabel: str, ylabel: str, legend_size: int = 7) -> None:
    """Title, axis labels, a light grid and the legend of one panel."""
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=legend_size)
