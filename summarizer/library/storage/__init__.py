"""The library's SQLite database: ``store.Library`` (documents, pages, passages, embeddings),
``schema`` (the migrations run in order and recorded, the backup before, the stored values),
``migrations`` (one module per migration), ``queries`` (what other groups and floors
read, by functions named for what they fetch), ``document_text`` (a document read back as text),
``paths`` (the data folder), ``disk_space`` (a full disk told apart from a damaged library) and
``metadata_text`` (a PDF's title without control characters, as stored and as read back)."""
