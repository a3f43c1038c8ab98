"""Public path of :mod:`returnn.tf.layers.core.search_choices` (``SearchChoices``, ``find_search_choices``)."""

from returnn.tf.layers.core.search_choices import SearchChoices as SearchChoices  # noqa: F401
from returnn.tf.layers.core.search_choices import find_search_choices as find_search_choices  # noqa: F401
