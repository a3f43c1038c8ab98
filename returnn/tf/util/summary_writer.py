"""Stopping TensorFlow's event-writer threads (legacy ``TFUtil`` functions): ``stop_event_writer_thread``,
``stop_all_event_writer_threads``. TF's ``FileWriter.close()`` leaves its background thread running; these end
it, so a long process that opens many writers does not keep as many threads."""

from __future__ import annotations

import threading
from typing import Any

from tensorflow.python.summary.writer.event_file_writer import EventFileWriter, _EventLoggerThread


def _stop_logger_thread(thread: threading.Thread) -> None:
    # the thread takes events from its queue until it gets the close sentinel (what close() puts there in newer TF)
    queue = getattr(thread, "_queue", None)
    sentinel = getattr(thread, "_close_sentinel", None)
    if queue is not None and sentinel is not None and thread.is_alive():
        queue.put(sentinel)
    thread.join(timeout=10)


def stop_event_writer_thread(event_writer: Any) -> None:
    """:param event_writer: a ``tf.compat.v1.summary.FileWriter`` or its ``EventFileWriter``; its background
        thread is ended (the writer is closed first if it is not)"""
    writer = getattr(event_writer, "event_writer", event_writer)
    if isinstance(writer, EventFileWriter):
        writer.close()
        thread = getattr(writer, "_worker", None)
        if thread is not None:
            _stop_logger_thread(thread)


def stop_all_event_writer_threads() -> None:
    """Ends every running TF event-logger thread of this process."""
    for thread in threading.enumerate():
        if isinstance(thread, _EventLoggerThread):
            _stop_logger_thread(thread)
