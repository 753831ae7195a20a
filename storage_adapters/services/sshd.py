"""An OpenSSH server on 127.0.0.1 for the scp backend, with its own keys and config.

`start` generates an ed25519 host key and user key pair (once per state
directory), an `authorized_keys` with the user key, a `known_hosts` naming the
host key at `[127.0.0.1]:PORT` (clients check it strictly), and an
`sshd_config` that allows only key logins of the current user on a free
loopback port. The store root for the scp backend is `<state>/sshd/root`.
"""

from __future__ import annotations

import getpass
import os
import shutil
import subprocess

from hostkit.errors import MissingDependencyError, ServiceError
from hostkit.ports import LOOPBACK, free_port, port_open
from hostkit.processes import spawn, stop_process, wait_until
from hostkit.records import (
    LOG_FILE,
    ServiceRecord,
    load_record,
    record_process,
    running_record,
    save_record,
    service_dir,
)

NAME = "sshd"
SSHD_PATHS = ("/usr/sbin/sshd", "/usr/local/sbin/sshd")
# sshd running as root needs this directory for privilege separation.
PRIVSEP_DIR = "/run/sshd"


def find_binaries() -> tuple[str, str]:
    """Absolute paths of `sshd` and `ssh-keygen`, or a MissingDependencyError."""
    sshd = shutil.which("sshd") or next((p for p in SSHD_PATHS if os.access(p, os.X_OK)), None)
    keygen = shutil.which("ssh-keygen")
    if sshd is None or keygen is None:
        missing = "sshd" if sshd is None else "ssh-keygen"
        raise MissingDependencyError(f"{missing} is not installed: apt-get install openssh-server openssh-client")
    return os.path.abspath(sshd), keygen


def _keygen(keygen: str, path: str, comment: str) -> None:
    if os.path.isfile(path):
        return
    result = subprocess.run(
        [keygen, "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", path],
        capture_output=True, text=True, check=False,
    )
    if result.returncode != 0:
        raise ServiceError(f"ssh-keygen failed for {path}: {result.stderr.strip()}")


def _write(path: str, text: str, mode: int = 0o600) -> None:
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(text)


def _config(directory: str, port: int, user: str) -> str:
    return "\n".join([
        f"ListenAddress {LOOPBACK}:{port}",
        f"HostKey {os.path.join(directory, 'host_ed25519')}",
        f"PidFile {os.path.join(directory, 'sshd.pid')}",
        f"AuthorizedKeysFile {os.path.join(directory, 'authorized_keys')}",
        f"AllowUsers {user}",
        "PermitRootLogin prohibit-password",
        "PubkeyAuthentication yes",
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        "UsePAM no",
        # Our files live under a temporary or project directory that sshd's
        # ownership checks (meant for home directories) would reject.
        "StrictModes no",
        "Subsystem sftp internal-sftp",
        "LogLevel INFO",
        "",
    ])


def start(state_dir: str) -> ServiceRecord:
    """Start our sshd (or return the running one)."""
    existing = running_record(state_dir, NAME)
    if existing is not None:
        return existing
    sshd, keygen = find_binaries()
    directory = service_dir(state_dir, NAME)
    user = getpass.getuser()
    host_key, user_key = os.path.join(directory, "host_ed25519"), os.path.join(directory, "user_ed25519")
    _keygen(keygen, host_key, "swiftcloud-test-host")
    _keygen(keygen, user_key, "swiftcloud-test-user")
    with open(user_key + ".pub") as handle:
        _write(os.path.join(directory, "authorized_keys"), handle.read())
    with open(host_key + ".pub") as handle:
        host_public = " ".join(handle.read().split()[:2])
    if os.geteuid() == 0:
        os.makedirs(PRIVSEP_DIR, mode=0o755, exist_ok=True)
    root = os.path.join(directory, "root")
    os.makedirs(root, exist_ok=True)
    log_path = os.path.join(directory, LOG_FILE)
    config_path = os.path.join(directory, "sshd_config")
    for attempt in range(3):
        port = free_port()
        _write(config_path, _config(directory, port, user))
        process = spawn([sshd, "-D", "-e", "-f", config_path], log_path)
        try:
            wait_until(lambda: port_open(port), process, "sshd", log_path, timeout=30)
            break
        except ServiceError:
            # Another program may have taken the port between our probe and sshd's bind.
            if attempt == 2:
                raise
    known_hosts = os.path.join(directory, "known_hosts")
    _write(known_hosts, f"[{LOOPBACK}]:{port} {host_public}\n", 0o644)
    record = record_process(
        NAME, process,
        {"host": LOOPBACK, "port": port, "user": user, "key_file": user_key, "known_hosts": known_hosts,
         "root": root, "config": config_path, "log": log_path},
        {},
    )
    save_record(state_dir, record)
    return record


def stop(state_dir: str) -> bool:
    """Stop our sshd; keys and the store root stay for the next start."""
    record = load_record(state_dir, NAME)
    return record is not None and stop_process(record.pid, record.create_time)


def status(state_dir: str) -> ServiceRecord | None:
    """The running sshd's record, or None."""
    return running_record(state_dir, NAME)
