"""How late a dask server's event loop notices an event (:mod:`.cluster`'s ``loop_lag``).

A constant, or drawn per event from observed lags. A real in-process LocalCluster on a
busy machine does not lag by a constant: the lags its tasks showed in the fidelity bench
ran from 1 to 60 ms (10th to 90th percentile 2-30 ms) around a median of 4-7 ms. That
spread moves which task a worker starts next (two threads that finish 30 ms apart instead of
10 see different ready tasks), and with it a worker's peak by a chunk or two; a constant
lag gives one of those outcomes, not their middle. Drawn lags come from a
``random.Random`` seeded by the run's seed and the lag's name, one draw per event in the
order events happen, so a run stays a pure function of its inputs.
"""

from __future__ import annotations

import math
import numbers
import random
import statistics
from collections.abc import Sequence


class Lag:
    __slots__ = ("value", "samples", "_random")

    def __init__(self, value: float | Sequence[float], seed: int = 0, name: str = "loop") -> None:
        # A NaN or infinite lag would break the clock's order or never fire: refused.
        if isinstance(value, numbers.Real):
            self.value = float(value)
            self.samples: tuple | None = None
            if not (math.isfinite(self.value) and self.value >= 0):
                raise ValueError(f"{name}_lag must be a finite lag >= 0 s, not {value!r}")
        else:
            samples = [float(v) for v in value]
            if not samples or not all(math.isfinite(v) and v >= 0 for v in samples):
                raise ValueError(
                    f"{name}_lag samples must be a non-empty list of finite lags >= 0 s"
                )
            self.samples = tuple(sorted(samples))
            self.value = statistics.median(self.samples)
            self._random = random.Random(f"{name}-{seed}")  # a str seeds alike in every process

    @property
    def drawn(self) -> bool:
        return self.samples is not None

    def draw(self) -> float:
        """The lag of the next event: the constant, or one of the samples at random."""
        s = self.samples
        if s is None:
            return self.value
        return s[int(self._random.random() * len(s))]
