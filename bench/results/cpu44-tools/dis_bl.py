import dis
def backlogged(*a): return False
class B:
    _roots_max = 1.0
    def inline(self, book):
        return backlogged(book.processing, book.roots_processing, book.threads,
                          book.roots_untouched, book.held + book.estimated,
                          book.cap * self._roots_max)
    def via(self, book):
        return self._backlogged(book)
    def _backlogged(self, book):
        return backlogged(book.processing, book.roots_processing, book.threads,
                          book.roots_untouched, book.held + book.estimated,
                          book.cap * self._roots_max)
n=lambda f: len(list(dis.get_instructions(f)))
print("inline", n(B.inline), "via", n(B.via), "+ method", n(B._backlogged))
