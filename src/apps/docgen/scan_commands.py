"""Prints evbench-scan's subcommands, one a line with its options, for the
generated bash completion (src/apps/docgen): read from the argument parser
itself, so the completion follows it. Without the package's own dependencies
(PyYAML) the list is empty and the build says so: the C++ build does not need
them.

usage: python3 scan_commands.py SCAN_DIR OUT"""
import argparse
import sys

sys.path.insert(0, sys.argv[1])
lines = []
try:
    from evbench_scan import cli
except ImportError as err:
    sys.stderr.write("warning: evbench-scan's completion lists no subcommands: cannot import "
                     "evbench_scan (%s)\n" % err)
else:
    for action in cli.parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                opts = [o for a in sub._actions for o in a.option_strings if o.startswith("--")]
                lines.append(" ".join([name] + opts))
with open(sys.argv[2], "w") as out:
    out.write("".join(line + "\n" for line in lines))
