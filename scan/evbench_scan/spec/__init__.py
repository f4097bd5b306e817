"""Scan files: reading one (grammar, its shapes, its sections), the units and
keys evbench accepts (schema), simulated points (simspec), the `repeats:` and
`order:` keys (rounds) and expanding the axes into checked points (expand).
Imports nothing from the rest of the package."""
