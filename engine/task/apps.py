"""Run one app command line (spec §5.3) on a worker: argv list, redirections, errors.

The program runs directly (never through a shell) in its own session, so that
a terminate handler can kill its whole process group. Every output is written
under a temporary name beside its target and renamed into place by us, only
on success: `@stdout`/`@stderr` targets, and output files the program writes
itself, which it is given under the temporary name on its command line
(keeping the extension, for programs that choose a format by it). An attempt
whose worker is gone can therefore never publish. (The child is started with
vfork, as subprocess does when no `preexec_fn` is given: a `preexec_fn`, e.g.
to set PR_SET_PDEATHSIG, forces a fork of the whole worker and measured 3x
slower on 1,000 `/bin/true` apps.) Un-redirected stderr is both forwarded to
our stderr and kept (last lines) for the error message.
"""

from __future__ import annotations

import codecs
import errno
import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
from collections import deque
from contextlib import ExitStack, suppress
from typing import IO, Any, Mapping

from engine.task.atomic import Publisher, discard, name_beside, open_beside
from engine.task.contract import AppSpec, LeafError
from hostkit.digests import file_digest
from hostkit.mount_report import read_failures

STDERR_TAIL_LINES = 20
# Credentials an app never sees, whatever the run's storage (secrets stay out of apps' environments).
SECRET_VARIABLES = frozenset({
    "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN", "MINIO_ROOT_PASSWORD",
    "SWIFTCLOUD_SSH_KEY_PASSPHRASE", "MOSASTORE_SECRET",
})
_MAX_TAIL_LINE = 1000  # characters kept per stderr line in error messages


class ProgramPaths:
    """Where programs named without a slash were found, by (name, PATH). A worker looks a program
    up once, as a shell's hash table does, not at every start: Popen builds every candidate path
    in Python and its child tries `execve` on each in turn, about 50 us of a worker's CPU an app
    here (13 directories in PATH). A program gone from where it was found is looked for again."""

    def __init__(self) -> None:
        self._found: dict[tuple[str, str], str] = {}

    def start(self, argv: list[str], environment: dict[str, str] | None, **options: Any) -> subprocess.Popen[bytes]:
        """Start `argv` in `environment` (None: ours), from where its program was found before."""
        program = self._program(argv[0], environment)
        try:
            return subprocess.Popen(argv, executable=program, env=environment, **options)
        except OSError:
            if program is None:
                raise
            self._found.clear()  # moved or removed since: search PATH again
            return subprocess.Popen(argv, env=environment, **options)

    def _program(self, name: str, environment: Mapping[str, str] | None) -> str | None:
        """The file that `name` runs, found in PATH once (None: the child searches PATH itself,
        for a name with a slash, a PATH with a directory relative to the app's, or a name not
        found)."""
        if "/" in name:
            return None
        search = (environment if environment is not None else os.environ).get("PATH", os.defpath)
        found = self._found.get((name, search))
        if found is None:
            if not all(os.path.isabs(directory) for directory in search.split(os.pathsep)):
                return None
            found = shutil.which(name, path=search)
            if found is None:
                return None
            self._found[name, search] = found
        return found


class AppProcesses:
    """The apps one worker process runs, so that they can all be killed when it is terminated,
    and where it found their programs."""

    def __init__(self) -> None:
        self._running: set[subprocess.Popen[bytes]] = set()
        self._programs = ProgramPaths()
        self._handler_decided = False

    def run(self, spec: AppSpec, publisher: Publisher) -> dict[str, str]:
        """Run the app; on exit 0 return its outputs' digests (`run_app`), else raise LeafError."""
        return run_app(spec, publisher, self._running, self._programs)

    def terminate_running(self) -> None:
        """Kill the process group of every app running now (without reaping: this runs
        inside a signal handler, possibly while the main thread holds a wait)."""
        for child in list(self._running):
            _signal_group(child)

    def install_terminate_handler(self) -> None:
        """On SIGTERM, kill running apps, then die of SIGTERM as we would have.

        Only installed from the main thread and only over the default handler, so
        a host program's own handler (a scheduler worker's) is never replaced. Decided at
        the first app (asking for the handler costs about 30 us, at every app).
        """
        if self._handler_decided:
            return
        if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
            try:
                signal.signal(signal.SIGTERM, self._on_terminate)
            except ValueError:  # not the main thread: a later app's may be
                return
        self._handler_decided = True

    def _on_terminate(self, signum: int, frame: Any) -> None:
        self.terminate_running()
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)


def run_app(spec: AppSpec, publisher: Publisher, running: set[subprocess.Popen[bytes]],
            programs: ProgramPaths) -> dict[str, str]:
    """Run the app, its child process kept in `running` meanwhile, its program started from
    where `programs` found it. On exit 0 publish its
    outputs and return the digest of each one it wrote, by the run's name for it (the logical
    path on a mounted store, else the path as the spec gives it); else raise LeafError
    describing the failure."""
    _prepare_paths(spec)
    targets = {
        stream: _resolve(spec, target)
        for stream, target in (("stdout", spec.stdout), ("stderr", spec.stderr))
        if target is not None
    }
    temps: dict[str, str] = {}
    streams: dict[str, IO[bytes]] = {}  # the redirections' temporaries, open for the app
    written: dict[str, str] = {}  # output word on the command line -> its temporary name
    try:
        try:
            for stream, target in targets.items():
                temps[stream], streams[stream] = open_beside(target)
            redirected = set(targets.values())
            for output in spec.outputs:
                if output in spec.argv and _resolve(spec, output) not in redirected:
                    written[output] = name_beside(_resolve(spec, output))
            argv = tuple(written.get(word, word) for word in spec.argv)
            try:
                returncode, tail = _execute(spec, argv, streams, running, programs)
            finally:
                # Closed once the app has ended: a mount publishes a file at each close, and
                # one closed while the app still wrote it would be published empty first.
                for opened in streams.values():
                    opened.close()
        except OSError as e:
            raise _failure(spec, f"<Could not start: {_os_reason(e)}>", []) from None
        if returncode != 0:
            raise _failure(spec, _exit_reason(returncode), tail)
        try:
            digests = _digests(spec, {**{targets[s]: t for s, t in temps.items()}, **written})
        except OSError as e:
            raise _failure(spec, f"<Could not read an output for its digest: {_os_reason(e)}>", []) from None
        try:
            for stream, temp in temps.items():
                publisher.commit(temp, targets[stream])
            for output, temp in written.items():
                if os.path.lexists(temp):  # outputs are not verified (§5.3): a missing one stays missing
                    publisher.commit(temp, _resolve(spec, output))
        except OSError as e:
            raise _failure(spec, f"<Could not save output: {_os_reason(e)}>", []) from None
        return digests
    except BaseException:
        for opened in streams.values():
            opened.close()
        for temp in [*temps.values(), *written.values()]:
            discard(temp)
        for output in spec.outputs:
            _remove_quietly(_resolve(spec, output))
        raise


def _digests(spec: AppSpec, temps: dict[str, str]) -> dict[str, str]:
    """The digest of each output the app wrote, read where it was written: `temps` maps an
    output (a redirection target, or its word on the command line) to its temporary name;
    an output under neither was written in place."""
    digests: dict[str, str] = {}
    for output in dict.fromkeys(spec.outputs):
        path = _resolve(spec, output)
        written = temps.get(output) or temps.get(path) or path
        try:
            digest = file_digest(written)
        except FileNotFoundError:
            continue  # outputs are not verified (§5.3): a missing one stays missing
        digests[os.path.relpath(path, spec.store_root) if spec.store_root is not None else output] = digest
    return digests


def _execute(spec: AppSpec, argv: tuple[str, ...], streams: dict[str, IO[bytes]],
             running: set[subprocess.Popen[bytes]], programs: ProgramPaths) -> tuple[int, list[str]]:
    """Start the child, its output redirected to `streams`, pump its stderr if not redirected,
    wait; (exit status, stderr tail)."""
    pipe: int | None = None  # the read end of the child's stderr, when not redirected
    with ExitStack() as opened:
        stdin = opened.enter_context(open(_resolve(spec, spec.stdin), "rb")) if spec.stdin else None
        stdout = streams.get("stdout")
        stderr: IO[bytes] | int | None = streams.get("stderr")
        if stderr is None:
            # A pipe of our own, read with os.read: Popen's PIPE wraps its end in a buffered
            # file object, about 25 us of every app.
            pipe, stderr = os.pipe2(os.O_CLOEXEC)
            opened.callback(os.close, stderr)  # the child has its own copy once started
        sys.stdout.flush()  # our buffered output must come before the child's
        try:
            child = programs.start(list(argv), _app_environment(spec), stdin=stdin, stdout=stdout,
                                   stderr=stderr, cwd=spec.cwd, start_new_session=True)
        except BaseException:
            if pipe is not None:
                os.close(pipe)
            raise
    running.add(child)
    expired = threading.Event() if spec.walltime else None

    def end_overrun() -> None:
        assert expired is not None
        expired.set()
        _signal_group(child)
    timer = threading.Timer(spec.walltime, end_overrun) if spec.walltime else None
    if timer is not None:
        timer.daemon = True
        timer.start()
    try:
        tail = _pump_stderr(pipe) if pipe is not None else []
        returncode = child.wait()
        if expired is not None and expired.is_set():
            raise _failure(spec, f"<Walltime exceeded: killed after {spec.walltime:g} s>", tail)
        return returncode, tail
    except LeafError:
        raise
    except BaseException:
        _kill_group(child)
        raise
    finally:
        if pipe is not None:
            os.close(pipe)
        if timer is not None:
            timer.cancel()
        running.discard(child)


def _app_environment(spec: AppSpec) -> dict[str, str] | None:
    """The app's environment: the spec's (or ours) without any secret variable; None (ours,
    inherited as it is) when ours holds none: copying it costs about 40 us an app."""
    if spec.env is None and not any(name in os.environ for name in (*SECRET_VARIABLES, *spec.hidden_env)):
        return None
    return _without_secrets(dict(spec.env) if spec.env is not None else os.environ, spec.hidden_env)


def _without_secrets(environment: Mapping[str, str], hidden: tuple[str, ...]) -> dict[str, str]:
    secret = SECRET_VARIABLES.union(hidden)
    return {k: v for k, v in environment.items() if k not in secret}


def _pump_stderr(pipe: int) -> list[str]:
    """Forward the child's stderr (the read end of its pipe) to ours as it comes, until the
    child and whatever it started have closed it; return its last lines."""
    chunk = os.read(pipe, 65536)
    if not chunk:
        return []  # most apps write nothing there
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    tail: deque[str] = deque(maxlen=STDERR_TAIL_LINES)
    partial = ""
    while chunk:
        text = decoder.decode(chunk)
        sys.stderr.write(text)
        sys.stderr.flush()
        lines = (partial + text).split("\n")
        # Only a line's start is kept, so a line without end costs linear time, not quadratic.
        partial = lines.pop()[:_MAX_TAIL_LINE]
        tail.extend(line[:_MAX_TAIL_LINE] for line in lines)
        chunk = os.read(pipe, 65536)
    partial += decoder.decode(b"", final=True)
    if partial:
        tail.append(partial[:_MAX_TAIL_LINE])
    return list(tail)


def _prepare_paths(spec: AppSpec) -> None:
    """Refuse a task whose path on a mounted store leads out of it through a symbolic link
    (AppSpec.store_root), then make the directories its outputs go into. Runs before anything
    is written or cleaned up: a failed task removes its outputs, which must not be reached
    through a link out of the store."""
    if spec.store_root is not None:
        # Deferred: the storage package costs a worker's start-up about 10 ms, and only tasks
        # on a mounted store need it.
        from storage_adapters.paths import leads_out

        for path in spec.store_paths:
            if leads_out(_resolve(spec, path), spec.store_root):
                raise _failure(spec, f"<'{path}' leads out of the store mounted at {spec.store_root} through a "
                                     "symbolic link>", [], retriable=False)  # the link stays where it is
    try:
        for output in spec.outputs:
            directory = os.path.dirname(os.path.abspath(_resolve(spec, output)))
            if not os.path.isdir(directory):  # a lookup is cheaper than a failing mkdir
                os.makedirs(directory, exist_ok=True)
    except OSError as e:
        raise _failure(spec, f"<Could not make an output's directory: {_os_reason(e)}>", []) from None


def _resolve(spec: AppSpec, path: str) -> str:
    """Relative paths in a spec are relative to its `cwd` (the child's view)."""
    return os.path.join(spec.cwd, path) if spec.cwd else path


def _os_reason(e: OSError) -> str:
    where = f": {e.filename}" if e.filename else ""
    return f"{e.strerror or e}{where}"


def _exit_reason(returncode: int) -> str:
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"<Child killed by signal: {name}>"
    return f"<Child exited with code: {returncode}>"


def _failure(spec: AppSpec, reason: str, tail: list[str], retriable: bool = True) -> LeafError:
    message = f"{reason}\ncommand: {shlex.join(spec.argv)}"
    if tail:
        message += "\nstderr (last lines):\n" + "\n".join(tail)
    if spec.store_root is not None:
        message += _store_trouble(spec, spec.store_root)
    return LeafError(message, retriable=retriable)


def _store_trouble(spec: AppSpec, root: str) -> str:
    """What the mount the task ran on says, when it failed under it: its client gone, or the
    failures its client reports and the first input it cannot read ("" when the store is well,
    and the failure the app's own)."""
    where = f"\nstore: the mount at {root} on {os.uname().nodename}"
    try:
        os.statvfs(root)  # not os.stat: the kernel may answer that from its cache
    except OSError as e:
        gone = " (its client has died; mount the store again on this node)" if e.errno == errno.ENOTCONN else ""
        return f"{where}: {e.strerror}{gone}"
    report = read_failures(root)
    if not report:
        return ""
    for path in spec.inputs:
        try:
            with open(path, "rb") as source:
                while source.read(1 << 20):
                    pass
        except OSError as e:
            where += f"\n  input {os.path.relpath(path, root)} cannot be read: {e.strerror}"
            break
    return where + "\n  its client reports:\n" + "\n".join(f"    {line}" for line in report.splitlines())


def _remove_quietly(path: str) -> None:
    try:
        if os.path.isfile(path) or os.path.islink(path):
            os.remove(path)
    except OSError:
        pass  # best effort: the failure being reported matters more


def _signal_group(child: subprocess.Popen[bytes]) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(child.pid, signal.SIGKILL)


def _kill_group(child: subprocess.Popen[bytes]) -> None:
    _signal_group(child)
    child.wait()
