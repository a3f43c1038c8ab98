"""Recurrent kernels (LSTM, GRU, simple RNN) over padded, time-major batches, without custom C++ ops.

See :func:`returnn.tf.ops.rnn.lstm.lstm` for the LSTM entry point used by the ``rec`` layer.
"""
