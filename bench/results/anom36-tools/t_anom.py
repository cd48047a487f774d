import sys
sys.path.insert(0, "tests")
import tidegate.policy as P
import test_small_cluster_twin as T
namings = ("", "-n1", "-n2", "-n3")
for netname, net in (("limited", dict(T.NET, outgoing_bandwidth=200e6)), ("free", T.NET)):
    for w, th in ((5, 2), (5, 1), (3, 2), (8, 2), (5, 4)):
        out = []
        for v in (0, 1):
            P.COMBINE_BY_HELD = v
            b, tp, qp, tm, qm = T._anomaly_stores_summed(namings, th, workers=w, net=net)
            out.append(f"busiest {b} peak {tp/qp:.3f} make {tm/qm:.3f}")
        print(netname, f"{w}x{th}", " | ".join(out), flush=True)
