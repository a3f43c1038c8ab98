"""Public module ``returnn.datasets.basic`` (reference path): the dataset base class, ``init_dataset`` and the
batching classes. Defines nothing; each name comes from the module that owns it."""

from returnn.datasets.batching import Batch as Batch
from returnn.datasets.batching import BatchSeqCopyPart as BatchSeqCopyPart
from returnn.datasets.batching import BatchSetGenerator as BatchSetGenerator
from returnn.datasets.dataset import Dataset as Dataset
from returnn.datasets.dataset import DatasetSeq as DatasetSeq
from returnn.datasets.dataset import get_seq_len_as_array as _get_seq_len_as_array
from returnn.datasets.extern_data import set_config_extern_data_from_dataset as set_config_extern_data_from_dataset
from returnn.datasets.init import init_dataset as init_dataset
from returnn.datasets.init import init_dataset_via_str as init_dataset_via_str
from returnn.datasets.registry import DATASETS as DATASETS
from returnn.datasets.registry import get_dataset_class as get_dataset_class
from returnn.datasets.registry import register_dataset as register_dataset
