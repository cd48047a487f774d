"""Pictures of traces: one self-contained HTML report (bokeh) and PNGs (matplotlib).

Several traces go side by side, one column each, on a shared time axis and a shared memory
axis, so eager vs queue vs tidegate (or real vs twin) compare at a glance. Large traces stay
usable: memory samples are downsampled per worker (keeping each interval's peak), adjacent
task rectangles of one group on one thread merge when the gap between them is below what a
screen shows, and past a cap only the longest rectangles are drawn; the report says so.
bokeh and matplotlib are imported only when a picture is made (``tidegate[report]``).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .trace import Trace

MAX_RECTS = 20_000  # task-stream rectangles per trace (a browser draws these smoothly)
MAX_POINTS = 2_000  # memory samples per worker and series
RESOLUTION = 4_000  # gaps below makespan / RESOLUTION are invisible: merge across them


def _fmt_bytes(n: float | None) -> str:
    if n is None:
        return "-"
    for unit in ("B", "kiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" or abs(n) >= 100 else f"{n:.3g} {unit}"
        n /= 1024
    return ""  # unreachable


# -- data, shared by both renderers -------------------------------------------------------
@dataclass
class Rects:
    """Task-stream rectangles of one trace; one may stand for several tasks (``count``),
    and then shows the group and key of the longest of them."""

    row: list[str]  # "worker / thread" (the worker's address without its protocol)
    left: np.ndarray
    right: np.ndarray
    group: list[str]
    key: list[str]
    count: np.ndarray  # tasks in the rectangle
    nbytes: np.ndarray  # their summed result sizes
    ntasks: int  # tasks in the trace
    slices: int = 0  # > 0: over the cap, each thread's time was cut into this many slices


def task_rects(trace: Trace, max_rects: int = MAX_RECTS, resolution: int = RESOLUTION) -> Rects:
    """Tasks of one group back to back on one thread (gaps under makespan / resolution)
    become one rectangle. If that leaves more than ``max_rects``, each thread's time is cut
    into equal slices, one rectangle per busy slice: a raster as fine as the cap allows,
    where every task still shows (none is dropped)."""
    tasks = trace.tasks
    n = len(tasks)
    if not n:
        e = np.zeros(0)
        return Rects([], e, e, [], [], e.astype(int), e.astype(int), 0)
    row_names, row_id = np.unique([f"{t.worker.split('://')[-1]} / {t.thread}" for t in tasks],
                                  return_inverse=True)
    group_names, group_id = np.unique([t.group for t in tasks], return_inverse=True)
    start = np.fromiter((t.start for t in tasks), float, n)
    stop = np.fromiter((t.stop for t in tasks), float, n)
    nbytes = np.fromiter((t.nbytes for t in tasks), np.int64, n)
    order = np.lexsort((start, row_id))
    row_id, group_id, start, stop, nbytes = (
        a[order] for a in (row_id, group_id, start, stop, nbytes))
    t0 = float(start.min())
    span = max(float(stop.max()) - t0, 1e-9)
    new = np.ones(n, bool)
    new[1:] = (row_id[1:] != row_id[:-1]) | (group_id[1:] != group_id[:-1]) | (
        start[1:] - stop[:-1] > span / resolution
    )
    slices = 0
    if np.count_nonzero(new) > max_rects:
        slices = max(1, max_rects // len(row_names))
        cut = np.minimum(((start - t0) / span * slices).astype(np.int64), slices - 1)
        new[1:] = (row_id[1:] != row_id[:-1]) | (cut[1:] != cut[:-1])
    first = np.flatnonzero(new)
    segment = np.cumsum(new) - 1
    # within each rectangle, its longest task first: it names and colours the rectangle
    longest = np.lexsort((start - stop, segment))[first]
    count = np.diff(np.append(first, n))
    keys = [str(tasks[order[i]].key) for i in longest]
    return Rects(
        row=list(row_names[row_id[first]]),
        left=start[first],
        right=np.maximum.reduceat(stop, first),
        group=list(group_names[group_id[longest]]),
        key=[k if c == 1 else f"{k} (+{c - 1} more)" for k, c in zip(keys, count, strict=True)],
        count=count,
        nbytes=np.add.reduceat(nbytes, first),
        ntasks=n,
        slices=slices,
    )


def _downsample(t: np.ndarray, ys: list[np.ndarray], max_points: int):
    """At most ``max_points`` samples: each interval keeps its first time and its peaks."""
    if len(t) <= max_points:
        return t, ys
    edges = np.linspace(0, len(t), max_points + 1).astype(int)[:-1]
    return t[edges], [np.maximum.reduceat(y, edges) for y in ys]


def memory_series(trace: Trace, max_points: int = MAX_POINTS) -> dict[str, dict]:
    """Per worker: times, held bytes and (where measured) process memory."""
    out: dict[str, dict] = {}
    by_worker: dict[str, list] = {}
    for m in trace.memory:
        by_worker.setdefault(m.worker, []).append(m)
    for w, ms in by_worker.items():
        ms.sort(key=lambda m: m.time)
        t = np.array([m.time for m in ms], float)
        held = np.array([m.held for m in ms], float)
        has_process = any(m.process is not None for m in ms)
        proc = np.array([m.process or 0 for m in ms], float)
        t, (held, proc) = _downsample(t, [held, proc], max_points)
        out[w] = {"time": t, "held": held, "process": proc if has_process else None}
    return out


def total_series(trace: Trace, field: str, max_points: int = MAX_POINTS):
    """The sum over workers of each worker's latest sample of ``field``, over time."""
    latest: dict[str, float] = {}
    total = 0.0
    t, y = [], []
    for m in sorted(trace.memory, key=lambda m: m.time):
        v = getattr(m, field)
        total += v - latest.get(m.worker, 0)
        latest[m.worker] = v
        t.append(m.time)
        y.append(total)
    t2, (y2,) = _downsample(np.array(t, float), [np.array(y, float)], max_points)
    return t2, y2


def spill_series(trace: Trace, direction: str):
    """Cumulative bytes spilled (or loaded) over time, all workers, to the trace's end."""
    ev = sorted((s.time, s.nbytes) for s in trace.spills if s.direction == direction)
    end = max([_makespan([trace])] + [e[0] for e in ev])
    t = np.array([0.0] + [e[0] for e in ev] + [end])
    y = np.cumsum([0] + [e[1] for e in ev] + [0]).astype(float)
    t, (y,) = _downsample(t, [y], MAX_POINTS)
    return t, y


def summary_rows(traces: Sequence[Trace]) -> list[dict[str, str]]:
    rows = []
    for tr in traces:
        s = tr.summary()
        workers = tr.meta.get("workers") or {}
        rows.append({
            "run": tr.name,
            "body": str(tr.meta.get("body", "-")),
            "policy": str(tr.meta.get("policy", "-")),
            "workers x threads": (
                f"{len(workers)} x {max(workers.values())}" if workers else str(len(tr.workers()))
            ),
            "tasks": f"{s['tasks']:,}" + (f" ({s['failed']} failed)" if s["failed"] else ""),
            "makespan": f"{s['makespan']:.2f} s",
            "peak held / worker": _fmt_bytes(max(s["peak_memory_per_worker"], default=0)),
            "peak process / worker": _fmt_bytes(max(s["peak_process_per_worker"], default=None)),
            "memory limit": _fmt_bytes(tr.meta.get("memory_limit")),
            "peak roots in flight / worker": str(s["peak_roots_in_flight"]),
            "transferred": _fmt_bytes(s["bytes_transferred"]),
            "spilled": _fmt_bytes(s["bytes_spilled"]),
        })
    return rows


def group_colors(traces: Sequence[Trace], palette: Sequence[str]) -> dict[str, str]:
    """One colour per group, the same in every column."""
    groups = sorted({t.group for tr in traces for t in tr.tasks})
    return {g: palette[i % len(palette)] for i, g in enumerate(groups)}


def group_times(traces: Sequence[Trace]) -> list[tuple[str, float]]:
    """Groups by the task time they took over all traces, most first: the colour key."""
    total: dict[str, float] = {}
    for tr in traces:
        for t in tr.tasks:
            total[t.group] = total.get(t.group, 0.0) + (t.stop - t.start)
    return sorted(total.items(), key=lambda kv: -kv[1])


def _check(traces) -> list[Trace]:
    """Traces, or trace files (JSON lines: what record() and tidegate.trace save), loaded."""
    import os

    traces = [traces] if isinstance(traces, (Trace, str, os.PathLike)) else list(traces)
    if not traces:
        raise ValueError("no traces to report")
    out = []
    for tr in traces:
        if isinstance(tr, (str, os.PathLike)):
            tr = Trace.load(tr)
        elif not isinstance(tr, Trace):
            raise TypeError(f"each trace must be a Trace or a trace file, not "
                            f"{type(tr).__name__}")
        out.append(tr)
    return out


def _peak_memory(traces: Sequence[Trace]) -> float:
    return max([float(max(s["held"].max(), 0 if s["process"] is None else s["process"].max()))
                for tr in traces for s in memory_series(tr).values()] + [1.0])


def _limit_shown(tr: Trace, top: float) -> bool:
    # a limit far above every curve would flatten them: the summary table gives it instead
    return 0 < float(tr.meta.get("memory_limit") or 0) <= top


def _makespan(traces: Sequence[Trace]) -> float:
    ends = [t.stop for tr in traces for t in tr.tasks]
    ends += [m.time for tr in traces for m in tr.memory]
    return max(ends, default=0.0) or 1.0


# -- HTML (bokeh) -------------------------------------------------------------------------
def report(traces, path="tidegate-report.html", *, title: str = "tidegate report",
           max_rects: int = MAX_RECTS) -> Path:
    """Write one self-contained HTML file (bokeh's JS inlined: opens offline) showing each
    trace in a column: task stream by worker and thread coloured by group, memory per
    worker, roots in flight, spills; a summary table on top. ``traces``: Trace objects or
    trace files (JSON lines), one or a list. Returns the path."""
    from bokeh.embed import file_html
    from bokeh.layouts import column, gridplot
    from bokeh.models import Div, Range1d
    from bokeh.palettes import Category20
    from bokeh.resources import INLINE

    traces = _check(traces)
    colors = group_colors(traces, Category20[20])
    x_range = Range1d(0, _makespan(traces) * 1.02)
    peak_mem = _peak_memory(traces)
    mem_range = Range1d(0, peak_mem * 1.05)
    if any(_limit_shown(tr, peak_mem * 1.5) for tr in traces):  # a limit in sight: show it
        mem_range.end = max(peak_mem, max(float(tr.meta.get("memory_limit") or 0)
                                          for tr in traces)) * 1.05
    roots_top = max(float(total_series(tr, "roots_in_flight")[1].max(initial=0)) for tr in traces)
    spill_top = max(float(y.max(initial=0)) for tr in traces for y in (
        spill_series(tr, "spill")[1], spill_series(tr, "load")[1], total_series(tr, "spilled")[1]))
    ranges = {  # every column on the same scales
        "memory": mem_range,
        "roots": Range1d(0, 1.1 * roots_top or 1),
        "spills": Range1d(0, 1.1 * spill_top or 1),
    }
    width = max(380, min(700, 1400 // len(traces)))
    notes: list[str] = []
    grid: list[list] = [[], [], [], []]
    for tr in traces:
        rects = task_rects(tr, max_rects)
        if rects.slices:
            notes.append(f"{tr.name}: {rects.ntasks:,} tasks drawn as {len(rects.left):,} "
                         f"rectangles: each thread's time in {rects.slices:,} slices, each "
                         "coloured by its longest task's group")
        if len(tr.memory) > MAX_POINTS:
            notes.append(f"{tr.name}: memory downsampled to {MAX_POINTS:,} points per worker "
                         "(each keeps its interval's peak)")
        for i, fig in enumerate(_bokeh_column(tr, rects, colors, x_range, ranges, width)):
            grid[i].append(fig)
    table = Div(text=_html_table(summary_rows(traces)), name="summary")
    key = Div(name="groups", text="task groups (by time taken): " + " ".join(
        f"<span style='white-space:nowrap'><span style='color:{colors[g]}'>&#9632;</span> "
        f"{html.escape(g)}</span>" for g, _ in group_times(traces)))
    head = Div(text=f"<h2>{html.escape(title)}</h2>" + "".join(
        f"<p class='note'>{html.escape(n, quote=False)}</p>" for n in notes), name="notes")
    layout = column(head, table, key,
                    gridplot(grid, toolbar_location="right", merge_tools=True))
    path = Path(path)
    path.write_text(file_html(layout, INLINE, title), encoding="utf-8")
    return path


def _html_table(rows: list[dict[str, str]]) -> str:
    cols = list(rows[0])
    head = "".join(f"<th style='padding:2px 10px'>{html.escape(c)}</th>" for c in cols)
    body = "".join(
        "<tr>" + "".join(f"<td style='padding:2px 10px;text-align:right'>{html.escape(r[c])}</td>"
                         for c in cols) + "</tr>"
        for r in rows
    )
    return (f"<table style='border-collapse:collapse;font-family:sans-serif;font-size:13px'>"
            f"<tr style='border-bottom:1px solid #888'>{head}</tr>{body}</table>")


def _bokeh_column(tr: Trace, rects: Rects, colors, x_range, ranges, width):
    from bokeh.models import ColumnDataSource, FactorRange, HoverTool, NumeralTickFormatter, Span
    from bokeh.palettes import Category10
    from bokeh.plotting import figure

    tools = "xpan,xwheel_zoom,box_zoom,reset,save"
    rows = sorted(set(rects.row), key=_row_sort_key)
    tasks = figure(title=f"{tr.name}: task stream", x_range=x_range, width=width,
                   height=max(160, min(600, 18 * len(rows) + 60)), tools=tools,
                   y_range=FactorRange(*reversed(rows)) if rows else FactorRange("none"),
                   name="task-stream")
    src = ColumnDataSource({
        "row": rects.row, "left": rects.left, "right": rects.right, "group": rects.group,
        "key": rects.key, "count": rects.count, "nbytes": [_fmt_bytes(b) for b in rects.nbytes],
        "duration": rects.right - rects.left, "color": [colors[g] for g in rects.group],
    })
    tasks.hbar(y="row", left="left", right="right", height=0.85, color="color", source=src,
               name="tasks")
    tasks.add_tools(HoverTool(tooltips=[("key", "@key"), ("group", "@group"), ("on", "@row"),
                                        ("duration", "@duration{0.000} s"), ("result", "@nbytes")]))
    tasks.yaxis.axis_label = "worker / thread"
    if len(rows) > 40:  # labels would overlap: the hover names the row
        tasks.yaxis.major_label_text_font_size = "0px"

    mem = figure(title="memory per worker (dashed: process)",
                 x_range=x_range, y_range=ranges["memory"], width=width, height=260, tools=tools,
                 name="memory")
    series = memory_series(tr)
    palette = Category10[10]
    for i, (w, s) in enumerate(sorted(series.items())):
        c = palette[i % len(palette)]
        label = w if len(series) <= 8 else None
        kw = {"legend_label": label} if label else {}
        mem.step(s["time"], s["held"], mode="after", color=c, line_width=2, name="held", **kw)
        if s["process"] is not None:
            mem.step(s["time"], s["process"], mode="after", color=c, line_dash="dashed",
                     name="process")
    if _limit_shown(tr, ranges["memory"].end):
        mem.add_layout(Span(location=float(tr.meta["memory_limit"]), dimension="width",
                            line_color="red", line_dash="dotted", line_width=2))
    if not series:
        mem.title.text += " (no samples)"
        mem.step([], [], name="held")  # an empty plot is still a valid plot
    if mem.legend:
        mem.legend.location = "top_left"
        mem.legend.label_text_font_size = "9px"
        mem.legend.background_fill_alpha = 0.6
        mem.legend.click_policy = "hide"
    mem.yaxis.formatter = NumeralTickFormatter(format="0.0 b")

    roots = figure(title="roots in flight (all workers)", x_range=x_range,
                   y_range=ranges["roots"], width=width, height=180, tools=tools, name="roots")
    t, y = total_series(tr, "roots_in_flight")
    roots.step(t, y, mode="after", color="#2a7", line_width=2, name="roots")

    spills = figure(title="spilled (cumulative) and on disk", x_range=x_range,
                    y_range=ranges["spills"], width=width, height=180, tools=tools, name="spills")
    for direction, color in (("spill", "#c33"), ("load", "#36c")):
        t, y = spill_series(tr, direction)
        spills.step(t, y, mode="after", color=color, line_width=2, legend_label=direction,
                    name=direction)
    t, y = total_series(tr, "spilled")
    spills.step(t, y, mode="after", color="#888", line_dash="dashed", legend_label="on disk",
                name="on-disk")
    spills.legend.location = "top_left"
    spills.yaxis.formatter = NumeralTickFormatter(format="0.0 b")
    for f in (tasks, mem, roots, spills):
        f.xaxis.axis_label = "seconds"
    return tasks, mem, roots, spills


def _row_sort_key(row: str):
    worker, _, thread = row.rpartition(" / ")
    return (worker, int(thread) if thread.isdigit() else 0)


# -- PNG (matplotlib) ---------------------------------------------------------------------
PANELS = ("tasks", "memory", "roots", "spills")


def save_png(traces, path, panels: Sequence[str] = PANELS, max_rects: int = MAX_RECTS,
             dpi: int = 80) -> Path:
    """The report's plots as one PNG (rows: ``panels``; columns: traces), for notebooks and
    issues. Same data and limits as :func:`report`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import PolyCollection
    from matplotlib.ticker import FuncFormatter, MultipleLocator

    traces = _check(traces)
    unknown = set(panels) - set(PANELS)
    if unknown:
        raise ValueError(f"unknown panels {sorted(unknown)}; choose from {PANELS}")
    colors = group_colors(traces, [matplotlib.colors.to_hex(c) for c in plt.cm.tab20.colors])
    ratios = {"tasks": 3, "memory": 3, "roots": 1.6, "spills": 1.6}
    fig, axes = plt.subplots(
        len(panels), len(traces), squeeze=False, sharex=True, dpi=dpi,
        figsize=(5.5 * len(traces), sum(ratios[p] for p in panels) + 0.6),
        gridspec_kw={"height_ratios": [ratios[p] for p in panels]},
    )
    fmt = FuncFormatter(lambda v, _: _fmt_bytes(v))
    peak = _peak_memory(traces) * 1.5
    for j, tr in enumerate(traces):
        for i, panel in enumerate(panels):
            ax = axes[i][j]
            ax.grid(alpha=0.3)
            if panel == "tasks":
                r = task_rects(tr, max_rects)
                rows = sorted(set(r.row), key=_row_sort_key)
                y = {name: k for k, name in enumerate(rows)}
                yi = np.array([y[name] for name in r.row], float)
                verts = np.stack([
                    np.stack([r.left, yi - 0.42], 1), np.stack([r.left, yi + 0.42], 1),
                    np.stack([r.right, yi + 0.42], 1), np.stack([r.right, yi - 0.42], 1),
                ], 1) if len(yi) else np.zeros((0, 4, 2))
                ax.add_collection(PolyCollection(verts, facecolors=[colors[g] for g in r.group],
                                                 edgecolors="none"))
                ax.set_ylim(-0.6, max(len(rows), 1) - 0.4)
                ax.set_yticks(range(len(rows)) if len(rows) <= 16 else [])
                ax.set_yticklabels(rows if len(rows) <= 16 else [], fontsize=7)
                ax.invert_yaxis()
                title = "task stream"
            elif panel == "memory":
                for w, s in sorted(memory_series(tr).items()):
                    (line,) = ax.step(s["time"], s["held"], where="post", lw=1.5,
                                      label=w if len(tr.workers()) <= 8 else None)
                    if s["process"] is not None:
                        ax.step(s["time"], s["process"], where="post", ls="--", lw=1,
                                color=line.get_color())
                if _limit_shown(tr, peak):
                    ax.axhline(float(tr.meta["memory_limit"]), color="red", ls=":", lw=1.5)
                ax.yaxis.set_major_formatter(fmt)
                title = "memory per worker (dashed: process)"
                if ax.get_legend_handles_labels()[0]:
                    ax.legend(fontsize=7, loc="upper left", framealpha=0.6)
            elif panel == "roots":
                t, yv = total_series(tr, "roots_in_flight")
                ax.step(t, yv, where="post", color="#2a7", lw=1.5)
                title = "roots in flight (all workers)"
            else:
                for direction, color in (("spill", "#c33"), ("load", "#36c")):
                    t, yv = spill_series(tr, direction)
                    ax.step(t, yv, where="post", color=color, lw=1.5, label=direction)
                ax.set_ylim(bottom=0, top=max(ax.get_ylim()[1], 1.0))
                ax.yaxis.set_major_formatter(fmt)
                ax.legend(fontsize=7, loc="upper left")
                title = "spilled / loaded (cumulative)"
            # the run's name heads its column
            ax.set_title(f"{tr.name}\n{title}" if i == 0 else title, fontsize=10)
            if i == len(panels) - 1:
                ax.set_xlabel("seconds")
    for i, panel in enumerate(panels):  # every column on the same scales
        if panel == "tasks":
            continue
        top = max(ax.get_ylim()[1] for ax in axes[i])
        for ax in axes[i]:
            ax.set_ylim(0, top)
            if top <= 1.5:  # nothing counted in any column (twin traces have no roots)
                ax.set_yticks([0])
            elif panel != "roots":  # bytes: ticks at round binary sizes
                ax.yaxis.set_major_locator(MultipleLocator(2.0 ** np.round(np.log2(top / 5))))
    axes[0][0].set_xlim(0, _makespan(traces) * 1.02)
    bottom = 0.0
    if "tasks" in panels:  # the colour key under the columns
        from matplotlib.patches import Patch

        shown = group_times(traces)[:12]
        longest = max((len(g) for g, _ in shown), default=1)
        ncol = max(1, min(len(shown), int(fig.get_figwidth() / (0.075 * longest + 0.6))))
        fig.legend([Patch(color=colors[g]) for g, _ in shown], [g for g, _ in shown],
                   loc="lower center", ncol=ncol, fontsize=8, frameon=False)
        bottom = (0.2 + 0.2 * -(-len(shown) // ncol)) / fig.get_figheight()
    fig.tight_layout(rect=(0, bottom, 1, 1))
    path = Path(path)
    fig.savefig(path)
    plt.close(fig)
    return path


def plot_memory(runs: Sequence, labels: Sequence[str], path: str, title: str = "") -> str:
    """Save a PNG of RSS above baseline over time, one line per run (``Measurement``s)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    for m, label in zip(runs, labels, strict=True):
        t = [s[0] for s in m.samples]
        mb = [s[1] / 1e6 for s in m.samples]
        ax.plot(t, mb, label=f"{label}: peak {m.peak_rss / 1e6:.0f} MB, {m.wall_time:.1f} s")
    ax.set_xlabel("seconds")
    ax.set_ylabel("memory above baseline (MB, RSS)")
    ax.set_title(title)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper right", fontsize=9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
