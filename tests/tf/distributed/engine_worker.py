"""``rnn.py`` for the distributed engine tests, with two observation hooks (no change to what is run):

* every training batch's sequence tags are recorded per epoch (taken from the batches the runner really feeds,
  so a weight-0 re-feed of an old batch is not counted) and written to ``$DIST_TEST_OUT/seen.rank<N>.json``;
* at the engine's ``finalize`` all global variables are dumped to ``$DIST_TEST_OUT/params.rank<N>.npz``.

``DIST_TEST_DIE_AT_STEP=k`` (with ``DIST_TEST_DIE_RANK=r``, default 1): worker r kills itself with SIGKILL
when it is about to feed its k-th training batch of epoch 1 (mid-epoch).

Usage: ``engine_worker.py CONFIG [++key value ...]`` (as rnn.py).
"""

import json
import os
import signal
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, REPO)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def _install_hooks(outdir: str) -> None:
    import numpy as np
    import tensorflow as tf

    import returnn.datasets.feeding as feeding
    from returnn.tf import distributed as dist
    from returnn.tf.engine import engine as engine_mod

    seen = {}
    die_at = int(os.environ.get("DIST_TEST_DIE_AT_STEP", "0") or 0)
    die_rank = int(os.environ.get("DIST_TEST_DIE_RANK", "1"))
    original_iterate = feeding.iterate_batch_data

    def iterate_batch_data(dataset, batches, data_keys, *args, **kwargs):
        inner = original_iterate(dataset, batches, data_keys, *args, **kwargs)
        engine = engine_mod._global_engine
        if engine is None or dataset is not engine.train_data:
            return inner

        def recording():
            tags = seen.setdefault(str(dataset.epoch), [])
            try:
                for num, batch in enumerate(inner):
                    if die_at and dist.rank() == die_rank and dataset.epoch == 1 and num + 1 == die_at:
                        os.kill(os.getpid(), signal.SIGKILL)
                    tags.extend(batch.seq_tags)
                    yield batch
            finally:
                inner.close()
                _write_json(os.path.join(outdir, "seen.rank%i.json" % dist.rank()), seen)

        return recording()

    feeding.iterate_batch_data = iterate_batch_data
    original_finalize = engine_mod.Engine.finalize

    def finalize(self):
        if self.session is not None and self.graph is not None:
            with self.graph.as_default():
                variables = tf.compat.v1.global_variables()
            values = self.session.run(variables)
            path = os.path.join(outdir, "params.rank%i.npz" % dist.rank())
            np.savez(path + ".tmp.npz", **{v.op.name: val for v, val in zip(variables, values)})
            os.replace(path + ".tmp.npz", path)
        original_finalize(self)

    engine_mod.Engine.finalize = finalize


def _write_json(path: str, value) -> None:
    with open(path + ".tmp", "w") as f:
        json.dump(value, f)
    os.replace(path + ".tmp", path)


def main() -> None:
    _install_hooks(os.environ["DIST_TEST_OUT"])
    from returnn.__main__ import main as rnn_main

    rnn_main([os.path.join(REPO, "rnn.py")] + sys.argv[1:])


if __name__ == "__main__":
    main()
