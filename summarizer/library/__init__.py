"""The library: PDFs in, passages and vectors out, kept in one SQLite database.

A PDF's pages are read (``pdf_extract``), normalized (``normalize``), cut into clauses
(``clauses``) and packed into passages with page spans (``passages``); ``ingest`` stores them
step by step in the library (``store.Library``, tables in ``schema``) and embeds them
(``embedder``, ``embedding_model``, ``embedding_windows``) into the FAISS cache
(``vector_index``). ``reindex`` and ``reembed`` bring a library made by an older version or
another embedding model up to date; ``document_text`` reads a stored document back as text;
``page_furniture`` finds a page's running headers, footers and page numbers, so that a cited
span is shown without them; ``query_encoder`` embeds questions; ``paths`` says where the data
folder is.

Callers use ``store.Library`` (``Library.open()``), ``ingest.ingest_path`` and the errors in
``summarizer.errors``. Nothing here imports the other groups of ``summarizer``.
"""
