# SPDX-License-Identifier: Apache-2.0
"""torch's autoload hook for torch_devplug (the ``torch.backends`` entry point).

torch calls ``load()`` at the end of ``import torch``. An exception there would make
``import torch`` itself fail, so a broken devplug install is a warning here instead; an
explicit ``import torch_devplug`` still raises. TORCH_DEVICE_BACKEND_AUTOLOAD=0 turns
autoloading off.
"""

import warnings


def load():
    try:
        import torch_devplug  # noqa: F401
    except Exception as error:  # noqa: BLE001
        warnings.warn(f"torch_devplug was not loaded: {type(error).__name__}: {error}", RuntimeWarning)
