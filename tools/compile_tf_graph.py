#!/usr/bin/env python3
"""Builds the TF graph of a config's network, without any dataset, and writes it to a file (as the reference's
``tools/compile_tf_graph.py``), e.g. for RASR, which loads the graph and then the checkpoint of a training.

Usage::

    tools/compile_tf_graph.py CONFIG [--train 0|1|-1] [--eval 0|1] [--search 0|1] [--verbosity N]
        [--output_file graph.meta] [--output_file_model_params_list params.txt]
        [--output_file_state_vars_list state_vars.txt] [--summaries_tensor_name NAME]
        [--rec_step_by_step REC_LAYER [--rec_step_by_step_output_file info.json] [--update_i_in_graph]]
        [++key value ...]

The data shapes come from the config (``extern_data``, or ``num_inputs``/``num_outputs``). ``--train 1`` builds
the network in training mode (dropout etc. on), ``-1`` makes the mode a boolean placeholder ``train_flag``
(default False) so the same graph serves both; ``--eval 1`` also builds the losses, ``--search 1`` the search.

``--output_file`` format by extension: ``.pb`` (binary GraphDef), ``.pbtxt`` (text GraphDef), ``.meta`` (binary
MetaGraphDef), ``.metatxt`` (text MetaGraphDef). The graph contains a saver (``save/restore_all``) over the
network's variables, so a checkpoint written by training can be loaded into it. ``--output_file_model_params_list``
writes the network's variables, one name per line (``output/W``); ``--output_file_state_vars_list`` the state
variables kept across steps (collection ``_RETURNN_state_vars``; none for most networks).

``--rec_step_by_step REC_LAYER`` builds, instead of the whole network, the step-by-step graph of that rec layer
(state variables under ``IO/``, an init op, per choice layer a scores op; see
:mod:`returnn.tf.tools.rec_step_by_step`), described in the JSON file ``--rec_step_by_step_output_file``.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import List, Optional, Sequence

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

#: the TF collection of state variables (kept across steps), as the reference names it
STATE_VARS_COLLECTION = "_RETURNN_state_vars"
_FORMATS = (".pb", ".pbtxt", ".meta", ".metatxt")


def _arg_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="Compiles the TF graph of a RETURNN config's network.")
    parser.add_argument("config", help="the RETURNN config file")
    parser.add_argument("--train", type=int, default=0, help="train flag: 0 off, 1 on, -1 a placeholder")
    parser.add_argument("--eval", type=int, default=0, help="1: also build the losses")
    parser.add_argument("--search", type=int, default=0, help="1: build the search (beam search) graph")
    parser.add_argument("--verbosity", type=int, default=4, help="log verbosity (default 4)")
    parser.add_argument("--summaries_tensor_name", help="name of a tensor merging all summaries")
    parser.add_argument("--output_file", help="graph file: .pb, .pbtxt, .meta or .metatxt")
    parser.add_argument("--output_file_model_params_list", help="file for the variable names, one per line")
    parser.add_argument("--output_file_state_vars_list", help="file for the state variable names, one per line")
    parser.add_argument("--rec_step_by_step", help="build the step-by-step graph of this rec layer (e.g. 'output')")
    parser.add_argument("--rec_step_by_step_output_file", help="JSON file describing the step-by-step graph")
    parser.add_argument("--update_i_in_graph", action="store_true",
                        help="with --rec_step_by_step: the decode op also increases the step i")
    return parser


def _var_name(var) -> str:
    return var.name[:-2] if var.name.endswith(":0") else var.name


def _write_lines(filename: str, lines: Sequence[str]) -> None:
    tmp = filename + ".tmp-%i" % os.getpid()
    with open(tmp, "w") as f:
        f.writelines(line + "\n" for line in lines)
    os.replace(tmp, filename)


def write_graph(graph, saver, filename: str) -> None:
    """Writes ``graph`` to ``filename`` in the format of its extension (see module doc).

    :raises ConfigValueError: another extension
    """
    import tensorflow as tf
    from google.protobuf import text_format

    from returnn.errors import ConfigValueError

    ext = os.path.splitext(filename)[1]
    if ext not in _FORMATS:
        raise ConfigValueError("--output_file", expected="a file name ending in " + ", ".join(_FORMATS), got=filename)
    if ext in (".pb", ".pbtxt"):
        proto = graph.as_graph_def(add_shapes=True)
    else:
        with graph.as_default():
            proto = tf.compat.v1.train.export_meta_graph(graph=graph, clear_devices=True,
                                                         saver_def=saver.as_saver_def() if saver else None)
    data = text_format.MessageToString(proto).encode("utf8") if ext.endswith("txt") else proto.SerializeToString()
    directory = os.path.dirname(os.path.abspath(filename))
    os.makedirs(directory, exist_ok=True)
    tmp = filename + ".tmp-%i" % os.getpid()
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, filename)


def main(argv: Optional[List[str]] = None) -> None:
    """Parses the arguments, builds the graph and writes the requested files.

    :param argv: the command line as ``sys.argv`` has it, program name first (the reference's ``main(argv)``
        convention); default ``sys.argv``
    :raises ReturnnError: a config the network cannot be built from
    """
    if argv is None:
        argv = sys.argv
    args, rest = _arg_parser().parse_known_args(list(argv[1:]))
    from returnn.config import Config, set_global_config
    from returnn.errors import ConfigValueError
    from returnn.log import log
    from returnn.options import DataOptions
    from returnn.util.behavior_version import BehaviorVersion

    if args.rec_step_by_step_output_file and not args.rec_step_by_step:
        raise ConfigValueError("--rec_step_by_step_output_file", expected="together with --rec_step_by_step NAME",
                               got=args.rec_step_by_step_output_file)
    config = Config()
    config.parse_cmd_args(rest)
    config.load_file(args.config)
    config.apply_cmd_overrides()
    config.set("log_verbosity", args.verbosity)
    config.set("task", "search" if args.search else ("eval" if args.eval else "forward"))
    set_global_config(config)
    log.initialize(verbosity=[args.verbosity])
    BehaviorVersion.set(config.int("behavior_version", None))

    import returnn.tf  # noqa: F401  (TF graph mode as the engine sets it up)
    import tensorflow as tf

    from returnn.tf.engine import network_setup

    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.set_random_seed(config.int("random_seed", 42))
        if args.train == -1:
            train_flag = tf.compat.v1.placeholder_with_default(False, shape=(), name="train_flag")
        else:
            train_flag = bool(args.train)
        extern_data = network_setup.create_extern_data(DataOptions.from_config(config))
        net_dict = network_setup.get_net_dict(config)
        step_by_step = None
        if args.rec_step_by_step:
            from returnn.tf.tools.rec_step_by_step import build_step_by_step_network

            network, step_by_step = build_step_by_step_network(
                config, extern_data=extern_data, net_dict=net_dict, rec_name=args.rec_step_by_step,
                train_flag=train_flag, update_i_in_graph=args.update_i_in_graph)
        else:
            network = network_setup.create_network(config, extern_data=extern_data, net_dict=net_dict,
                                                   train_flag=train_flag, eval_flag=bool(args.eval) or args.train != 0,
                                                   search_flag=bool(args.search))
        if (args.eval or args.train) and step_by_step is None:
            network.get_losses_initialized(with_total=True)
        params = network.get_params_list()
        if step_by_step is not None:
            params += [p for p in step_by_step.params if all(p is not q for q in params)]
        state_vars = tf.compat.v1.get_collection(STATE_VARS_COLLECTION)
        if args.summaries_tensor_name:
            summaries = tf.compat.v1.summary.merge_all()
            if summaries is None:
                summaries = tf.constant(b"", name="no_summaries")
            tf.identity(summaries, name=args.summaries_tensor_name)
        saveable = network.get_saveable_params_list()
        if step_by_step is not None:
            saveable += [p for p in step_by_step.params if all(p is not q for q in saveable)]
        saver = tf.compat.v1.train.Saver(var_list=saveable, max_to_keep=None) if saveable else None
        tf.compat.v1.variables_initializer(tf.compat.v1.global_variables(), name="init_all_vars")
    print("Network params: %i variables, %i values" % (len(params), network.get_num_params()), file=log.v3)
    for param in params:
        print("  %s %s" % (_var_name(param), param.shape.as_list()), file=log.v4)
    if step_by_step is not None:
        step_by_step.print_info()
        if args.rec_step_by_step_output_file:
            step_by_step.write_json(args.rec_step_by_step_output_file)
            print("Stored rec-step-by-step info JSON in file: %s" % args.rec_step_by_step_output_file, file=log.v3)
    if args.output_file:
        write_graph(graph, saver, args.output_file)
        print("Graph written to %s" % args.output_file, file=log.v3)
    if args.output_file_model_params_list:
        _write_lines(args.output_file_model_params_list, [_var_name(p) for p in params])
    if args.output_file_state_vars_list:
        _write_lines(args.output_file_state_vars_list, [_var_name(v) for v in state_vars])


if __name__ == "__main__":
    from returnn.datasets.tool_util import run_main

    run_main(main)
