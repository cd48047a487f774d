exec(open('bench/results/sten37-tools/p_log.py').read())
_orv = _P.Placement._rivals_of
def _rv(self, ts, own):
    r = _orv(self, ts, own)
    if r:
        now = _CL[-1].clock.now if _CL else -1
        print(f"  @{now:.4f} RIVALS {_short(ts.key)} own={ {str(k)[-4:-2]: v for k, v in own.items()} } rivals=" + str({str(k)[-4:-2]: (_short(self._rivals[k][0].key), v) for k, v in r.items()}))
    return r
_P.Placement._rivals_of = _rv
