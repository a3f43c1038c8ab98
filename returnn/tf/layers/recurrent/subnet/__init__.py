"""Recurrent subnetworks: ``{"class": "rec", "unit": {<layer dicts>}}`` (the reference's ``_SubnetworkRecCell``).

Importing this package registers :class:`returnn.tf.layers.recurrent.subnet.rec_subnet.RecLayer` as ``"rec"``:
the string-unit ``rec`` layer extended by dict units.
"""

from returnn.tf.layers.recurrent.subnet.cell import SubnetworkRecCell as SubnetworkRecCell  # noqa: F401
from returnn.tf.layers.recurrent.subnet.rec_subnet import RecLayer as RecLayer  # noqa: F401

_SubnetworkRecCell = SubnetworkRecCell
