"""Engines: a language model that streams text, whichever kind it is.

``engine.Engine`` is the interface callers hold (load, tokenize, generate, generate_batch,
cancel, restart, unload), with ``Piece``, ``Completion`` and ``GenerationStats``. Its three
implementations: ``local.LocalEngine`` runs llama.cpp in a worker process (``worker_process``
starts and watches it; in the child, ``llama_worker`` loads the model and ``single_decode``,
``batch_decode``, ``decode_utils``, ``prompt_lookup`` and ``chat_template`` generate);
``remote.RemoteEngine`` talks to an OpenAI-compatible server (``remote_http``);
``fake.FakeEngine`` plays scripted replies for tests. Every engine holds schema-bound replies to
their schema through ``json_replies`` (cut ones closed by ``json_closing``); ``shared_flag`` is
the cancel flag shared with the worker; ``llama_build`` says how llama.cpp was built and whether this CPU can run it.

It uses the plan (``inference.planning``) and the floor's top-level modules.
"""
