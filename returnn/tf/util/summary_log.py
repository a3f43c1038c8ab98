"""Reading TF summary logs (``events.out.tfevents.*``, as written with ``tf_log_dir``) for
``tools/tf_inspect_summary_log.py``.

An events file is a sequence of TFRecords (8-byte little-endian length, 4-byte CRC of the length, the data, 4-byte CRC
of the data), each an ``Event`` protobuf. The CRCs are not checked; a record cut off at the end of the file (a
writer that is still running) ends the iteration, any other malformed record raises :class:`DataFileError`.
"""

from __future__ import annotations

import struct
from typing import Iterator, List, Tuple

from returnn.errors import DataFileError

#: the tag ``tools/tf_inspect_summary_log.py`` prints by default (the training loss written by the engine)
DEFAULT_TAG = "objective/loss"


def iter_records(filename: str) -> Iterator[bytes]:
    """The data of each TFRecord in ``filename``.

    :raises DataFileError: the file cannot be opened
    """
    try:
        f = open(filename, "rb")
    except OSError as exc:
        raise DataFileError(filename, "cannot open the summary log: %s" % (exc.strerror or exc)) from exc
    with f:
        while True:
            header = f.read(12)
            if len(header) < 12:
                return
            (length,) = struct.unpack("<Q", header[:8])
            data = f.read(length)
            crc = f.read(4)
            if len(data) < length or len(crc) < 4:
                return
            yield data


def iter_events(filename: str):
    """The ``tf.compat.v1.Event`` protos of the events file ``filename``.

    :raises DataFileError: the file cannot be opened or holds a record that is no event
    """
    from tensorflow.core.util.event_pb2 import Event
    from google.protobuf.message import DecodeError

    for i, data in enumerate(iter_records(filename)):
        try:
            yield Event.FromString(data)
        except DecodeError as exc:
            raise DataFileError(filename, "record %i is not a TF Event (not a summary log?): %s" % (i, exc)) from exc


def scalar_values(filename: str, tag: str = DEFAULT_TAG) -> List[Tuple[int, float]]:
    """``(step, value)`` of each summary value with this tag, in file order.

    The value is the ``simple_value`` field (what ``tf.compat.v1.summary.scalar`` writes); a value of another kind
    with this tag (histogram, tensor) gives 0.0, as in the reference's tool.
    """
    out = []
    for event in iter_events(filename):
        for value in event.summary.value:
            if value.tag == tag:
                out.append((int(event.step), float(value.simple_value)))
    return out
