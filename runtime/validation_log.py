"""Where the Vulkan validation layer writes, under `tools/validation.sh` (DMLC_VALIDATION_DIR set).

The layer reads its settings once per process and opens its log file, truncating it, at every
vkCreateInstance. Two things follow, each of which once hid messages from the validation run:
- processes sharing one log file truncate each other's: each process gets a file of its own
  (messages-PID.txt), named in a settings file of its own, before its first instance;
- a process that creates a second instance (a second Device, a probe after a Device) truncates
  its own: before every instance, a non-empty log is moved aside (messages-PID.N.txt).
Threads that create instances at once (a first call from several threads probes the loader while
another opens the device) take turns: moving the log aside and the creation that reopens it run
under one lock (was: two threads renaming the same log, FileNotFoundError).
tools/validation.sh reads every messages*.txt of the run.
"""
from __future__ import annotations

import contextlib
import itertools
import os
import threading
from collections.abc import Iterator

_creating = threading.RLock()


@contextlib.contextmanager
def new_instance() -> Iterator[None]:
    """Wrap every vkCreateInstance (kp.Manager, probe, wgpu's adapters): see the docstring."""
    with _creating:
        _keep_log()
        yield


def _keep_log() -> None:
    run_dir = os.environ.get("DMLC_VALIDATION_DIR")
    if not run_dir:
        return
    _route(run_dir)
    log = os.path.join(run_dir, f"messages-{os.getpid()}.txt")
    if os.path.exists(log) and os.path.getsize(log):
        stem = log[:-len(".txt")]
        kept = next(f"{stem}.{n}.txt" for n in itertools.count(1)
                    if not os.path.exists(f"{stem}.{n}.txt"))
        os.rename(log, kept)  # an instance still alive writes on into the renamed file


def _route(run_dir: str) -> None:
    """Point the layer at a settings file of this process's own, whose log is its own."""
    mine = os.path.join(run_dir, f"process-{os.getpid()}")
    if os.environ.get("VK_LAYER_SETTINGS_PATH") == mine:
        return  # the layer reads its settings once per process; later instances share them
    os.makedirs(mine, exist_ok=True)
    with open(os.path.join(run_dir, "vk_layer_settings.txt")) as f:
        settings = f.read().replace("messages.txt", f"messages-{os.getpid()}.txt")
    with open(os.path.join(mine, "vk_layer_settings.txt"), "w") as f:
        f.write(settings)
    os.environ["VK_LAYER_SETTINGS_PATH"] = mine
