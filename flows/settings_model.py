"""``CoreFields``: the shared settings (flows/settings_core.py's ``FIELDS``) as a pydantic model.

flows/settings.py reads them, with the sources, through pydantic-settings; ``reader_settings``
leaves a value it does not read at a glance to this model, for pydantic's reading and its errors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, create_model, field_validator

from gpuvalue.flows.settings_core import FIELDS, Places, Setting, split_models


class _Fields(Places, BaseModel):
    # No nan or inf: GPUVALUE_READ_WAIT_S=nan was refused as "should be less than or equal to 3600".
    model_config = ConfigDict(extra="ignore", allow_inf_nan=False)

    @field_validator(*(name for name, s in FIELDS.items() if s.comma_list), mode="before", check_fields=False)
    @classmethod
    def _split_models(cls, v: object) -> object:
        return split_models(v)


def _field(setting: Setting) -> Any:
    bounds = {k: getattr(setting, k) for k in ("ge", "gt", "le", "lt", "pattern") if getattr(setting, k) is not None}
    if setting.aliases:
        bounds["validation_alias"] = AliasChoices(*setting.aliases)
    if setting.description is not None:
        bounds["description"] = setting.description
    return Field(default=setting.default, **bounds)


if TYPE_CHECKING:
    class CoreFields(_Fields):
        """Every setting but the sources (their names and types are FIELDS', made at run time)."""

        def __getattr__(self, name: str) -> Any: ...
else:
    CoreFields = create_model(
        "CoreFields", __base__=_Fields, __module__=__name__,
        __doc__="Every setting but the sources, validated by pydantic alone (no pydantic-settings).",
        **{name: (setting.kind, _field(setting)) for name, setting in FIELDS.items()},
    )
