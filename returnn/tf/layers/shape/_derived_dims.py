"""Dims derived from other dims by arithmetic (``T * 2``, ``F // 2``, ``ceildiv(T, 3)``, ``T + 1``), for the layers.

The layers use the same functions as :class:`returnn.tensor.Dim`'s operators (:mod:`returnn.tensor._dim_math`),
so a layer's ``F // 2`` is the same Dim object as a config's ``feature_dim // 2``: reference descriptions
(``'feature:data//2'``, ``'time*2+1'``, ``'-1+time*2'``, ``'⌈time/2⌉'``), caching per operand and graph, static
sizes and lazily derived lengths.
"""

from returnn.tensor._dim_math import dim_add as dim_add
from returnn.tensor._dim_math import dim_add_left as dim_add_left
from returnn.tensor._dim_math import dim_ceildiv as dim_ceildiv
from returnn.tensor._dim_math import dim_floordiv as dim_floordiv
from returnn.tensor._dim_math import dim_mul as dim_mul
from returnn.tensor._dim_math import dim_mul_left as dim_mul_left
from returnn.tensor._dim_math import dim_product as dim_product
from returnn.tensor._dim_math import dim_sum as dim_sum
