"""Public import path ``returnn.util.basic``, kept for user configs (``from returnn.util.basic import
get_login_username``). Defines nothing; each name comes from the module that owns it."""

from returnn.util.backend import BackendEngine as BackendEngine
from returnn.util.numbers_dict import NumbersDict as NumbersDict
from returnn.util.suggest import close_matches as close_matches
from returnn.util.system import get_hostname as get_hostname
from returnn.util.system import get_login_username as get_login_username
from returnn.util.timefmt import hms as hms
from returnn.util.timefmt import hms_fraction as hms_fraction
from returnn.util.timefmt import human_bytes_size as human_bytes_size
from returnn.util.behavior_version import BehaviorVersion as BehaviorVersion
