from returnn.util.basic import (camel_case_to_snake_case, collect_class_init_kwargs,
                                collect_mandatory_class_init_kwargs, getargspec, next_type_attrib_in_mro_chain,
                                simple_obj_repr, try_get_caller_name, type_attrib_mro_chain)


class _A:
    def __init__(self, a, x=1):
        pass


class _B(_A):
    def __init__(self, b, **kwargs):
        super().__init__(**kwargs)


class _C(_B):
    def __init__(self, b, c=3, *args, **kwargs):
        super().__init__(b=b, **kwargs)


def test_collect_class_init_kwargs():
    assert collect_class_init_kwargs(_C) == ["b", "c", "a", "x"]
    assert list(collect_class_init_kwargs(_C, only_with_default=True).items()) == [("c", 3), ("x", 1)]
    assert collect_mandatory_class_init_kwargs(_C) == ["b", "a"]


def test_mro_chain():
    class Base:
        def method(self):
            return 1

    class Foo(Base):
        def method(self):
            return 2

    class Bar(Foo):
        pass

    assert type_attrib_mro_chain(Bar, "method") == [Foo.method, Base.method]
    assert next_type_attrib_in_mro_chain(Bar, "method", Foo.method) == Base.method


def test_simple_obj_repr():
    class X:
        def __init__(self, a, b=13):
            self.a = a
            self.b = b

        __repr__ = simple_obj_repr

    assert repr(X(a=[1])) == "X(a=[1], b=13)"


def test_caller_name_and_argspec():
    def sub():
        return try_get_caller_name()

    assert sub() == "test_caller_name_and_argspec"
    assert try_get_caller_name(depth=10000, fallback="x") == "x"
    assert getargspec(lambda a, b=1: 0).args == ["a", "b"]


def test_camel_case_to_snake_case():
    assert camel_case_to_snake_case("CamelCaseOp") == "camel_case_op"
    assert camel_case_to_snake_case("HTTPServerX") == "http_server_x"  # observed in the reference
    assert camel_case_to_snake_case("abcDef") == "abc_def"
