"""A one-line progress bar on stderr: points done/total, ETA, last result.

On a terminal the line is redrawn in place; otherwise one line per update
(so logs of batch jobs stay readable).
"""
import sys
import time


def _clock(seconds):
    seconds = int(round(seconds))
    if seconds >= 3600:
        return "%dh%02dm" % (seconds // 3600, seconds % 3600 // 60)
    if seconds >= 60:
        return "%dm%02ds" % (seconds // 60, seconds % 60)
    return "%ds" % seconds


class Progress:
    def __init__(self, total, stream=None, width=24):
        self.total, self.done, self.width = total, 0, width
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.start = time.monotonic()
        self.timed = 0          # points actually run (skipped ones cost no time)
        self.last = ""

    def line(self, current=""):
        frac = self.done / self.total if self.total else 1.0
        filled = int(round(frac * self.width))
        bar = "#" * filled + "." * (self.width - filled)
        elapsed = time.monotonic() - self.start
        remaining = self.total - self.done
        if self.timed and remaining:
            eta = "ETA " + _clock(elapsed / self.timed * remaining)
        elif remaining:
            eta = "ETA ?"
        else:
            eta = "took " + _clock(elapsed)
        parts = ["[%s] %d/%d" % (bar, self.done, self.total), eta]
        if self.last:
            parts.append("last " + self.last)
        if current:
            parts.append(current)
        return "  ".join(parts)

    def show(self, current=""):
        if self.tty:
            self.stream.write("\r\x1b[K" + self.line(current))
        elif not current:   # not a terminal: one line per finished point
            self.stream.write(self.line() + "\n")
        self.stream.flush()

    def advance(self, last, ran=True):
        self.done += 1
        self.timed += 1 if ran else 0
        self.last = last

    def message(self, text):
        """A line of its own above the bar."""
        if self.tty:
            self.stream.write("\r\x1b[K")
        self.stream.write(text + "\n")
        self.stream.flush()

    def finish(self):
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
