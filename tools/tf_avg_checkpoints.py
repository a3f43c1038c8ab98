#!/usr/bin/env python3
"""
Writes the average of several TF checkpoints as a new checkpoint (any TF checkpoint, not only RETURNN's).

Each float variable is the mean of its values in the given checkpoints (summed in float64, cast back to its
dtype); a variable of another dtype (e.g. global_step) is taken from the last checkpoint of the list.
Checkpoints that do not exist are left out. Writes <output_path>.index/.data-*/.meta and the 'checkpoint' file
of the output directory.

Example: average the last three epochs of a training:

  tools/tf_avg_checkpoints.py --prefix /path/model. --checkpoints 008,009,010 --output_path /path/model.avg.010
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from absl import app, flags  # noqa: E402

flags.DEFINE_string("checkpoints", "", "Comma-separated list of checkpoints to average.")
flags.DEFINE_integer("num_last_checkpoints", 0, "Averages the last N saved checkpoints. If the checkpoints flag "
                                                "is set, this is ignored.")
flags.DEFINE_string("prefix", "", "Prefix (e.g., directory) to append to each checkpoint.")
flags.DEFINE_string("output_path", "/tmp/averaged.ckpt", "Path to output the averaged checkpoint to.")

FLAGS = flags.FLAGS


def main(argv) -> int:
    """Averages the checkpoints the flags name; exit status 1 with one message when there is none."""
    from returnn.errors import ReturnnError
    from returnn.tf.util.checkpoint_average import run_average_tool

    del argv  # unknown arguments are ignored, as the reference's tool does
    try:
        run_average_tool(checkpoints=FLAGS.checkpoints, num_last_checkpoints=FLAGS.num_last_checkpoints,
                                 prefix=FLAGS.prefix, output_path=FLAGS.output_path, program=sys.argv[0])
    except (ReturnnError, ValueError) as exc:
        print("tf_avg_checkpoints: %s" % exc, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    if any(arg in ("-h", "--help", "-?") for arg in sys.argv[1:]):  # absl's own --help exits with status 1
        app.usage(shorthelp=True, writeto_stdout=True, exitcode=0)
    app.run(main, flags_parser=lambda argv: FLAGS(argv, known_only=True))
