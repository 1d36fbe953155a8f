"""Chat messages -> prompt text, with the chat template stored in the GGUF file.

Runs in the worker process (it imports llama_cpp). The template is rendered by
llama-cpp-python's ``Jinja2ChatFormatter``, which uses Jinja2's
``ImmutableSandboxedEnvironment``: a template from a downloaded file cannot reach Python
objects or the file system.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from inference.engines.engine import ChatMessage, render_plain

ChatRenderer = Callable[[Sequence[ChatMessage]], str]


def chat_renderer(metadata: Mapping[str, str], bos_token: str, eos_token: str) -> tuple[ChatRenderer, str]:
    """A renderer for this model's chat template, and a short description of it.

    Without ``tokenizer.chat_template`` in the metadata, messages are rendered as plain
    "role: content" lines (the model may answer poorly; the description says so).
    """
    template = metadata.get("tokenizer.chat_template")
    if not template:
        return render_plain, "no chat template in the GGUF: plain 'role: content' lines"

    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    formatter: Any = Jinja2ChatFormatter(template=template, eos_token=eos_token, bos_token=bos_token)

    def render(messages: Sequence[ChatMessage]) -> str:
        response = formatter(messages=[message.to_json() for message in messages])
        return str(response.prompt)

    return render, "chat template from the GGUF (tokenizer.chat_template)"
