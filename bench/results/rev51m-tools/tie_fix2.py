from tidegate.distributed import placement as PL
exec(open("/tmp/rev51m/guard2.py").read())
PL.Placement._fewer_readers = guarded
exec(open("/tmp/rev51m/tie.py").read())
