"""Tests for the messages of returnn.errors classes."""

from returnn.errors import DataFileError, LayerArgError, UnknownNameError


def test_data_file_error_message():
    err = DataFileError("x.hdf", "not an HDF5 file")
    assert str(err) == "data file 'x.hdf': not an HDF5 file"
    assert isinstance(err, OSError)


def test_unknown_name_error_is_lookup_error_with_plain_message():
    err = UnknownNameError(kind="dataset class", name="HDFDatset", suggestions=["HDFDataset"])
    assert isinstance(err, LookupError)
    assert str(err) == "unknown dataset class 'HDFDatset'\n  did you mean: 'HDFDataset'?"


def test_layer_arg_error_fields():
    err = LayerArgError(layer="encoder", layer_class="rec", arg="n_ot", problem="unknown argument",
                        suggestions=["n_out"])
    assert isinstance(err, TypeError) and err.arg == "n_ot"
    assert str(err).splitlines() == ['layer \'encoder\' {"class": "rec"}: unknown argument \'n_ot\'',
                                     "  did you mean: 'n_out'?"]
