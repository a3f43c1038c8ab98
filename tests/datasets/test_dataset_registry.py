"""returnn.datasets.registry: registration as for layers (the family module imports every registering module;
each name is registered once)."""

import ast
import pathlib

import pytest

import returnn.datasets
from returnn.datasets.dataset import Dataset
from returnn.datasets.registry import (DatasetClassRegistrationError, get_dataset_class, get_dataset_class_names,
                                       register_dataset)
from returnn.errors import UnknownNameError

PACKAGE_DIR = pathlib.Path(returnn.datasets.__file__).parent


def _registering_modules():
    """Modules of returnn/datasets (not the registry itself) that call or decorate with register_dataset."""
    found = set()
    for path in PACKAGE_DIR.rglob("*.py"):
        if path.name == "registry.py":
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id == "register_dataset" and isinstance(node.ctx, ast.Load):
                rel = path.relative_to(PACKAGE_DIR.parent.parent).with_suffix("")
                found.add(".".join(rel.parts))
    return found


def _family_imports():
    tree = ast.parse((PACKAGE_DIR / "families.py").read_text())
    return {alias.name for node in tree.body if isinstance(node, ast.Import) for alias in node.names}


def test_family_module_imports_every_registering_module():
    registering = _registering_modules() - {"returnn.datasets.basic"}  # basic re-exports the decorator only
    assert "returnn.datasets.hdf_reader" in registering and "returnn.datasets.unsupported" in registering
    missing = registering - _family_imports()
    assert not missing, f"returnn/datasets/families.py does not import {sorted(missing)}"


def test_all_builtin_names_after_the_family_import():
    names = get_dataset_class_names()
    for name in ["HDFDataset", "MetaDataset", "CombinedDataset", "ExternSprintDataset", "LmDataset",
                 "OggZipDataset", "MultiProcDataset", "DistributeFilesDataset", "NextGenHDFDataset", "Task12AXDataset"]:
        assert name in names, name
    assert get_dataset_class("HDFDataset").__name__ == "HDFDataset"
    with pytest.raises(UnknownNameError, match="HDFDataset"):
        get_dataset_class("HDFDatset")


def test_a_taken_name_raises_naming_both_classes():
    existing = get_dataset_class("HDFDataset")

    class HDFDataset(Dataset):
        pass

    with pytest.raises(DatasetClassRegistrationError, match=r"'HDFDataset'.*already taken by returnn\.datasets\."
                                                            r"hdf_reader\.HDFDataset"):
        register_dataset(HDFDataset)
    assert get_dataset_class("HDFDataset") is existing  # unchanged
    assert register_dataset(existing) is existing  # the same class again: no error
