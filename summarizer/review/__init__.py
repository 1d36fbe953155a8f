"""Contract review: a checklist's items answered for each contract, with evidence and flags.

``checklist`` loads a checklist (the bundled CUAD one, ``checklists/cuad.csv``, or the user's
CSV/YAML); ``evidence.review_evidence`` finds each item's passages with ``summarizer.search``
(no model needed); ``item_answers.review_with_model`` reads the contract in units and asks every open
item at once, each reply held to a JSON schema, then types the values (``values``) and flags them
against the playbook for the side represented (``playbook``, ``party_side``). ``store`` keeps each
answer as soon as it is done and the reviewer's corrections beside it; ``export`` (Markdown, CSV)
and ``memo_docx`` (the DOCX memo) write the review out; ``checklist_pair`` sets two versions'
answers side by side for ``pagewise compare --checklist``, the items whose clause changed marked.

It uses the library, search and the model (``summarizer.llm``); nothing below imports it.
"""
