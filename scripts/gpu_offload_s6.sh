#!/bin/bash
# The offload-speed issue's session-6 GPU runs, one phase per device call (each under 10 minutes,
# run back to back on one warm machine so the CUDA build is reused):
#   bash scripts/gpu_offload_s6.sh w4       # 32B summaries at the planner's width (4 sequences, 31 layers)
#   bash scripts/gpu_offload_s6.sh w8-14b   # 32B at width 8; then 14B at 128K: TTFT against raw
#   bash scripts/gpu_offload_s6.sh floor-8b # 8B at 8K: engine prefill against raw eval() by micro-batch
# Needs carry [".device"]. Results under $OUT. Width 1 was measured in session 5 (docs/data/s5/).
set -uo pipefail
bash .device/build_llama.sh || exit 1
export PYTHONPATH=/tmp/site:$PWD:${PYTHONPATH:-}
nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv,noheader
widths() {  # $1 = width (0: the planner's), $2 = segments
  python3 -c "from scripts.gpu_offload_bench import model_file; model_file('qwen2.5-32b')"
  flag=$([ "$1" = 0 ] && echo "" || echo "--width $1")
  python3 scripts/gpu_compress_bench.py --out "$OUT" --shape qwen2.5-32b --budget 12GiB --segments "$2" \
    --summary-tokens 64 --sequential-segments 0 --super-tokens 16 --no-follow-up $flag --tag "w${1}" \
    --model /tmp/models/qwen2.5-32b.gguf 2>&1 | grep -v "^llama\|^load\|^print_info\|^gguf"
}
case "$1" in
w4) widths 0 4 ;;
w8-14b)
  widths 8 8
  python3 scripts/gpu_offload_bench.py --out "$OUT" ttft --shape qwen2.5-14b --ctx 131072 --prompts 478,3000 \
    --gen-tokens 32 --rounds 2 ;;
floor-8b)
  python3 scripts/gpu_offload_bench.py --out "$OUT" ttft --shape llama-3.1-8b --ctx 9984 --prompts 8000 \
    --ubatches 2048,4096 --gen-tokens 16 --rounds 1 ;;
esac
ls -la "$OUT"
