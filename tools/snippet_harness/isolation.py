"""Process-wide state a script can change and the next script would inherit, put back after each.

Every setting here is read and set with public torch API, except four with none: the default
device's context, the stacks of torch function and dispatch modes, the saved-tensors hooks
stack, and nn.Module's global hooks (module-level dicts in torch.nn.modules.module).
"""

from __future__ import annotations

import os
import random
import sys


class GlobalState:
    """Process-wide settings a script can change and the next script would inherit."""

    # A mode left entered can only be pushed off its stack, not exited, which may leave it
    # half-undone: a script that needs this fails rather than passing on what is left.
    FORCED = ("torch modes",)
    # Put back every time: RNG states hold arrays, which do not compare as one bool; print
    # options have no public getter, only a reset to what a fresh interpreter has.
    ALWAYS = ("torch RNG", "python RNG", "numpy RNG", "torch print options")

    @staticmethod
    def _torch_settings():
        import numpy as np
        import torch

        return {
            # First: while one is set, every torch call made to restore the rest goes through it.
            "default device": (
                lambda: getattr(
                    getattr(torch._GLOBAL_DEVICE_CONTEXT, "device_context", None), "device", None
                ),
                torch.set_default_device,
            ),
            "torch modes": (
                lambda: (
                    torch._C._len_torch_function_stack(),
                    torch._C._len_torch_dispatch_stack(),
                ),
                _pop_modes,
            ),
            "saved tensors hooks": (
                lambda: torch._C._autograd._top_saved_tensors_default_hooks(True),
                _pop_saved_tensors_hooks,
            ),
            "nn.Module global hooks": (_module_hooks, _set_module_hooks),
            "float32 matmul precision": (
                torch.get_float32_matmul_precision,
                torch.set_float32_matmul_precision,
            ),
            "grad mode": (torch.is_grad_enabled, torch.set_grad_enabled),
            "anomaly mode": (
                lambda: (torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()),
                lambda v: torch.autograd.set_detect_anomaly(*v),
            ),
            "default dtype": (torch.get_default_dtype, torch.set_default_dtype),
            "threads": (torch.get_num_threads, torch.set_num_threads),
            "deterministic algorithms": (
                lambda: (
                    torch.are_deterministic_algorithms_enabled(),
                    torch.is_deterministic_algorithms_warn_only_enabled(),
                ),
                lambda v: torch.use_deterministic_algorithms(v[0], warn_only=v[1]),
            ),
            "torch RNG": (torch.get_rng_state, torch.set_rng_state),
            "torch print options": (
                lambda: "default",
                lambda v: torch.set_printoptions(profile=v),
            ),
            "python RNG": (random.getstate, random.setstate),
            "numpy RNG": (np.random.get_state, np.random.set_state),
            "numpy print options": (np.get_printoptions, lambda v: np.set_printoptions(**v)),
            "working directory": (os.getcwd, os.chdir),
            "recursion limit": (sys.getrecursionlimit, sys.setrecursionlimit),
            "environment variables": (_environ, _set_environ),
        }

    def __init__(self, values):
        self.values = values

    @classmethod
    def capture(cls) -> GlobalState:
        return cls({name: get() for name, (get, _) in cls._torch_settings().items()})

    def restore(self) -> list[str]:
        """Put every setting back; return those that were only forced back or not at all."""
        settings = self._torch_settings()
        leaked = []
        for name, value in self.values.items():
            get, put = settings[name]
            if name in self.ALWAYS:
                put(value)
            # Setting only what changed keeps this cheap (setting determinism imports dynamo).
            elif get() != value:
                put(value)
                if name in self.FORCED or get() != value:
                    leaked.append(name)
        if "torch._dynamo" in sys.modules:
            # Compiled code and recompile counters would otherwise carry over.
            sys.modules["torch"].compiler.reset()
        if "pyro" in sys.modules:
            # Pyro's global parameter store: the next script's pyro.module() and pyro.param()
            # would return this one's tensors, where a fresh interpreter starts empty.
            sys.modules["pyro"].clear_param_store()
        if "accelerate.state" in sys.modules:
            # accelerate's singletons (the Accelerator's settings, the gradient accumulation
            # state) would give the next script this one's: reset as accelerate's own tests
            # do between tests (accelerate/test_utils/testing.py, AccelerateTestCase.tearDown).
            state = sys.modules["accelerate.state"]
            state.AcceleratorState._reset_state(True)
            state.GradientState._reset_state()
        if "keras" in sys.modules:
            # Keras's global state: its counters name layers (dense_7), so the next script's
            # layers would be named on from this one's, where a fresh interpreter starts at 0.
            # Without its gc.collect() (0.25 s a call with torch loaded, after every script).
            sys.modules["keras"].backend.clear_session(free_memory=False)
        return leaked


def _replace(target: dict, values: dict):
    target.clear()
    target.update(values)


def _pop_modes(lengths: tuple[int, int]):
    import torch

    while torch._C._len_torch_function_stack() > lengths[0]:
        torch._C._pop_torch_function_stack()
    while torch._C._len_torch_dispatch_stack() > lengths[1]:
        torch._C._pop_torch_dispatch_stack(None)


def _pop_saved_tensors_hooks(hooks):
    """Pop what a script pushed and never popped (a saved_tensors_hooks it never exited)."""
    from torch._C import _autograd

    while (top := _autograd._top_saved_tensors_default_hooks(True)) is not None and top != hooks:
        _autograd._pop_saved_tensors_default_hooks()


def _module_hooks() -> dict:
    """nn.Module's global hooks (forward, backward, registration) and their flags."""
    from torch.nn.modules import module

    return {
        name: dict(value) if isinstance(value, dict) else value
        for name, value in vars(module).items()
        if name.startswith("_global_")
    }


def _set_module_hooks(values: dict):
    from torch.nn.modules import module

    for name, value in values.items():
        if isinstance(value, dict):
            _replace(getattr(module, name), value)
        else:
            setattr(module, name, value)


# pytest sets this one around each test and removes it after; it is not the scripts' to restore.
_PYTEST_VARIABLE = "PYTEST_CURRENT_TEST"


def _environ() -> dict:
    return {k: v for k, v in os.environ.items() if k != _PYTEST_VARIABLE}


def _set_environ(values: dict):
    for name in _environ().keys() - values.keys():
        del os.environ[name]
    os.environ.update(values)
