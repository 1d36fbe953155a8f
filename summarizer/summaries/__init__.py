"""Summaries: a document compressed into segment summaries and a super-summary, stored and reused.

``segments`` cuts a document into runs of about 8K LLM tokens; ``compress.compress`` summarizes
each (map, batched when the plan has room) and then the summaries (reduce) into one
super-summary, with the parameters and results of ``tree``; ``store`` keeps every summary in the
library, keyed by what its text depends on (the input, the model file's sha256 from
``summarizer.llm.model_identity``, ``summary_prompts.PROMPT_VERSION``), so a stopped run resumes
and a second is instant. ``summary_prompts`` holds the summaries' prompts (the answer's are
worded in ``summarizer.answers``); ``repetition`` cuts the loops small models fall into;
``table_layout`` lays table passages out for the model; ``context_reuse`` keeps the stored
summaries that fit a new context.

It uses the library (``summarizer.library``); answers and the review use it.
"""
