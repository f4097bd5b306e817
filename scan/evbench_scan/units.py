"""Sizes and durations as evbench writes them (512KiB, 1.5MiB, 250ms, 3s, 2min).

The rules follow evbench's own config parser: a bare number is bytes or
seconds; KiB/MiB/GiB are powers of 1024, KB/MB/GB powers of 1000.
"""
import re

_SIZE_UNITS = {
    "": 1, "b": 1,
    "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
    "k": 1000, "kb": 1000, "m": 1000 ** 2, "mb": 1000 ** 2, "g": 1000 ** 3, "gb": 1000 ** 3,
}
_DURATION_UNITS = {"": 1.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "min": 60.0, "h": 3600.0}
_NUMBER = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([A-Za-z]*)\s*$")


def parse_size(value):
    """Bytes from 512, '64KiB', '1.5MiB', '2GB'. Raises ValueError."""
    if isinstance(value, bool):
        raise ValueError("expected a size, got %r" % (value,))
    if isinstance(value, (int, float)):
        return int(value)
    m = _NUMBER.match(str(value))
    if not m or m.group(2).lower() not in _SIZE_UNITS:
        raise ValueError("expected a size like 512KiB, got %r" % (value,))
    return int(round(float(m.group(1)) * _SIZE_UNITS[m.group(2).lower()]))


def parse_duration(value):
    """Seconds from 3, '250ms', '3s', '2min'. Raises ValueError."""
    if isinstance(value, bool):
        raise ValueError("expected a duration, got %r" % (value,))
    if isinstance(value, (int, float)):
        return float(value)
    m = _NUMBER.match(str(value))
    if not m or m.group(2).lower() not in _DURATION_UNITS:
        raise ValueError("expected a duration like 500ms or 3s, got %r" % (value,))
    return float(m.group(1)) * _DURATION_UNITS[m.group(2).lower()]


def is_size_text(value):
    return isinstance(value, str) and bool(_NUMBER.match(value)) and \
        _NUMBER.match(value).group(2).lower() in _SIZE_UNITS and \
        _NUMBER.match(value).group(2) != ""


def is_duration_text(value):
    if not isinstance(value, str):
        return False
    m = _NUMBER.match(value)
    return bool(m) and m.group(2).lower() in ("ms", "us", "min", "h", "s")


def format_size(nbytes):
    """Shortest exact binary form: 524288 -> '512KiB', 1000 -> '1000'."""
    nbytes = int(nbytes)
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= factor and nbytes % factor == 0:
            return "%d%s" % (nbytes // factor, unit)
    return str(nbytes)


def format_duration(seconds):
    if seconds < 1 and abs(seconds * 1000 - round(seconds * 1000)) < 1e-9:
        return "%dms" % round(seconds * 1000)
    return "%gs" % seconds


def format_hms(seconds):
    """Walltime as HH:MM:SS (schedulers' format)."""
    seconds = int(max(0, round(seconds)))
    return "%02d:%02d:%02d" % (seconds // 3600, seconds % 3600 // 60, seconds % 60)
