"""``keras.layers.Masking``: marks the time steps whose features all equal ``mask_value`` as padding."""

from __future__ import annotations

from typing import Any

from ... import _core
from ._base import KerasTensor, Layer, set_keras_mask

__all__ = ["Masking"]

Tensor = _core.Tensor


class Masking(Layer):
    """Masks the time steps (axis 1) whose features all equal ``mask_value`` (``keras.layers.Masking``).

    The output is the input with the masked steps set to 0; it carries the mask
    ``any(inputs != mask_value, axis=-1)``, so masking layers downstream (RNNs,
    ``GlobalAveragePooling1D``, the compiled loss) skip those steps.

    Parameters
    ----------
    mask_value : float
        The padding value. Default 0.0.
    **kwargs
        Base layer arguments (``name``, ``dtype``, ...).
    """

    def __init__(self, mask_value: Any = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(mask_value, dict) and mask_value.get("config") is not None:
            mask_value = mask_value["config"].get("value", mask_value)
        self.mask_value = mask_value
        self.supports_masking = True
        self.built = True

    def _keep(self, inputs: Tensor, keepdims: bool) -> Tensor:
        if len(inputs.shape) < 1:
            raise ValueError(f"Masking expects inputs of rank >= 1, received shape {tuple(inputs.shape)}")
        value = _core.cast(_core.convert_to_tensor(self.mask_value), inputs.dtype)
        return _core.reduce_any(_core.not_equal(inputs, value), axis=-1, keepdims=keepdims)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """``any(inputs != mask_value, axis=-1)``.

        Parameters
        ----------
        inputs : Tensor
            The layer's input.
        mask : Tensor, optional
            Ignored (Masking starts a new mask).

        Returns
        -------
        Tensor
            A boolean tensor of the inputs' shape without the last axis.
        """
        del mask
        if isinstance(inputs, KerasTensor):
            return KerasTensor(inputs.shape[:-1], "bool")
        return self._keep(_core.convert_to_tensor(inputs), keepdims=False)

    def call(self, inputs: Any) -> Tensor:
        """The inputs with the masked steps set to 0 (the output carries the mask)."""
        x = _core.convert_to_tensor(inputs)
        keep = self._keep(x, keepdims=True)
        out = _core.where(_core.broadcast_to(keep, _core.shape(x)), x, _core.zeros_like(x))
        set_keras_mask(out, _core.squeeze(keep, axis=-1))
        return out

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The input's shape."""
        return tuple(input_shape)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "mask_value": self.mask_value}

