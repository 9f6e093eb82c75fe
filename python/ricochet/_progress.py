"""Drives a job of the extension: shows its progress (tqdm when installed — a widget in
notebooks —, else a plain line on stderr) while waiting for it with the GIL released, and
turns Ctrl-C into a cancellation of the job before re-raising KeyboardInterrupt."""

from __future__ import annotations

import sys
import time
from typing import Any, Optional

#: Seconds between two looks at the job (and two chances for Ctrl-C to be noticed).
LOOK = 0.1

#: Seconds between two plain lines where stderr is not a terminal.
LINE = 5.0


class _Plain:
    """One line per run on stderr: rewritten in place on a terminal, else every `LINE` s."""

    def __init__(self) -> None:
        self.name: Optional[str] = None
        self.last = 0.0
        self.tty = sys.stderr.isatty()

    def show(self, name: str, done: int, total: int, rate: Optional[float], final: bool = False) -> None:
        now = time.monotonic()
        if not (final or self.tty or now - self.last >= LINE) or not name:
            return
        self.last = now
        start, end = ("\r", "\n" if final else "") if self.tty else ("", "\n")
        sys.stderr.write(f"{start}{name}: {done}/{total} scenes, {_rate(rate)}{end}")
        sys.stderr.flush()

    def close(self) -> None:
        pass


class _Tqdm:
    """A tqdm bar per run (tqdm.auto: a widget in Jupyter)."""

    def __init__(self, tqdm: Any) -> None:
        self.tqdm = tqdm
        self.bar: Any = None
        self.name: Optional[str] = None

    def show(self, name: str, done: int, total: int, rate: Optional[float], final: bool = False) -> None:
        if not name:
            return
        if name != self.name or self.bar is None:
            self.close()
            self.name = name
            self.bar = self.tqdm(total=total, desc=name, unit="scene", leave=True)
        self.bar.n = done
        self.bar.set_postfix_str(_rate(rate), refresh=False)
        self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _rate(rate: Optional[float]) -> str:
    """The throughput, or "starting" before there is one to tell."""
    return "starting" if rate is None else f"{rate:.3e} scene-steps/s"


def _display() -> Any:
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return _Plain()
    return _Tqdm(tqdm)


def drive(job: Any, progress: bool) -> Any:
    """Waits for `job` (a `ricochet._ricochet.Job`) and returns its result, showing its
    progress when `progress`; on KeyboardInterrupt the job is cancelled (it stops within a
    few hundred steps) and waited for, and the KeyboardInterrupt goes on."""
    display = _display() if progress else None
    start, run, base = time.monotonic(), None, 0

    def rate(scene_steps: int) -> Optional[float]:
        # Measured from the first look at a run (its steps then the base): none before a
        # look's time has passed, which gave a first rate of 7e11 scene-steps/s.
        elapsed = time.monotonic() - start
        return (scene_steps - base) / elapsed if elapsed >= LOOK and scene_steps > base else None

    try:
        while not job.wait(LOOK):
            if display is not None:
                name, scene_steps, scenes, steps = job.status()
                # A new run, or a new part of one (a check's timed sample after its warm-up).
                if name != run or scene_steps < base:
                    start, run, base = time.monotonic(), name, scene_steps
                display.show(name, min(scene_steps // max(steps, 1), scenes), scenes, rate(scene_steps))
    except KeyboardInterrupt:
        job.cancel()
        job.wait()
        if display is not None:
            display.close()
        raise
    if display is not None:
        name, scene_steps, scenes, steps = job.status()
        last = rate(scene_steps)
        if last is None:
            # (A run shorter than a look: its steps over at least a look's time.)
            last = max(scene_steps - base, 0) / max(time.monotonic() - start, LOOK)
        display.show(name, min(scene_steps // max(steps, 1), scenes), scenes, last, final=True)
        display.close()
    return job.result()
