import returnn
from returnn.util.basic import describe_returnn_version, describe_tensorflow_version, get_tensorflow_version_tuple


def test_versions():
    import tensorflow as tf

    assert describe_returnn_version() == returnn.__long_version__
    assert describe_tensorflow_version().startswith(tf.__version__ + " (")
    assert ".".join(map(str, get_tensorflow_version_tuple())) in tf.__version__
