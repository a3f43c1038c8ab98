"""Dataset helpers at the reference's path ``returnn.datasets.util`` (vocabularies)."""
