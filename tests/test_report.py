"""The report: data reduction for large traces, the HTML file, PNGs, the CLI, and the HTML
opened in a real headless Chromium."""

from __future__ import annotations

import html
import json
import os
import re
import shutil

import numpy as np
import pytest

pytest.importorskip("bokeh")
pytest.importorskip("matplotlib")

import dask.array as da  # noqa: E402
from callback_trace import threaded_trace  # noqa: E402

from tidegate import trace  # noqa: E402
from tidegate.cli import main  # noqa: E402
from tidegate.report import (  # noqa: E402
    MAX_POINTS,
    memory_series,
    report,
    save_png,
    spill_series,
    task_rects,
    total_series,
)


def _task(key, group, start, stop, thread=0, worker="w", nbytes=1):
    return trace.TaskEnd(key, group, worker, thread, start, stop, nbytes, False)


@pytest.fixture(scope="module")
def real_traces():
    """Two real runs of one graph: dask threaded with 2 threads and with 1."""
    x = da.random.random((2000, 2000), chunks=250)
    y = (x + x.T).sum()
    a = threaded_trace(y, "threads x2", 2)
    b = threaded_trace(y, "threads x1", 1)
    assert len(a.tasks) == len(b.tasks) > 100
    return a, b


# -- data reduction -----------------------------------------------------------------------
def test_adjacent_tasks_of_a_group_merge_only_on_one_thread_and_across_invisible_gaps():
    tasks = [_task(f"a-{i}", "a", i, i + 1) for i in range(10)]  # back to back: one rect
    tasks += [_task("b-0", "b", 10, 11)]  # another group: its own
    tasks += [_task("a-10", "a", 11, 12)]  # same group again after b: its own
    tasks += [_task("a-11", "a", 20, 21)]  # gap of 8 s in a 21 s run: visible, its own
    tasks += [_task(f"a-x{i}", "a", i, i + 1, thread=1) for i in range(3)]  # other thread
    r = task_rects(trace.Trace(tasks=tasks))
    got = sorted(zip(r.row, r.left.tolist(), r.right.tolist(), r.group, r.count.tolist()))
    assert got == [
        ("w / 0", 0, 10, "a", 10), ("w / 0", 10, 11, "b", 1), ("w / 0", 11, 12, "a", 1),
        ("w / 0", 20, 21, "a", 1), ("w / 1", 0, 3, "a", 3),
    ]
    assert r.ntasks == 16 and r.slices == 0
    assert "a-0 (+9 more)" in r.key and sum(r.nbytes) == 16


def test_past_the_cap_each_thread_is_cut_into_slices_and_no_task_is_lost():
    # 2 threads x 100 tasks, groups alternating (nothing merges), durations 1..100
    rng = np.random.default_rng(0)
    tasks = []
    for thread in range(2):
        t = 0.0
        for i, d in enumerate(rng.permutation(np.arange(1, 101))):
            tasks.append(_task(f"k-{thread}-{i}", "ab"[i % 2], t, t + d, thread=thread))
            t += d
    r = task_rects(trace.Trace(tasks=tasks), max_rects=20)
    assert r.slices == 10 and len(r.left) <= 20
    assert r.count.sum() == 200 and r.nbytes.sum() == 200  # every task is in a rectangle
    for row in ("w / 0", "w / 1"):
        mine = [t for t in tasks if t.thread == int(row[-1])]
        sel = np.array(r.row) == row
        left, right = r.left[sel], r.right[sel]
        assert left[0] == 0 and right[-1] == max(t.stop for t in mine)  # the whole span
        assert np.all(left[1:] >= right[:-1])  # slices do not overlap
        for k, lo, hi in zip(np.array(r.key)[sel], left, right, strict=True):
            inside = [t for t in mine if lo <= t.start < hi]
            best = max(inside, key=lambda t: t.stop - t.start)  # names the rectangle
            assert k.startswith(best.key) and r.group[r.key.index(k)] == best.group


def test_memory_downsampling_keeps_the_peak_and_the_span():
    n = 10 * MAX_POINTS
    mem = [trace.Memory(i / 100, "w", held=100, process=200) for i in range(n)]
    mem[4321] = trace.Memory(43.21, "w", held=10**9, process=2 * 10**9)
    s = memory_series(trace.Trace(memory=mem))["w"]
    assert len(s["time"]) == MAX_POINTS
    assert s["held"].max() == 10**9 and s["process"].max() == 2 * 10**9
    assert s["time"][0] == 0 and s["time"][-1] > 0.99 * (n - 1) / 100


def test_totals_add_each_workers_latest_sample():
    mem = [trace.Memory(0, "a", 0, roots_in_flight=2), trace.Memory(1, "b", 0, roots_in_flight=3),
           trace.Memory(2, "a", 0, roots_in_flight=1), trace.Memory(3, "b", 0, roots_in_flight=0)]
    t, y = total_series(trace.Trace(memory=mem), "roots_in_flight")
    assert t.tolist() == [0, 1, 2, 3] and y.tolist() == [2, 5, 4, 1]


def test_spills_accumulate_to_the_end_of_the_run():
    tr = trace.Trace(tasks=[_task("k", "k", 0, 5)], spills=[
        trace.SpillEvent(1, "w", "x", 10, "spill"), trace.SpillEvent(2, "w", "y", 5, "spill"),
        trace.SpillEvent(3, "w", "x", 10, "load")])
    t, y = spill_series(tr, "spill")
    assert t.tolist() == [0, 1, 2, 5] and y.tolist() == [0, 10, 15, 15]
    t, y = spill_series(tr, "load")
    assert t.tolist() == [0, 3, 5] and y.tolist() == [0, 10, 10]


def _visible_groups(traces, pixels: int) -> set[str]:
    """Groups with a rectangle at least 4 pixels wide when the run spans ``pixels``: those
    hold pixels of exactly their colour (narrower ones are all antialiased edge)."""
    span = max(t.stop for tr in traces for t in tr.tasks)
    out = set()
    for tr in traces:
        r = task_rects(tr)
        out |= {g for g, w in zip(r.group, r.right - r.left, strict=True) if w / span * pixels >= 4}
    return out


# -- files ----------------------------------------------------------------------------------
def test_html_is_self_contained_and_summarises_every_trace(real_traces, tmp_path):
    path = report(real_traces, tmp_path / "r.html", title="two runs")
    text = path.read_text()
    assert "<script src=" not in text and "cdn.bokeh.org" not in text  # opens offline
    assert "Bokeh.embed.embed_items" in text and len(text) > 500_000  # BokehJS inlined
    table = _model(text, "summary")["attributes"]["text"]
    for tr in real_traces:
        assert f">{tr.name}</td>" in table and f">{len(tr.tasks):,}</td>" in table
    key = _model(text, "groups")["attributes"]["text"]
    groups = {t.group for tr in real_traces for t in tr.tasks}
    assert sum(f"&#9632;</span> {g}</span>" in key for g in groups) == len(groups) > 1
    assert "<title>two runs</title>" in text


def test_html_says_when_it_slices_the_task_stream(real_traces, tmp_path):
    text = report(real_traces[:1], tmp_path / "r.html", max_rects=6).read_text()
    notes = _model(text, "notes")["attributes"]["text"]
    # 6 rectangles over the threads that ran tasks: 2, or 1 when under load one thread
    # took every task (seen once in a full suite)
    rows = len(set(task_rects(real_traces[0]).row))
    assert f"each thread's time in {6 // rows} slices" in notes


def _model(html_text: str, name: str) -> dict:
    """The bokeh model called ``name`` in the document embedded in a report."""
    doc = re.search(r'<script type="application/json" id="[^"]+">\s*(.*?)\s*</script>',
                    html_text, re.S).group(1)
    found = []

    def walk(node):
        if isinstance(node, dict):
            if node.get("type") == "object" and node.get("attributes", {}).get("name") == name:
                found.append(node)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(json.loads(html.unescape(doc)))  # bokeh escapes the embedded JSON
    assert len(found) == 1, f"{len(found)} models named {name}"
    return found[0]


def test_an_empty_trace_beside_a_real_one_is_a_valid_column(real_traces, tmp_path):
    import logging

    empty = trace.Trace(meta={"name": "nothing ran"})
    seen = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = seen.append
    log = logging.getLogger("bokeh")  # bokeh's validation logs here, not propagated
    level = log.level  # distributed's logging config sets it to "error"
    log.addHandler(handler)
    log.setLevel(logging.WARNING)
    try:
        text = report([real_traces[0], empty], tmp_path / "r.html").read_text()
    finally:
        log.removeHandler(handler)
        log.setLevel(level)
    assert [r.getMessage() for r in seen] == []
    assert ">nothing ran</td>" in _model(text, "summary")["attributes"]["text"]
    assert save_png([empty], tmp_path / "e.png").exists()


def test_png_has_the_groups_colours(real_traces, tmp_path):
    import matplotlib.image
    import matplotlib.pyplot as plt

    path = save_png(real_traces, tmp_path / "r.png", panels=("tasks", "memory"))
    img = matplotlib.image.imread(path)
    assert img.shape[:2] == (round(6.6 * 80), 2 * 5.5 * 80)  # two columns, two panels
    pixels = {tuple(np.round(p[:3] * 255).astype(int)) for p in img.reshape(-1, img.shape[2])}
    groups = sorted({t.group for tr in real_traces for t in tr.tasks})
    visible = _visible_groups(real_traces, 300)
    assert len(visible) >= 2
    for i, g in enumerate(groups):
        rgb = tuple(round(c * 255) for c in plt.cm.tab20.colors[i % 20])
        assert g not in visible or rgb in pixels, f"group {g} not drawn"
    with pytest.raises(ValueError, match="unknown panels"):
        save_png(real_traces, tmp_path / "x.png", panels=("nope",))


def test_cli_reads_trace_files_and_writes_html_and_pngs(real_traces, tmp_path, capsys):
    files = [tr.save(tmp_path / f"{i}.jsonl") for i, tr in enumerate(real_traces)]
    out = tmp_path / "out.html"
    assert main(["report", *map(str, files), "-o", str(out), "--png", str(tmp_path / "png")]) == 0
    assert all(tr.name in out.read_text() for tr in real_traces)
    pngs = sorted(p.name for p in (tmp_path / "png").iterdir())
    assert pngs == ["memory.png", "report.png"]
    assert str(out) in capsys.readouterr().out
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{}\n")
    assert main(["report", str(bad), "-o", str(tmp_path / "b.html")]) == 2
    assert "bad.jsonl:1" in capsys.readouterr().err


def test_cli_refuses_a_png_folder_that_is_a_file_before_writing(real_traces, tmp_path, capsys):
    """review21: --png naming a file raised FileExistsError after the HTML was written."""
    (f,) = [real_traces[0].save(tmp_path / "t.jsonl")]
    a_file = tmp_path / "pngfile"
    a_file.write_text("")
    out = tmp_path / "r.html"
    for png, said in ((a_file, "is a file, not a folder"), (a_file / "sub", "is a file")):
        with pytest.raises(SystemExit) as info:
            main(["report", str(f), "-o", str(out), "--png", str(png)])
        assert info.value.code == 2
        err = capsys.readouterr().err
        assert "argument --png" in err and said in err and str(a_file) in err, err
        assert not out.exists()  # refused before any work


def test_cli_refuses_a_trace_with_no_task_records(real_traces, tmp_path, capsys):
    """review21: an empty trace file gave an empty 1.6 MB report and exit 0."""
    good = real_traces[0].save(tmp_path / "good.jsonl")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    meta_only = tmp_path / "meta.jsonl"
    meta_only.write_text(json.dumps({"kind": "meta", "name": "nothing ran"}) + "\n")
    out = tmp_path / "r.html"
    for files in ([empty], [good, meta_only]):
        assert main(["report", *map(str, files), "-o", str(out)]) == 2
        err = capsys.readouterr().err
        assert "no task records" in err and repr(str(files[-1])) in err, err
        assert str(good) not in err
        assert not out.exists()


# -- the browser ----------------------------------------------------------------------------
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]

COUNT_COLOURS = """(canvases, colours) => {
  const want = new Map(colours.map((c, i) => [c.join(','), i]));
  const n = colours.map(() => 0);
  for (const c of canvases) {
    if (!c.width || !c.height) continue;
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    for (let i = 0; i < d.length; i += 4) {
      const j = want.get(d[i] + ',' + d[i + 1] + ',' + d[i + 2]);
      if (j !== undefined && d[i + 3] === 255) n[j]++;
    }
  }
  return n;
}"""


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium on this machine (.ci/run installs it)")
def test_report_renders_in_headless_chromium(real_traces, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    from bokeh.palettes import Category20

    path = report(real_traces, tmp_path / "r.html")
    messages, errors = [], []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1400})
            page.on("console", lambda m: messages.append((m.type, m.text)))
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.route("http*://**",
                       lambda route: (errors.append(route.request.url), route.abort()))
            page.goto(path.as_uri())
            page.wait_for_function(
                "() => window.Bokeh && Bokeh.documents.length == 1 && Bokeh.documents[0].is_idle")
            renderers = page.evaluate("""() => [...Bokeh.documents[0].all_models]
                .filter(m => m.type == 'GlyphRenderer')
                .map(m => [m.name, m.glyph.type, m.data_source.get_length()])""")
            groups = sorted({t.group for tr in real_traces for t in tr.tasks})
            colours = [Category20[20][i % 20] for i, g in enumerate(groups)
                       if g in _visible_groups(real_traces, 400)] + ["#22aa77"]
            rgb = [[int(c[k:k + 2], 16) for k in (1, 3, 5)] for c in colours]
            drawn = page.locator("canvas").evaluate_all(COUNT_COLOURS, rgb)
            page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
        finally:
            browser.close()
    assert errors == []  # no page errors, no request leaving the file
    assert [m for m in messages if m[0] in ("error", "warning")] == []
    bars = [r for r in renderers if r[1] == "HBar"]
    assert [r[2] for r in bars] == [len(task_rects(tr).left) for tr in real_traces]
    held = [r for r in renderers if r[0] == "held"]
    assert len(held) == 2 and all(r[1] == "Step" and r[2] > 100 for r in held)
    assert sum(r[0] == "roots" for r in renderers) == 2
    assert all(n > 20 for n in drawn), dict(zip(colours, drawn, strict=True))
    if os.environ.get("TIDEGATE_KEEP_SCREENSHOT"):
        shutil.copy(tmp_path / "report.png", os.environ["TIDEGATE_KEEP_SCREENSHOT"])


def test_trace_files_are_read_like_the_command_line_reads_them(tmp_path):
    """report(["r-0.jsonl"]) (what record() writes) was an AttributeError: 'str' object
    has no attribute 'tasks' (review23); files are loaded, anything else is named."""
    import tidegate

    with tidegate.record(None) as rec:
        da.ones(100, chunks=10).sum().compute(scheduler="tidegate")
    saved = rec.traces[0].save(tmp_path / "r-0.jsonl")
    path = tidegate.report([str(saved), saved], tmp_path / "r.html")
    assert path.read_text().count("tidegate") > 2
    with pytest.raises(TypeError, match="a Trace or a trace file, not int"):
        tidegate.report([rec.traces[0], 5], tmp_path / "bad.html")
