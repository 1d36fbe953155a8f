"""Model options shared by ``summarize`` and ``ask``: which model, context, threads, segments."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from inference.engines.engine import Engine
    from inference.planning.plan import Plan
    from inference.progress import ProgressCallback
    from summarizer.library.storage.store import Library
    from summarizer.summaries.tree import SummaryParams


def add_model_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", metavar="PATH", help="GGUF model file (default: the configured model)")
    parser.add_argument(
        "--remote",
        metavar="URL",
        help="an OpenAI-compatible server (llama.cpp server, vLLM, Ollama) instead of a local model "
        "(default: the remote_url setting, unless --model is given)",
    )
    parser.add_argument(
        "--ctx",
        type=int,
        help="context length in tokens (default: the planner's choice; for summarize, a segment with its "
        "summary and prompts: 9,984 tokens, leaving more memory for summarizing segments in parallel)",
    )
    parser.add_argument("--threads", type=int, help="CPU threads (default: half the logical CPUs)")
    parser.add_argument("--budget", help="GPU memory budget, e.g. 12GiB (default: free VRAM minus a reserve)")
    parser.add_argument(
        "--segment-tokens", type=int, help="segment size in model tokens (default: 8192, or what the context allows)"
    )


def default_threads() -> int:
    cpus = os.cpu_count() or 2
    return max(1, cpus // 2)


@dataclass
class OpenModel:
    """A loaded model for a command, local or remote."""

    engine: Engine
    sha256: str
    parallel: int
    plan: Plan | None

    @property
    def n_ctx(self) -> int:
        return self.plan.n_ctx if self.plan is not None else self.engine.n_ctx

    def close(self) -> None:
        self.engine.close()

    def __enter__(self) -> OpenModel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def remote_url(args: argparse.Namespace) -> str:
    """``--remote``, else (without ``--model``) the remote_url setting or $PAGEWISE_REMOTE_URL;
    "" for a local model. The window decides the same way: a configured server wins."""
    if getattr(args, "remote", None):
        return str(args.remote)
    if getattr(args, "model", None):
        return ""
    from app.services.settings import Settings

    return str(Settings.load().effective("remote_url") or "")


def open_remote(url: str, library: Library, progress: ProgressCallback) -> OpenModel:
    """Connect to the server, sending the API key of ``app.services.api_key`` ($PAGEWISE_API_KEY or the
    keyring's; never a flag, which would sit in the shell's history)."""
    from app.services.api_key import api_key
    from app.services.settings import Settings
    from inference.engines.remote import RemoteEngine
    from inference.engines.remote_http import cleartext_warning
    from summarizer.llm.model_identity import engine_identity

    if warning := cleartext_warning(url):  # said before anything is sent
        sys.stderr.write(f"pagewise: warning: {warning}\n")
    engine = RemoteEngine(url, api_key=api_key(url), max_parallel=int(Settings.load().effective("remote_parallel")))
    try:
        engine.load(None, progress)
        return OpenModel(engine, engine_identity(library, engine), engine.parallel, None)
    except BaseException:
        engine.close()
        raise


def model_path(args: argparse.Namespace) -> Path:
    from app.services.settings import configured_model

    return Path(args.model).expanduser() if args.model else configured_model()


def _context(args: argparse.Namespace, *, summaries_only: bool) -> int | None:
    """``--ctx``, or for a command that only summarizes a context sized for it; None: the
    planner's default (answers may hold a whole document)."""
    if args.ctx:
        return int(args.ctx)
    if not summaries_only:
        return None
    from summarizer.llm.local_model import summary_context_tokens

    return summary_context_tokens(args.segment_tokens)


def planned_model(
    args: argparse.Namespace,
    library: Library,
    *,
    batch: bool,
    summaries_only: bool = False,
    progress: ProgressCallback | None = None,
) -> tuple[Plan, int, str]:
    """(plan, parallel sequences, model sha256) without loading the model. ``batch``: leave room
    for summarizing several segments at once; ``summaries_only``: the command only summarizes."""
    from inference.planning.gpu_budget import usable_budget
    from inference.planning.job_time import ANSWER, SUMMARY
    from summarizer.llm.local_model import plan_local_model
    from summarizer.llm.model_identity import model_sha256

    path = model_path(args)
    plan, parallel = plan_local_model(
        path,
        n_ctx=_context(args, summaries_only=summaries_only),
        n_threads=args.threads or default_threads(),
        budget=usable_budget(args.budget)[0] if args.budget else None,
        max_parallel=None if batch else 1,
        job=SUMMARY if summaries_only else ANSWER,
    )
    return plan, parallel, model_sha256(library, path, progress) if progress else model_sha256(library, path)


def open_model(
    args: argparse.Namespace,
    library: Library,
    progress: ProgressCallback,
    *,
    batch: bool,
    summaries_only: bool = False,
) -> OpenModel:
    """Connect to the server (``remote_url``), or plan and load the model named by ``--model``
    (or configured) in a worker process (``batch`` and ``summaries_only`` as for ``planned_model``)."""
    from inference.planning.gpu_budget import usable_budget
    from inference.planning.job_time import ANSWER, SUMMARY
    from summarizer.llm.local_model import open_local_model

    url = remote_url(args)
    if url:
        return open_remote(url, library, progress)
    local = open_local_model(
        library,
        model_path(args),
        n_ctx=_context(args, summaries_only=summaries_only),
        n_threads=args.threads or default_threads(),
        budget=usable_budget(args.budget)[0] if args.budget else None,
        max_parallel=None if batch else 1,
        progress=progress,
        job=SUMMARY if summaries_only else ANSWER,
    )
    return OpenModel(local.engine, local.sha256, local.parallel, local.plan)


def summary_params(args: argparse.Namespace, n_ctx: int) -> SummaryParams | None:
    """The summary parameters ``--segment-tokens`` asks for; None without it: each document's own
    (``summarizer.summaries.context_reuse.summary_params_for``: a stored summary that fits ``n_ctx`` is
    kept, whatever context it was made for)."""
    import dataclasses

    from summarizer.summaries.tree import SummaryParams

    if not args.segment_tokens:
        return None
    return dataclasses.replace(SummaryParams.for_context(n_ctx), segment_tokens=args.segment_tokens)
