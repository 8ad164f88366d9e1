"""One error hierarchy for the engine.

Every error the user can cause is an :class:`InputError` (also a ``ValueError``): its message
says what was expected, what was found and where (``FILE:LINE: field: what is wrong``).
The CLI turns it into exit status 2 and one line on stderr.
"""

from __future__ import annotations


class SmartVectorError(Exception):
    """Base class of every error raised on purpose by smartvector_core."""


class InputError(SmartVectorError, ValueError):
    """Bad input from a user or a file, located as precisely as we know.

    ``str(err)`` is ``"FILE:LINE: field: message"`` with the parts that are known.
    """

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 field: str | None = None) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.field = field
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = f"{self.file}:{self.line}: " if self.line else f"{self.file}: "
        elif self.line:
            where = f"line {self.line}: "
        field = f"{self.field}: " if self.field else ""
        return f"{where}{field}{self.message}"

    def located(self, file: str | None = None, line: int | None = None) -> InputError:
        """Return a copy with the file/line filled in where still unknown."""
        return InputError(self.message, file=self.file or file, line=self.line or line,
                          field=self.field)


class StoreError(SmartVectorError, RuntimeError):
    """The store could not be opened, read or written."""


class OperatorTokenError(SmartVectorError, PermissionError):
    """A write action was asked without the operator token that this store requires."""
