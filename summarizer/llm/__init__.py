"""The local language model as the summarizer uses it: loading a GGUF with its plan
(``local_model.open_local_model``, for summaries, answers and the review) and a model file's
identity (``model_identity``: the sha256 of its bytes, cached in the library), which keys stored
summaries and reviews.

It uses the library and the summaries' segment sizes; answers, review and the commands use it.
"""
