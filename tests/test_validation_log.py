"""runtime/validation_log.py: under tools/validation.sh every process logs to a file of its own,
and what one instance logged survives the next instance (the layer truncates its log file at
every vkCreateInstance; once, that hid messages from the validation run)."""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

from dmlc.runtime.validation_log import new_instance


def before_instance(note: str | None = None) -> None:
    """What every instance creation does; `note` stands for what the instance then logs."""
    with new_instance():
        if note is not None:
            with open(os.path.join(os.environ["DMLC_VALIDATION_DIR"],
                                   f"messages-{os.getpid()}.txt"), "w") as log:
                log.write(note)


def test_each_instance_keeps_what_the_one_before_logged(tmp_path, monkeypatch):
    (tmp_path / "vk_layer_settings.txt").write_text(
        f"khronos_validation.log_filename = {tmp_path}/messages.txt\n")
    monkeypatch.setenv("DMLC_VALIDATION_DIR", str(tmp_path))
    monkeypatch.delenv("VK_LAYER_SETTINGS_PATH", raising=False)
    log = tmp_path / f"messages-{os.getpid()}.txt"

    before_instance()  # the first: routed to a log of this process's own, nothing to keep
    mine = os.environ["VK_LAYER_SETTINGS_PATH"]
    assert str(log) in open(os.path.join(mine, "vk_layer_settings.txt")).read()
    assert not log.exists()

    log.write_text("first instance: an error\n")
    before_instance()
    log.write_text("second instance\n")
    before_instance()
    assert not log.exists()
    kept = sorted(p.read_text() for p in tmp_path.glob(f"messages-{os.getpid()}.*.txt"))
    assert kept == ["first instance: an error\n", "second instance\n"]
    assert os.environ["VK_LAYER_SETTINGS_PATH"] == mine  # settings are read once per process


def test_nothing_happens_outside_the_validation_run(tmp_path, monkeypatch):
    monkeypatch.delenv("DMLC_VALIDATION_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    before = os.environ.get("VK_LAYER_SETTINGS_PATH")
    before_instance()
    assert os.environ.get("VK_LAYER_SETTINGS_PATH") == before and not list(tmp_path.iterdir())


def test_threads_creating_instances_take_turns(tmp_path, monkeypatch):
    """Eight threads create instances at once (a first call from several threads): each moves
    the log aside and logs in turn, so none loses a message or renames a log another moved
    (was: FileNotFoundError in the validation run)."""
    (tmp_path / "vk_layer_settings.txt").write_text(
        f"khronos_validation.log_filename = {tmp_path}/messages.txt\n")
    monkeypatch.setenv("DMLC_VALIDATION_DIR", str(tmp_path))
    monkeypatch.delenv("VK_LAYER_SETTINGS_PATH", raising=False)
    notes = [f"instance {k}\n" for k in range(8)]
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(before_instance, notes * 5))
    before_instance()
    kept = sorted(p.read_text() for p in tmp_path.glob(f"messages-{os.getpid()}.*.txt"))
    assert kept == sorted(notes * 5)
