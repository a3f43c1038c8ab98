"""Layer names that published configs define themselves (issue 17 listed them as missing layers): the reference
(PyPI ``returnn`` 1.20261022) registers none of them (observed: ``get_layer_class(name)`` raises 'unknown layer
class' for each), so they stay free here too: a config that registers its own class under one of these names must
not clash with a built-in one (registering a taken name fails on both sides).

- ``sampled_logits``, ``sampling``: classes of 2020-lm-domain-robust/teacher_student.nce.*.config
- ``hmm_factorization``: 2020-zero-order-latent-attention/hmm_module/hmm.py (``auto_register_layer_classes``)
- ``name_axis``: 2022-lsh-attention/generic.py
- ``bleu``: only a loss (``"loss": "bleu"``, or ``{"class": "bleu"}`` in ``expected_loss``'s ``loss_opts``), in the
  reference as here.

A config-defined ``sampled_logits`` class runs side by side with the reference in
``benchmarks/layers-side-by-side/cases/config_defined.py`` (equal).
"""

import pytest

from returnn.errors import ReturnnError
from returnn.tf.layers.basic import get_layer_class, get_loss_class
from returnn.tf.layers.losses.bleu import BleuLoss

CONFIG_DEFINED_NAMES = ["sampled_logits", "sampling", "hmm_factorization", "name_axis", "bleu"]


@pytest.mark.parametrize("name", CONFIG_DEFINED_NAMES)
def test_not_a_builtin_layer_class(name):
    with pytest.raises(ReturnnError, match=f"unknown layer class '{name}'"):
        get_layer_class(name)


def test_bleu_is_a_loss():
    assert get_loss_class("bleu") is BleuLoss
