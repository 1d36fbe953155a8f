"""How long a job takes in a plan, and the plan that finishes it soonest.

The memory planner (``inference.planning.policy``) finds, for one micro-batch size, the configuration
that fits the budget: the most layers on the GPU, then the most precise KV type. Which
micro-batch is best depends on the job. With layers in CPU memory, llama.cpp sends their
weights to the GPU once per micro-batch of 32 tokens or more, so a larger micro-batch pays that
cost over more prompt tokens; it also needs a larger compute buffer, which costs layers, and
each layer moved to the CPU slows every generated token. This module predicts both rates and
picks the micro-batch by the job's predicted time:

    time = prompt tokens / prefill rate + generated tokens / decode rate

Prefill, per micro-batch of ``u`` tokens:  CPU-resident weight bytes / host-to-GPU rate
                                            + u x 2 x active parameters / GPU FLOP rate
Decode, per token:                          GPU weight bytes / GPU memory rate
                                            + CPU weight bytes / host memory rate + step overhead

The rates of a machine (``DeviceSpeeds``) were fitted to H200 measurements (random-weight
Qwen2.5-32B Q4_K_M at 8K, docs/data/gpu-offload/layers-offloaded-sweep.jsonl; 8B compression runs): sent weights
crossed at an effective 6.8 GB/s, prompt tokens cost 0.46 ms each for the 32B (1.4e14 FLOP/s
effective). A 12 GB consumer card is predicted on paper from its data sheet with the same
efficiencies (``CONSUMER_12GB``); ``docs/benchmarks.md`` shows both side by side.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass

from inference.errors import PlanError
from inference.planning.gguf_info import GgufInfo
from inference.planning.kv_cache import gpu_layer_ids, weights_split
from inference.planning.memory_model import PlannerOptions
from inference.planning.plan import Plan
from inference.planning.policy import Overrides, plan

QUANTIZED_KV_DECODE_COST = 1.06
"""A q8_0/q4_0 KV cache decodes ~6% slower than f16 (H200, 14B all on the GPU at 32K: 149 tok/s
with f16, 140.5 with q8_0, 141 with q4_0; ../shared/device/README.md)."""
KV_TRADE_MIN_GAIN = 0.10
"""A micro-batch that needs a less precise KV type than 512 does must save this share of the
job's time: KV precision is answer quality, not only speed."""
UBATCH_CHOICES = (512, 1024, 2048)
"""Micro-batch sizes tried for a GPU plan (4,096 needs a compute buffer a 12 GB card rarely has)."""


@dataclass(frozen=True, slots=True)
class DeviceSpeeds:
    """Effective rates of one machine (not data-sheet peaks)."""

    name: str
    gpu_memory_rate: float  # bytes/s read by a decode step from GPU memory
    host_memory_rate: float  # bytes/s read by a decode step from CPU memory (the threads used)
    host_to_gpu_rate: float  # bytes/s of CPU-resident weights sent to the GPU per micro-batch
    gpu_flops: float  # FLOP/s of prompt processing on the GPU
    step_overhead_s: float  # per decode step: kernel launches, sampling, Python
    source: str
    host_flops: float = 2.5e11  # FLOP/s of the CPU-resident layers' matrix products (the threads used)
    # FLOP/s of attention over the CPU-resident layers' KV cache, per sequence of a decode step:
    # fitted to the 32B at 12 GiB on the H200 host, 8K deep (docs/data/gpu-offload/width-vs-layers/): steps
    # of 0.385 s for one sequence (36 GPU layers), 1.11 s for 4 (31), 2.58 s for 8 (27) are
    # predicted 0.45, 1.11 and 2.48 s. 8 threads; a desktop CPU of 8 cores is about the same.
    host_attention_flops: float = 4.0e10


H200 = DeviceSpeeds(
    name="NVIDIA H200",
    gpu_memory_rate=0.7 * 4.8e12,
    host_memory_rate=26e9,
    host_to_gpu_rate=6.8e9,
    gpu_flops=1.4e14,
    step_overhead_s=0.0025,
    source="fitted to H200 measurements (docs/data/gpu-offload/layers-offloaded-sweep.jsonl)",
)

CONSUMER_12GB = DeviceSpeeds(
    name="12 GB consumer card (RTX 4070 class, PCIe 4.0 x16)",
    gpu_memory_rate=0.7 * 504e9,
    host_memory_rate=26e9,  # dual-channel DDR5 with 8 threads: about what the H200 host gave
    # PCIe 4.0 x16 carries ~25 GB/s; the H200 host sent weights at 6.8 GB/s over a PCIe 5.0 x16
    # link (~55 GB/s usable): the same 12% of the link gives 3.1 GB/s.
    host_to_gpu_rate=25e9 * 6.8e9 / 55e9,
    gpu_flops=1.4e14 * 58e12 / 989e12,  # the H200's efficiency on the card's dense FP16 tensor rate
    step_overhead_s=0.0025,
    source="on paper: the card's data sheet at the H200's measured efficiencies",
)


def speeds_for(gpu_name: str | None) -> DeviceSpeeds:
    """The rates to plan with for the GPU named ``gpu_name`` (NVML's name; None: unknown)."""
    if gpu_name and "H200" in gpu_name:
        return H200
    return CONSUMER_12GB


@functools.cache
def local_speeds(device_index: int = 0) -> DeviceSpeeds:
    """The rates for this machine's first NVIDIA GPU, by its NVML name (asked once per process:
    the window re-plans on every status refresh)."""
    try:
        import pynvml

        pynvml.nvmlInit()
        try:
            name = pynvml.nvmlDeviceGetName(pynvml.nvmlDeviceGetHandleByIndex(device_index))
        finally:
            pynvml.nvmlShutdown()
    except Exception:  # no NVML, no driver, no GPU: nothing to look up
        return CONSUMER_12GB
    return speeds_for(name.decode() if isinstance(name, bytes) else str(name))


@dataclass(frozen=True, slots=True)
class Job:
    """The work a plan is for: one sequence's prompt and reply, in tokens."""

    name: str
    prompt_tokens: int
    generated_tokens: int


ANSWER = Job("answer", 3000, 300)
"""A question over the top passages and the super-summary (2-16K prompt tokens, a few hundred out)."""
SUMMARY = Job("summary", 8192, 256)
"""One segment summary (``summarizer.summaries.compress``: ~8K-token segments, 256-token summaries)."""


@dataclass(frozen=True, slots=True)
class Rates:
    prefill_tok_s: float
    decode_tok_s: float

    def seconds(self, job: Job) -> float:
        return job.prompt_tokens / self.prefill_tok_s + job.generated_tokens / self.decode_tok_s


def active_parameters(info: GgufInfo) -> int:
    """Parameters used per token (MoE: the experts' share by experts used)."""
    total = 0
    for tensor in info.tensors:
        n = math.prod(tensor.shape)
        if tensor.is_expert and info.n_expert:
            n = n * max(1, info.n_expert_used) // info.n_expert
        total += n
    return total


def decode_step_seconds(info: GgufInfo, p: Plan, speeds: DeviceSpeeds, width: int = 1, depth: int = 0) -> float:
    """One decode step of ``width`` sequences (one token each), each ``depth`` tokens into its
    cache. Fewer than 32 tokens run the CPU-resident layers on the CPU: their weights are read once
    per step whatever the width, their matrix products grow with it, and so does attention over
    their KV cache, which lives in CPU memory: measured, for the 32B at 8K depth, four sequences
    decode only 1.4x the tokens of one."""
    split = weights_split(info, p.n_gpu_layers, p.n_cpu_moe)
    cpu_bytes = max(0, split.cpu - info.token_embd_bytes)
    weight_bytes = max(1, split.cpu + split.gpu - info.token_embd_bytes)
    cpu_flops = width * 2 * active_parameters(info) * cpu_bytes / weight_bytes
    gpu_s = split.gpu / speeds.gpu_memory_rate * (1.0 if p.type_k == "f16" else QUANTIZED_KV_DECODE_COST)
    cpu_s = max(cpu_bytes / speeds.host_memory_rate, cpu_flops / speeds.host_flops) if cpu_bytes else 0.0
    cpu_layers = info.n_layers - sum(1 for il in gpu_layer_ids(info.n_layers, p.n_gpu_layers)[0] if il < info.n_layers)
    if cpu_layers and depth:
        per_layer = 2 * (info.head_dim_k + info.head_dim_v) * max(info.n_head or (0,)) * depth
        cpu_s += width * cpu_layers * per_layer / speeds.host_attention_flops
    return gpu_s + cpu_s + speeds.step_overhead_s


def predict_rates(info: GgufInfo, p: Plan, speeds: DeviceSpeeds) -> Rates:
    """Predicted prefill and decode tokens/s of plan ``p`` on a GPU of ``speeds``."""
    split = weights_split(info, p.n_gpu_layers, p.n_cpu_moe)
    # The token embeddings stay in CPU memory in every plan, but a token reads one row of them.
    cpu_bytes = max(0, split.cpu - info.token_embd_bytes)
    flops_per_token = 2 * active_parameters(info)
    u = max(1, p.n_ubatch)
    per_ubatch = cpu_bytes / speeds.host_to_gpu_rate + u * flops_per_token / speeds.gpu_flops
    return Rates(prefill_tok_s=u / per_ubatch, decode_tok_s=1 / decode_step_seconds(info, p, speeds))


@dataclass(frozen=True, slots=True)
class JobPlan:
    plan: Plan
    rates: Rates
    seconds: float
    job: Job
    speeds: DeviceSpeeds
    others: tuple[tuple[int, int, float], ...]  # (n_ubatch, GPU layers, predicted seconds) of the rest

    def explain(self) -> str:
        """Why this micro-batch won, in one line."""
        p = self.plan
        text = (
            f"job '{self.job.name}' ({self.job.prompt_tokens:,}-token prompt, {self.job.generated_tokens} out) "
            f"on {self.speeds.name}: micro-batch {p.n_ubatch} with {p.n_gpu_layers} GPU layers predicts "
            f"prefill {self.rates.prefill_tok_s:,.0f} tok/s, decode {self.rates.decode_tok_s:.1f} tok/s, "
            f"{self.seconds:.1f} s"
        )
        if self.others:
            rest = ", ".join(f"{u} ({g} layers) {s:.1f} s" for u, g, s in self.others)
            text += f"; against {rest}"
        return text


def plan_for_job(
    info: GgufInfo,
    budget: int | None,
    want_ctx: int | None = None,
    overrides: Overrides | None = None,
    job: Job = ANSWER,
    speeds: DeviceSpeeds = CONSUMER_12GB,
    options: PlannerOptions | None = None,
    ubatches: tuple[int, ...] = UBATCH_CHOICES,
) -> JobPlan:
    """The memory planner's plan for each micro-batch size, and the one whose predicted time
    for ``job`` is least. Only a plan with layers left in CPU memory is reconsidered: with every
    layer on the GPU a larger micro-batch saves little prefill time, and the memory is worth more
    to the context and to batched summaries (``choose_batch``). A micro-batch that needs a less
    precise KV type than 512 must save ``KV_TRADE_MIN_GAIN`` of the time."""
    overrides = overrides or Overrides()
    options = options or PlannerOptions()
    base = plan(info, budget, want_ctx, overrides, options)
    base_rates = predict_rates(info, base, speeds)
    chosen = JobPlan(base, base_rates, base_rates.seconds(job), job, speeds, ())
    if not budget or base.n_gpu_layers >= info.n_layers + 1 or base.n_gpu_layers == 0:
        return chosen
    precision = {"f16": 2, "q8_0": 1, "q4_0": 0}
    candidates: list[tuple[float, Plan, Rates]] = [(chosen.seconds, base, base_rates)]
    for u in ubatches:
        if u == base.n_ubatch:
            continue
        try:
            p = plan(info, budget, want_ctx, overrides, dataclasses.replace(options, n_batch=u, n_ubatch=u))
        except PlanError:  # this micro-batch does not fit; the others may
            continue
        rates = predict_rates(info, p, speeds)
        seconds = rates.seconds(job)
        if precision[p.type_k] < precision[base.type_k] and seconds > chosen.seconds * (1 - KV_TRADE_MIN_GAIN):
            continue
        candidates.append((seconds, p, rates))
    best_seconds, best, rates = min(candidates, key=lambda c: (round(c[0], 1), c[1].n_ubatch))
    others = tuple((p.n_ubatch, p.n_gpu_layers, s) for s, p, _ in candidates if p is not best)
    chosen = JobPlan(best, rates, best_seconds, job, speeds, others)
    return dataclasses.replace(chosen, plan=dataclasses.replace(best, notes=(*best.notes, chosen.explain())))
