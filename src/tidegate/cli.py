"""Command line: ``tidegate demo``, ``tidegate simulate``, ``tidegate report``."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
import time

from dask.utils import format_bytes, parse_bytes


def demo(args) -> int:
    """``tidegate demo``: the seed's problem and its fix (see tidegate.demo)."""
    from .demo import main as run_demo

    return run_demo(args)


def report(args) -> int:
    """Trace files (JSON lines) -> one HTML report, side by side; optionally PNGs."""
    from .report import report as write_report
    from .report import save_png
    from .trace import Trace

    try:
        traces = [Trace.load(p) for p in args.traces]
    except (OSError, ValueError) as exc:
        print(f"tidegate report: {exc}", file=sys.stderr)
        return 2
    empty = [p for p, tr in zip(args.traces, traces) if not tr.tasks]
    if empty:  # (review21: an empty file gave a 1.6 MB report of nothing, and exit 0)
        print(f"tidegate report: no task records in {', '.join(map(repr, empty))}: nothing "
              f"to report; give trace files that tidegate or tidegate.trace wrote for a "
              f"compute", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    path = write_report(traces, args.output, title=args.title)
    print(f"report: {os.path.abspath(path)} ({time.perf_counter() - t0:.1f} s)")
    if args.png:
        os.makedirs(args.png, exist_ok=True)
        for name, panels in (("report", None), ("memory", ("memory",))):
            kw = {"panels": panels} if panels else {}
            png = save_png(traces, os.path.join(args.png, name + ".png"), **kw)
            print(f"png: {os.path.abspath(png)}")
    return 0


def simulate(args) -> int:
    """``tidegate simulate``: a seed workload on the twin, policies side by side."""
    import json

    from rich.console import Console
    from rich.table import Table

    from .sim import simulate as run_twin
    from .sim.workloads import build

    console = Console(width=max(100, Console().width))
    policies = [p.strip() for p in args.policy.split(",") if p.strip()]
    chunk = parse_bytes(args.chunk)
    work = build(args.workload, args.steps, chunk, store=not args.persist)
    t0 = time.perf_counter()
    with console.status(f"simulating {args.workload} ({', '.join(policies)}) ..."):
        results = run_twin(
            work.model(),
            workers=args.workers, threads_per_worker=args.threads, policy=policies,
            bandwidth=args.bandwidth, latency=args.latency, record_memory=False,
            processes=args.processes,
        )
    wall = time.perf_counter() - t0
    n = len(results[0].trace.tasks)
    table = Table(title=(
        f"{args.workload}{' (persist form)' if args.persist else ''}: {args.steps} steps of "
        f"{format_bytes(chunk)}, {args.workers} workers "
        f"x {args.threads} threads, {args.bandwidth} per worker (twin, {n} tasks)"
    ))
    for col in ("policy", "peak / worker (max)", "peak / worker (mean)", "vs first",
                "makespan", "vs first", "transferred"):
        table.add_column(col, justify="left" if col == "policy" else "right")
    base = results[0]
    out = {}
    for r in results:
        peak = max(r.peak_memory_per_worker)
        mean = round(sum(r.peak_memory_per_worker) / args.workers)  # (format_bytes: whole B)
        table.add_row(
            r.policy, format_bytes(peak), format_bytes(mean),
            f"{peak / max(1, max(base.peak_memory_per_worker)):.2f}x",
            f"{r.makespan:.1f} s", f"{r.makespan / base.makespan:.2f}x",
            format_bytes(r.bytes_transferred),
        )
        out[r.policy] = r.summary()
    console.print(table)
    console.print(f"simulated in {wall:.1f} s of wall time")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
        console.print(f"results: {os.path.abspath(args.json)}")
    return 0


def _at_least(low: int):
    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if n < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, not {n}")
        return n

    parse.__name__ = f"integer >= {low}"  # argparse names the type in its message
    return parse


_positive_int = _at_least(1)


def _checked(convert, what: str):
    """An argparse type: ``convert(text)`` must give a number > 0; the text itself is kept
    for the run."""

    def parse(text: str) -> str:
        try:
            if not text.strip():  # parse_bytes reads '' as 1 byte
                raise ValueError(text)
            value = convert(text)
        except (ValueError, KeyError, OverflowError, TypeError):
            raise argparse.ArgumentTypeError(f"not {what}: {text!r}") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be more than 0: {text!r}")
        return text

    parse.__name__ = what
    return parse


def _shared(check, name: str, empty_ok: bool = False):
    """An argparse type from one of ``simulate()``'s checks (tidegate.config: rate,
    duration), so the command line and the API refuse the same values with the same
    message; the text itself is kept for the run ('' passes if ``empty_ok``)."""

    def parse(text: str) -> str:
        if empty_ok and not text.strip():
            return text
        try:
            check(text, name)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        return text

    parse.__name__ = check.__name__
    return parse


def _writable_or_none(text: str) -> str:
    return text if not text else _writable(text)


def _policies(text: str) -> str:
    from .sim import POLICIES

    names = [p.strip() for p in text.split(",") if p.strip()]
    wrong = [p for p in names if p not in POLICIES]
    if not names or wrong:
        raise argparse.ArgumentTypeError(
            f"{', '.join(map(repr, wrong)) or 'none given'}: choose from {', '.join(POLICIES)}"
        )
    return text


def _writable(text: str) -> str:
    """A file to write: its folder must exist (checked before hours of work, not after)."""
    folder = os.path.dirname(os.path.abspath(text))
    if not os.path.isdir(folder) or os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"cannot write {text!r}: no folder {folder!r}"
                                         if not os.path.isdir(folder) else f"{text!r} is a folder")
    return text


def _folder(text: str) -> str:
    """An existing folder to write in (demo --tmpdir: checked before the run, not a
    FileNotFoundError traceback after its introduction, review21)."""
    if not os.path.isdir(text):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a folder" if os.path.exists(text)
            else f"no folder {text!r}: give an existing folder")
    if not os.access(text, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"cannot write in the folder {text!r}")
    return text


def _folder_to_make(text: str) -> str:
    """A folder that exists or can be made (report --png: a file there raised
    FileExistsError after the HTML was written, review21)."""
    path = os.path.abspath(text)
    while not os.path.exists(path):  # the nearest part of it that exists must be a folder
        path = os.path.dirname(path)
    if not os.path.isdir(path):
        raise argparse.ArgumentTypeError(
            f"cannot make the folder {text!r}: {path!r} is a file" if path != os.path.abspath(text)
            else f"{text!r} is a file, not a folder")
    return text


@contextlib.contextmanager
def _terminate_as_interrupt():
    """SIGTERM (a batch system's kill, `timeout`) unwinds like Ctrl-C while the demo runs,
    so its ``finally`` removes its temporary input (review20: 1.5-2 GB left in /tmp); the
    previous handler is back afterwards (``main`` may be called in a process that goes on)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set handlers
        return

    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv=None) -> int:
    from .workloads import NAMES, STEPS_PER_CHUNK, WORKLOADS

    parser = argparse.ArgumentParser(prog="tidegate", description="Memory-bounded dask scheduling")
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("demo", help="the seed's problem and its fix: cluster, one process, twin")
    from .config import duration, rate, size

    positive, steps = _positive_int, _at_least(STEPS_PER_CHUNK)
    d.add_argument("--workload", default="vorticity-files", choices=NAMES)
    d.add_argument("--steps", type=steps, default=96, help="time steps per input (96: 768 MB)")
    d.add_argument("--workers", type=positive, default=2, help="LocalCluster worker processes")
    d.add_argument("--threads", type=positive, default=2, help="threads per worker, and locally")
    d.add_argument("--bandwidth", default="200MB/s", type=_shared(rate, "bandwidth", True),
                   help="network per worker ('' for free)")
    d.add_argument("--memory-limit", default="300MB", type=_checked(size, "a size"),
                   help="tidegate's limit in one process")
    d.add_argument("--twin-steps", type=_at_least(0), default=9000, help="0 to skip the twin")
    d.add_argument("--twin-workers", type=positive, default=20)
    d.add_argument("--report", default="tidegate-demo.html", type=_writable_or_none,
                   help="HTML report ('' for none)")
    d.add_argument("--tmpdir", default=None, type=_folder,
                   help="an existing folder to write the temporary input in")
    r = sub.add_parser("report", help="write an HTML report (and PNGs) of saved traces")
    r.add_argument("traces", nargs="+", help="trace files (JSON lines), shown side by side")
    r.add_argument("-o", "--output", default="tidegate-report.html", type=_writable,
                   help="HTML file to write")
    r.add_argument("--png", default=None, metavar="DIR", type=_folder_to_make,
                   help="also write report.png, memory.png (in DIR, made if needed)")
    r.add_argument("--title", default="tidegate report")
    s = sub.add_parser("simulate", help="run a seed workload on the twin of a dask cluster")
    s.add_argument("--workload", default="vorticity", choices=sorted(WORKLOADS))
    s.add_argument("--steps", type=positive, default=9000, help="time steps (one chunk each)")
    s.add_argument("--chunk", default="190MB", type=_checked(parse_bytes, "a size"),
                   help="bytes per time step")
    s.add_argument("--workers", type=positive, default=20)
    s.add_argument("--threads", type=positive, default=4, help="threads per worker")
    s.add_argument("--policy", default="eager,queue,tidegate", type=_policies,
                   help="comma-separated")
    s.add_argument("--bandwidth", default="1GB/s", type=_shared(rate, "bandwidth"),
                   help="incoming, per worker")
    s.add_argument("--latency", default="1ms", type=_shared(duration, "latency"))
    s.add_argument("--persist", action="store_true",
                   help="the stores are the outputs, as persist holds them (default: as a "
                        "computed da.store / to_zarr: stores return None, one final task)")
    s.add_argument("--processes", type=positive, default=None, metavar="N",
                   help="policies run at once, one child process each (default: one per "
                        "idle core; 1: one after another in this process)")
    s.add_argument("--json", default=None, type=_writable, help="write {policy: numbers} here")
    args = parser.parse_args(argv)
    if args.command == "demo":
        with _terminate_as_interrupt():  # its input is gigabytes in a temporary folder
            return demo(args)
    if args.command == "simulate":
        return simulate(args)
    if args.command == "report":
        return report(args)
    return 2


if __name__ == "__main__":
    sys.exit(main())
