"""Trial forms of PARTNER_BACKLOG's test, patched into placement.py's name
partner_backlogged (both its callers read it there). install(NAME)."""
import tidegate.distributed.placement as PL
import tidegate.policy as P

FORMS = {
    # tie52's: more than PARTNER_BACKLOG x threads processing, 2+ threads
    "base": lambda p, t: bool(P.PARTNER_BACKLOG) and t > 1 and p > P.PARTNER_BACKLOG * t,
    # two-thread workers only
    "t2": lambda p, t: bool(P.PARTNER_BACKLOG) and t == 2 and p > P.PARTNER_BACKLOG * t,
    # waiting tasks (processing less threads) over a fixed count
    "wait6": lambda p, t: bool(P.PARTNER_BACKLOG) and t > 1 and p - t > 6,
    "wait12": lambda p, t: bool(P.PARTNER_BACKLOG) and t > 1 and p - t > 12,
    "k6": lambda p, t: bool(P.PARTNER_BACKLOG) and t > 1 and p > 6 * t,
    "k8": lambda p, t: bool(P.PARTNER_BACKLOG) and t > 1 and p > 8 * t,
}


def install(name):
    PL.partner_backlogged = FORMS[name]
