"""`neuronxcc.nki.typing` (nt) as far as kernels use it: `nt.tensor[...]` annotations (ignored) and
`nt.mutable_tensor`, the annotation that lets a kernel write an input parameter (which it must then return)."""

from __future__ import annotations

from typing import Any


class tensor:
    """`nt.tensor[shape, dtype]`: a type annotation; the interpreter does not check it."""

    def __class_getitem__(cls, item: Any) -> Any:
        return cls


class mutable_tensor(tensor):
    """Annotates a kernel parameter the kernel may write (err_cannot_update_immutable_parameter)."""
