#!/usr/bin/env python3
"""Writes a compile database with one entry per source file.

A unity build (EVBENCH_UNITY_BUILD, the default) compiles several sources as
one translation unit, so CMake's compile_commands.json names the generated
unity files (.../Unity/unity_N_cxx.cxx), not the sources clang-tidy checks.
This expands every unity entry into one entry per source it includes, with
the unity file's command and the source in its place; other entries are kept
as they are.

    per_source_db.py BUILD/compile_commands.json OUTDIR

writes OUTDIR/compile_commands.json and prints the sources, one per line.
"""
import json
import os
import re
import sys

INCLUDE = re.compile(r'^#include "(.+)"\s*$')


def sources_of(unity_file):
    with open(unity_file, encoding="utf-8") as f:
        return [m.group(1) for m in map(INCLUDE.match, f) if m]


def expand(entries):
    out = []
    for e in entries:
        path = os.path.normpath(os.path.join(e["directory"], e["file"]))
        if "/Unity/unity_" not in path:
            out.append(dict(e, file=path))
            continue
        for src in sources_of(path):
            entry = dict(e, file=src)
            if "command" in entry:
                entry["command"] = entry["command"].replace(e["file"], src)
            if "arguments" in entry:
                entry["arguments"] = [src if a == e["file"] else a for a in entry["arguments"]]
            out.append(entry)
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: per_source_db.py BUILD/compile_commands.json OUTDIR")
    with open(sys.argv[1], encoding="utf-8") as f:
        entries = expand(json.load(f))
    os.makedirs(sys.argv[2], exist_ok=True)
    with open(os.path.join(sys.argv[2], "compile_commands.json"), "w", encoding="utf-8") as f:
        json.dump(entries, f, indent=1)
    for e in entries:
        print(e["file"])


if __name__ == "__main__":
    main()
