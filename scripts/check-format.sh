#!/usr/bin/env bash
# Checks that every tracked C/C++ file matches the project's .clang-format (CTest: format.clang_format).
# Fix with: clang-format -i FILE. Left out: tests/isa/isa_macros.h (assembler macros for .S files, which
# clang-format would join into C).
# Exit status: 0 all formatted; 1 some are not (listed); 77 no clang-format or no git (skipped).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
command -v clang-format >/dev/null || { echo "check-format: skipped (no clang-format)"; exit 77; }
git rev-parse --git-dir >/dev/null 2>&1 || { echo "check-format: skipped (not a git checkout)"; exit 77; }
# One clang-format process for every file (one per file took most of this check's time); the files that
# differ are the ones its diagnostics name.
files=()
while IFS= read -r f; do
  [ "$f" = tests/isa/isa_macros.h ] && continue
  files+=("$f")
done < <(git ls-files '*.cc' '*.h' '*.cpp' '*.hpp' '*.cu')
if ! out=$(clang-format --dry-run -Werror "${files[@]}" 2>&1); then
  bad=$(printf '%s\n' "$out" | sed -n 's/^\(.*\):[0-9][0-9]*:[0-9][0-9]*: error: code should be clang-formatted.*/\1/p' | sort -u)
  if [ -z "$bad" ]; then
    echo "check-format: clang-format failed:"
    printf '%s\n' "$out" | head -20
    exit 1
  fi
  echo "check-format: $(printf '%s\n' "$bad" | wc -l) files differ from .clang-format (clang-format -i to fix):"
  printf '  %s\n' $bad
  exit 1
fi
echo "check-format: $(git ls-files '*.cc' '*.h' '*.cpp' '*.hpp' '*.cu' | wc -l) files formatted"
