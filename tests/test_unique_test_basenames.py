"""pytest imports test files without packages by their basename: two test files of one name in different folders
break the collection of the whole suite ("import file mismatch"). Each test file's name must be unique."""

import collections
import os

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))


def test_test_file_basenames_are_unique():
    by_name = collections.defaultdict(list)
    for root, dirs, files in os.walk(TESTS_DIR):
        dirs[:] = [d for d in dirs if not d.startswith((".", "__"))]
        for name in files:
            if name.startswith("test_") and name.endswith(".py"):
                by_name[name].append(os.path.relpath(os.path.join(root, name), TESTS_DIR))
    clashes = {name: paths for name, paths in by_name.items() if len(paths) > 1}
    assert not clashes, f"test files with the same name in different folders: {clashes}"
