"""Entry point of one ``rf-speed`` run (both sides): stamps each training-step log line with the process's CPU
seconds, optionally traces one step, then runs the implementation's ``rnn.py`` main.

    python stamp.py STAMP_FILE (ours RNN_PY | ref) CONFIG [++key value ...]

``STAMP_FILE`` gets one line per ``train epoch 1, step N, ...`` log line: ``N cpu_s wall_s`` (``time.process_time``
of the whole process, all its threads, and ``time.time`` at the moment the line is written). The CPU of a step is
the difference between two consecutive stamps: the work of the process from one step's end to the next's
(``Session.run``, feeding, the data thread, logging), which unlike wall time does not depend on how many other
processes share the cores.

``RF_SPEED_TRACE=K`` (K > 0): every ``Session.run`` between the step lines K and K + 1 runs with a full trace; at the
end the kernel time summed by op type, the number of kernels and the graph's op count by type are appended to
``STAMP_FILE.trace`` (``RF_SPEED_TRACE_TOP`` rows, default 40; ``RF_SPEED_TRACE_NODES`` single kernels, default 0).
The same patch of ``tf.compat.v1.Session.run`` on both sides: it sees only what each implementation's engine runs.
"""

from __future__ import annotations

import os
import re
import sys
import time

RE_STEP = re.compile(r"train epoch \d+, step (\d+), ")


class _StampedStream:
    """A text stream that passes everything through and stamps the training-step lines."""

    def __init__(self, stream, stamp_file: str, on_step):
        self._stream = stream
        self._stamps = open(stamp_file, "w")
        self._pending = ""
        self._on_step = on_step

    def write(self, text: str) -> int:
        self._pending += text
        while "\n" in self._pending:
            line, self._pending = self._pending.split("\n", 1)
            m = RE_STEP.search(line)
            if m:
                self._stamps.write(f"{m.group(1)} {time.process_time():.4f} {time.time():.4f}\n")
                self._stamps.flush()
                self._on_step(int(m.group(1)))
        return self._stream.write(text)

    def __getattr__(self, name):
        return getattr(self._stream, name)


class _Tracer:
    """Traces the ``Session.run`` calls between step lines ``k`` and ``k + 1``; writes the summary at exit."""

    def __init__(self, k: int, out_file: str):
        self.k, self.out_file, self.active, self.done, self.installed = k, out_file, False, False, False
        self.by_type, self.by_node, self.kernels, self.runs, self.graph_ops = {}, {}, 0, 0, {}

    def on_step(self, step: int) -> None:
        if not self.installed:  # TensorFlow is imported by now, as each implementation imports it
            self.install()
        if step == self.k:
            self.active = True
        elif self.active:
            self.active, self.done = False, True
            self.write()

    def install(self) -> None:
        import tensorflow as tf

        tracer = self
        self.installed = True
        orig_run = tf.compat.v1.Session.run

        def run(sess, fetches, feed_dict=None, options=None, run_metadata=None):
            if not tracer.active or options is not None or run_metadata is not None:
                return orig_run(sess, fetches, feed_dict=feed_dict, options=options, run_metadata=run_metadata)
            meta = tf.compat.v1.RunMetadata()
            opts = tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.FULL_TRACE)
            result = orig_run(sess, fetches, feed_dict=feed_dict, options=opts, run_metadata=meta)
            tracer.add(meta)
            tracer.graph_ops = {}
            for op in sess.graph.get_operations():
                tracer.graph_ops[op.type] = tracer.graph_ops.get(op.type, 0) + 1
            return result

        tf.compat.v1.Session.run = run

    def add(self, meta) -> None:
        self.runs += 1
        for dev in meta.step_stats.dev_stats:
            for node in dev.node_stats:
                kind = node.timeline_label.split("(")[0].split(" = ")[-1].strip() or node.node_name
                ms = (node.all_end_rel_micros or 0) / 1000.0
                self.kernels += 1
                rec = self.by_type.setdefault(kind, [0.0, 0])
                rec[0] += ms
                rec[1] += 1
                shapes = ",".join("x".join(str(d.size) for d in out.tensor_description.shape.dim)
                                  for out in node.output)
                key = f"{kind} {node.node_name} [{shapes}]"
                self.by_node[key] = self.by_node.get(key, 0.0) + ms

    def write(self) -> None:
        top = int(os.environ.get("RF_SPEED_TRACE_TOP", "40"))
        nodes = int(os.environ.get("RF_SPEED_TRACE_NODES", "0"))
        total = sum(v[0] for v in self.by_type.values())
        with open(self.out_file, "w") as f:
            f.write(f"TRACE step {self.k + 1}: {self.runs} Session.run, {self.kernels} kernels, {total:.1f} ms "
                    f"summed; graph {sum(self.graph_ops.values())} ops\n")
            for kind, (ms, n) in sorted(self.by_type.items(), key=lambda kv: -kv[1][0])[:top]:
                f.write(f"TRACE {kind:36s} {ms:9.1f} ms {100 * ms / max(total, 1e-9):5.1f} % {n:6d} kernels "
                        f"{self.graph_ops.get(kind, 0):6d} in graph\n")
            for key, ms in sorted(self.by_node.items(), key=lambda kv: -kv[1])[:nodes]:
                f.write(f"TRACE NODE {ms:8.2f} ms {key}\n")


def main() -> None:
    stamp_file, side = sys.argv[1], sys.argv[2]
    trace_k = int(os.environ.get("RF_SPEED_TRACE", "0"))
    tracer = _Tracer(trace_k, stamp_file + ".trace") if trace_k > 0 else None
    sys.stdout = _StampedStream(sys.stdout, stamp_file, tracer.on_step if tracer else (lambda step: None))
    if side == "ours":
        rnn_py = sys.argv[3]
        sys.argv = [rnn_py] + sys.argv[4:]
        sys.path.insert(0, os.path.dirname(os.path.abspath(rnn_py)))
        from returnn.__main__ import main as rnn_main
    else:  # the reference's PyPI package has no rnn.py
        sys.argv = ["rnn.py"] + sys.argv[3:]
        from returnn.__main__ import main as rnn_main
    try:
        rnn_main()
    finally:
        sys.stdout.flush()
        if tracer and tracer.active and not tracer.done:  # the traced step was the last
            tracer.write()


if __name__ == "__main__":
    main()
