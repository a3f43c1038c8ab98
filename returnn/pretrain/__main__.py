"""``python3 -m returnn.pretrain CONFIG [--diff]``: the network of each pretrain epoch (see
:mod:`returnn.pretrain.cli`)."""

from returnn.pretrain.cli import demo

if __name__ == "__main__":
    demo()
