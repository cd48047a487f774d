"""Did a split move code only? python split_check.py SRC OUT.json: for the final classes
(Plugin, Books) every attribute as resolved through the MRO (a function: its AST without
docstrings; else its repr), and for every function (methods and module functions of the
split modules, nested code too) each global it reads and what that global is bound to in
the function's own module (a function: its AST hash; a module; a constant's repr; a mutable:
its type and the split modules holding that same object). Compare two OUT files with
python split_check.py --diff A.json B.json."""
import ast
import builtins
import dis
import hashlib
import inspect
import json
import sys
import textwrap
import types

MODS = ["tidegate.books", "tidegate.books_admission", "tidegate.books_placement",
        "tidegate.distributed.placement", "tidegate.distributed.walks",
        "tidegate.distributed.held_choice", "tidegate.distributed.regions",
        "tidegate.distributed.consumers"]


def strip_doc(node):
    for n in ast.walk(node):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
            b = n.body
            if b and isinstance(b[0], ast.Expr) and isinstance(b[0].value, ast.Constant) \
                    and isinstance(b[0].value.value, str):
                n.body = b[1:] or [ast.Pass()]
    return node


def fn_ast(f):
    f = inspect.unwrap(f)
    try:
        src = textwrap.dedent(inspect.getsource(f))
    except (OSError, TypeError):
        return "nosource"
    tree = strip_doc(ast.parse(src))
    return ast.dump(tree)


def h(s):
    return hashlib.sha1(s.encode()).hexdigest()[:12]


def code_globals(code):
    out = set()
    for ins in dis.get_instructions(code):
        if ins.opname in ("LOAD_GLOBAL", "STORE_GLOBAL", "DELETE_GLOBAL"):
            out.add(ins.argval if isinstance(ins.argval, str) else ins.argval[1])
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out |= code_globals(c)
    return out


def describe(obj, mods):
    if isinstance(obj, types.ModuleType):
        return "module:" + obj.__name__
    if isinstance(obj, types.FunctionType):
        return "fn:" + obj.__qualname__ + ":" + h(fn_ast(obj))
    if isinstance(obj, type):
        return "class:" + obj.__qualname__
    if isinstance(obj, (int, float, str, bool, type(None), tuple, frozenset, bytes)):
        r = repr(obj)
        return "const:" + (r if len(r) < 200 else h(r))
    holders = sorted(m.__name__ for m in mods if any(v is obj for v in vars(m).values()))
    return f"obj:{type(obj).__name__}:{holders}"


def main(src, out):
    sys.path.insert(0, src)
    import importlib
    mods = []
    for name in MODS:
        try:
            mods.append(importlib.import_module(name))
        except ImportError:
            pass
    from tidegate.books import Books
    from tidegate.distributed.hooks import Plugin
    res = {"attrs": {}, "globals": {}, "modfns": {}}
    funcs = {}
    for cls in (Plugin, Books):
        for name in dir(cls):
            for k in cls.__mro__:
                if name in vars(k):
                    raw = vars(k)[name]
                    break
            else:
                continue
            if k.__module__.startswith(("distributed", "builtins")) or k is object:
                continue
            f = raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw
            if isinstance(raw, property):
                f = raw.fget
            if isinstance(f, types.FunctionType):
                res["attrs"][f"{cls.__name__}.{name}"] = type(raw).__name__ + ":" + h(fn_ast(f))
                funcs[f"{cls.__name__}.{name}"] = f
            else:
                res["attrs"][f"{cls.__name__}.{name}"] = describe(raw, mods)
    for m in mods:
        for name, v in vars(m).items():
            if isinstance(v, types.FunctionType) and v.__module__ == m.__name__:
                res["modfns"][name] = h(fn_ast(v))
                funcs["mod." + name] = v
    for key, f in funcs.items():
        g = f.__globals__
        d = {}
        for name in sorted(code_globals(f.__code__)):
            if name in g:
                d[name] = describe(g[name], mods)
            elif hasattr(builtins, name):
                d[name] = "builtin"
            else:
                d[name] = "UNBOUND"
        res["globals"][key] = d
    json.dump(res, open(out, "w"), indent=1, sort_keys=True)


def diff(a, b):
    A, B = json.load(open(a)), json.load(open(b))
    for part in ("attrs", "modfns"):
        for k in sorted(set(A[part]) | set(B[part])):
            if A[part].get(k) != B[part].get(k):
                print(part, k, A[part].get(k), "->", B[part].get(k))
    for k in sorted(set(A["globals"]) | set(B["globals"])):
        ga, gb = A["globals"].get(k, {}), B["globals"].get(k, {})
        for n in sorted(set(ga) | set(gb)):
            if ga.get(n) != gb.get(n):
                print("global", k, n, ga.get(n), "->", gb.get(n))


if __name__ == "__main__":
    if sys.argv[1] == "--diff":
        diff(sys.argv[2], sys.argv[3])
    else:
        main(sys.argv[1], sys.argv[2])
