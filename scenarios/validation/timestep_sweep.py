"""Timestep sweep: the skidpad, the locked stop and the 30 % park across substep × host rates.

Every cell (substep 250, 500, 1000, 2000 Hz × host 30, 60, 120, 240 Hz) and
the reference cell (the definition's own substep rate, 100 Hz host) run:

* the ISO 4138 circle (40 m, left) at three speeds, 4, 8 and 12 m/s, each
  with a 2 s settle and a 0.5 s average (shorter than the ISO 4138 scenario:
  the sweep compares cells with one another, run identically), K_us fitted
  as in :mod:`.iso4138`;
* the 100–0 km/h locked stop with a 1 s hold: braking distance, releases
  while moving (lock probe at substep resolution), at rest after the hold
  (< 0.1 mm/s);
* the 30 % park on the service brake: 1.5 s settle, then 1.5 s in which it must
  stay below 0.1 mm/s and drift < 1 mm.

Pass: every cell finite (a NaN raises and is reported as the cell's error),
parks, stops without chatter and comes to rest, |ΔK_us| <= 0.05 deg/g and
|Δ braking distance| <= 1 % against the reference cell.
"""

from __future__ import annotations

from skidpad.engine.errors import SkidpadError
from skidpad.engine.fourwheel.single_track import fit_understeer
from skidpad.scenarios.skidpad import circle_point
from skidpad.scenarios.validation import locked_wheels, parking
from skidpad.scenarios.validation.straight_line import stop

SUBSTEPS_HZ = (250, 500, 1000, 2000)
HOSTS_HZ = (30, 60, 120, 240)
REF_HOST_HZ = 100
SPEEDS_MPS = (4.0, 8.0, 12.0)
RADIUS_M = 40.0
KUS_TOL = 0.05
DIST_TOL = 0.01


def cell(definition: dict, substep_hz: int, host_hz: int) -> dict:
    """The three measurements of one cell."""
    try:
        wb = definition["geometry"]["wheelbase_m"]
        pts = []
        for v in SPEEDS_MPS:
            p = circle_point(
                definition,
                v,
                RADIUS_M,
                settle_s=2.0,
                measure_s=0.5,
                host_hz=host_hz,
                substep_hz=substep_hz,
            )
            pts.append((p.ay, p.delta - wb * p.yaw_rate / p.speed))
        kus = fit_understeer(pts)
        s = stop(definition, abs_on=False, substep_hz=substep_hz, host_hz=host_hz, hold_s=1.0)
        pk = parking.park(
            definition,
            "service_30",
            substep_hz=substep_hz,
            host_hz=host_hz,
            settle_s=1.5,
            measure_s=1.5,
            rms_window_s=1.5,
        )
    except SkidpadError as exc:  # NonFiniteStateError and friends
        return {"finite": False, "error": str(exc)}
    return {
        "finite": True,
        "kus_deg_per_g": kus,
        "distance_m": s["distance_m"],
        "releases_moving": locked_wheels.sum_int(s["releases_moving"]),
        "rest_speed_mps": s["end_speed_mps"],
        "park_failures": parking.case_failures("service_30", pk),
        "park_speed_mps": pk["settle_speed_mps"],
    }


def grid(substeps: tuple = SUBSTEPS_HZ, hosts: tuple = HOSTS_HZ) -> list[tuple[int, int]]:
    """The (substep Hz, host Hz) cells of a grid: every pair with the host no faster than
    the substep."""
    return [(sub, host) for sub in substeps for host in hosts if host <= sub]


def run(
    definition: dict,
    progress: object = None,
    substeps: tuple = SUBSTEPS_HZ,
    hosts: tuple = HOSTS_HZ,
    cells_hz: list[tuple[int, int]] | None = None,
) -> dict:
    """The reference cell and the cells of ``substeps`` x ``hosts`` (or the (substep, host)
    pairs ``cells_hz`` lists), each against the reference."""
    if progress:
        progress("timestep sweep: reference cell")
    ref = cell(definition, definition["substep_hz"], REF_HOST_HZ)
    cells = {}
    worst_k = 0.0
    worst_d = 0.0
    for sub, host in grid(substeps, hosts) if cells_hz is None else cells_hz:
        if progress:
            progress(f"timestep sweep: {sub} Hz x {host} Hz")
        c = cell(definition, sub, host)
        if c["finite"] and ref["finite"]:
            dk = c["kus_deg_per_g"] - ref["kus_deg_per_g"]
            dd = (c["distance_m"] - ref["distance_m"]) / ref["distance_m"]
            c["dkus_deg_per_g"] = dk
            c["ddistance"] = dd
            worst_k = max(worst_k, abs(dk))
            worst_d = max(worst_d, abs(dd))
        cells[f"{sub}x{host}"] = c
    return {
        "reference": ref,
        "cells": cells,
        "max_dkus_deg_per_g": worst_k,
        "max_ddistance": worst_d,
    }


def failures(result: dict) -> list[str]:
    out = []
    allc = dict(result["cells"])
    allc["reference"] = result["reference"]
    for name, c in allc.items():
        if not c["finite"]:
            out.append(f"{name}: not finite ({c.get('error')})")
            continue
        if c["releases_moving"]:
            out.append(f"{name}: lock chatter ({c['releases_moving']} releases while moving)")
        if not c["rest_speed_mps"] < locked_wheels.REST_MPS:
            out.append(f"{name}: not at rest after the stop ({c['rest_speed_mps']:.2g} m/s)")
        out.extend(f"{name}: {f}" for f in c["park_failures"])
        if abs(c.get("dkus_deg_per_g", 0.0)) > KUS_TOL:
            out.append(f"{name}: K_us off the reference by {c['dkus_deg_per_g']:+.3f} deg/g")
        if abs(c.get("ddistance", 0.0)) > DIST_TOL:
            out.append(
                f"{name}: braking distance off the reference by {100 * c['ddistance']:+.2f} %"
            )
    return out
