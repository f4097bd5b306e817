"""Prints evbench-scan's subcommands, one a line with its options, for the
generated bash completion (src/apps/docgen): read from the argument parser
itself, so the completion follows it.

usage: python3 scan_commands.py SCAN_DIR OUT"""
import argparse
import sys

sys.path.insert(0, sys.argv[1])
from evbench_scan import cli  # noqa: E402

lines = []
for action in cli.parser()._actions:
    if isinstance(action, argparse._SubParsersAction):
        for name, sub in action.choices.items():
            opts = [o for a in sub._actions for o in a.option_strings if o.startswith("--")]
            lines.append(" ".join([name] + opts))
with open(sys.argv[2], "w") as out:
    out.write("\n".join(lines) + "\n")
