#!/bin/bash
# Session 7's GPU runs, one phase per device call (each under 10 minutes, back to back on one warm
# machine so the CUDA build is reused):
#   bash scripts/gpu_offload_s7.sh summarize-7b  # 1M tokens through `pagewise summarize`, Qwen2.5-7B shape:
#                                                # the batch context now takes 4,096-token micro-batches
#   bash scripts/gpu_offload_s7.sh ttft-14b      # 14B at 128K, short prompt: engine prefill vs raw, 4 rounds
# Needs carry [".device", "build/long-library.tgz"] (see gpu_offload_s5.sh). Results under $OUT.
set -uo pipefail
bash .device/build_llama.sh || exit 1
export PYTHONPATH=/tmp/site:$PWD:${PYTHONPATH:-}
nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv,noheader
case "$1" in
summarize-7b)
  python3 -c "from scripts.gpu_offload_bench import model_file; model_file('qwen2.5-7b')"
  python3 -m app.cli plan --model /tmp/models/qwen2.5-7b.gguf --budget 12GiB --job summary --json > "$OUT/plan-7b.json" 2>&1
  python3 scripts/gpu_summarize_bench.py --out "$OUT" --library build/long-library.tgz --shapes qwen2.5-7b ;;
ttft-14b)
  python3 scripts/gpu_offload_bench.py --out "$OUT" ttft --shape qwen2.5-14b --ctx 131072 --prompts 478 \
    --gen-tokens 32 --rounds 4 ;;
esac
ls -la "$OUT"
