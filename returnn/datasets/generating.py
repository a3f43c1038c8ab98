"""Public module ``returnn.datasets.generating``: the in-memory and synthetic datasets."""

from returnn.datasets.generating_base import GeneratingDataset as GeneratingDataset
from returnn.datasets.generating_base import StaticDataset as StaticDataset
from returnn.datasets.generating_tasks import CopyTaskDataset as CopyTaskDataset
from returnn.datasets.generating_tasks import DummyDataset as DummyDataset
from returnn.datasets.generating_tasks import DummyDatasetMultipleSequenceLength as DummyDatasetMultipleSequenceLength
from returnn.datasets.generating_tasks import Task12AXDataset as Task12AXDataset
from returnn.datasets.generating_tasks import TaskNumberBaseConvertDataset as TaskNumberBaseConvertDataset
from returnn.datasets.librispeech import LibriSpeechCorpus as LibriSpeechCorpus
from returnn.datasets.util.vocabulary import BytePairEncoding as BytePairEncoding
from returnn.datasets.util.vocabulary import CharacterTargets as CharacterTargets
from returnn.datasets.util.vocabulary import SentencePieces as SentencePieces
from returnn.datasets.util.vocabulary import Utf8ByteTargets as Utf8ByteTargets
from returnn.datasets.util.vocabulary import Vocabulary as Vocabulary
