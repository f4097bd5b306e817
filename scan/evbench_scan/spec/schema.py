"""What evbench accepts, as the binary itself describes it (`evbench config --json`).

The scan tool keeps no key list or unit table of its own. One call of
`evbench config --json` gives every key (type, default in canonical units —
bytes, seconds —, range, choices), each driver's options, and the size and
duration unit words with their factors; the same table validates configs and
generates docs/CONFIG.md, so nothing here can drift from the binary.

A campaign keeps a copy (DIR/evbench-config.json) so reports, which need no
binary, still know which keys are sizes.
"""
import fractions
import json
import os
import re
import subprocess

from .expand import get_dotted

FILE_NAME = "evbench-config.json"

_NUMBER = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([A-Za-z]*)\s*$")


class EvbenchMissing(RuntimeError):
    """No usable evbench binary: the message says which path and how to point at another."""


class Schema:
    """The key table and unit words of one evbench binary."""

    def __init__(self, doc, source):
        self.doc, self.source = doc, source
        try:
            self.keys = dict((k["key"], k) for k in doc["keys"])
            self.driver_options = dict((d, dict((k["key"], k) for k in keys))
                                       for d, keys in doc["driver_options"].items())
            self.size_units = dict(doc["units"]["size"])
            self.duration_units = dict(doc["units"]["duration"])
        except (KeyError, TypeError) as err:
            raise EvbenchMissing("%s: not an `evbench config --json` document (no %s)" % (source, err))

    def key(self, dotted):
        """The spec of a key (driver_options.X: from whichever driver declares X), or None."""
        if dotted in self.keys:
            return self.keys[dotted]
        for options in self.driver_options.values():
            if dotted in options:
                return options[dotted]
        return None

    def type_of(self, dotted):
        spec = self.key(dotted)
        return spec["type"] if spec else None

    def setting(self, config, dotted):
        """The value `config` sets for `dotted`, else the binary's default."""
        value = get_dotted(config, dotted)
        if value is None and dotted in self.keys:
            return self.keys[dotted]["default"]
        return value

    def is_size_text(self, value):
        m = isinstance(value, str) and _NUMBER.match(value)
        return bool(m) and m.group(2) in self.size_units and m.group(2) != ""

    def is_duration_text(self, value):
        m = isinstance(value, str) and _NUMBER.match(value)
        return bool(m) and m.group(2) in self.duration_units and m.group(2) != ""

    def parse_size(self, value):
        """Bytes from 512, '64KiB', '1.5MiB', '2GB' (the binary's unit words). Raises ValueError
        with evbench's own reason: 64K is ambiguous (KiB or KB?), 12 parsecs unknown."""
        number, word = self._split(value, "size", "512KiB")
        if word and word not in self.size_units:
            text = str(value).strip()
            # A prefix alone that starts both a binary and a decimal unit word.
            prefix = "K" if word == "k" else word
            if prefix + "iB" in self.size_units and prefix + "B" in self.size_units:
                raise ValueError("ambiguous size unit '%s' in '%s': write %siB (binary) or %sB (decimal)" % (
                    word, text, prefix, prefix))
            raise ValueError("unknown size unit '%s' in '%s' (use %s)" % (
                word, text, ", ".join(self.size_units)))
        nbytes = fractions.Fraction(number) * (self.size_units[word] if word else 1)
        if nbytes.denominator != 1:
            raise ValueError("size %r is not a whole number of bytes" % (value,))
        return int(nbytes)

    def parse_duration(self, value):
        """Seconds from 3, '250ms', '2min' (the binary's unit words). Raises ValueError."""
        number, word = self._split(value, "duration", "500ms")
        if word and word not in self.duration_units:
            raise ValueError("unknown duration unit '%s' in %r (evbench accepts %s)" % (
                word, value, ", ".join(self.duration_units)))
        return float(number) * (self.duration_units[word] if word else 1.0)

    @staticmethod
    def _split(value, kind, example):
        if isinstance(value, bool):
            raise ValueError("expected a %s, got %r" % (kind, value))
        if isinstance(value, (int, float)):
            if value < 0:
                raise ValueError("a %s must not be negative, got %r" % (kind, value))
            return repr(value), ""
        m = _NUMBER.match(str(value))
        if not m:
            raise ValueError("expected a %s like %s, got %r" % (kind, example, value))
        return m.group(1), m.group(2)

    def format_size(self, nbytes):
        """The largest unit word that divides exactly: 524288 -> '512KiB', 1536 -> '1536'."""
        nbytes = int(nbytes)
        best = None
        for word, factor in self.size_units.items():
            if factor > 1 and nbytes >= factor and nbytes % factor == 0 and (best is None or factor > best[1]):
                best = (word, factor)
        return "%d%s" % (nbytes // best[1], best[0]) if best else str(nbytes)

    def format_duration(self, seconds):
        """In the largest unit not above it: 0.5 -> '500ms', 1.5 -> '1.5s', 120 -> '2min'."""
        base = [w for w, f in self.duration_units.items() if f == 1][0]
        if seconds <= 0:
            return "0%s" % base
        fits = [(f, w) for w, f in self.duration_units.items() if f <= seconds * (1 + 1e-12)]
        factor, word = max(fits) if fits else min((f, w) for w, f in self.duration_units.items())
        return "%.12g%s" % (seconds / factor, word)


def load(evbench):
    """The Schema of the binary at `evbench`; EvbenchMissing when it cannot say."""
    hint = "build it (cmake --build build) or point at one with --evbench PATH or EVBENCH=PATH"
    try:
        proc = subprocess.run([evbench, "config", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, universal_newlines=True, timeout=60)
    except OSError as err:
        raise EvbenchMissing("cannot run evbench binary %s: %s; %s" % (evbench, err.strerror or err, hint))
    except subprocess.TimeoutExpired:
        raise EvbenchMissing("%s config --json did not answer within 60 s" % evbench)
    if proc.returncode != 0:
        said = (proc.stderr or proc.stdout).strip()[-300:]
        raise EvbenchMissing("%s config --json failed (exit %d)%s; is it an evbench older than this scan tool? %s" % (
            evbench, proc.returncode, ": " + said if said else "", hint))
    try:
        doc = json.loads(proc.stdout)
    except ValueError as err:
        raise EvbenchMissing("%s config --json printed no JSON (%s)" % (evbench, err))
    return Schema(doc, evbench)


def save(schema, directory):
    path = os.path.join(directory, FILE_NAME)
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        json.dump(schema.doc, f, indent=1)
    os.replace(tmp, path)


def read(directory):
    """The copy saved in a campaign directory, or None (older campaigns)."""
    try:
        with open(os.path.join(directory, FILE_NAME)) as f:
            return Schema(json.load(f), os.path.join(directory, FILE_NAME))
    except (OSError, ValueError, EvbenchMissing):
        return None
