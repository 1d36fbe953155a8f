#!/bin/bash
# The offload-speed GPU runs that docs/benchmarks.md cites, one phase per device call (each under
# 10 minutes; run them back to back on one warm machine so the CUDA build is reused):
#   bash lab/bench/gpu_offload_runs.sh summarize-8b  # 1M tokens through `pagewise summarize`, Llama-3.1-8B shape
#   bash lab/bench/gpu_offload_runs.sh summarize-7b  # the same, Qwen2.5-7B shape, with the planner's plan
#   bash lab/bench/gpu_offload_runs.sh widths-32b    # 32B summaries by batch width (1, the planner's, 8);
#                                                    # then 14B at 128K: TTFT against raw
#   bash lab/bench/gpu_offload_runs.sh w4            # 32B summaries at the planner's width alone
#   bash lab/bench/gpu_offload_runs.sh w8-14b        # 32B at width 8; then 14B at 128K: TTFT against raw
#   bash lab/bench/gpu_offload_runs.sh floor-8b      # 8B at 8K: engine prefill against raw eval() by micro-batch
#   bash lab/bench/gpu_offload_runs.sh ttft-14b      # 14B at 128K, short prompt: engine prefill vs raw, 4 rounds
# Needs carry [".device", "build/long-library.tgz"] (python -m lab.bench.long_library, then
# `tar czf build/long-library.tgz -C HOME library.sqlite`; the summarize phases only). Results under $OUT.
set -uo pipefail
case "${1:-}" in -h|--help|"") sed -n '2,13p' "$0" | cut -c3-; exit 0 ;; esac
bash .device/build_llama.sh || exit 1
export PYTHONPATH=/tmp/site:$PWD:${PYTHONPATH:-}
nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv,noheader
widths() {  # $1 = width (0: the planner's), $2 = segments
  # Short summaries (64 tokens) of full 8K segments: the decode step's cost by width, and the
  # planner's width against width 1 with its layers (the full 256-token job is predicted from them).
  python3 -c "from lab.bench.gpu_offload import model_file; model_file('qwen2.5-32b')"
  flag=$([ "$1" = 0 ] && echo "" || echo "--width $1")
  python3 -m lab.bench.gpu_compress --out "$OUT" --shape qwen2.5-32b --budget 12GiB --segments "$2" \
    --summary-tokens 64 --sequential-segments 0 --super-tokens 16 --no-follow-up $flag --tag "w${1}" \
    --model /tmp/models/qwen2.5-32b.gguf 2>&1 | grep -v "^llama\|^load\|^print_info\|^gguf"
}
ttft_14b() {  # $1 = prompt lengths, $2 = rounds
  python3 -m lab.bench.gpu_offload --out "$OUT" ttft --shape qwen2.5-14b --ctx 131072 --prompts "$1" \
    --gen-tokens 32 --rounds "$2"
}
case "${1:-}" in
summarize-8b)
  python3 -m lab.bench.gpu_summarize --out "$OUT" --library build/long-library.tgz --shapes llama-3.1-8b ;;
summarize-7b)
  python3 -c "from lab.bench.gpu_offload import model_file; model_file('qwen2.5-7b')"
  python3 -m app.cli plan --model /tmp/models/qwen2.5-7b.gguf --budget 12GiB --job summary --json > "$OUT/plan-7b.json" 2>&1
  python3 -m lab.bench.gpu_summarize --out "$OUT" --library build/long-library.tgz --shapes qwen2.5-7b ;;
widths-32b)
  widths 1 1; widths 0 4; widths 8 8
  ttft_14b 478,3000 2 ;;
w4) widths 0 4 ;;
w8-14b) widths 8 8; ttft_14b 478,3000 2 ;;
floor-8b)
  python3 -m lab.bench.gpu_offload --out "$OUT" ttft --shape llama-3.1-8b --ctx 9984 --prompts 8000 \
    --ubatches 2048,4096 --gen-tokens 16 --rounds 1 ;;
ttft-14b) ttft_14b 478 4 ;;
*) echo "unknown phase: $1 (see --help)" >&2; exit 2 ;;
esac
ls -la "$OUT"
