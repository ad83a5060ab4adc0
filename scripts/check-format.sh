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
bad=()
while IFS= read -r f; do
  [ "$f" = tests/isa/isa_macros.h ] && continue
  clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done < <(git ls-files '*.cc' '*.h' '*.cpp' '*.hpp' '*.cu')
if [ ${#bad[@]} -gt 0 ]; then
  echo "check-format: ${#bad[@]} files differ from .clang-format (clang-format -i to fix):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "check-format: $(git ls-files '*.cc' '*.h' '*.cpp' '*.hpp' '*.cu' | wc -l) files formatted"
