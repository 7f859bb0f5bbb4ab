"""The instruction gate: instructions per call, counted by callgrind, against a committed baseline.

A figure more than 3 % above ``instructions.json``'s entry for the running Python
fails; one more than 3 % below asks for ``make perf-baseline``. Counts do not depend
on what else the machine does, so the gate catches what a wall-clock gate on a busy
2-core machine cannot: a call that became a few percent slower.
"""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from dualio.lab.instructions import counter as instructions
from dualio.lab.instructions.counter import Count, baseline_key, judge, read_baseline

BASELINE = Path(__file__).with_name("instructions.json")

pytestmark = [pytest.mark.timeout(480), pytest.mark.skipif(
    shutil.which("valgrind") is None,
    reason="valgrind is not installed, so the instruction gate cannot count "
           "(Debian: apt-get install valgrind)",
)]


@pytest.fixture(scope="module")
def baseline() -> dict[str, float]:
    figures = read_baseline(BASELINE)
    if figures is None:
        pytest.skip(f"{BASELINE.name} has no baseline for {baseline_key()}: reported, not judged "
                    "(make perf-baseline adds it)")
    return figures


INJECTED = textwrap.dedent("""
    from dualio_transports.blocking.connection import BlockingConnection

    _call = BlockingConnection.call
    _EXTRA = range(20)  # about 2,700 instructions: 3-4 % of a sync call


    def call(self, op, timeout, handle=None, sent=None):
        for _ in _EXTRA:
            pass
        return _call(self, op, timeout, handle, sent)


    BlockingConnection.call = call
""")


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Count], dict[str, Count]]:
    """Every gated figure, then the sync figure with the blocking transport's ``call``
    wrapped in a little extra work (loaded by a sitecustomize in the measured process
    only). One after the other: a third callgrind process on two cores would stretch the
    calls' time, and a call's path depends a little on time (the idle check)."""
    folder = tmp_path_factory.mktemp("injected")
    (folder / "sitecustomize.py").write_text(INJECTED)
    root = Path(instructions.__file__).resolve().parents[3]
    now = instructions.run(list(instructions.GATED))
    slower = instructions.run(["sync"], env={"PYTHONPATH": f"{folder}:{root}"})
    return now, slower


@pytest.fixture(scope="module")
def counts(measured: tuple[dict[str, Count], dict[str, Count]]) -> dict[str, Count]:
    return measured[0]


def test_no_figure_rose_above_its_baseline(
    counts: dict[str, Count], capsys: pytest.CaptureFixture[str]
) -> None:
    figures = read_baseline(BASELINE)
    verdict = judge(figures or {}, counts)
    with capsys.disabled():
        print(f"\ninstructions per call, {baseline_key()}, against {BASELINE.name}:")
        print(verdict.report)
        if verdict.improved:
            print(f"{', '.join(verdict.improved)} fell more than {instructions.TOLERANCE:.0%}: "
                  "run make perf-baseline and commit the new figures with the reason")
    if figures is None:
        pytest.skip(f"{BASELINE.name} has no baseline for {baseline_key()}: reported above, not judged")
    assert not verdict.regressed, f"over {instructions.TOLERANCE:.0%} above the baseline: {verdict.regressed}"


def test_every_judged_figure_has_a_baseline(baseline: dict[str, float]) -> None:
    missing = [name for name in instructions.GATED if name not in baseline]
    assert not missing, f"no baseline for {missing}: run make perf-baseline"


def test_a_sync_call_doing_a_little_more_work_fails_the_gate(
    measured: tuple[dict[str, Count], dict[str, Count]]
) -> None:
    """The same measurement with a little extra work in each blocking call (see ``measured``),
    judged against the figure counted beside it: a baseline at today's count, so the check
    does not drift as the committed baseline ages within its tolerance."""
    now, slower = measured
    today = {"sync": now["sync"].per_call}
    rise = slower["sync"].per_call / today["sync"] - 1
    assert 0.03 < rise < 0.06, f"the injected work should add 3-6 %, it added {rise:.1%}"
    assert judge(today, slower).regressed == ["sync"]
