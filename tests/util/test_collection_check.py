import pytest

from returnn.util.basic import CollectionReadCheckCovered


def test_truth_values():
    assert CollectionReadCheckCovered.from_bool_or_dict(True).truth_value
    assert not CollectionReadCheckCovered.from_bool_or_dict(False)
    assert not CollectionReadCheckCovered.from_bool_or_dict({})
    assert CollectionReadCheckCovered.from_bool_or_dict({"a": "b"})
    with pytest.raises(TypeError):
        CollectionReadCheckCovered.from_bool_or_dict(1)


def test_assert_all_read():
    c = CollectionReadCheckCovered({"a": 1, "b": 2})
    assert c.get("a") == 1 and c.get("x", 5) == 5
    with pytest.raises(AssertionError, match="The keys {'b'} were not read"):  # the reference's message
        c.assert_all_read()
    assert c["b"] == 2
    c.assert_all_read()
