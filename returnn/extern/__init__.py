"""``returnn.extern``: the import path of the reference's bundled third-party helpers that user scripts use
(here only :mod:`returnn.extern.graph_editor`, our own implementation of the parts they call)."""
