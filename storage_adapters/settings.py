"""One store's resolved settings, as a backend's `from_settings` receives them.

`storage_adapters.config` finds and reads them; backends only ask them for values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hostkit.errors import StorageConfigError, redact

_MISSING = object()


@dataclass
class StorageSettings:
    """One resolved storage configuration. `secrets` holds values and is never printed."""

    name: str
    backend: str
    options: dict[str, Any]
    source: str
    state_dir: str
    secrets: dict[str, str] = field(default_factory=dict, repr=False)
    # Secret setting -> the environment variable it is read from (for messages).
    secret_env: dict[str, str] = field(default_factory=dict, repr=False)
    # How a staging store's inputs reach a task: "copy" (download, then run) or "stream".
    staging: str = "copy"
    _used: set[str] = field(default_factory=set, repr=False)

    def option(self, key: str, default: Any = _MISSING, kind: type | tuple[type, ...] = str) -> Any:
        """The value of setting `key`, type-checked; a missing required one is an error."""
        self._used.add(key)
        if key not in self.options:
            if default is _MISSING:
                raise self.error(f"missing setting '{key}' in {self.source}")
            return default
        value = self.options[key]
        if kind is int and isinstance(value, bool) or not isinstance(value, kind):
            names = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
            raise self.error(f"setting '{key}' must be {names}, not {type(value).__name__}")
        return value

    def secret(self, key: str, required: bool = True) -> str | None:
        """A secret setting's value, read from the environment (or a local service's state)."""
        value = self.secrets.get(key)
        if value is None and required:
            raise self.error(
                f"missing secret '{key}': set the environment variable "
                f"{self.secret_env.get(key, '?')} (or '{key}_env' in {self.source} to name another)"
            )
        return value

    def reject_unknown(self) -> None:
        """Fail on settings the backend did not read (usually a typo)."""
        unknown = sorted(set(self.options) - self._used)
        if unknown:
            known = ", ".join(sorted(self._used)) or "none"
            raise self.error(f"unknown setting(s) {', '.join(unknown)} in {self.source}; known: {known}")

    def error(self, message: str) -> StorageConfigError:
        """A configuration error naming this storage, with secrets redacted."""
        return StorageConfigError(redact(f"storage '{self.name}' ({self.backend}): {message}", self.secrets.values()))
