"""The ``pretrain`` schedule: which network each pretrain epoch trains (:class:`Pretrain`, :func:`pretrain_from_config`).

The constructed networks (:mod:`returnn.pretrain.construction`) are repeated per ``repetitions`` and each epoch's
copy gets its :class:`~returnn.pretrain.wrap_epoch_value.WrapEpochValue` s resolved with that epoch. The number of
pretrain epochs is the sum of the repetitions; the final network is the last of them (so it is trained during
pretraining as well). Observed reference behaviour this follows:

- ``repetitions``: unset/0 → 1 per network; an int → that for every network; a list → per network, at most one
  entry per network, a short list extended with its last entry; a dict → ``"default"`` (1 when missing) per
  network, an int key ``i`` for network ``i``, ``"final"`` for the final one. A network returned by a construction
  function may set ``"#repetition"`` (taken out of the dict), which overrides the option for it. A network with
  0 repetitions is skipped.
- ``str(pretrain)``: ``Pretrain construction algo 'from_output', number of pretrain epochs: 6 (repetitions: 2)``;
  the repetitions are shown as one number when all equal, and not at all when that number is 1.
- ``copy_param_mode`` (``None``, ``"ifpossible"``, ``"subset"``, ``"reset"``) is kept for the engine;
  ``copy_output_layer`` defaults to ``copy_param_mode`` or ``"ifpossible"``; ``greedy`` to False. The TF engine
  does not use ``copy_output_layer`` and ``greedy`` (neither does the reference's).
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from returnn.pretrain.construction import (
    construct_custom,
    construct_from_input,
    construct_from_output,
    NetDict,
)
from returnn.pretrain.errors import PretrainError, PretrainOptionError
from returnn.pretrain.wrap_epoch_value import resolve_wrapped_values

ALGORITHMS = ("from_output", "from_input", "no_network_modifications")
COPY_PARAM_MODES = (None, "ifpossible", "subset", "reset")
#: the options of the ``pretrain`` dict (the keyword arguments of :class:`Pretrain`)
OPTIONS = ("network_init_args", "copy_param_mode", "copy_output_layer", "greedy", "repetitions", "construction_algo",
           "output_layers", "input_layers")
#: options also read from separate ``pretrain_<option>`` config keys (when not in the dict), as the reference
CONFIG_KEY_OPTIONS = ("construction_algo", "repetitions", "greedy", "copy_output_layer")

Repetitions = Union[None, int, Sequence[int], Dict[Any, int]]


class Pretrain:
    """The pretrain schedule of a final network (see module doc).

    :param original_network_json: the final network dict (config ``network``)
    :param network_init_args: kept as given (unused by the TF engine)
    :param copy_param_mode: how the engine copies params into a changed network, unless the network dict says
        otherwise with ``"#copy_param_mode"``: None/``"ifpossible"`` (same shape only), ``"subset"``, ``"reset"``
    :param copy_output_layer: kept (unused by the TF engine)
    :param greedy: kept (unused by the TF engine)
    :param repetitions: epochs per network (see module doc)
    :param construction_algo: ``"from_output"``, ``"from_input"``, ``"no_network_modifications"`` or a function
        ``(idx, net_dict) -> net_dict or None``
    :param output_layers: output layers of the algorithms
    :param input_layers: input layers of ``"from_output"``
    :raises PretrainError: invalid options, or the network cannot be grown (message names the layer / epoch)
    """

    __module__ = "returnn.pretrain"  # its public path (reprs, pickles)

    def __init__(self, original_network_json: NetDict, network_init_args: Any = None,
                 copy_param_mode: Optional[str] = None, copy_output_layer: Any = None, greedy: Optional[bool] = None,
                 repetitions: Repetitions = None, construction_algo: Union[str, Callable] = "from_output",
                 output_layers: Sequence[str] = ("output",), input_layers: Sequence[str] = ("data",)):
        if not isinstance(original_network_json, dict):
            raise PretrainError("pretrain: the network must be a dict layer name -> layer dict, got %s"
                                % type(original_network_json).__name__)
        if copy_param_mode not in COPY_PARAM_MODES:
            raise PretrainError("pretrain option 'copy_param_mode': expected one of %s, got %r"
                                % (", ".join(repr(m) for m in COPY_PARAM_MODES), copy_param_mode))
        if not (callable(construction_algo) or construction_algo in ALGORITHMS):
            raise PretrainError("pretrain option 'construction_algo': expected one of %s or a function "
                                "(idx, net_dict) -> net_dict or None, got %r"
                                % (", ".join(repr(a) for a in ALGORITHMS), construction_algo))
        self.copy_param_mode = copy_param_mode
        self.copy_output_layer = copy_output_layer if copy_output_layer is not None else (
            copy_param_mode or "ifpossible")
        self.greedy = bool(greedy) if greedy is not None else False
        self.network_init_args = network_init_args
        self._construction_algo = construction_algo
        self._input_layers = tuple(input_layers)
        self._output_layers = tuple(output_layers)
        self._original_network_json = original_network_json
        _check_repetitions_type(repetitions)
        if construction_algo == "from_output":
            nets = construct_from_output(original_network_json, input_layers=self._input_layers,
                                         output_layers=self._output_layers)
        elif construction_algo == "from_input":
            nets = construct_from_input(original_network_json, output_layers=self._output_layers)
        elif construction_algo == "no_network_modifications":
            nets = [deepcopy(original_network_json)]
        else:
            nets = construct_custom(construction_algo, original_network_json, output_layers=self._output_layers,
                                    repetitions_of=lambda idx, net: _repetition_of(repetitions, idx, None, net))
        self.repetitions = _make_repetitions(repetitions, nets)
        self._step_net_jsons: List[NetDict] = []
        for net, count in zip(nets, self.repetitions):
            for _ in range(max(count, 0)):
                epoch = len(self._step_net_jsons) + 1
                self._step_net_jsons.append(resolve_wrapped_values(deepcopy(net), epoch))
        self._final_net = self._step_net_jsons[-1] if self._step_net_jsons else resolve_wrapped_values(
            deepcopy(nets[-1]), 1)

    def __str__(self) -> str:
        text = "Pretrain construction algo %r, number of pretrain epochs: %i" % (self._construction_algo,
                                                                              self.get_train_num_epochs())
        shown: Any = self.repetitions
        if shown and all(r == shown[0] for r in shown):
            shown = shown[0]
        if shown != 1:
            text += " (repetitions: %r)" % (shown,)
        return text

    def get_train_num_epochs(self) -> int:
        """:return: the number of pretrain epochs (the sum of the repetitions)"""
        return len(self._step_net_jsons)

    def get_network_json_for_epoch(self, epoch: int) -> NetDict:
        """:return: the network dict of (1-based) ``epoch``; after the pretrain epochs, the final network (its
            ``WrapEpochValue`` s resolved with the last pretrain epoch)
        :raises PretrainError: ``epoch`` < 1
        """
        if not isinstance(epoch, int) or epoch < 1:
            raise PretrainError("Pretrain.get_network_json_for_epoch: expected an epoch >= 1, got %r" % (epoch,))
        if epoch > len(self._step_net_jsons):
            return self._final_net
        return self._step_net_jsons[epoch - 1]

    def get_final_network_json(self) -> NetDict:
        """:return: the final network dict (as trained in the last pretrain epoch)"""
        return self._final_net

    def get_train_param_args_for_epoch(self, epoch: int) -> Dict[str, Any]:
        """Theano-era API (per-epoch trainable-param selection): ``{}`` (all params trained).

        :raises NotImplementedError: with ``greedy``, for epochs after the first (as the reference)
        """
        if self.greedy and epoch > 1:
            raise NotImplementedError("This feature was removed with dropped Theano support")
        return {}

    @property
    def construction_algo(self) -> Union[str, Callable]:
        """The construction algorithm (name or function)."""
        return self._construction_algo


def _check_repetitions_type(repetitions: Repetitions) -> None:
    if repetitions is None or isinstance(repetitions, (int, list, dict)):
        if isinstance(repetitions, list) and not all(isinstance(r, int) for r in repetitions):
            raise PretrainError("pretrain option 'repetitions': expected a list of ints, got %r" % (repetitions,))
        if isinstance(repetitions, dict):
            bad = [k for k in repetitions if not (k in ("default", "final") or isinstance(k, int))]
            if bad:
                raise PretrainError("pretrain option 'repetitions': dict keys must be 'default', 'final' or network "
                                    "indices (int), got %r" % (bad,))
        return
    raise PretrainError("pretrain option 'repetitions': expected an int, a list of ints or a dict "
                        "{'default': n, 'final': n, idx: n}, got %r" % (repetitions,))


def _repetition_of(repetitions: Repetitions, idx: int, num_nets: Optional[int], net: NetDict) -> int:
    """Repetitions of network ``idx`` (of ``num_nets``, None when not known yet), ``#repetition`` included."""
    if "#repetition" in net:
        return net["#repetition"]
    if not repetitions:
        return 1
    if isinstance(repetitions, int):
        return repetitions
    if isinstance(repetitions, list):
        return repetitions[idx] if idx < len(repetitions) else repetitions[-1]
    if num_nets is None:  # not known yet (for messages): the entries known at this point
        return repetitions.get(idx, repetitions.get("default", 1))
    return _dict_repetitions(repetitions, num_nets)[idx]


def _dict_repetitions(repetitions: Dict[Any, int], num_nets: int) -> List[int]:
    """``{"default": d, "final": f, idx: n}`` → one entry per network. The reference sorts the keys other than
    ``"default"``, so ``"final"`` and indices cannot be mixed; an index must be a valid list index."""
    rest = {k: v for k, v in repetitions.items() if k != "default"}
    out = [repetitions.get("default", 1)] * num_nets
    if "final" in rest and len(rest) > 1:
        raise PretrainError("pretrain option 'repetitions': %r mixes 'final' with network indices (the reference "
                            "fails on this; write the final network's index %i instead of 'final')"
                            % (repetitions, num_nets - 1))
    for key, value in rest.items():
        if key == "final":
            out[-1] = value
        elif -num_nets <= key < num_nets:
            out[key] = value
        else:
            raise PretrainError("pretrain option 'repetitions': %r: index %r, but the construction gives %i "
                                "network(s) (indices 0 .. %i, the last one being the final network)"
                                % (repetitions, key, num_nets, num_nets - 1))
    return out


def _make_repetitions(repetitions: Repetitions, nets: List[NetDict]) -> List[int]:
    if isinstance(repetitions, list) and len(repetitions) > len(nets):
        raise PretrainError("pretrain option 'repetitions': %r has %i entries but the construction gives %i network(s)"
                            " (one entry per network, the last one being the final network)"
                            % (repetitions, len(repetitions), len(nets)))
    out = []
    for idx, net in enumerate(nets):
        count = _repetition_of(repetitions, idx, len(nets), net)
        net.pop("#repetition", None)
        if not isinstance(count, int):
            raise PretrainError("pretrain: the repetitions of network %i must be an int, got %r" % (idx, count))
        out.append(count)
    return out


def pretrain_from_config(config) -> Optional[Pretrain]:
    """:func:`pretrain_from_options` of ``config`` parsed as :class:`~returnn.options.pretrain.PretrainOptions`."""
    from returnn.options.pretrain import PretrainOptions

    return pretrain_from_options(PretrainOptions.from_config(config))


def pretrain_from_options(options) -> Optional[Pretrain]:
    """The :class:`Pretrain` of the parsed :class:`~returnn.options.pretrain.PretrainOptions`, or None when
    ``pretrain`` is unset/empty/False.

    ``pretrain`` is ``"default"`` (or True) or a dict of :class:`Pretrain` options; ``construction_algo``,
    ``repetitions``, ``greedy`` and ``copy_output_layer`` not in the dict are taken from the config keys
    ``pretrain_<option>`` when set (as the reference). The final network is config ``network``.

    :raises ConfigValueError: ``pretrain`` has another value, or ``network`` is not set
    :raises PretrainOptionError: unknown key in the ``pretrain`` dict (with suggestions)
    :raises PretrainError: see :class:`Pretrain`
    """
    from returnn.errors import ConfigValueError
    from returnn.util.suggest import close_matches

    value = options.pretrain
    if isinstance(value, (list, tuple)) and len(value) == 1:
        value = value[0]
    if isinstance(value, dict) and value:
        opts = dict(value)
    elif value is True or value == "default":
        opts = {}
    elif value is None or value is False or (isinstance(value, (int, str, dict)) and not value):
        return None
    else:
        raise ConfigValueError("pretrain", expected="'default', True, a dict of pretrain options "
                                                    "(%s) or None" % ", ".join(OPTIONS), got=value)
    for key in opts:
        if key not in OPTIONS:
            raise PretrainOptionError("config key 'pretrain': unknown option %r (options: %s)%s" % (
                key, ", ".join(OPTIONS), "".join("\n  did you mean: %r?" % s for s in close_matches(key, OPTIONS)[:1])))
    for key in CONFIG_KEY_OPTIONS:
        if key not in opts and getattr(options, "pretrain_" + key) is not None:
            opts[key] = getattr(options, "pretrain_" + key)
    if options.network is None:
        raise ConfigValueError("network", expected="the final network dict for 'pretrain' (a 'get_network' function "
                                                   "is not used for it)", got=None)
    return Pretrain(original_network_json=options.network, **opts)
