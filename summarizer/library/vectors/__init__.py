"""Vectors for passages and questions: the embedding model and Pagewise's clause embedder, long
passages embedded in windows, the query encoder's fast path, the FAISS cache of the embeddings
table, embedding the passages without a vector, and a resumable switch to another model."""
