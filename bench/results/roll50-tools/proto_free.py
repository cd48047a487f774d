"""roll50 prototype (exec'd by ab_ref.py --patch): a worker with a thread free and no root
processing admits one root past its count (Books._admits with book.cap + 1 then):
PROTO_FREE=1 on; 2: also with roots processing below the threads; 3: as 1, only while a
join's data (books._joined: a padded halo chunk) is in flight on the worker."""
import tidegate.books as _B
import tidegate.policy as _P

_P.PROTO_FREE = 0
_adm0 = _B.Books._admits


def _joins_on(books, w) -> bool:
    return any(v[0] == w and v[2] is None for v in books._live.values())


def _adm(self, book, w, task, *x, **k):
    mode = _P.PROTO_FREE
    if mode and book.processing < book.threads and (
            book.roots_processing == 0 or mode == 2 and book.roots_processing < book.threads
    ) and (mode != 3 or _joins_on(self, w)):
        book.cap += 1
        try:
            return _adm0(self, book, w, task, *x, **k)
        finally:
            book.cap -= 1
    return _adm0(self, book, w, task, *x, **k)


_B.Books._admits = _adm

import tidegate.distributed.admission as _A

_ref0 = _A.Admission._refresh


def _cond(books, addr, book):
    mode = _P.PROTO_FREE
    return mode and book.processing < book.threads and (
        book.roots_processing == 0 or mode == 2 and book.roots_processing < book.threads) \
        and (mode != 3 or _joins_on(books, addr))


def _ref(self, addr):
    book = self.books.workers.get(addr)
    if book is not None and _cond(self.books, addr, book):
        book.cap += 1
        try:
            return _ref0(self, addr)
        finally:
            book.cap -= 1
    return _ref0(self, addr)


_A.Admission._refresh = _ref
