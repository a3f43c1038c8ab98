"""``ControlFlowContext``: the loop or branch of a conditional a tensor lives in (``Tensor.control_flow_ctx``).

Backend-free. Follows the reference's ``returnn.tensor.ControlFlowContext`` as observed: keyword-only constructor
``ControlFlowContext(kind=..., identifier=..., outer_ctx=None)``; ``kind`` is one of ``Types.Loop`` (``"loop"``),
``Types.CondTrue`` (``"cond-true"``), ``Types.CondFalse`` (``"cond-false"``); ``repr`` lists the kinds from the
outermost context, e.g. ``ControlFlowContext{loop/loop}``; equality is identity.
"""

from __future__ import annotations

from typing import Any, List, Optional

from returnn.errors import TensorArgError


class ControlFlowContext:
    """One level of control flow (a loop, or one branch of a conditional).

    :param kind: ``ControlFlowContext.Types.Loop``, ``.CondTrue`` or ``.CondFalse``
    :param identifier: a name for this context (e.g. the rec layer's name)
    :param outer_ctx: the context this one is nested in, or None for the top level
    :raises TensorArgError: an unknown kind
    """

    class Types:
        """The kinds of contexts (plain strings)."""

        Loop = "loop"
        CondTrue = "cond-true"
        CondFalse = "cond-false"

    def __init__(self, *, kind: str, identifier: str, outer_ctx: Optional[ControlFlowContext] = None):
        if kind not in (self.Types.Loop, self.Types.CondTrue, self.Types.CondFalse):
            raise TensorArgError("ControlFlowContext(kind=...)", "unknown kind", got=kind,
                                 expected="'loop', 'cond-true' or 'cond-false'")
        if outer_ctx is not None and not isinstance(outer_ctx, ControlFlowContext):
            raise TensorArgError("ControlFlowContext(outer_ctx=...)", "expected a ControlFlowContext or None",
                                 got=outer_ctx)
        self.kind = kind
        self.identifier = identifier
        self.outer_ctx = outer_ctx
        self.loop_spatial_dim: Any = None  # for a loop: the Dim it iterates over, if known
        self.raw_control_flow_ctx: Any = None  # the backend's own context object, if any

    def __repr__(self) -> str:
        return f"ControlFlowContext{{{self.repr_inner()}}}"

    def repr_inner(self) -> str:
        """:return: the kinds from the outermost context to this one, joined by ``/``"""
        return "/".join(ctx.kind for ctx in self.abs_ctx_stack(self))

    def is_loop(self) -> bool:
        return self.kind == self.Types.Loop

    def is_cond(self) -> bool:
        return self.kind in (self.Types.CondTrue, self.Types.CondFalse)

    @staticmethod
    def abs_ctx_stack(ctx: Optional[ControlFlowContext]) -> List[ControlFlowContext]:
        """:return: the contexts from the outermost one down to ``ctx`` (empty for None)"""
        stack: List[ControlFlowContext] = []
        while ctx is not None:
            stack.insert(0, ctx)
            ctx = ctx.outer_ctx
        return stack

    @staticmethod
    def abs_ctx_stack_with_root(ctx: Optional[ControlFlowContext]) -> List[Optional[ControlFlowContext]]:
        """:return: ``[None]`` (the top level) followed by :meth:`abs_ctx_stack`"""
        return [None, *ControlFlowContext.abs_ctx_stack(ctx)]

    @staticmethod
    def is_parent_or_same(parent: Optional[ControlFlowContext], child: Optional[ControlFlowContext]) -> bool:
        """:return: whether ``parent`` is ``child`` or one of its outer contexts (None is everyone's parent)"""
        if parent is None:
            return True
        return parent in ControlFlowContext.abs_ctx_stack(child)

    @staticmethod
    def collect_parent_dims(ctx: Optional[ControlFlowContext]) -> List[Any]:
        """:return: the loop dims of ``ctx`` and its outer loops (outermost first), where known"""
        return [c.loop_spatial_dim for c in ControlFlowContext.abs_ctx_stack(ctx)
                if c.is_loop() and c.loop_spatial_dim is not None]
