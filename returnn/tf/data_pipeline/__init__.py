"""Public import path ``returnn.tf.data_pipeline`` (the reference's module): the data providers of a network's
input.

* :class:`FeedDictDataProvider` (:mod:`.feed_dict`): one feed dict of the extern data placeholders per batch;
* :class:`DatasetDataProvider` (:mod:`.tf_dataset`): the batches as a ``tf.data`` pipeline whose tensors replace the
  placeholders (config ``dataset_pipeline = True``).

Defines nothing; each name comes from the module that owns it.
"""

from returnn.tf.data_pipeline.feed_dict import FeedDictDataProvider as FeedDictDataProvider
from returnn.tf.data_pipeline.feed_dict import NoMoreBatchesError as NoMoreBatchesError
from returnn.tf.data_pipeline.feed_dict import feed_dict_for_batch as feed_dict_for_batch
from returnn.tf.data_pipeline.tf_dataset import InputContext as InputContext
from returnn.tf.data_pipeline.tf_dataset import DatasetDataProvider as DatasetDataProvider
