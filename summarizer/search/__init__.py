"""Search: the passages of the library that answer a question, best first.

``retrieval.search`` ranks passages by BM25 (FTS5 over text and heading, the query's
words widened by the contract vocabulary of ``legal_lexicon``, FTS5 strings quoted by
``fts_query``) and by cosine to the question's vector, fused by weighted reciprocal rank;
``RetrievalParams`` holds its weights and ``SearchResult`` one ranked passage.

It reads the library (``summarizer.library``) and nothing above it; answers and the review use it.
"""
