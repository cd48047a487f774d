"""The twin's worker addresses: hashed as a real scheduler's are (str's C code, once
computed), alike in every process, and so after pickling (results come back pickled)."""

import pickle
import sys
import zlib

import pytest

from tidegate.sim.hashing import StableStr


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="str's hash cache is CPython's")
def test_hashing_an_address_runs_no_python_code():
    calls = []
    a = StableStr("tcp://twin-w001:1", salt=3)
    d = {a: 1}
    sys.setprofile(lambda frame, event, arg: calls.append((event, frame.f_code.co_name)))
    try:
        d[a]
        hash(a)
    finally:
        sys.setprofile(None)
    assert [c for c in calls if c[0] == "call"] == []  # a Python __hash__ would show
    assert hash(a) == zlib.crc32(b"3:tcp://twin-w001:1")
    assert hash(StableStr("tcp://twin-w001:1")) == zlib.crc32(b"tcp://twin-w001:1")


def test_a_pickled_address_keeps_its_salted_hash():
    a = StableStr("tcp://twin-w002:1", salt=7)
    b = pickle.loads(pickle.dumps(a))
    assert type(b) is StableStr and b == a and hash(b) == hash(a)
    assert {a: "x"}[b] == "x"
