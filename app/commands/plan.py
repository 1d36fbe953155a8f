"""``pagewise plan``: how a model would be loaded into the GPU memory budget."""

from __future__ import annotations

import argparse
from typing import Any

from app.services.output import add_json_flag, emit_json

KV_CHOICES = ("auto", "f16", "q8_0", "q4_0")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "plan",
        help="show how a model would be loaded: GPU layers, KV cache type, context, predicted VRAM",
    )
    parser.add_argument("--model", required=True, help="path of a .gguf model file")
    parser.add_argument(
        "--budget",
        help="GPU memory budget, e.g. 12GiB or 900MiB; 0 for CPU only "
        "(default: the GPU's free memory minus a reserve; CPU only without an NVIDIA GPU)",
    )
    parser.add_argument(
        "--ctx", type=int, help="context length wanted, in tokens (default 16384, capped at the model's)"
    )
    parser.add_argument("--kv", choices=KV_CHOICES, default="auto", help="KV cache type (default: auto)")
    parser.add_argument("--gpu-layers", type=int, help="layers on the GPU, counting the output layer (default: auto)")
    parser.add_argument("--no-flash-attn", action="store_true", help="plan without flash attention (f16 KV only)")
    parser.add_argument("--seqs", type=int, help="parallel sequences sharing the context (default 1)")
    parser.add_argument(
        "--no-cpu-moe",
        action="store_true",
        help="MoE models: offload whole layers instead of keeping some expert tensors in CPU memory",
    )
    parser.add_argument(
        "--job",
        choices=("answer", "summary"),
        default="answer",
        help="the work to plan for: answers (3K-token prompts) or segment summaries (8K); "
        "with layers in CPU memory the micro-batch is chosen by its predicted time",
    )
    parser.add_argument(
        "--probe",
        action="store_true",
        help="ask llama.cpp for its exact compute buffer sizes (a dry run in a child process; needs a GPU build)",
    )
    add_json_flag(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from inference.errors import PlanError
    from inference.planning.gguf_info import read_gguf_info
    from inference.planning.gpu_budget import (
        CPU_BUILD,
        default_budget,
        gpu_unavailable_notice,
        llama_gpu_build,
        parse_budget,
    )
    from inference.planning.memory_model import PlannerOptions
    from inference.planning.plan import summary_line
    from inference.planning.policy import Overrides

    info = read_gguf_info(args.model)
    extra_notes: list[str] = []
    if args.budget is not None:
        budget: int | None = parse_budget(args.budget)
        budget_source = "given"
    else:
        budget, note = default_budget()
        budget_source = "nvml" if budget is not None else ("cpu-build" if note == CPU_BUILD else "none")
        if note == CPU_BUILD:
            extra_notes.append(note)
    if args.gpu_layers is not None and args.gpu_layers < 0:
        raise PlanError("--gpu-layers must be 0 or more (use the default to let the planner choose).")
    if args.seqs is not None and args.seqs < 1:
        raise PlanError("--seqs must be at least 1.")
    overrides = Overrides(
        n_gpu_layers=args.gpu_layers,
        kv_type=None if args.kv == "auto" else args.kv,
        flash_attn=False if args.no_flash_attn else None,
        n_ctx=None,
        n_seq_max=args.seqs,
    )
    options = PlannerOptions(cpu_moe=not args.no_cpu_moe)
    probed = False
    if args.probe and budget:
        if llama_gpu_build():
            from inference.planning.calibration import llama_cpp_probe, plan_with_probe

            try:
                chosen = plan_with_probe(info, budget, args.ctx, llama_cpp_probe(str(info.path)), overrides, options)
                probed = True
            except RuntimeError as exc:
                extra_notes.append(f"the dry run failed ({exc}); the arithmetic alone was used")
        else:
            extra_notes.append("--probe needs llama.cpp built with GPU support; the arithmetic alone was used")
    from inference.planning.job_time import ANSWER, SUMMARY, local_speeds, plan_for_job, predict_rates
    from summarizer.llm.local_model import plan_model, summary_context_tokens

    job = SUMMARY if args.job == "summary" else ANSWER
    speeds = local_speeds()
    parallel = chosen.n_seq_max if probed else 1
    if not probed and args.seqs:  # sequences sharing the main context, as asked: no batch context
        chosen = plan_for_job(info, budget, args.ctx, overrides, job, speeds, options).plan
    elif not probed:
        # What `ask` (and the window) or `summarize` would load: the same function plans them.
        ctx = args.ctx or (summary_context_tokens() if job is SUMMARY else None)
        batched = plan_model(info, budget, ctx, job=job, overrides=overrides, options=options)
        chosen, parallel = batched.plan, batched.parallel
    rates = predict_rates(info, chosen, speeds) if chosen.n_gpu_layers else None
    if probed:
        extra_notes.append("compute buffers from llama.cpp's dry run")
    notes = list(chosen.notes) + extra_notes
    gpu_notice = gpu_unavailable_notice()
    if args.json:
        data: dict[str, Any] = chosen.to_json()
        data["notes"] = notes
        data["summary"] = summary_line(chosen)
        data["budget_source"] = budget_source
        data["probed"] = probed
        data["parallel"] = parallel
        data["job"] = {"name": job.name, "prompt_tokens": job.prompt_tokens, "generated_tokens": job.generated_tokens}
        data["predicted_prefill_tok_s"] = round(rates.prefill_tok_s, 1) if rates else None
        data["predicted_decode_tok_s"] = round(rates.decode_tok_s, 2) if rates else None
        data["speeds"] = speeds.name if rates else None
        data["model"] = info.to_json()
        data["gpu_notice"] = gpu_notice
        emit_json(data)
        return 0
    print(summary_line(chosen))
    if gpu_notice:
        print(f"  GPU unavailable: {gpu_notice}; models run on the CPU")
    p = chosen.predicted
    if chosen.n_gpu_layers:
        print(
            f"  predicted GPU memory: weights {p.weights_gpu / 2**30:.2f} GiB + KV {p.kv_cache / 2**30:.2f} GiB"
            f" + compute {p.compute_buffers / 2**20:.0f} MiB + CUDA {p.cuda_overhead / 2**20:.0f} MiB"
            f" = {p.total / 2**30:.2f} GiB"
            + (f" of {chosen.budget_bytes / 2**30:.2f} GiB" if chosen.budget_bytes else "")
        )
    print(
        f"  n_ctx {chosen.n_ctx}, n_batch {chosen.n_batch}, n_ubatch {chosen.n_ubatch}, "
        f"KV {chosen.type_k}/{chosen.type_v}, flash attention {'on' if chosen.flash_attn else 'off'}"
    )
    if rates:
        print(
            f"  predicted on {speeds.name}: prefill {rates.prefill_tok_s:,.0f} tok/s, "
            f"decode {rates.decode_tok_s:.1f} tok/s; job '{job.name}' "
            f"({job.prompt_tokens:,} tokens in, {job.generated_tokens} out) {rates.seconds(job):.1f} s"
        )
    if parallel > 1:
        print(f"  summaries: {parallel} segments at once ({chosen.batch_kv} KV, {chosen.batch_n_ctx:,} tokens each)")
    for note in notes:
        print(f"  note: {note}")
    return 0
