#!/usr/bin/env bash
# The picture of each GPU policy's memory over time on one trace (docs/images/gpu-policies-resnet50.png, in
# docs/gpu-policies.md): resnet50.csv at 1.0x of its max load, 64 KiB pages, all nine policies, drawn by
# scripts/plot_gpu_policies.py with Debian's matplotlib. One JSON line: the image and its size. Usage: run.sh BUILD_DIR
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
exec /usr/bin/python3 "$root/scripts/plot_gpu_policies.py" --build "$1"
