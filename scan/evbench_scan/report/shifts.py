"""One-to-one shift scans: the pair matrix, the per-shift profile, and the
measured rate against the platform's prediction.

At shift s node n receives from node (n - s) mod N, so the per-shift receive
rates of every node (`results.shifts[].per_node_values`) fill the N x N
sender -> receiver matrix (mpiGraph's picture: a slow node, cable or switch
shows as a slow row, column or band). Shift 0 is each node copying to
itself: it is kept apart as a local copy, never a network figure. Repeats
are reduced cell by cell to their median.

Predictions come from the results (`results.shifts[].predicted`, written
when the run had `topology.platform`) or from `evbench topo PLATFORM --json`
(`report --platform FILE`): the rate each flow gets from the most loaded
link on its route. A simulation of the same scan (the credit model's,
simshifts.py) can be set beside a measured one, as a second series.
"""
import json
import os
import statistics
import subprocess
import tempfile

from .stats import Spread


class ShiftScanError(Exception):
    pass


def _shifts(doc):
    return ((doc or {}).get("results") or {}).get("shifts") or []


def is_shift_scan(row):
    return any(len(_shifts(d)) > 1 for d in row.docs())


def _local(entry):
    if "local_copy" in entry:
        return bool(entry["local_copy"])
    return entry.get("shift") == 0   # results from before the flag: shift 0 is the node itself


def _median(values):
    vals = [v for v in values if v is not None]
    return statistics.median(vals) if vals else None


class ShiftScan:
    """The shift scan of one row (all its repeats)."""

    def __init__(self, row, nodes):
        self.row, self.nodes = row, nodes
        self.simulated = row.simulated   # (model, platform): an `evbench sim` scan; None: measured
        self.kind = "simulated" if row.simulated else "measured"
        self.beside = None               # a simulation of this scan: set_beside()
        self.drawn_beside = False        # this simulation is drawn beside a measured scan
        by_shift = {}
        for doc in row.docs():
            for entry in _shifts(doc):
                by_shift.setdefault(entry["shift"], []).append(entry)
        self.steps = []
        for shift in sorted(by_shift):
            entries = by_shift[shift]
            per_node = [_median([(e.get("per_node_values") or [None] * nodes)[n]
                                 if n < len(e.get("per_node_values") or []) else None for e in entries])
                        for n in range(nodes)]
            pred = [e["predicted"] for e in entries if e.get("predicted")]
            self.steps.append({
                "shift": shift, "local_copy": _local(entries[0]),
                "avg": Spread([e["per_node"]["avg"] for e in entries]),
                "min": _median([e["per_node"]["min"] for e in entries]),
                "max": _median([e["per_node"]["max"] for e in entries]),
                "per_node_values": per_node,
                "predicted": pred[0] if pred else None,
            })

    def network_steps(self):
        return [s for s in self.steps if not s["local_copy"]]

    def local_step(self):
        return next((s for s in self.steps if s["local_copy"]), None)

    def matrix(self):
        """matrix[sender][receiver] in Gb/s (None where not measured)."""
        n = self.nodes
        m = [[None] * n for _ in range(n)]
        for s in self.steps:
            for recv, v in enumerate(s["per_node_values"]):
                m[(recv - s["shift"]) % n][recv] = v
        return m

    def has_pairs(self):
        return any(v is not None for s in self.network_steps() for v in s["per_node_values"])

    def pairs(self):
        """[(rate, sender, receiver, shift)] over network shifts, slowest first."""
        out = []
        for s in self.network_steps():
            for recv, v in enumerate(s["per_node_values"]):
                if v is not None:
                    out.append((v, (recv - s["shift"]) % self.nodes, recv, s["shift"]))
        return sorted(out)

    def apply_prediction(self, predicted):
        """predicted: {shift: {"per_node": {min, avg, max}, "worst_links": [...]}} (topo)."""
        for s in self.steps:
            if s["predicted"] is None and s["shift"] in predicted:
                s["predicted"] = predicted[s["shift"]]

    def has_prediction(self):
        return any(s["predicted"] for s in self.network_steps())

    def set_beside(self, other, source):
        """Draw the simulated ShiftScan `other` beside this one; `source` says
        where it came from (its points, or the file the report wrote)."""
        self.beside = {"label": "%s model on %s" % other.simulated, "source": source,
                       "steps": dict((s["shift"], {"min": s["min"], "avg": s["avg"].median, "max": s["max"]})
                                     for s in other.network_steps())}
        other.drawn_beside = True

    def has_versus(self):
        """A measured-vs-predicted figure of its own: a prediction or a simulation
        to set it against, and not already drawn beside a measured scan."""
        return (self.has_prediction() or self.beside is not None) and not self.drawn_beside

    def profile(self):
        """What shiftplots.shift_profile takes."""
        return [{"shift": s["shift"], "min": s["min"], "avg": s["avg"].median, "max": s["max"],
                 "local_copy": s["local_copy"]} for s in self.steps]

    def versus(self):
        """What shiftplots.measured_vs_predicted takes (network shifts)."""
        out = []
        for s in self.network_steps():
            p = s["predicted"]
            pn = (p or {}).get("per_node") or {}
            out.append({"shift": s["shift"],
                        "measured": {"min": s["min"], "avg": s["avg"].median, "max": s["max"]},
                        "predicted": {"min": pn.get("min"), "avg": pn.get("avg"), "max": pn.get("max")}
                        if p else None,
                        "worst_links": list((p or {}).get("worst_links") or []),
                        "simulated": self.beside["steps"].get(s["shift"]) if self.beside else None})
        return out

    def sentences(self):
        """The findings a reader takes away, as sentences."""
        net = self.network_steps()
        if not net:
            return []
        out = []
        avg = Spread([s["avg"].median for s in net])
        local = self.local_step()
        text = "Over %d nodes and %d network shifts the %sper-node rate averages %.2f Gb/s (shifts range " \
               "%.2f–%.2f)" % (self.nodes, len(net), "simulated " if self.simulated else "",
                              statistics.mean(avg.values), avg.lo, avg.hi)
        if local:
            text += "; shift 0, each node copying to itself (%.2f Gb/s), is a local copy and left out" % (
                local["avg"].median)
        out.append(text + ".")
        worst = min(net, key=lambda s: s["avg"].median)
        pairs = self.pairs()
        if pairs:
            rate, src, dst, shift = pairs[0]
            med = statistics.median(p[0] for p in pairs)
            out.append("Slowest pair: node %d → node %d at shift %d, %.2f Gb/s (%.0f %% of the median "
                       "pair, %.2f Gb/s); slowest shift: %d (%.2f Gb/s per node on average)." % (
                           src, dst, shift, rate, 100.0 * rate / med if med else 0, med,
                           worst["shift"], worst["avg"].median))
            recv = [(_median([s["per_node_values"][n] for s in net]), n) for n in range(self.nodes)]
            recv = [x for x in recv if x[0] is not None]
            if recv:
                slow, node = min(recv)
                out.append("Slowest receiving node: %d (median %.2f Gb/s over its senders)." % (node, slow))
        if self.has_prediction():
            ratios = [(s["avg"].median / s["predicted"]["per_node"]["avg"], s) for s in net
                      if s["predicted"] and (s["predicted"].get("per_node") or {}).get("avg")]
            if ratios:
                lo, hi = min(r for r, _ in ratios), max(r for r, _ in ratios)
                out.append("%s: %.2f–%.2f." % ("Per shift, simulated / predicted" if self.simulated else
                                                "Measured / predicted per shift", lo, hi))
            for s in sorted(net, key=lambda s: s["avg"].median)[:2]:
                links = (s["predicted"] or {}).get("worst_links") or []
                if links:
                    flows = s["predicted"].get("max_flows")
                    out.append("Shift %d (%.2f Gb/s %s, %.2f predicted) is limited by %s%s." % (
                        s["shift"], s["avg"].median, self.kind, s["predicted"]["per_node"]["avg"],
                        ", ".join(links[:3]), "" if flows is None else
                        " (%d flow%s on the busiest link)" % (flows, "" if flows == 1 else "s")))
        out += self.beside_sentences(net)
        return out

    def beside_sentences(self, net):
        """What the simulation beside this scan says, per shift."""
        if not self.beside:
            return []
        steps = self.beside["steps"]
        both = [(s["avg"].median, steps[s["shift"]]["avg"]) for s in net if steps.get(s["shift"])]
        if not both:
            return []
        sim = [v for _, v in both]
        text = "The %s (%s) gives %.2f–%.2f Gb/s per node over the shifts" % (
            self.beside["label"], self.beside["source"], min(sim), max(sim))
        ratios = [m / v for m, v in both if v]
        if ratios:
            text += "; %s / simulated per shift: %.2f–%.2f" % (self.kind, min(ratios), max(ratios))
        return [text + "."]


def platform_prediction(evbench, platform, nodes):
    """{shift: predicted} from `evbench topo PLATFORM --nodes N --json FILE`."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "topo.json")
        cmd = [evbench, "topo", platform, "--nodes", str(nodes), "--json", out, "--quiet"]
        try:
            proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  universal_newlines=True, timeout=120)
        except OSError as err:
            raise ShiftScanError("--platform needs the evbench binary (%s): %s" % (evbench, err))
        if proc.returncode != 0:
            raise ShiftScanError("%s: %s" % (" ".join(cmd), (proc.stderr or proc.stdout).strip()[-500:]))
        with open(out) as f:
            doc = json.load(f)
    shifts = doc.get("shifts")
    if not isinstance(shifts, list):
        raise ShiftScanError("%s: `evbench topo --json` has no per-shift prediction (an older evbench?)"
                             % platform)
    return dict((s["shift"], s.get("predicted") or s) for s in shifts)
