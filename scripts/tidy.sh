#!/bin/bash
# clang-tidy (.clang-tidy: the checks the project already follows) on the C++
# sources changed since BASE, against build/compile_commands.json (run after
# the build). clang-tidy compiles each file again, so CI (scripts/test.sh)
# checks what changed: the files a commit range touched, not the rest.
#
#   scripts/tidy.sh [BASE]   files changed between BASE and HEAD (and in the
#                            work tree); BASE defaults to $EVBENCH_TIDY_BASE,
#                            else HEAD~20 (the last 20 commits); a clone too
#                            shallow for it checks the files of HEAD's commit
#   scripts/tidy.sh --all    every source file in compile_commands.json
#
# Exits 1 when clang-tidy reports anything (WarningsAsErrors: '*'), 2 when it
# cannot run (no clang-tidy, no build).
set -euo pipefail
cd "$(dirname "$0")/.."
db=build/compile_commands.json
command -v clang-tidy >/dev/null || { echo "tidy.sh: needs clang-tidy (scripts/install-deps.sh --test)" >&2; exit 2; }
[[ -f $db ]] || { echo "tidy.sh: $db missing: build first (scripts/build.sh)" >&2; exit 2; }

# The product's sources the build compiles (src/; headers are checked
# through them; the tests are left out: GoogleTest's macros copy on purpose),
# from a compile database with one entry per source (a unity build names its
# generated unity files instead: scripts/per_source_db.py expands them).
dbdir=$(mktemp -d)
trap 'rm -rf "$dbdir"' EXIT
mapfile -t known < <(/usr/bin/python3 scripts/per_source_db.py "$db" "$dbdir" |
  sed -n "s|^$PWD/\(src/.*\)|\1|p" | sort -u)

if [[ ${1:-} == --all ]]; then
  files=("${known[@]}")
  what="every source file"
else
  base=${1:-${EVBENCH_TIDY_BASE:-HEAD~20}}
  if git rev-parse -q --verify "$base^{commit}" >/dev/null; then
    what="the sources changed since $base"
  else
    base=$(git rev-parse -q --verify 'HEAD^{commit}')
    base=$(git rev-parse -q --verify "$base^" || git hash-object -t tree /dev/null)
    what="the sources of HEAD's commit (the clone is too shallow for ${1:-${EVBENCH_TIDY_BASE:-HEAD~20}})"
  fi
  mapfile -t changed < <({ git diff --name-only "$base" -- '*.cpp' '*.hpp'; git ls-files --others --exclude-standard -- '*.cpp'; } | sort -u)
  # A changed header is checked through the sources that include it by name.
  files=()
  for f in "${changed[@]}"; do
    [[ -f $f ]] || continue
    if [[ $f == *.hpp ]]; then
      mapfile -t users < <(grep -rlF "#include \"${f#src/}\"" src 2>/dev/null | head -3 || true)
      files+=("${users[@]}")
    else
      files+=("$f")
    fi
  done
  mapfile -t files < <(printf '%s\n' "${files[@]}" | sort -u | comm -12 - <(printf '%s\n' "${known[@]}"))
fi

if [[ ${#files[@]} -eq 0 || -z ${files[0]} ]]; then
  echo "tidy.sh: $what: none built here, nothing to check"
  exit 0
fi
echo "tidy.sh: clang-tidy on $what: ${#files[@]} file(s)"
printf '%s\n' "${files[@]}" | xargs -P "$(nproc)" -n 4 clang-tidy -p "$dbdir" --quiet 2>/dev/null
echo "tidy.sh: clean"
