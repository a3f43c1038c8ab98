"""``tools/dump-network-json.py``: the network dict of a config (of a pretrain epoch, when the config has
``pretrain``) as JSON, as the reference writes it: keys sorted, indent 2, non-ASCII escaped, a final newline."""

from __future__ import annotations

import json
from typing import Any, Dict, Optional

from returnn.errors import ConfigValueError

#: the line the reference's tool prints first (it names ``dump-dataset``, as observed); it is a log line there (left out
#: of stdout when that is a file), here it goes to stderr so that stdout holds only the JSON
GREETING = "RETURNN dump-dataset starting up."


def network_dict(config, epoch: Optional[int] = None) -> Dict[str, Any]:
    """The network dict of ``config``: with ``pretrain``, the network of pretrain epoch ``epoch`` (default 1;
    beyond the pretrain epochs the final network); else ``get_network(epoch=...)`` or config ``network``.

    :raises ConfigValueError: the config defines no network
    """
    from returnn.options import FrontendOptions, RunOptions
    from returnn.pretrain import pretrain_from_config
    from returnn.tf.engine.epoch_network import get_net_dict_for_epoch

    return get_net_dict_for_epoch(RunOptions.from_config(config), FrontendOptions.from_config(config),
                                  pretrain_from_config(config), epoch or 1)


def _first_non_json(value: Any, path: str) -> Optional[str]:
    """The path and type of the first value JSON cannot hold, or None."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return None
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, (str, int, float, bool)) and k is not None:
                return "%s key %r (%s)" % (path, k, type(k).__name__)
            found = _first_non_json(v, "%s[%r]" % (path, k))
            if found:
                return found
        return None
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            found = _first_non_json(v, "%s[%i]" % (path, i))
            if found:
                return found
        return None
    return "%s (%s: %r)" % (path, type(value).__name__, value)


def network_json_text(net_dict: Dict[str, Any]) -> str:
    """``net_dict`` as JSON text (sorted keys, indent 2, tuples as lists, a final newline).

    :raises ConfigValueError: a value JSON cannot hold (a function, a numpy scalar, a ``Dim``, ...), naming it
    """
    bad = _first_non_json(net_dict, "network")
    if bad:
        raise ConfigValueError("network", expected="values JSON can hold (dict, list, str, number, bool, None)",
                               got=bad)
    return json.dumps(net_dict, sort_keys=True, indent=2) + "\n"


def dump_network_json(config_file: str, *, epoch: Optional[int] = None, out: Optional[str] = None,
                      stdout=None) -> str:
    """Loads ``config_file`` and writes its network as JSON to ``out`` (atomically), or prints it to ``stdout``
    (default ``sys.stdout``); the greeting line goes to stderr.

    :return: the JSON text
    :raises ReturnnError: bad config, no network, values JSON cannot hold
    """
    import os
    import sys

    from returnn.config import Config, set_global_config

    stdout = stdout or sys.stdout
    print(GREETING, file=sys.stderr)
    config = Config()
    config.load_file(config_file)
    set_global_config(config)
    text = network_json_text(network_dict(config, epoch))
    if out:
        tmp = "%s.tmp-%i" % (out, os.getpid())
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, out)
    else:
        stdout.write(text)
    return text
