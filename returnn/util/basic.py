"""Public import path ``returnn.util.basic`` (legacy name ``Util``), kept for user configs and scripts
(``from returnn.util.basic import cleanup_env_var_path``, ``from returnn.util.basic import *``). Defines nothing;
each name comes from the module that owns it. As the reference's module has no ``__all__``, a star import also
brings the standard modules and typing names it uses (``os``, ``sys``, ``numpy``, ``time``, ``contextlib``,
``Optional``, ...); these are re-exported here on purpose."""

# standard modules and names that a star import of the reference's module provides
import builtins as builtins
import contextlib as contextlib
import inspect as inspect
import math as math
import os as os
import re as re
import shlex as shlex
import struct as struct
import subprocess as subprocess
import sys as sys
import threading as threading
import time as time
import typing as typing
from collections import deque as deque
from io import BytesIO as BytesIO
from subprocess import CalledProcessError as CalledProcessError
from typing import Any as Any
from typing import Callable as Callable
from typing import Dict as Dict
from typing import Generic as Generic
from typing import Hashable as Hashable
from typing import Iterable as Iterable
from typing import List as List
from typing import Optional as Optional
from typing import Set as Set
from typing import Tuple as Tuple
from typing import TypeVar as TypeVar
from typing import Union as Union
from typing import overload as overload

import numpy as numpy
import numpy as np

from returnn.util.backend import BackendEngine as BackendEngine
from returnn.util.behavior_version import BehaviorVersion as BehaviorVersion
from returnn.util.bleu import compute_bleu as compute_bleu
from returnn.util.collection_check import CollectionReadCheckCovered as CollectionReadCheckCovered
from returnn.util.containers import DictAsObj as DictAsObj
from returnn.util.containers import FrozenDict as FrozenDict
from returnn.util.containers import ObjAsDict as ObjAsDict
from returnn.util.containers import make_hashable as make_hashable
from returnn.util.copying import Entity as Entity
from returnn.util.copying import deepcopy as deepcopy
from returnn.util.copying import deserialize_object as deserialize_object
from returnn.util.copying import serialize_object as serialize_object
from returnn.util.files import cf as cf
from returnn.util.identity import DictRefKeys as DictRefKeys
from returnn.util.identity import RefIdEq as RefIdEq
from returnn.util.files import cleanup_env_var_path as cleanup_env_var_path
from returnn.util.files import get_cache_dir as get_cache_dir
from returnn.util.files import get_temp_dir as get_temp_dir
from returnn.util.files import load_txt_vector as load_txt_vector
from returnn.util.introspect import camel_case_to_snake_case as camel_case_to_snake_case
from returnn.util.introspect import collect_class_init_kwargs as collect_class_init_kwargs
from returnn.util.introspect import collect_mandatory_class_init_kwargs as collect_mandatory_class_init_kwargs
from returnn.util.introspect import getargspec as getargspec
from returnn.util.introspect import next_type_attrib_in_mro_chain as next_type_attrib_in_mro_chain
from returnn.util.introspect import simple_obj_repr as simple_obj_repr
from returnn.util.introspect import try_get_caller_name as try_get_caller_name
from returnn.util.introspect import try_get_stack_frame as try_get_stack_frame
from returnn.util.introspect import type_attrib_mro_chain as type_attrib_mro_chain
from returnn.util.json_text import json_remove_comments as json_remove_comments
from returnn.util.json_text import load_json as load_json
from returnn.util.module_import import generic_import_module as generic_import_module
from returnn.util.native_code_compiler import NativeCodeCompiler as NativeCodeCompiler
from returnn.util.atfork_patch import get_patch_atfork_lib as get_patch_atfork_lib
from returnn.util.numbers_dict import NumbersDict as NumbersDict
from returnn.util.obj_diff import obj_diff_list as obj_diff_list
from returnn.util.obj_diff import obj_diff_str as obj_diff_str
from returnn.util.process import custom_exec as custom_exec
from returnn.util.process import expand_env_vars as expand_env_vars
from returnn.util.process import is_tty as is_tty
from returnn.util.process import sys_cmd_out_lines as sys_cmd_out_lines
from returnn.util.process import sys_exec_out as sys_exec_out
from returnn.util.native_libs import collect_proc_maps_exec_files as collect_proc_maps_exec_files
from returnn.util.native_libs import find_libcudart_from_runtime as find_libcudart_from_runtime
from returnn.util.native_libs import find_sym_in_exec as find_sym_in_exec
from returnn.util.native_libs import get_number_available_cpus as get_number_available_cpus
from returnn.util.process import sys_exec_ret_code as sys_exec_ret_code
from returnn.util.process import terminal_size as terminal_size
from returnn.util.process import which as which
from returnn.util.process import which_pip as which_pip
from returnn.util.py_compat import PY3 as PY3
from returnn.util.py_compat import as_str as as_str
from returnn.util.py_compat import long as long
from returnn.util.py_compat import py2_utf8_str_to_unicode as py2_utf8_str_to_unicode
from returnn.util.py_compat import unicode as unicode
from returnn.util.py_compat import unicode_to_str as unicode_to_str
from returnn.util.sequences import parse_orthography as parse_orthography
from returnn.util.sequences import parse_orthography_into_symbols as parse_orthography_into_symbols
from returnn.util.sequences import slice_pad_zeros as slice_pad_zeros
from returnn.util.sequences import uniq as uniq
from returnn.util.stats import Stats as Stats
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
from returnn.util.versions import describe_returnn_version as describe_returnn_version
from returnn.util.versions import describe_tensorflow_version as describe_tensorflow_version
from returnn.util.versions import describe_torch_version as describe_torch_version
from returnn.util.versions import get_tensorflow_version_tuple as get_tensorflow_version_tuple
from returnn.util.versions import is_64bit_platform as is_64bit_platform
from returnn.engine.checkpoint_files import get_checkpoint_filepattern as get_checkpoint_filepattern
from returnn.engine.checkpoint_files import model_epoch_from_filename as model_epoch_from_filename
from returnn.util.pretty import better_repr as better_repr
