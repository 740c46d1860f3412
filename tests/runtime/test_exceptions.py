"""`services.runtime` has one exceptions module with one root, and the modules that raise its
exceptions hand out the very same classes."""

from __future__ import annotations

import inspect

from services.runtime import exceptions, messaging, recognizer, sandbox, settings, storage


def test_every_runtime_exception_has_the_one_root() -> None:
    """Each exception class of `exceptions.py` (and RecognitionFailed) is a RuntimeServiceError."""
    classes = [
        obj
        for _, obj in inspect.getmembers(exceptions, inspect.isclass)
        if issubclass(obj, BaseException) and obj.__module__ == exceptions.__name__
    ]
    assert len(classes) == len(exceptions.__all__)
    assert all(issubclass(cls, exceptions.RuntimeServiceError) for cls in classes)
    assert issubclass(recognizer.RecognitionFailed, exceptions.RuntimeServiceError)


def test_the_raising_modules_re_export_the_same_classes() -> None:
    """`from services.runtime.storage import StorageError` and the like keep working, and
    name the class of `exceptions.py`, not a copy."""
    assert storage.StorageError is exceptions.StorageError
    assert storage.ObjectTooLarge is exceptions.ObjectTooLarge
    assert sandbox.SandboxTimeout is exceptions.SandboxTimeout
    assert messaging.PublishGaveUp is exceptions.PublishGaveUp
    assert messaging.MissingMsgIdError is exceptions.MissingMsgIdError
    assert settings.SettingsError is exceptions.SettingsError


def test_publish_gave_up_names_the_message_but_not_the_error_text() -> None:
    """Only the last error's class travels (its text may hold a server address)."""
    error = exceptions.PublishGaveUp("files.tabular_parsed", "ack:j:1", 4, "OSError")
    assert str(error) == (
        "publish to 'files.tabular_parsed' (Nats-Msg-Id ack:j:1) failed after 4 attempts: OSError"
    )
    assert isinstance(error, exceptions.MessagingError)
