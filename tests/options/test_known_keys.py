"""The known-key set stays complete: every config key the code reads (found by a scan of returnn/, tools/ and rnn.py)
is declared, in an options group or in returnn.options.known_keys.OTHER_KEYS."""

from __future__ import annotations

import os

from returnn.options.key_scan import keys_in_source, scan
from returnn.options.known_keys import ACCEPTED_WITHOUT_EFFECT, OTHER_KEYS, declared_keys, known_keys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _read_keys():
    return scan([os.path.join(ROOT, "returnn"), os.path.join(ROOT, "tools"), os.path.join(ROOT, "rnn.py")])


def test_every_key_read_is_declared():
    found = _read_keys()
    undeclared = {key: sorted(os.path.relpath(f, ROOT) for f in files) for key, files in found.items()
                  if key not in declared_keys() and key not in OTHER_KEYS}
    assert not undeclared, ("config keys read but not declared (add them to an options group in returnn/options/ "
                            "or to returnn.options.known_keys.OTHER_KEYS): %r" % undeclared)


def test_other_keys_are_read_somewhere():
    """OTHER_KEYS lists keys that code outside the options groups reads: none is stale."""
    found = _read_keys()
    assert not [key for key in OTHER_KEYS if key not in found]


def test_tables_do_not_overlap():
    declared = declared_keys()
    assert not declared & set(OTHER_KEYS) and not declared & set(ACCEPTED_WITHOUT_EFFECT)
    assert not set(OTHER_KEYS) & set(ACCEPTED_WITHOUT_EFFECT)
    assert {"batch_size", "num_epochs", "learning_rate_control", "log_verbosity", "use_tensorflow",
            "num_epochs", "window"} <= known_keys()


def test_scan_finds_the_read_forms():
    source = '''
config.int("a", 1)
self.config.typed_value("b")
get_global_config().bool("c", False)
self.network.get_config().value("d", None)
cfg.has("e")
config.typed_dict.get("f")
config.typed_dict["g"]
opts.get("not_a_key")
some_dict.value("not_either")
config.int(key_variable, 1)
'''
    assert keys_in_source(source) == {"a", "b", "c", "d", "e", "f", "g"}
