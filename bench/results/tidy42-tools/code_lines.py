"""Code lines of Python files (not blank, not comment-only, not docstring), per file, in two
source trees: python code_lines.py OLD_SRC NEW_SRC FILE... (FILE relative to src/)."""
import io
import sys
import tokenize


def code_lines(text: str) -> int:
    lines = set()
    prev = tokenize.INDENT
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.STRING and prev in (tokenize.INDENT, tokenize.NEWLINE,
                                                    tokenize.DEDENT, tokenize.NL, None):
            prev = tok.type  # (a docstring: a statement of one string)
            continue
        if tok.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                            tokenize.DEDENT, tokenize.ENCODING, tokenize.ENDMARKER):
            lines.update(range(tok.start[0], tok.end[0] + 1))
        if tok.type not in (tokenize.COMMENT, tokenize.NL):
            prev = tok.type
    return len(lines)


old, new, *files = sys.argv[1:]
for f in files:
    a, b = (open(f"{d}/{f}").read() for d in (old, new))
    ca, cb = code_lines(a), code_lines(b)
    la, lb = a.count("\n"), b.count("\n")
    print(f"{f:40} lines {la:5} -> {lb:5} ({lb - la:+d})   code {ca:5} -> {cb:5} ({cb - ca:+d})")
