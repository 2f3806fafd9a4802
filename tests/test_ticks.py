"""engine/ticks.py: which substeps a host step runs, in integers (docs/architecture.md §2)."""

from __future__ import annotations

import pytest
from skidpad.engine.ticks import step_of_tick, substeps_in_step, ticks_before, ticks_of_step


def test_an_even_split() -> None:
    assert [substeps_in_step(k, 100, 1000) for k in range(3)] == [10, 10, 10]
    assert ticks_of_step(2, 100, 1000) == range(20, 30)


def test_a_remainder_is_spread_without_drift() -> None:
    # 1000 substeps over 60 host steps: 16 2/3 each, as 16, 17, 17, 16, 17, 17, ...
    assert [substeps_in_step(k, 60, 1000) for k in range(6)] == [16, 17, 17, 16, 17, 17]
    assert ticks_before(60, 60, 1000) == 1000  # one second is exactly 1000 substeps
    assert ticks_before(6000, 60, 1000) == 100_000


def test_more_host_steps_than_substeps() -> None:
    # 100 Hz host over 30 Hz substeps: most host steps run none
    assert [substeps_in_step(k, 100, 30) for k in range(10)] == [0, 0, 0, 1, 0, 0, 1, 0, 0, 1]


@pytest.mark.parametrize(("host_hz", "substep_hz"), [(100, 1000), (60, 1000), (100, 30), (7, 997)])
def test_step_of_tick_inverts_ticks_of_step(host_hz: int, substep_hz: int) -> None:
    for k in range(3 * host_hz):
        for index in ticks_of_step(k, host_hz, substep_hz):
            assert step_of_tick(index, host_hz, substep_hz) == k
