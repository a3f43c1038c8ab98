import io
import pickle

import pytest

from returnn.util.task_system import Pickler, Unpickler


def _roundtrip(obj):
    buf = io.BytesIO()
    Pickler(buf).dump(obj)
    return Unpickler(io.BytesIO(buf.getvalue())).load()


def test_plain_pickle_cannot_store_a_local_class():
    class Local:
        pass

    with pytest.raises((pickle.PicklingError, AttributeError)):
        pickle.dumps(Local)


def test_local_class_by_value_with_super_and_closure():
    offset = 10

    class Base:
        def f(self, x):
            return x + 1

    class Derived(Base):
        kind = "derived"

        def f(self, x):
            return super().f(x) + offset

    cls = _roundtrip(Derived)
    assert cls is not Derived and cls.__name__ == "Derived" and cls.kind == "derived"
    assert cls().f(1) == 12
    assert cls.__bases__[0].__name__ == "Base"


def test_instance_of_local_class_keeps_its_state():
    class Point:
        def __init__(self, x):
            self.x = x

        def norm1(self):
            return abs(self.x)

    p = _roundtrip(Point(-3))
    assert p.x == -3 and p.norm1() == 3


def test_recursive_local_function_and_defaults():
    def fact(n, step=1):
        return 1 if n <= 1 else n * fact(n - step)

    f = _roundtrip(fact)
    assert f is not fact and f(5) == 120 and f.__defaults__ == (1,)


def test_importable_names_stay_references():
    buf = io.BytesIO()
    Pickler(buf).dump(io.BytesIO)
    assert buf.getvalue() == pickle.dumps(io.BytesIO, protocol=pickle.DEFAULT_PROTOCOL)
    assert _roundtrip("\u00e2") == "\u00e2"
