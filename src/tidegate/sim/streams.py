"""dask's batched message streams (``distributed.batched.BatchedSend``) on the virtual clock.

A real stream writes at most once per ``interval``: a message sent on a quiet stream leaves
at once (after the handler that sent it, as the writer is a coroutine); messages sent
within ``interval`` of the last write wait and leave together when it ends. Workers write
to the scheduler every 2 ms, the scheduler to each worker every 5 ms (``worker.py`` and
``scheduler.py`` of distributed). Besides being what dask does, a batch is one clock event
and one handler call instead of one per message.
"""

from __future__ import annotations

from collections.abc import Callable

# distributed: Worker.batched_stream, Scheduler.add_worker's stream_comms
WORKER_TO_SCHEDULER = 0.002
SCHEDULER_TO_WORKER = 0.005


class BatchedStream:
    __slots__ = ("clock", "interval", "latency", "deliver", "buffer", "closes_at", "lag",
                 "arrives")

    def __init__(self, clock, interval: float, latency: float, deliver: Callable,
                 lag=None) -> None:
        self.clock = clock
        self.interval = interval
        self.latency = latency
        self.deliver = deliver  # deliver(list of messages) on arrival
        self.buffer: list | None = None  # the batch being filled
        self.closes_at = -interval  # when the batch being filled is written
        # A drawn loop lag (.lag.Lag), added per batch; None: ``latency`` includes the lag.
        self.lag = lag
        self.arrives = 0.0  # the last batch's arrival: a stream delivers in order

    def send(self, msgs: list) -> None:
        """Send ``msgs``, a list the stream may keep (and extend) as its next batch."""
        now = self.clock.now
        if self.buffer is None or now > self.closes_at:
            # The next write: now if the last one is ``interval`` ago, else when it is.
            self.closes_at = max(now, self.closes_at + self.interval)
            self.buffer = msgs
            at = self.closes_at + self.latency
            if self.lag is not None:
                at = self.arrives = max(self.arrives, at + self.lag.draw())
            self.clock.call_at(at, self.deliver, self.buffer)
        else:
            self.buffer.extend(msgs)
