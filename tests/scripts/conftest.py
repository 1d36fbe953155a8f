"""The tiny random-weight models of the inference tests, for the writer's own tests."""

from tests.inference.conftest import llama_cpp_module, tiny_gguf

__all__ = ["llama_cpp_module", "tiny_gguf"]
