"""Names of RF call sites as the reference's ``tensorflow-net-dict`` backend gives its layers, for the variables that
belong to a call site rather than to a parameter: the state of a random op (``<scope>/random/random_generator/
StateVar``, observed in the reference's checkpoints, e.g. ``encoder/layers/0/ffn1/cond/random/random_generator/
StateVar`` for the dropout in a conformer layer's first feed-forward module).

A scope is the root, a module call or an ``rf.cond``. A module call is named by the module's attribute path relative
to the module whose call it is in (``layers.0`` → ``layers/0``; the root module's own call adds nothing); within a
scope, the first use of a name is the name itself, the following ones get ``_0``, ``_1``, ... (``cond``, ``cond_0``,
``cond_1``: the four dropouts of a conformer layer). Module calls are found on the Python stack (frames of a module's
``__call__``; the module class stays as it is); ``rf.cond`` pushes its scope explicitly (:func:`cond_scope`).

Naming is active only between :func:`activate` and :func:`deactivate` (the engine does this while it builds an RF
model's step function); otherwise :func:`random_state_name` gives None.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any, Dict, Iterator, List, Optional, Tuple

__all__ = ["activate", "deactivate", "is_active", "cond_scope", "random_state_name"]


class _Scope:
    """A named scope with the counters of the names used in it."""

    def __init__(self, path: str):
        self.path = path
        self.counts: Dict[str, int] = {}

    def unique(self, base: str) -> str:
        """:return: ``base`` the first time, then ``base_0``, ``base_1``, ..."""
        n = self.counts.get(base, 0)
        self.counts[base] = n + 1
        return base if n == 0 else f"{base}_{n - 1}"

    def child(self, name: str) -> str:
        return f"{self.path}/{name}" if self.path else name


class _State:
    def __init__(self, root_module: Any):
        from returnn.frontend.module import Module
        self.module_cls = Module
        self.root = _Scope("")
        self.root_module = root_module
        self.paths: Dict[int, str] = {id(m): path for path, m in root_module.named_modules()}
        self.module_scopes: Dict[int, Tuple[Any, _Scope]] = {}  # id(frame) -> (frame, scope)
        self.conds: List[Tuple[int, _Scope]] = []  # (number of module frames around it, scope)


_state: List[Optional[_State]] = [None]


def activate(root_module: Any) -> None:
    """Names call sites in the calls of ``root_module`` (an ``rf.Module``) and its sub-modules from now on."""
    _state[0] = _State(root_module)


def deactivate() -> None:
    """Stops naming (and drops the references to the frames of the module calls)."""
    _state[0] = None


def is_active() -> bool:
    return _state[0] is not None


def _module_frames(state: _State) -> List[Tuple[Any, Any]]:
    """:return: (frame, module) of the module calls on the stack, outermost first (one per call: a ``super()``
    call of the same module is the same call); the root module's call and modules outside the model are left out"""
    out: List[Tuple[Any, Any]] = []
    frame = sys._getframe(2)  # noqa: SLF001 (the callers of this module's functions are not module calls)
    while frame is not None:
        if frame.f_code.co_name == "__call__":
            module = frame.f_locals.get("self")
            if isinstance(module, state.module_cls) and module is not state.root_module and \
                    id(module) in state.paths:
                if out and out[-1][1] is module:
                    out[-1] = (frame, module)  # the outer frame of the same call
                else:
                    out.append((frame, module))
        frame = frame.f_back
    out.reverse()
    return out


def _current_scope(state: _State) -> Tuple[_Scope, int]:
    """:return: the innermost scope (module calls on the stack, conds pushed within them), and the number of module
    calls on the stack"""
    frames = _module_frames(state)
    scope = state.root
    parent_path = ""
    conds = list(state.conds)
    for depth, (frame, module) in enumerate(frames):
        while conds and conds[0][0] <= depth:
            scope = conds.pop(0)[1]
        entry = state.module_scopes.get(id(frame))
        if entry is None or entry[0] is not frame:
            path = state.paths[id(module)]
            rel = path[len(parent_path) + 1:] if parent_path and path.startswith(parent_path + ".") else path
            entry = (frame, _Scope(scope.child(scope.unique(rel.replace(".", "/")))))
            state.module_scopes[id(frame)] = entry
        scope = entry[1]
        parent_path = state.paths[id(module)]
    for _, cond in conds:
        scope = cond
    return scope, len(frames)


@contextlib.contextmanager
def cond_scope() -> Iterator[None]:
    """The scope of an ``rf.cond`` (named ``cond``, ``cond_0``, ...) while its branches are built."""
    state = _state[0]
    if state is None:
        yield
        return
    scope, depth = _current_scope(state)
    state.conds.append((depth, _Scope(scope.child(scope.unique("cond")))))
    try:
        yield
    finally:
        state.conds.pop()


def random_state_name() -> Optional[str]:
    """:return: the variable name of the random generator state of a random op here
        (``<scope>/random[_N]/random_generator/StateVar``), or None when naming is not active"""
    state = _state[0]
    if state is None:
        return None
    scope, _ = _current_scope(state)
    return scope.child(scope.unique("random")) + "/random_generator/StateVar"
