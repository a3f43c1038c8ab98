"""Which layer dicts may omit "from" once the behavior version requires it (observed with the reference, latest
behavior_version): layers without inputs and layers naming their inputs in other options are exempt."""
import pytest

from returnn.util.basic import BehaviorVersion
from tf_net_helpers import build_net

EXTERN = {"data": {"dim": 3}, "classes": {"dim": 3, "sparse": True}}


def test_edit_distance_without_from_builds(session, latest_behavior):
    net = build_net({"argmax": {"class": "reduce", "from": "data", "axis": "F", "mode": "argmax"},
                     "output": {"class": "edit_distance", "a": "argmax", "b": "data:classes"}}, EXTERN)
    assert net.get_layer("output").output.batch_ndim == 1


@pytest.mark.parametrize("desc", [{"class": "copy"}, {"class": "length"}])
def test_missing_from_raises_for_layers_with_sources(session, latest_behavior, desc):
    with pytest.raises(BehaviorVersion.RequirementNotSatisfied, match='Missing "from" in layer definition: /output'):
        build_net({"output": dict(desc)}, EXTERN)
