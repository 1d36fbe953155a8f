"""Summaries: a document compressed into segment summaries and a super-summary, stored and reused.

``segments`` cuts a document into runs of about 8K LLM tokens; ``compress.compress`` summarizes
each (map, batched when the plan has room) and then the summaries (reduce) into one
super-summary, with the parameters and results of ``tree``; ``store`` keeps every summary in the
library, keyed by what its text depends on (the input, the model file's sha256 from
``model_files``, ``prompts.PROMPT_VERSION``), so a stopped run resumes and a second is instant.
``prompts`` holds the summaries' prompts (the answer's are worded in ``summarizer.answers``);
``repetition`` cuts the loops small models fall into; ``local_model.open_local_model`` loads a
local GGUF with its plan for summaries, answers and the review.

It uses the library (``summarizer.library``); answers and the review use it.
"""
