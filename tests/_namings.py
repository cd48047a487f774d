"""Several namings of one twin Model, for tests that judge the twin (flake30).

A twin run is deterministic, but its decisions follow the keys' names: dask.order breaks
its last ties by key text, and the twin hashes keys by their text (sim.hashing). Names carry
tokens that another machine may spell otherwise: open_zarr's follow the tmp path, a lambda's
follows the checkout's path, uuids (to_zarr's stores) change every call, and every token may
change with dask's release (CI's lowest-distributed job runs dask 2025.4). A bound judged on
one naming held for most namings but not all (session 29's CI); tests judge several.

``renamed(model, salt)`` is the same graph, sizes and durations with every token (a run of
8 or more hex digits in a key's name) replaced by another of the same length, derived from
``salt``; names a test chose (``"load-3"``, ``"stencil-a"``) and group names stay.
"""

from __future__ import annotations

import hashlib
import re

# The namings a test judges: the keys as built (None) and four renamings.
NAMINGS = (None, 1, 2, 3, 4)

_TOKEN = re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{8,}(?![0-9A-Za-z])")


def _token(salt, match) -> str:
    t = match.group(0)
    h = hashlib.sha256(f"{salt}:{t}".encode()).hexdigest()
    return (h * (len(t) // len(h) + 1))[: len(t)]


def _key(salt, key):
    if isinstance(key, tuple) and key and isinstance(key[0], str):
        return (_TOKEN.sub(lambda m: _token(salt, m), key[0]), *key[1:])
    if isinstance(key, str):
        return _TOKEN.sub(lambda m: _token(salt, m), key)
    return key


def renamed(model, salt):
    """``model`` (a tidegate.sim.model.Model) with its tokens renamed by ``salt``, in key
    text order as the twin builds every graph (model._canonical). ``salt`` None: the model."""
    from tidegate.sim.model import Model

    if salt is None:
        return model
    names = set(model.dsk)
    for node in model.dsk.values():
        names.update(node.dependencies)
    subs = {k: n for k in names if (n := _key(salt, k)) != k}
    dsk = {}
    for k, node in model.dsk.items():
        new = subs.get(k, k)
        own = {d: subs[d] for d in node.dependencies if d in subs}
        dsk[new] = node.substitute(own, key=new) if (new != k or own) else node
    return Model({k: dsk[k] for k in sorted(dsk, key=str)}, [subs.get(k, k) for k in model.keys],
                 sizes={subs.get(k, k): v for k, v in model.sizes.items()},
                 durations={subs.get(k, k): v for k, v in model.durations.items()},
                 unknown=model.unknown,
                 annotations={kind: {subs.get(k, k): v for k, v in d.items()}
                              for kind, d in model.annotations.items()})
