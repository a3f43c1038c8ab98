"""Label vocabularies: ``Vocabulary`` (labels from a vocab file), ``BytePairEncoding`` (BPE-split words),
``CharacterTargets`` (one label per character) and ``Utf8ByteTargets`` (one label per UTF-8 byte), at the
reference's paths ``returnn.datasets.util.vocabulary`` and ``returnn.datasets.generating`` (legacy
``from GeneratingDataset import Vocabulary``).

Vocab file formats (observed from the reference):

* a name ending in ``.pkl``: a pickled dict label → index;
* text (optionally gzipped) starting with ``{``: a Python dict literal label → index;
* any other text: one label per line, the index is the line number (``str.splitlines``; a label may contain
  spaces; a repeated label keeps its last index).

Several labels may share an index (``"<s>"`` and ``"</s>"`` both 0): ``labels[i]`` is then the greatest of
them (``"<s>"``), as in the reference. The indices must be exactly ``0 .. num_labels-1``.

This is the public path and re-exports: the classes are defined in :mod:`~returnn.datasets.util.vocabulary_base`,
:mod:`~returnn.datasets.util.sentencepieces` and :mod:`~returnn.datasets.util.sampling_bpe`; importing this module
adds the latter two to ``VOCAB_CLASSES`` (``create_vocab`` imports it).
"""

from returnn.datasets.util.sampling_bpe import SamplingBytePairEncoding as SamplingBytePairEncoding
from returnn.datasets.util.sentencepieces import SentencePieces as SentencePieces
from returnn.datasets.util.vocabulary_base import VOCAB_CLASSES as VOCAB_CLASSES
from returnn.datasets.util.vocabulary_base import BytePairEncoding as BytePairEncoding
from returnn.datasets.util.vocabulary_base import CharacterTargets as CharacterTargets
from returnn.datasets.util.vocabulary_base import Utf8ByteTargets as Utf8ByteTargets
from returnn.datasets.util.vocabulary_base import Vocabulary as Vocabulary

VOCAB_CLASSES["SentencePieces"] = SentencePieces
VOCAB_CLASSES["SamplingBytePairEncoding"] = SamplingBytePairEncoding
