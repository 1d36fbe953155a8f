"""How the shipped models were made (assets/models/, the review's absence model).

- ``ranker_data``: training data from CUAD's contracts (``ranker_queries.json``: the queries).
- ``ranker_train``: trains the cross-encoder and the bi-encoder (on the GPU machine).
- ``ranker_export``: the cross-encoder as the int8 ONNX clause ranker.
- ``embedder_export``: the bi-encoder as the int8 clause embedder.
- ``ranker_compare``: the trained rankers side by side on the validation contracts.
- ``absent_calibration``: the review's "probably absent" rule, calibrated on the validation contracts.
"""
