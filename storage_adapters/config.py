"""Storage settings: `[storage.NAME]` tables of swiftcloud.toml, secrets from the environment.

`load_settings(name, config_path)` finds the table for `--storage NAME`
(`backend = "s3"` lets several tables use one backend; without it the table
name is the backend), and resolves the backend's secret settings from
environment variables: `secret_key_env = "MY_VAR"` names the variable, else
the backend's default variable is read. A secret written literally in the
file is refused, so secrets never sit in a file that gets committed or logged.
`staging = "copy" | "stream"`, read here for every backend, says how a
staging-mode store hands inputs to tasks (see `storage_adapters.streaming`);
backends that cannot stream, and shared stores, ignore it.

With no table for NAME at all, a backend may take its settings from a server
started by `swiftcloud services start` in the state directory (try-it mode). So
may a table that sets none of the settings such a server provides (e.g. only
`backend = "s3"` and `staging = "stream"`): it is the running server used
another way. A table that names its own endpoint or bucket never mixes with it.
The state directory is `$SWIFTCLOUD_STATE_DIR`, else `[services] state_dir`
of the config file, else `.swiftcloud/services` in the current directory.
"""

from __future__ import annotations

import os
from typing import Any

from hostkit.errors import StorageConfigError
from hostkit.records import default_state_dir
from storage_adapters.registry import adapter_class, known_backends
from storage_adapters.settings import StorageSettings

CONFIG_FILE_NAME = "swiftcloud.toml"
STAGING_STYLES = ("copy", "stream")


def find_config(config_path: str | None) -> str | None:
    """The config file to read: the given one (which must exist) or ./swiftcloud.toml if present."""
    if config_path is not None:
        if not os.path.isfile(config_path):
            raise StorageConfigError(f"configuration file {config_path!r} not found")
        return config_path
    return CONFIG_FILE_NAME if os.path.isfile(CONFIG_FILE_NAME) else None


def read_config(config_path: str | None) -> dict[str, Any]:
    """The parsed config file (empty when there is none)."""
    path = find_config(config_path)
    if path is None:
        return {}
    import tomllib  # deferred: without a settings file (as `run --cluster` often is), 2.6 ms saved

    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as error:
        raise StorageConfigError(f"{path}: invalid TOML: {error}") from error
    except OSError as error:
        raise StorageConfigError(f"{path}: cannot read: {error.strerror}") from error


def state_dir_from(config: dict[str, Any]) -> str:
    """The services state directory for this configuration."""
    if os.environ.get("SWIFTCLOUD_STATE_DIR"):
        return os.environ["SWIFTCLOUD_STATE_DIR"]
    configured = config.get("services", {}).get("state_dir")
    return configured if isinstance(configured, str) else default_state_dir()


def load_settings(name: str, config_path: str | None = None) -> StorageSettings:
    """Resolve the settings of storage `name` (see the module docstring)."""
    config = read_config(config_path)
    tables = config.get("storage", {})
    if not isinstance(tables, dict):
        raise StorageConfigError("[storage] in the configuration must be a table of [storage.NAME] tables")
    state_dir = state_dir_from(config)
    table = tables.get(name)
    if table is None:
        if name not in known_backends():
            configured = ", ".join(sorted(tables)) or "none"
            raise StorageConfigError(
                f"unknown storage '{name}': no [storage.{name}] table (configured: {configured}) "
                f"and no backend of that name (backends: {', '.join(known_backends())})"
            )
        return _from_services(name, state_dir)
    if not isinstance(table, dict):
        raise StorageConfigError(f"[storage.{name}] must be a table")
    options = dict(table)
    backend = options.pop("backend", name)
    if backend not in known_backends():
        raise StorageConfigError(
            f"storage '{name}': unknown backend '{backend}' (backends: {', '.join(known_backends())})"
        )
    settings = StorageSettings(name, backend, options, f"[storage.{name}]", state_dir)
    settings.staging = options.pop("staging", "copy")
    if settings.staging not in STAGING_STYLES:
        raise settings.error(f"'staging' must be one of {', '.join(map(repr, STAGING_STYLES))}, "
                             f"not {settings.staging!r}")
    _resolve_secrets(settings)
    _fill_from_services(settings)
    return settings


def _fill_from_services(settings: StorageSettings) -> None:
    """A table that sets none of a running server's settings takes them, and its secrets
    where the environment gives none."""
    running, secrets = adapter_class(settings.backend).service_defaults(settings.state_dir)
    if not running or set(running) & set(settings.options):
        return
    settings.options = {**running, **settings.options}
    settings.secrets = {**secrets, **settings.secrets}
    settings.source = f"{settings.source} with the local services in {settings.state_dir}"


def _from_services(name: str, state_dir: str) -> StorageSettings:
    cls = adapter_class(name)
    options, secrets = cls.service_defaults(state_dir)
    source = f"the local services in {state_dir}" if options else "the built-in defaults"
    settings = StorageSettings(name, name, options, source, state_dir, secrets)
    settings.secret_env = dict(cls.secret_settings)
    if not options:
        _resolve_secrets(settings)
    return settings


def _resolve_secrets(settings: StorageSettings) -> None:
    cls = adapter_class(settings.backend)
    for key, default_variable in cls.secret_settings.items():
        if key in settings.options:
            raise settings.error(
                f"'{key}' must not be written in the configuration file; put it in the "
                f"environment variable {default_variable} (or name another with '{key}_env')"
            )
        variable = settings.options.pop(f"{key}_env", default_variable)
        if not isinstance(variable, str):
            raise settings.error(f"'{key}_env' must name an environment variable")
        settings.secret_env[key] = variable
        if os.environ.get(variable):
            settings.secrets[key] = os.environ[variable]
