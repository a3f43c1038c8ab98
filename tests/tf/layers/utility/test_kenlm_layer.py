"""kenlm: one clear error naming the missing KenLM native op."""

import pytest

from returnn.errors import LayerArgError
from tf_net_helpers import build_net


def test_kenlm_error(session):
    with pytest.raises(LayerArgError, match="KenLM native TF op"):
        build_net({"output": {"class": "kenlm", "lm_file": "lm.arpa", "from": "data:classes"}})
