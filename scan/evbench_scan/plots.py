"""The report's figures (matplotlib, Agg backend), one function per figure.

Each function gets data already reduced by report.py and writes one PNG.
Baseline data, when given, is drawn dashed/hatched next to the current
campaign so every figure shows the change.
"""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

BW_LABEL = "bandwidth per node (Gb/s, BU receive)"


def _size_ticks(ax, size_label):
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: size_label(int(v)) if v >= 1 else ""))


def _save(fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def bandwidth_vs_size(series, baseline, path, note="", size_label=str):
    """series: {label: [(size_bytes, min, avg, max)]} sorted by size; size_label(bytes) -> tick text."""
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for i, (label, pts) in enumerate(sorted(series.items())):
        color = "C%d" % i
        xs = [p[0] for p in pts]
        ax.plot(xs, [p[2] for p in pts], "o-", color=color, label="%s (avg)" % label)
        ax.fill_between(xs, [p[1] for p in pts], [p[3] for p in pts], color=color, alpha=0.15)
        if label in baseline:
            bpts = baseline[label]
            ax.plot([p[0] for p in bpts], [p[2] for p in bpts], "x--", color=color, alpha=0.7,
                    label="%s baseline" % label)
    _size_ticks(ax, size_label)
    ax.set_xlabel("fragment size (bytes, log scale)")
    ax.set_ylabel(BW_LABEL)
    ax.set_title("Bandwidth vs fragment size per driver" + (" (%s)" % note if note else ""))
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return _save(fig, path)


def tuning_surface(panels, path):
    """panels: list of dicts with title, credits, parallel, grid (rows=credits,
    cols=parallel, None = not measured), best (i, j), share, delta (same shape or None)."""
    n = len(panels)
    cols = min(n, 3)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols + 1, 4.0 * rows + 0.5), squeeze=False,
                             constrained_layout=True)
    vmax = max((v for p in panels for row in p["grid"] for v in row if v is not None), default=1.0)
    image = None
    for k, panel in enumerate(panels):
        ax = axes[k // cols][k % cols]
        grid = [[float("nan") if v is None else v for v in row] for row in panel["grid"]]
        image = ax.imshow(grid, origin="lower", cmap="viridis", vmin=0, vmax=vmax, aspect="auto")
        ax.set_xticks(range(len(panel["parallel"])))
        ax.set_xticklabels([str(v) for v in panel["parallel"]])
        ax.set_yticks(range(len(panel["credits"])))
        ax.set_yticklabels([str(v) for v in panel["credits"]])
        ax.set_xlabel("parallel (requests in flight per credit)")
        ax.set_ylabel("credits (events in flight per BU)")
        for i, row in enumerate(panel["grid"]):
            for j, v in enumerate(row):
                if v is None:
                    continue
                text = "%.2f" % v
                delta = panel.get("delta")
                if delta and delta[i][j] is not None:
                    text += "\n%+.0f%%" % delta[i][j]
                ax.text(j, i, text, ha="center", va="center", fontsize=7,
                        color="black" if v > 0.6 * vmax else "white")
        bi, bj = panel["best"]
        ax.add_patch(Rectangle((bj - 0.5, bi - 0.5), 1, 1, fill=False, edgecolor="red", linewidth=3))
        ax.set_title("%s\nbest (red box) %.2f Gb/s; %.0f%% of space within 90%%" % (
            panel["title"], panel["grid"][bi][bj], panel["share"]), fontsize=9)
    for k in range(n, rows * cols):
        axes[k // cols][k % cols].axis("off")
    fig.suptitle("Tuning surface: credits x parallel (cell: Gb/s per node%s)" % (
        ", change vs baseline" if any(p.get("delta") for p in panels) else ""))
    fig.colorbar(image, ax=axes.ravel().tolist(), shrink=0.8, label=BW_LABEL)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def bandwidth_vs_nodes(series, baseline, path):
    """series: {label: [(nodes, min, avg, max)]}."""
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for i, (label, pts) in enumerate(sorted(series.items())):
        color = "C%d" % i
        xs = [p[0] for p in pts]
        ax.plot(xs, [p[2] for p in pts], "o-", color=color, label="%s avg" % label)
        ax.plot(xs, [p[1] for p in pts], "v:", color=color, alpha=0.7, label="%s min" % label)
        ax.plot(xs, [p[3] for p in pts], "^:", color=color, alpha=0.7, label="%s max" % label)
        if label in baseline:
            bpts = baseline[label]
            ax.plot([p[0] for p in bpts], [p[2] for p in bpts], "x--", color=color, alpha=0.6,
                    label="%s baseline avg" % label)
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: "%d" % v))
    ax.set_xlabel("nodes")
    ax.set_ylabel(BW_LABEL)
    ax.set_title("Bandwidth per node vs node count (min/avg/max over nodes)")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    return _save(fig, path)


def shift_bars(entries, path):
    """entries: list of (label, [(shift, min, avg, max)], baseline list or None)."""
    fig, axes = plt.subplots(len(entries), 1, figsize=(7.5, 3.2 * len(entries)), squeeze=False)
    for ax, (label, shifts, base) in zip(axes[:, 0], entries):
        xs = [s[0] for s in shifts]
        width = 0.4 if base else 0.8
        avg = [s[2] for s in shifts]
        err = [[s[2] - s[1] for s in shifts], [s[3] - s[2] for s in shifts]]
        ax.bar([x - (width / 2 if base else 0) for x in xs], avg, width, yerr=err, capsize=3,
               color="C0", label="avg (bars: min..max over nodes)")
        if base:
            ax.bar([s[0] + width / 2 for s in base], [s[2] for s in base], width, color="C7",
                   hatch="//", label="baseline avg")
        ax.set_xticks(xs)
        ax.set_xlabel("shift (target = rank + shift mod nodes)")
        ax.set_ylabel("Gb/s per node")
        ax.set_title("One-to-one by shift: %s" % label, fontsize=9)
        ax.legend(fontsize=7)
        ax.grid(True, axis="y", alpha=0.3)
    return _save(fig, path)
