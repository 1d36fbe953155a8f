#!/bin/bash
# The offload-speed issue's session-5 GPU runs, one phase per device call (each under 10 minutes):
#   bash scripts/gpu_offload_s5.sh summarize-8b   # 1M tokens through `pagewise summarize`, Llama-3.1-8B shape
#   bash scripts/gpu_offload_s5.sh summarize-7b   # the same, Qwen2.5-7B shape
#   bash scripts/gpu_offload_s5.sh widths-32b     # 32B summaries by batch width; then 14B at 128K: TTFT vs raw
# Needs carry [".device", "build/long-library.tgz"] (scripts/make_long_library.py, then
# `tar czf build/long-library.tgz -C HOME library.sqlite`). Results under $OUT.
set -uo pipefail
bash .device/build_llama.sh || exit 1
export PYTHONPATH=/tmp/site:$PWD:${PYTHONPATH:-}
nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv,noheader
case "$1" in
summarize-8b)
  python3 scripts/gpu_summarize_bench.py --out "$OUT" --library build/long-library.tgz --shapes llama-3.1-8b ;;
summarize-7b)
  python3 scripts/gpu_summarize_bench.py --out "$OUT" --library build/long-library.tgz --shapes qwen2.5-7b ;;
widths-32b)
  # Short summaries (64 tokens) of full 8K segments: the decode step's cost by width, and the
  # planner's width against width 1 with its layers (the full 256-token job is predicted from them).
  python3 -c "from scripts.gpu_offload_bench import model_file; model_file('qwen2.5-32b')"
  for spec in "1 1" "0 4" "8 8"; do
    set -- $spec
    flag=$([ "$1" = 0 ] && echo "" || echo "--width $1")
    python3 scripts/gpu_compress_bench.py --out "$OUT" --shape qwen2.5-32b --budget 12GiB --segments "$2" \
      --summary-tokens 64 --sequential-segments 0 --super-tokens 16 --no-follow-up $flag --tag "w${1}" \
      --model /tmp/models/qwen2.5-32b.gguf 2>&1 | grep -v "^llama\|^load\|^print_info\|^gguf"
  done
  python3 scripts/gpu_offload_bench.py --out "$OUT" ttft --shape qwen2.5-14b --ctx 131072 --prompts 478,3000 \
    --gen-tokens 32 --rounds 2 ;;
esac
