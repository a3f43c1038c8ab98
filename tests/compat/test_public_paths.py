"""The reference's public module paths and the names user configs and scripts import from them stay importable."""

import importlib

import pytest

PUBLIC_NAMES = {
    "returnn.config": ["Config", "get_global_config", "set_global_config", "global_config_ctx"],
    "returnn.log": ["log", "Log", "Stream"],
    "returnn.util.basic": ["get_login_username", "NumbersDict", "hms", "hms_fraction", "human_bytes_size",
                           "BackendEngine", "BehaviorVersion"],
    "returnn.util.better_exchook": ["better_exchook", "install"],
    "returnn.__main__": ["main", "init", "execute_main_task", "finalize", "config", "engine"],
    "returnn.datasets": ["init_dataset", "Dataset"],
    "returnn.datasets.basic": ["Dataset", "DatasetSeq", "init_dataset", "get_dataset_class"],
    "returnn.datasets.generating": ["GeneratingDataset", "Task12AXDataset", "DummyDataset", "CopyTaskDataset",
                                    "TaskNumberBaseConvertDataset", "StaticDataset",
                                    "DummyDatasetMultipleSequenceLength"],
    "returnn.datasets.hdf": ["HDFDataset", "SimpleHDFWriter"],
    "returnn.datasets.meta": ["MetaDataset", "ConcatDataset", "CombinedDataset"],
    "returnn.datasets.lm": ["LmDataset", "TranslationDataset"],
    "returnn.tensor": ["Tensor", "Dim", "batch_dim"],
    "returnn.tf.util.data": ["Data", "Dim", "DimensionTag", "batch_dim", "SpatialDim", "FeatureDim"],
    "returnn.tf.network": ["TFNetwork", "ExternData", "LayerNotFound", "NetworkConstructionDependencyLoopException"],
    "returnn.tf.layers.base": ["LayerBase", "Loss"],
    "returnn.tf.layers.basic": ["LayerBase", "_ConcatInputLayer", "get_layer_class", "register_layer_class",
                                "LinearLayer", "SoftmaxLayer", "CopyLayer", "CombineLayer", "EvalLayer",
                                "ReduceLayer", "ConvLayer", "PoolLayer", "SubnetworkLayer", "DotLayer",
                                "SoftmaxOverSpatialLayer", "CrossEntropyLoss", "CtcLoss", "MeanSquaredError"],
    "returnn.tf.layers.rec": ["RecLayer", "_SubnetworkRecCell", "RnnCellLayer", "ChoiceLayer", "DecideLayer",
                              "GetLastHiddenStateLayer", "SelfAttentionLayer", "GenericAttentionLayer"],
    "returnn.tf.engine": ["Engine", "Runner", "CancelTrainingException", "get_global_engine"],
    "returnn.tf.updater": ["Updater", "get_optimizer_class"],
    "returnn.learning_rate_control": ["LearningRateControl", "load_learning_rate_control_from_config",
                                      "ConstantLearningRate", "NewbobRelative", "NewbobAbs", "NewbobMultiEpoch"],
    "returnn.forward_iface": ["ForwardCallbackIface"],
}


@pytest.mark.parametrize("module_name", sorted(PUBLIC_NAMES))
def test_public_names_importable(module_name):
    module = importlib.import_module(module_name)
    missing = [name for name in PUBLIC_NAMES[module_name] if not hasattr(module, name)]
    assert not missing, f"{module_name} lacks {missing}"


def test_star_import_of_shims_keeps_layer_names():
    namespace = {}
    exec("from returnn.tf.layers.basic import *", namespace)
    assert "LinearLayer" in namespace and "get_layer_class" in namespace


def test_registered_rec_layer_is_the_public_one():
    from returnn.tf.layers.basic import get_layer_class
    from returnn.tf.layers.rec import RecLayer

    assert get_layer_class("rec") is RecLayer
