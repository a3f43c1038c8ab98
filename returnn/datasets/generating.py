"""Public module ``returnn.datasets.generating``: the in-memory and synthetic datasets. ``numpy`` is a public name
too (the reference's module imports it; ``from returnn.datasets.generating import *`` users rely on it)."""

import numpy

from returnn.datasets.bliss import BlissDataset as BlissDataset
from returnn.datasets.corpus_downloads import Enwik8Corpus as Enwik8Corpus
from returnn.datasets.corpus_downloads import NltkTimitDataset as NltkTimitDataset
from returnn.datasets.corpus_downloads import TimitDataset as TimitDataset
from returnn.datasets.generating_base import GeneratingDataset as GeneratingDataset
from returnn.datasets.generating_base import StaticDataset as StaticDataset
from returnn.datasets.generating_tasks import CopyTaskDataset as CopyTaskDataset
from returnn.datasets.generating_tasks import DummyDataset as DummyDataset
from returnn.datasets.generating_tasks import DummyDatasetMultipleSequenceLength as DummyDatasetMultipleSequenceLength
from returnn.datasets.generating_tasks import Task12AXDataset as Task12AXDataset
from returnn.datasets.generating_tasks import TaskNumberBaseConvertDataset as TaskNumberBaseConvertDataset
from returnn.datasets.generating_more import DummyDatasetMultipleDataKeys as DummyDatasetMultipleDataKeys
from returnn.datasets.generating_more import DummyGenericDataset as DummyGenericDataset
from returnn.datasets.generating_more import TaskEpisodicCopyDataset as TaskEpisodicCopyDataset
from returnn.datasets.generating_more import TaskVariableAssignmentDataset as TaskVariableAssignmentDataset
from returnn.datasets.generating_more import TaskXmlModelingDataset as TaskXmlModelingDataset
from returnn.datasets.librispeech import LibriSpeechCorpus as LibriSpeechCorpus
from returnn.datasets.util.vocabulary import BytePairEncoding as BytePairEncoding
from returnn.datasets.util.vocabulary import CharacterTargets as CharacterTargets
from returnn.datasets.util.vocabulary import SentencePieces as SentencePieces
from returnn.datasets.util.vocabulary import Utf8ByteTargets as Utf8ByteTargets
from returnn.datasets.util.vocabulary import Vocabulary as Vocabulary
