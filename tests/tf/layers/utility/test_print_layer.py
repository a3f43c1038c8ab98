"""print: identity output; the printed lines as observed from the reference (stdout there, the log here)."""

import numpy as np

from tf_net_helpers import build_net, make_feed


def test_print_layer(session, capsys):
    net = build_net({"output": {"class": "print", "from": "data", "summarize": 3,
                                "extra_print_args": [1.5, "x y", True, [1, 2]]}}, {"data": {"dim": 2}})
    out = net.get_layer("output").output
    assert repr(out) == "Tensor{'output_output', [B,T|'time:var:extern_data:data'[B],F|F'feature:data'(2)]}"
    x = np.array([[[0.5, 1e-5], [2, 3]]], dtype="float32")
    capsys.readouterr()
    y = session.run(out.placeholder, feed_dict=make_feed(net, {"data": x}, {"data": [2]}))
    np.testing.assert_array_equal(y, x)
    printed = capsys.readouterr().out
    # observed from the reference (numpy's default formatting, extra args on one line)
    assert "[PrintLayer][output]\n[[[5.e-01 1.e-05]\n  [2.e+00 3.e+00]]]\n" \
           "[np.float32(1.5)][x y][np.True_][1 2]\n" in printed


def test_print_layer_summarize(session, capsys):
    net = build_net({"output": {"class": "print", "from": "data", "summarize": 2}}, {"data": {"dim": 10}})
    x = np.arange(60, dtype="float32").reshape(1, 6, 10)
    capsys.readouterr()
    session.run(net.get_layer("output").output.placeholder, feed_dict=make_feed(net, {"data": x}, {"data": [6]}))
    printed = capsys.readouterr().out
    assert "[[[ 0.  1. ...  8.  9.]\n  [10. 11. ... 18. 19.]\n  ...\n  [40. 41. ... 48. 49.]\n" in printed
