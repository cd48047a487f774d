import json, textwrap
exec(open('/tmp/lead51/split.py').read().split("STD = {")[0].split("ORDER = ")[1].join(["ORDER = ", ""]) if False else "")
ORDER = ["roots", "sizes", "place", "pace", "spread", "meetings", "partners", "further",
         "admit", "broadcast"]
exported = json.load(open('/tmp/lead51/exported.json'))
def wrap_import(prefix, names):
    line = prefix + ", ".join(names)
    if len(line) <= 100:
        return line
    body = textwrap.fill(", ".join(names), 95, initial_indent="    ", subsequent_indent="    ",
                         break_on_hyphens=False)
    return prefix + "(\n" + body + ",\n)"
doc = '''"""The decisions, as pure code over small views of state. No I/O, no threads, no clock.

The same functions run in the thread runtime, the simulator and inside a dask.distributed
scheduler, so they take plain numbers and arrays, never a runtime's objects. One module per
concern, read bottom up:

- :mod:`.roots`: which tasks are roots, and :class:`Policy` (how many run at once);
- :mod:`.sizes`: what an output weighs (data or not, joins, inputs not yet run);
- :mod:`.place`: which worker a root or a consumer goes to; what to spill;
- :mod:`.pace`: slow and lagging workers;
- :mod:`.spread`: roots whose data feeds several meetings (stencils, pairs): caps, regions;
- :mod:`.meetings`, :mod:`.partners`, :mod:`.further`: the graph walks from a root to where
  its data meets other data, the roots it meets there, and the meeting beyond;
- :mod:`.admit`: when a worker may take another root;
- :mod:`.broadcast`: copies of a widely shared input, holder to holder.

Every name is re-exported here, and the bodies use them as ``policy.NAME``. A rule's switch
(a module constant such as ``policy.SPREAD_FANOUT``) is read at call time; set on this
package (``policy.X = v``, pytest's monkeypatch, bench/ab_twin.py's ``--switch``) it is set in
every part that reads it, as when the policy was one module.
"""

from __future__ import annotations

import sys
import types

'''
lines = [doc.rstrip("\n"), ""]
lines.append("from . import " + ", ".join(ORDER))
for m in ORDER:
    lines.append(wrap_import(f"from .{m} import ", exported[m]))
lines.append('''
_PARTS = (roots, sizes, place, pace, spread, meetings, partners, further, admit, broadcast)


class _Policy(types.ModuleType):
    """The package, whose attributes set are set in every part that binds the name too: the
    parts read their switches (and each other's functions) as their own globals."""

    def __setattr__(self, name: str, value) -> None:
        for part in _PARTS:
            if name in part.__dict__:
                setattr(part, name, value)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Policy''')
open('src/tidegate/policy/__init__.py', 'w').write("\n".join(lines) + "\n")
