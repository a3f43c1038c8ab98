"""Search levels of a rec unit's layers: in whose hypotheses' rows a layer's value is, in a step and between steps.

With ``L`` choices in one step (``choice_j``, ``j = 1..L``, in the order the step runs them), level ``j`` of a step
are the hypotheses of ``choice_j`` and level 0 those the step starts with (the previous step's ``choice_L``'s). A
``prev:X`` value, from the step before, may be in the rows of an earlier choice of that step: level ``j - L``
(``-L < j - L <= 0``) of the current step is level ``j`` of the step before.

- :func:`latest_choice`: ``T(X)``, the latest choice (``1..L``) a layer depends on, in its step or through
  ``prev:`` (0: none, the value is the same in all hypotheses of a sequence). As the reference (observed), a layer
  keeps the rows of that choice, also across steps: ``prev:X`` has the rows of ``choice_T(X)`` of the step before
  (e.g. with two choices, ``prev:lin2`` of a layer after the first has the first choice's ``K1`` rows).
- :func:`stored_level`: the level in which a layer's value is carried to the next step (``T(X)``, or ``L`` for
  ``T(X) = 0``); ``prev:X`` is then at level ``stored_level(X) - L`` of the next step (0 with one choice: the
  previous step's hypotheses).
- :func:`step_levels`: the level of each layer in its step: a choice's index, else the highest level among what it
  reads (same-step layers, ``prev:`` values, its own state), 0 when it reads none of them.
"""

from __future__ import annotations

from typing import Any, Dict, List


def latest_choice(layers: Dict[str, Any], choices: List[str]) -> Dict[str, int]:
    """:param layers: name -> template layer (``deps``: same-step names, ``prev_deps``: names read as ``prev:``)
    :param choices: the choice layers in the order a step runs them
    :return: name -> ``T``: index (1-based) of the latest choice the layer depends on (0: none)"""
    index = {name: j + 1 for j, name in enumerate(choices)}
    latest = {name: index.get(name, 0) for name in layers}
    changed = True
    while changed:  # a fixed point: prev: dependencies may form cycles
        changed = False
        for name, layer in layers.items():
            if name in index:
                continue
            value = max([latest[dep] for dep in list(layer.deps) + list(layer.prev_deps) if dep in latest] + [0])
            if value > latest[name]:
                latest[name] = value
                changed = True
    return latest


def stored_level(latest: Dict[str, int], num_choices: int) -> Dict[str, int]:
    """:return: name -> the level (``1..L``) in which the layer's value is handed to the next step"""
    return {name: value if value else num_choices for name, value in latest.items()}


def step_levels(layers: Dict[str, Any], choices: List[str], prev_level: Dict[str, int],
                stateful: Any) -> Dict[str, int]:
    """:param prev_level: name -> the level of ``prev:name`` (and of the layer's carried state) in a step
    :param stateful: the names of layers with a state carried from step to step
    :return: name -> the layer's level in its step (``-L..L``)"""
    index = {name: j + 1 for j, name in enumerate(choices)}
    levels: Dict[str, int] = {}

    def level_of(name: str) -> int:
        if name in levels:
            return levels[name]
        if name in index:
            levels[name] = index[name]
            return levels[name]
        layer = layers[name]
        read = [level_of(dep) for dep in layer.deps if dep in layers]
        read += [prev_level[dep] for dep in layer.prev_deps if dep in prev_level]
        if name in stateful:
            read.append(prev_level[name])
        levels[name] = max(read) if read else 0
        return levels[name]

    for name in layers:
        level_of(name)
    return levels
