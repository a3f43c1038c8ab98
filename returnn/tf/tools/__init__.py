"""The logic of the network tools in ``tools/`` (``dump-forward.py``, ``dump-forward-stats.py``,
``get-attention-weights.py``, ``dump-network-json.py``, ``debug-dump-search-scores.py``), one module each; the
scripts only parse their arguments. They use the engine through its public methods and
:class:`~returnn.tf.engine.runner.Runner` (one pass of fetches over batches)."""
