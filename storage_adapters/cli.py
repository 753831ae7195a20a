"""The storage commands of the `swiftcloud` CLI: `services`, `put`, `get`.

`add_commands(subparsers)` registers them on the command line's argparse
sub-parsers (`swiftcloud.cli` assembles them); each sets `handler`, a function
taking the parsed arguments and returning the exit status (0 ok, 1 error).
User errors (bad configuration, unreachable server, missing file, path outside
the store) are printed as one `swiftcloud: error: ...` line without a
traceback; credentials are never printed.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from hostkit.errors import EXIT_OK, EXIT_RUNTIME, StorageConfigError, StorageError
from storage_adapters import open_storage
from storage_adapters.services import known_services, service_status, start_service, stop_service

if TYPE_CHECKING:
    from hostkit.records import ServiceRecord

Handler = Callable[[argparse.Namespace], int]


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    """Register `services`, `put` and `get` on the CLI's sub-parsers."""
    services = subparsers.add_parser(
        "services", help="start, stop or show local test servers (MinIO, sshd, s3fs, MosaStore, Chirp, HDFS,"
                         " and a trial Slurm)",
        description="Run storage servers on 127.0.0.1 under a state directory, for tests and for trying a backend.",
    )
    services.add_argument("action", choices=["start", "stop", "status"])
    services.add_argument("name", nargs="?", choices=known_services(),
                          help="the service (status without one: every service of yours that runs, and where)")
    services.add_argument("--state-dir", help="where servers keep data, logs and state (default: .swiftcloud/services;"
                                              " stop and status without it look wherever you started one)")
    services.add_argument("--config", help="configuration file (default: ./swiftcloud.toml if present)")
    services.add_argument("--benefactors", type=int, metavar="K",
                          help="mosastore: benefactors (emulated nodes) to start (default 4)")
    services.add_argument("--servers", type=int, metavar="N",
                          help="chirp: chirp_servers (one per emulated node) to start (default 1)")
    services.add_argument("--datanodes", type=int, metavar="N",
                          help="hdfs: DataNodes (one per emulated node) to start (default 1)")
    services.add_argument("--replication", type=int, metavar="R",
                          help="hdfs: copies of each block (default min(3, DataNodes), as Hadoop's 3)")
    services.set_defaults(handler=_guarded(run_services))

    put = subparsers.add_parser("put", help="copy a local file or directory into the store")
    put.add_argument("local", help="local file or directory")
    put.add_argument("remote", help="logical path in the store (ending in / means: into that directory)")
    _storage_options(put)
    put.set_defaults(handler=_guarded(run_put))

    get = subparsers.add_parser("get", help="copy a file or directory from the store to local disk")
    get.add_argument("remote", help="logical path in the store")
    get.add_argument("local", help="local destination (an existing directory means: into it)")
    _storage_options(get)
    get.set_defaults(handler=_guarded(run_get))


def _storage_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--storage", default="local", help="storage name: a [storage.NAME] table or a backend (default: local)")
    parser.add_argument("--config", help="configuration file (default: ./swiftcloud.toml if present)")


def run_services(args: argparse.Namespace) -> int:
    """`swiftcloud services start|stop|status NAME`."""
    # Deferred: the configuration reader and the service records (psutil) cost every other
    # command's start-up (`swiftcloud run` builds this parser too); see storage_adapters._LAZY.
    from hostkit.records import known_state_dirs, remember_state_dir
    from storage_adapters.config import read_config, state_dir_from

    state_dir = os.path.abspath(args.state_dir or state_dir_from(read_config(args.config)))
    if args.name is None:
        if args.action != "status":
            raise StorageConfigError(f"services {args.action} needs a service: {', '.join(known_services())}")
        return _status_everywhere([state_dir, *known_state_dirs()])
    if args.action == "start":
        options: dict[str, object] = {}
        for option, service in (("benefactors", "mosastore"), ("servers", "chirp"), ("datanodes", "hdfs"),
                                ("replication", "hdfs")):
            value = getattr(args, option)
            if value is not None:
                if args.name != service:
                    raise StorageConfigError(f"--{option} applies to {service} only")
                options[option] = value
        remember_state_dir(state_dir)  # before the start: a failed start may leave daemons to stop
        record = start_service(args.name, state_dir, **options)
        print(f"{args.name} running ({_describe(record)}); state in {state_dir}")
        return EXIT_OK
    where = ""
    if args.state_dir is None and service_status(args.name, state_dir) is None:
        found = _running_elsewhere(args.name, state_dir, known_state_dirs())
        if len(found) == 1:
            state_dir = found[0][0]
            where = f" (state in {state_dir})"  # not where the user is: say where it was
        elif found:
            places = "; ".join(directory for directory, _ in found)
            raise StorageConfigError(f"{args.name} runs in {len(found)} state directories ({places}): "
                                     f"name one with --state-dir")
    if args.action == "stop":
        stopped = stop_service(args.name, state_dir)
        print(f"{args.name} stopped{where}" if stopped else f"{args.name} was not running")
        return EXIT_OK
    record = service_status(args.name, state_dir)
    if record is None:
        print(f"{args.name} is not running (state directory {state_dir})")
        return EXIT_RUNTIME
    print(f"{args.name} running ({_describe(record)}); state in {state_dir}")
    return EXIT_OK


def _running_elsewhere(name: str, state_dir: str, known: list[str]) -> list[tuple[str, ServiceRecord]]:
    """Where else service `name` runs: the state directories of the user's index (`known`)
    that hold it."""
    found = []
    for directory in known:
        record = service_status(name, directory) if directory != state_dir else None
        if record is not None:
            found.append((directory, record))
    return found


def _status_everywhere(state_dirs: list[str]) -> int:
    """`services status` alone: every service that runs in these state directories (this
    one, then the user's others), one line each with where it lives; exit 1 when none runs."""
    running = 0
    for directory in dict.fromkeys(state_dirs):
        for name in known_services():
            record = service_status(name, directory)
            if record is not None:
                running += 1
                print(f"{name} running ({_describe(record)}); state in {directory}")
    if not running:
        print("no service of yours is running")
        return EXIT_RUNTIME
    return EXIT_OK


def run_put(args: argparse.Namespace) -> int:
    """`swiftcloud put LOCAL REMOTE`."""
    if not os.path.exists(args.local):
        raise FileNotFoundError(2, "no such local file or directory", args.local)
    remote = args.remote + os.path.basename(os.path.normpath(args.local)) if args.remote.endswith("/") else args.remote
    with open_storage(args.storage, args.config) as adapter:
        copied = adapter.put(args.local, remote)
        print(f"put {args.local} -> {adapter.name}:{adapter.logical(remote)} ({copied} bytes)")
    return EXIT_OK


def run_get(args: argparse.Namespace) -> int:
    """`swiftcloud get REMOTE LOCAL`."""
    with open_storage(args.storage, args.config) as adapter:
        logical = adapter.logical(args.remote)
        local = args.local
        if os.path.isdir(local) and adapter.isfile(logical):
            local = os.path.join(local, os.path.basename(logical))
        copied = adapter.get(logical, local)
        print(f"get {adapter.name}:{logical} -> {local} ({copied} bytes)")
    return EXIT_OK


def _describe(record: ServiceRecord) -> str:
    """The printable facts of a service (its `info`; secrets are kept apart and never shown)."""
    shown = {key: value for key, value in record.info.items() if key not in ("log", "config", "passwd_file", "processes")}
    return ", ".join(f"{key} {value}" for key, value in shown.items()) + f", pid {record.pid}"


def _guarded(handler: Handler) -> Handler:
    """Run a handler, turning user errors into one line on stderr and exit status 1."""

    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except StorageError as error:
            message = str(error)
        except OSError as error:
            message = f"{error.strerror or error}: {error.filename}" if error.filename else str(error)
        print(f"swiftcloud: error: {message}", file=sys.stderr)
        return EXIT_RUNTIME

    run.__doc__ = handler.__doc__
    return run
