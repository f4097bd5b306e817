"""The background entries of the monitor fixture's synthetic run (monitor_fixture.py --background):
an incast of 3 ranks that runs until switched off, an alltoall of 4 ranks stopped at 8 s (a
`control:` entry of the run), in the shape of the real server's /api/state background[] and
history[].background_gbps (docs/MONITORING.md); POST /control's background.N.active switches them."""
import math
import re

KEY = re.compile(r"^background\.(\d+)\.active$")


class SyntheticBackground:
    def __init__(self):
        # Pattern, ranks, Gb/s while on, and when switched off (None: on).
        self.entries = [{"pattern": "incast", "ranks": 3, "gbps": 6.0, "off_at": None},
                        {"pattern": "alltoall", "ranks": 4, "gbps": 2.5, "off_at": 8.0}]

    def check(self, key, value):
        """None when `key` is not a background key; else (400, message) or (key, value, text)."""
        m = KEY.match(key)
        if not m:
            return None
        entry = int(m.group(1))
        if not 1 <= entry <= len(self.entries):
            return 400, "%s: no background entry %d" % (key, entry)
        if not isinstance(value, bool):
            return 400, "%s: expected true (send) or false (stop), got %r" % (key, value)
        return key, value, "true" if value else "false"

    def switch(self, key, on, t):
        self.entries[int(KEY.match(key).group(1)) - 1]["off_at"] = None if on else t

    def control(self, t, records):
        """The alltoall's stop at 8 s, added to the run's records once it is due."""
        if t >= 8.0 and not any(k["key"] == "background.2.active" and k["t_s"] == 8.0 for k in records):
            records.append({"t_s": 8.0, "key": "background.2.active", "value": "false",
                            "from_event": 8000, "source": "config"})

    def gbps(self, e, t):
        """Entry e's rate at time t: a small wave while on, 0 once switched off."""
        b = self.entries[e]
        if b["off_at"] is not None and t >= b["off_at"]:
            return 0.0
        return b["gbps"] + 0.5 * math.sin(t + e)

    def history_point(self, ti):
        return [self.gbps(e, ti) for e in range(len(self.entries))]

    def state(self, t, steps, interval_s):
        out = []
        for e, b in enumerate(self.entries):
            g = self.gbps(e, t)
            on = b["off_at"] is None or t < b["off_at"]
            sent = sum(self.gbps(e, i * interval_s) for i in range(steps + 1)) * interval_s * 1e9 / 8
            out.append({"entry": e + 1, "pattern": b["pattern"], "ranks": b["ranks"], "ranks_reported": b["ranks"],
                        "ranks_sending": b["ranks"] if on else 0, "active": on, "messages": int(t * 1000),
                        "bytes": int(sent), "rate_bytes_per_s": g * 1e9 / 8, "rate_carried": False, "gbps": g})
        return out
