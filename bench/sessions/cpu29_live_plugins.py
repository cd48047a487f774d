"""plugin_cpu.py with the plugin a live dask scheduler always has registered in both policies'
twins: distributed's own ShuffleSchedulerPlugin (the default extension "shuffle", which adds
itself with ``scheduler.add_plugin(self, name="shuffle")``). With any plugin registered, dask's
``SchedulerState._transition`` copies each task's dependents and dependencies into new sets,
lists the plugins and calls each one's ``transition`` with ``**kwargs``, at every transition.
The twin's scheduler has no extensions: its queue runs skip all of that, and its tidegate runs
pay it for the tidegate plugin alone, which a live queue scheduler pays too (for "shuffle").

    python bench/sessions/cpu29_live_plugins.py [plugin_cpu.py's arguments]

(bench/results/cpu29-findings.txt, section 0.)
"""

from __future__ import annotations

import os
import sys

_here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # bench/
sys.path.insert(0, _here)  # plugin_cpu (it drops bench/ from the path for its own imports)

import plugin_cpu  # noqa: E402
from distributed.shuffle._scheduler_plugin import ShuffleSchedulerPlugin  # noqa: E402
from tidegate.sim import cluster as sim_cluster  # noqa: E402

_init = sim_cluster.SimCluster.__init__


def _with_shuffle(self, *args, **kwargs):
    _init(self, *args, **kwargs)
    s = self.scheduler
    if not hasattr(s, "handlers"):
        s.handlers = {}
    ShuffleSchedulerPlugin(s)  # registers itself as "shuffle", as on a live scheduler


if __name__ == "__main__":
    sim_cluster.SimCluster.__init__ = _with_shuffle
    plugin_cpu.main()
