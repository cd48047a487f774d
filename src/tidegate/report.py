"""Pictures: memory over time of several runs, side by side."""

from __future__ import annotations

from collections.abc import Sequence


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
