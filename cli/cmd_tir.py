"""``skidpad tir check FILE...``: read MF 6.1 ``.tir`` tire property files and summarise them.

Each file is read by :func:`skidpad.engine.fourwheel.tir.read_tir`, the reader the engine will use;
a file it refuses is reported in one line naming the file, line, section and key, and
the command exits 2 (ADR 0260). A good file prints its nominal load, radius, peak friction
and slip stiffnesses at that load, and relaxation lengths, computed by
:mod:`skidpad.engine.fourwheel.mf61` (``--json``: one object per file).
"""

from __future__ import annotations

import argparse
import json
import sys

from skidpad.cli.options import add_json_flag


def add_arguments(p: argparse.ArgumentParser) -> None:
    # the reference page prints this parser's help only: say what ``check`` takes here
    p.epilog = (
        "skidpad tir check [--json] FILE...: read each file; print its summary (JSON with "
        "--json), or the one line naming file, line, section and key that refuses it (exit 2)"
    )
    sub = p.add_subparsers(dest="tir_command", metavar="ACTION", required=True)
    check = sub.add_parser(
        "check",
        help="read .tir files; print a summary, or the one-line reason a file is refused",
        description="read .tir files; print a summary, or the one-line reason a file is "
        "refused (exit 2)",
    )
    add_json_flag(check, "the summaries")
    check.add_argument("files", nargs="+", metavar="FILE", help="MF 6.1 .tir property files")


def summary(path: str) -> dict[str, object]:
    """What a person checks first in a tire file, at its own nominal load."""
    from skidpad.engine.fourwheel import mf61
    from skidpad.engine.fourwheel.tir import read_tir

    p = read_tir(path)
    fz = p.FNOMIN * p.LFZO
    ld = mf61.load_terms(p, fz)
    _fx0, kxk = mf61.pure_fx(p, ld, 0.0, 0.0, p.LMUX)
    y = mf61.pure_fy(p, ld, 0.0, 0.0, p.LMUY)
    at_rest = mf61.forces(p, fz, 0.0, 0.0, 0.0, p.LONGVL)
    mu_x = (p.PDX1 * (1.0 + p.PPX3 * ld.dp + p.PPX4 * ld.dp * ld.dp)) * p.LMUX
    return {
        "file": path,
        "fittyp": p.FITTYP,
        "tyreside": p.TYRESIDE,
        "nominal_load_n": fz,
        "unloaded_radius_m": p.UNLOADED_RADIUS,
        "mu_x": mu_x,
        "mu_y": y.mu_y,
        "slip_stiffness_n": kxk,
        "cornering_stiffness_n_per_rad": abs(y.kya),
        "relaxation_length_x_m": at_rest.sigma_kappa,
        "relaxation_length_y_m": at_rest.sigma_alpha,
        "rolling_resistance_nm": at_rest.my,
    }


def run(args: argparse.Namespace) -> int:
    rows = [summary(path) for path in args.files]  # the first refused file ends it, exit 2
    if args.json:
        json.dump(rows, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    for r in rows:
        print(
            f"{r['file']}: MF 6.1, {r['tyreside']}, Fz0 {r['nominal_load_n']:.0f} N, "
            f"R0 {r['unloaded_radius_m']:.3f} m\n"
            f"  at Fz0: mu_x {r['mu_x']:.3f}, mu_y {r['mu_y']:.3f}, "
            f"C_kappa {r['slip_stiffness_n']:.0f} N, C_alpha "
            f"{r['cornering_stiffness_n_per_rad']:.0f} N/rad\n"
            f"  relaxation lengths {r['relaxation_length_x_m']:.3f} m (x), "
            f"{r['relaxation_length_y_m']:.3f} m (y); rolling resistance moment My "
            f"{r['rolling_resistance_nm']:.2f} N*m"
        )
    return 0
