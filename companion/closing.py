"""``Closing``: the context-manager half of every device and service that has ``close()``."""

from __future__ import annotations

from types import TracebackType
from typing import Self


class Closing:
    """A mixin: ``with X(...) as x:`` closes ``x`` on the way out, whatever happened."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
