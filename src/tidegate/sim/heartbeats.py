"""What dask's scheduler knows of the network: it starts from
``distributed.scheduler.bandwidth`` (100 MB/s by default) and learns from heartbeats.

As in distributed: a worker keeps a moving average of the bandwidth it measured per fetch
of more than 1 MB (``Worker._update_metrics_received_data``: bytes over the time from
asking to having, queueing included); every heartbeat (``heartbeat_interval`` of the
cluster's size: 0.5 s up to 10 workers, ..., n / 200 + 1 s beyond 200) moves the
scheduler's estimate ``1 / workers`` of the way to it (``Scheduler.heartbeat_worker``).
The scheduler uses the estimate for occupancy, communication costs and stealing. The
twin models only this part of a heartbeat.
"""

from __future__ import annotations

import dask.config
from dask.utils import parse_bytes
from distributed.scheduler import heartbeat_interval


def configured_bandwidth() -> float:
    return float(parse_bytes(dask.config.get("distributed.scheduler.bandwidth")))


def measured(worker, nbytes: int, duration: float) -> None:
    """A fetch of ``nbytes`` took ``duration`` on ``worker`` (a SimWorker)."""
    if nbytes > 1_000_000:
        worker.bandwidth = worker.bandwidth * 0.95 + nbytes / max(0.001, duration) * 0.05


def start(cluster) -> None:
    """Each worker's first heartbeat after 1 s (Worker's default), then every
    ``heartbeat_interval``; handled as scheduler work after the latency."""
    interval = heartbeat_interval(len(cluster.workers))
    clock = cluster.clock

    def beat(w) -> None:
        clock.call_later(cluster.latency, cluster.scheduler_work, _received, cluster, w.bandwidth)
        clock.call_later(interval, beat, w, timer=True)

    for w in cluster.workers.values():
        clock.call_later(1.0, beat, w, timer=True)


def _received(cluster, bandwidth: float) -> None:
    s = cluster.scheduler
    frac = 1 / len(s.workers)
    s.bandwidth = s.bandwidth * (1 - frac) + bandwidth * frac
