"""strata.Error and one subclass per status of the C API (strata/status.h).

A failed driver call raises the subclass of its status: strata_status_name() RESOURCE_EXHAUSTED becomes
strata.ResourceExhaustedError, and so on. Every one carries ``.status`` (the status name) and ``.message``
(strata_last_error_message(), which names the call). The names and codes come from the C API
(``_strata.statuses()``), not typed again here.

    try:
        ctx.alloc(1 << 40)
    except strata.ResourceExhaustedError as e:
        print(e.status, e.message)
"""
from . import _strata


class Error(Exception):
    """A failed call of the Strata driver: ``status`` is the status name, ``message`` the driver's detail."""

    status = "UNKNOWN"

    def __init__(self, message, status=None):
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status

    @property
    def code(self):
        """The status as the C API numbers it (the canonical gRPC/absl codes)."""
        return STATUS_CODES.get(self.status, -1)


def _class_name(status):
    return "".join(word.capitalize() for word in status.split("_")) + "Error"


STATUS_CODES = dict(_strata.statuses())  # "INVALID_ARGUMENT" -> 3, ...
ERROR_CLASSES = {}  # status name -> subclass of Error
for _status in STATUS_CODES:
    if _status != "OK":
        ERROR_CLASSES[_status] = type(_class_name(_status), (Error,), {"status": _status, "__module__": "strata"})
globals().update({cls.__name__: cls for cls in ERROR_CLASSES.values()})


def error_class(status):
    """The exception class for a status name (Error itself for a name the C API does not know)."""
    return ERROR_CLASSES.get(status, Error)


__all__ = ["Error", "STATUS_CODES", "error_class"] + [cls.__name__ for cls in ERROR_CLASSES.values()]
