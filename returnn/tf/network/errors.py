"""Network construction errors (names kept from the reference: ``NetworkLayerException``, ``LayerNotFound``,
``NetworkConstructionDependencyLoopException``; ``CannotHandleUndefinedSourcesException`` of older versions)."""

from __future__ import annotations

from typing import Optional, Sequence

from returnn.errors import ConfigError, _reduce_error, format_details


class NetworkLayerException(ConfigError):
    """A problem with one layer of the network dict.

    :param message: what is wrong
    :param layer_name: the layer
    :param network: the network (for its name)
    """

    def __init__(self, message: str, layer_name: str = "?", network: object = None):
        self.layer_name = layer_name
        self.network = network
        self.message = message
        super().__init__(message)


class LayerNotFound(NetworkLayerException, LookupError):
    """``from``/``target``/... names a layer that does not exist. Lists close names."""

    def __init__(self, message: str, layer_name: str = "?", network: object = None,
                 suggestions: Sequence[str] = (), referenced_by: Optional[str] = None):
        self.suggestions = tuple(suggestions)
        self.referenced_by = referenced_by
        text = message
        if self.suggestions:
            text += "\n  did you mean: " + ", ".join(repr(s) for s in self.suggestions) + "?"
        super().__init__(text, layer_name=layer_name, network=network)

    def __str__(self) -> str:
        return self.args[0]


class NetworkConstructionDependencyLoopException(NetworkLayerException):
    """Layers depend on each other in a cycle; the message shows the construction stack."""

    def __init__(self, network: object, layer_name: str, constructing_layers: Sequence[str], net_dict: object = None):
        self.constructing_layers = list(constructing_layers)
        self.net_dict = net_dict  # the layer dicts the network was constructing from
        cycle = self.constructing_layers[self.constructing_layers.index(layer_name):] + [layer_name]
        text = (f"{network}: Error: There is a dependency loop on layer {layer_name!r}: "
                + " -> ".join(repr(n) for n in cycle)
                + "\nConstruction stack (most recent first):\n"
                + "\n".join(f"  {n}" for n in reversed(self.constructing_layers)))
        super().__init__(text, layer_name=layer_name, network=network)


class NotInsideRecLoopError(NetworkLayerException, AssertionError):
    """``network.get_rec_step_info()`` / ``get_rec_step_index()`` outside of the loop of a rec layer (the
    reference asserts; ``except AssertionError`` still catches this)."""

    def __init__(self, message: str, layer_name: str = "?", network: object = None):
        hint = ("only layers inside a rec layer's unit (run per step) have a step index; "
                "get_rec_step_info(must_exist=False) returns None instead")
        super().__init__("\n".join([message] + format_details(hint=hint)), layer_name=layer_name, network=network)


class CannotHandleUndefinedSourcesException(NetworkLayerException):
    """Raised by a layer's ``get_out_data_from_opts`` (custom layers of older configs) when it cannot infer its
    output because its sources are not defined yet. Kept for configs that import it (``from TFNetwork import
    CannotHandleUndefinedSourcesException``); the current reference no longer has it.

    :param layer_name: the layer
    :param layer_desc: its kwargs
    :param extended_info_str: extra text for the message
    """

    def __init__(self, layer_name: str, layer_desc: object = None, extended_info_str: str = None):
        self.layer_desc = layer_desc
        text = f"{layer_name!r}: cannot handle undefined sources without defined out_type."
        if extended_info_str:
            text += "\n" + extended_info_str
        super().__init__(text, layer_name=layer_name)


for _cls in (NetworkLayerException, LayerNotFound, NetworkConstructionDependencyLoopException,
             NotInsideRecLoopError, CannotHandleUndefinedSourcesException):
    _cls.__reduce__ = _reduce_error  # type: ignore[method-assign]  (errors survive pickling, e.g. across processes)
