"""Public import path ``returnn.util.basic`` (legacy name ``Util``), kept for user configs
(``from returnn.util.basic import cleanup_env_var_path``). Defines nothing; each name comes from the module
that owns it."""

from returnn.util.backend import BackendEngine as BackendEngine
from returnn.util.behavior_version import BehaviorVersion as BehaviorVersion
from returnn.util.files import cf as cf
from returnn.util.identity import RefIdEq as RefIdEq
from returnn.util.files import cleanup_env_var_path as cleanup_env_var_path
from returnn.util.files import get_cache_dir as get_cache_dir
from returnn.util.files import get_temp_dir as get_temp_dir
from returnn.util.files import load_txt_vector as load_txt_vector
from returnn.util.module_import import generic_import_module as generic_import_module
from returnn.util.numbers_dict import NumbersDict as NumbersDict
from returnn.util.py_compat import PY3 as PY3
from returnn.util.py_compat import as_str as as_str
from returnn.util.py_compat import long as long
from returnn.util.py_compat import py2_utf8_str_to_unicode as py2_utf8_str_to_unicode
from returnn.util.py_compat import unicode as unicode
from returnn.util.py_compat import unicode_to_str as unicode_to_str
from returnn.util.suggest import close_matches as close_matches
from returnn.util.system import get_hostname as get_hostname
from returnn.util.system import get_login_username as get_login_username
from returnn.util.timefmt import hms as hms
from returnn.util.timefmt import hms_fraction as hms_fraction
from returnn.util.timefmt import human_bytes_size as human_bytes_size
from returnn.util.timefmt import human_size as human_size
from returnn.util.values import NotSpecified as NotSpecified
from returnn.util.values import dict_joined as dict_joined
from returnn.util.values import prod as prod
from returnn.util.values import softmax as softmax
from returnn.util.values import str_is_number as str_is_number
from returnn.util.values import to_bool as to_bool
from returnn.engine.checkpoint_files import get_checkpoint_filepattern as get_checkpoint_filepattern
from returnn.engine.checkpoint_files import model_epoch_from_filename as model_epoch_from_filename
from returnn.util.pretty import better_repr as better_repr
