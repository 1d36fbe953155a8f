"""Quality on labelled data, and the rules every score shares.

- ``quote_match``: when a labelled quote counts as found in a passage.
- ``cuad_corpus``: CUAD's 449 training contracts: texts, annotations, the validation split.
- ``score_retrieval``: clause recall@k on the six fixture contracts (``labels/``, ``questions.json``).
- ``score_validation``: the same on CUAD's 39 validation contracts (never trained on).
- ``score_review_evidence``: the review's evidence against the clause labels.
- ``score_acord``: NDCG@5/@10 on ACORD's training (cross-validated) and validation queries
  (``acord``: data, metric, folds; ``acord_library``: the corpus as a library; ``acord_systems``,
  ``acord_tries``: what is scored).
- ``score_financebench``: page recall on the FinanceBench development filings.
- ``retrieval_ceiling``: the best recall@k any ranking of today's passages could reach.
- ``lexicon_ablation``: what each part of the legal lexicon still adds.
- ``compare_table_extractors``: which PDF text extractor keeps a statement's rows together.
- ``loop_guard_on_contracts``: where the engines' loop guard would end real contract text.
"""
