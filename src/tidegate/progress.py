"""A live progress bar for local computes: tasks done/total, memory against the limit, bytes
spilled. A dask callback drawn with rich, in a terminal or a notebook; silent (and no thread
started) when the output is not interactive.

    with tidegate.Progress():
        x.compute(scheduler=tidegate.get, memory_limit="4GB")

It reads the scheduler's ``state`` dict: tidegate's thread runtime puts a live object under
``state["tidegate"]`` (``tasks``, ``finished``, ``memory_limit``, ``held_bytes``,
``bytes_spilled``); with dask's own schedulers it counts ``state["finished"]`` and the
waiting, ready and running tasks, as ``dask.diagnostics.ProgressBar`` does.
"""

from __future__ import annotations

import importlib.util
import threading
import warnings
from dataclasses import dataclass

from dask.callbacks import Callback
from dask.utils import format_bytes
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichProgress


@dataclass(frozen=True)
class Snapshot:
    done: int
    total: int
    held_bytes: int | None = None  # None: the scheduler does not say
    memory_limit: int | None = None
    bytes_spilled: int | None = None
    memory_used: int | None = None  # the process's memory above its level at compute start

    def memory_text(self) -> str:
        parts = []
        if self.memory_used is not None:
            limit = f" / {format_bytes(self.memory_limit)}" if self.memory_limit else ""
            parts.append(f"memory {format_bytes(self.memory_used)}{limit}")
            parts.append(f"held {format_bytes(self.held_bytes or 0)}")
        elif self.held_bytes is not None:
            limit = f" / {format_bytes(self.memory_limit)}" if self.memory_limit else ""
            parts.append(f"memory {format_bytes(self.held_bytes)}{limit}")
        if self.bytes_spilled:
            parts.append(f"spilled {format_bytes(self.bytes_spilled)}")
        return "  ".join(parts)


def snapshot(state: dict) -> Snapshot:
    """Where the run is, from a scheduler's callback ``state``."""
    live = state.get("tidegate")
    if live is not None:
        return Snapshot(live.finished, live.tasks, live.held_bytes, live.memory_limit,
                        live.bytes_spilled, getattr(live, "memory_used", None))
    done = len(state.get("finished", ()))
    pending = sum(len(state.get(k, ())) for k in ("ready", "waiting", "running"))
    return Snapshot(done, done + pending)


def _interactive(console: Console) -> bool:
    if console.is_jupyter:  # rich draws live in a notebook through an ipywidgets Output
        if importlib.util.find_spec("ipywidgets") is None:
            warnings.warn("tidegate.Progress: install ipywidgets for a progress bar in notebooks",
                          stacklevel=3)
            return False
        return True
    return console.is_terminal and not console.is_dumb_terminal


class Progress(Callback):
    """Live progress of every local compute while active. ``console``: where to draw (default:
    stderr); ``enabled``: force on or off (default: on in a terminal, and in a notebook when
    ipywidgets is installed); ``interval``: seconds between redraws."""

    def __init__(self, console: Console | None = None, enabled: bool | None = None,
                 interval: float = 0.1):
        super().__init__()
        self.console = console or Console(stderr=True)
        self.enabled = _interactive(self.console) if enabled is None else enabled
        self.interval = interval
        self.last: Snapshot | None = None  # the latest drawn
        self._thread: threading.Thread | None = None

    def _start_state(self, dsk, state) -> None:
        if not self.enabled:
            return
        self._state = state
        self._bar = RichProgress(
            TextColumn("[bold]tidegate"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            TextColumn("{task.fields[memory]}"), console=self.console, auto_refresh=False,
        )
        self._task = self._bar.add_task("compute", total=None, memory="")
        self._bar.start()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, name="tidegate-progress", daemon=True)
        self._thread.start()

    def _poll(self) -> None:
        while not self._stop.wait(self.interval):
            self._draw()

    def _draw(self) -> None:
        s = snapshot(self._state)
        self._bar.update(self._task, completed=s.done, total=s.total, memory=s.memory_text())
        self._bar.refresh()
        self.last = s

    def _finish(self, dsk, state, errored) -> None:
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join()
        self._thread = None
        self._draw()
        self._bar.stop()
