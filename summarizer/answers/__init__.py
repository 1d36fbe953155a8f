"""Answers: a question about a document answered by the model, its citations checked.

``answer.answer_question`` puts the whole document in the prompt when it fits the context, and
otherwise the top passages of ``summarizer.search`` with the stored super-summary
(``summarizer.summaries``), or, while that is not made yet, with the segment summaries stored so
far (passages mode): it searches (``answer_prompt.top_passages``) and then ``answer_prompt`` builds
the prompt from one ``answer_prompt.AnswerRequest`` (the question, documents, conversation so far and options) and
those passages, in the words of ``answer_wording``; the conversation is stored in the library
(``conversations``); ``citations`` checks every ``[p. N]`` of the reply
against the passages given and links it to their character ranges.

It uses the library, search, summaries and the model (``summarizer.llm``); nothing below imports it.
"""
