#!/usr/bin/env python3
"""Writes a compile database with one entry per source file.

A unity build (EVBENCH_UNITY_BUILD, the default; cmake/EvbenchUnity.cmake)
compiles several sources as one translation unit, so CMake's
compile_commands.json names the generated batches (BUILD/unity/T_N.cpp,
which include sources by their path under src/), not the sources clang-tidy
checks. This expands every batch into one entry per source it includes, with
the batch's command and the source in its place; other entries are kept as
they are.

    per_source_db.py BUILD/compile_commands.json OUTDIR [SRC_DIR]

SRC_DIR (default: ./src) is what the batches' paths are relative to. Writes
OUTDIR/compile_commands.json and prints the sources, one per line.
"""
import json
import os
import re
import sys

INCLUDE = re.compile(r'^#include "(.+)"\s*$')


MARK = "// Generated (cmake/EvbenchUnity.cmake)"


def is_batch(path):
    if not path.endswith(".cpp") or "/unity/" not in path:
        return False
    with open(path, encoding="utf-8") as f:
        return f.readline().startswith(MARK)


def sources_of(batch, src_dir):
    with open(batch, encoding="utf-8") as f:
        return [os.path.join(src_dir, m.group(1)) for m in map(INCLUDE.match, f) if m]


def expand(entries, src_dir):
    out = []
    for e in entries:
        path = os.path.normpath(os.path.join(e["directory"], e["file"]))
        if not is_batch(path):
            out.append(dict(e, file=path))
            continue
        for src in sources_of(path, src_dir):
            entry = dict(e, file=src)
            if "command" in entry:
                entry["command"] = entry["command"].replace(e["file"], src)
            if "arguments" in entry:
                entry["arguments"] = [src if a == e["file"] else a for a in entry["arguments"]]
            out.append(entry)
    return out


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: per_source_db.py BUILD/compile_commands.json OUTDIR [SRC_DIR]")
    src_dir = os.path.abspath(sys.argv[3] if len(sys.argv) == 4 else "src")
    with open(sys.argv[1], encoding="utf-8") as f:
        entries = expand(json.load(f), src_dir)
    os.makedirs(sys.argv[2], exist_ok=True)
    with open(os.path.join(sys.argv[2], "compile_commands.json"), "w", encoding="utf-8") as f:
        json.dump(entries, f, indent=1)
    for e in entries:
        print(e["file"])


if __name__ == "__main__":
    main()
