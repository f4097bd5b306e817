"""The scan file's `repeats:` and `order:` keys (docs/SCANS.md, "Order and
rounds"), read by grammar.py: how many rounds (a count, or `auto` with its
min and max) and in which order they run (interleaved, the default, each
round shuffled with a seed; or sequential). run/rounds.py plans the rounds
and decides when `repeats: auto` stops.
"""

AUTO_MIN, AUTO_MAX = 3, 10          # repeats: auto
AUTO_KEYS = ("auto", "min", "max")
ORDERS = ("interleaved", "sequential")
ORDER_KEYS = ("mode", "seed")
DEFAULT_SEED = 1


def parse_repeats(path, loader, node, error):
    """`repeats:` -> (count of rounds expanded, {"min", "max"} or None).
    `error(node, message)` builds the ScanError naming the line."""
    value = loader.construct_object(node, deep=True)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return value, None
    if value == "auto":
        return AUTO_MAX, {"min": AUTO_MIN, "max": AUTO_MAX}
    if not isinstance(value, dict):
        raise error(node, "must be a positive integer, auto or {auto: true, min: M, max: N}, got %r" % (value,))
    for key in value:
        if key not in AUTO_KEYS:
            raise error(node, "unknown key '%s' (known: %s)" % (key, ", ".join(AUTO_KEYS)))
    if value.get("auto", True) is not True:
        raise error(node, "auto must be true (for a fixed count write repeats: N)")
    lo, hi = value.get("min", AUTO_MIN), value.get("max", max(AUTO_MAX, value.get("min", AUTO_MIN)))
    for name, n in (("min", lo), ("max", hi)):
        if not isinstance(n, int) or isinstance(n, bool):
            raise error(node, "%s must be a whole number of rounds, got %r" % (name, n))
    if lo < 2:
        raise error(node, "min must be at least 2 (a single run measures no spread), got %d" % lo)
    if hi < lo:
        raise error(node, "max (%d) must be at least min (%d)" % (hi, lo))
    if hi > 100:
        raise error(node, "max must be at most 100 rounds, got %d" % hi)
    return hi, {"min": lo, "max": hi}


def parse_order(path, loader, node, error):
    """`order: interleaved | sequential | {mode: M, seed: S}` -> (mode, seed)."""
    value = loader.construct_object(node, deep=True)
    if isinstance(value, str):
        value = {"mode": value}
    if not isinstance(value, dict):
        raise error(node, "expected interleaved, sequential or {mode: interleaved, seed: N}")
    for key in value:
        if key not in ORDER_KEYS:
            raise error(node, "unknown key '%s' (known: %s)" % (key, ", ".join(ORDER_KEYS)))
    mode, seed = value.get("mode", "interleaved"), value.get("seed", DEFAULT_SEED)
    if mode not in ORDERS:
        raise error(node, "must be one of %s, got %r" % (", ".join(ORDERS), mode))
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise error(node, "seed must be an integer, got %r" % (seed,))
    return mode, seed


def check(scan, node, error):
    """repeats: auto decides between rounds, so it needs them."""
    if scan.repeats_auto and scan.order == "sequential":
        raise error(node, "repeats: auto runs rounds and decides after each: it needs order: interleaved")
