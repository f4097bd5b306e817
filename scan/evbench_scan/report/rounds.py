"""What a campaign report says about its rounds (docs/SCANS.md, "Order and
rounds"): the answer's sentence on an adaptive campaign (`repeats: auto`)
and the order line of the report's head, both read from campaign.json.
"""


def sentences(meta):
    """What the answer says about an adaptive campaign's rounds."""
    rounds = meta.get("rounds") or {}
    if not rounds.get("auto"):
        return []
    return ["repeats: auto ran %d round%s (min %d, max %d): %s." % (
        rounds["run"], "" if rounds["run"] == 1 else "s", rounds["min"], rounds["max"], rounds["why"])]


def order_line(meta):
    """'Order: interleaved rounds, each shuffled (seed 1).' for the report's head, or ''."""
    order = meta.get("order") or {}
    if order.get("mode") == "interleaved":
        return "Order: interleaved rounds (every configuration once per round, each round shuffled with " \
               "seed %s)." % order.get("seed")
    if order.get("mode") == "sequential":
        return "Order: sequential (the repeats of a configuration back to back)."
    return ""
