"""The dataset family: importing this module imports every module of :mod:`returnn.datasets` that registers
dataset classes (``@register_dataset``), so that all built-in ``"class"`` names are known.

:func:`returnn.datasets.registry.get_dataset_class` imports it on the first lookup of a name not yet registered
(as the layer registry imports :mod:`returnn.tf.layers`). A new dataset module is added here;
``tests/datasets/test_dataset_registry.py`` fails on a registering module this list misses.
"""

import returnn.datasets.audio  # noqa: F401
import returnn.datasets.bliss  # noqa: F401
import returnn.datasets.concat_seqs  # noqa: F401
import returnn.datasets.corpus_downloads  # noqa: F401
import returnn.datasets.distrib_files  # noqa: F401
import returnn.datasets.generating_base  # noqa: F401
import returnn.datasets.generating_more  # noqa: F401
import returnn.datasets.generating_tasks  # noqa: F401
import returnn.datasets.hdf_reader  # noqa: F401
import returnn.datasets.siamese_hdf  # noqa: F401
import returnn.datasets.huggingface  # noqa: F401
import returnn.datasets.librispeech  # noqa: F401
import returnn.datasets.lm  # noqa: F401
import returnn.datasets.map  # noqa: F401
import returnn.datasets.meta  # noqa: F401
import returnn.datasets.meta_wrappers  # noqa: F401
import returnn.datasets.multi_proc  # noqa: F401
import returnn.datasets.numpy_dump  # noqa: F401
import returnn.datasets.postprocessing  # noqa: F401
import returnn.datasets.raw_wav  # noqa: F401
import returnn.datasets.sprint  # noqa: F401
import returnn.datasets.text_dict  # noqa: F401
import returnn.datasets.translation_factors  # noqa: F401
import returnn.datasets.unsupported  # noqa: F401
