"""Pydantic's settings errors turned into `SettingsError`: environment keys, never values.

Pydantic's `ValidationError` quotes input values (secrets included) and locates an error by
field path; an operator needs the environment key (`('nats', 'nats_url')` →
`OPENBAO__NATS__NATS_URL`, a plain knob → its own name) and what is wrong with it, for every
bad key at once.
"""

from __future__ import annotations

from pydantic import AliasChoices, AliasPath, BaseModel, ValidationError

from services.runtime.exceptions import SettingsError

__all__ = ["ENV_PREFIX", "env_key", "translate"]

ENV_PREFIX = "OPENBAO__"


def translate(cls: type[BaseModel], exc: ValidationError) -> SettingsError:
    """Every error of `exc` as `{env key: reason}`; no input value survives."""
    problems: dict[str, str] = {}
    for err in exc.errors(include_input=False, include_url=False, include_context=True):
        cause = (err.get("ctx") or {}).get("error")
        if isinstance(cause, SettingsError):
            problems.update(cause.problems)
            continue
        # Our own validators only ever raise SettingsError; what is left are pydantic's
        # type/constraint messages, which describe the expected shape, not the input.
        problems[env_key(cls, tuple(err["loc"]))] = str(err["msg"])
    return SettingsError(problems)


def env_key(cls: type[BaseModel], loc: tuple[int | str, ...]) -> str:
    """The environment key of an error location (`('nats', 'nats_url')` → OPENBAO__NATS__NATS_URL)."""
    parts: list[str] = []
    model: type[BaseModel] | None = cls
    for part in loc:
        name = str(part)
        field = model.model_fields.get(name) if model is not None else None
        if field is None and model is not None:
            # The error may be located by the alias (plain knobs).
            for fname, finfo in model.model_fields.items():
                if name in _aliases(finfo.validation_alias):
                    field, name = finfo, fname
                    break
        if field is not None:  # a plain knob, at the top or in a group (`pool`)
            aliases = _aliases(field.validation_alias)
            if aliases:
                return aliases[0]
        parts.append(name)
        annotation = field.annotation if field is not None else None
        model = (
            annotation
            if isinstance(annotation, type) and issubclass(annotation, BaseModel)
            else None
        )
    return ENV_PREFIX + "__".join(p.upper() for p in parts)


def _aliases(alias: str | AliasPath | AliasChoices | None) -> list[str]:
    if isinstance(alias, str):
        return [alias]
    if isinstance(alias, AliasChoices):
        return [a for a in alias.choices if isinstance(a, str)]
    return []
