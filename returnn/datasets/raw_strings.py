"""What ``tools/dump-dataset-raw-strings.py`` does: the text of one data key of each sequence (a string, or UTF-8
bytes as uint8) as a Python dict literal ``{seq_tag: text}``, the format of ``task = "search"`` output files
(what ``tools/calculate-word-error-rate.py`` reads as references)::

    {
    'seq-0': 'hello world',
    'seq-1': 'it\\'s',
    }
"""

from __future__ import annotations

import time
from typing import Dict, Optional, TextIO

from returnn.datasets.corpus_text import orth_text
from returnn.datasets.tool_util import ValueStats
from returnn.util.timefmt import hms


def collect_raw_strings(dataset, key: str = "raw", *, startseq: int = 0, endseq: int = -1, epoch: int = 1,
                        stream: TextIO, seq_stream: Optional[TextIO] = None) -> Dict[str, str]:
    """The texts of ``key`` of sequences ``startseq`` .. ``endseq`` (inclusive; -1: all) of ``dataset``, by tag.

    Prints each sequence to ``seq_stream`` (if given) and the totals and the length statistics (characters) to
    ``stream``.

    :raises returnn.errors.DataFileError: the data of ``key`` is not text
    """
    from returnn.errors import DataFileError
    dataset.init_seq_order(epoch=epoch)
    print(f"Iterating over {dataset!r}.", file=stream)
    lengths = ValueStats()
    refs: Dict[str, str] = {}
    start_time = time.time()
    seq_idx = startseq
    while dataset.is_less_than_num_seqs(seq_idx) and (endseq < 0 or seq_idx <= endseq):
        dataset.load_seqs(seq_idx, seq_idx + 1)
        tag = dataset.get_tag(seq_idx)
        try:
            text = orth_text(dataset.get_data(seq_idx, key))
        except TypeError as exc:
            raise DataFileError(repr(dataset), f"data key {key!r} of seq {tag!r}: {exc}") from None
        if seq_stream is not None:
            print(f"{seq_idx}/{dataset.num_seqs} seq tag {tag!r}, ref len {len(text)} chars", file=seq_stream)
        lengths.collect(len(text))
        refs[tag] = text
        seq_idx += 1
    print(f"Done. Num seqs {seq_idx}. Total time {hms(time.time() - start_time)}.", file=stream)
    print(f"More seqs which we did not dumped: {dataset.is_less_than_num_seqs(seq_idx)}.", file=stream)
    lengths.dump(stream, prefix=f"Seq-length {key!r} ")
    return refs


def raw_strings_py_text(refs: Dict[str, str]) -> str:
    """``refs`` as the dict literal of the module doc (one ``tag: text`` line per sequence, in order)."""
    return "{\n" + "".join(f"{tag!r}: {text!r},\n" for tag, text in refs.items()) + "}\n"
