"""dmlc's one reader of the environment (compiler/environment.py): what os.environ.get says,
at every moment, whoever set it, at the cost of a dict lookup."""
from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.strategies import budget

from dmlc.environment import env_value

NAME = "DMLC_TEST_ENVIRONMENT_READ"


def test_reads_what_os_environ_holds_now(monkeypatch):
    monkeypatch.delenv(NAME, raising=False)
    assert env_value(NAME) == "" and env_value(NAME, "auto") == "auto"
    monkeypatch.setenv(NAME, "")
    assert env_value(NAME, "auto") == ""  # set but empty is not unset
    monkeypatch.setenv(NAME, "always")
    assert env_value(NAME, "auto") == "always"
    os.environ[NAME] = "never"  # written directly, as a user does
    assert env_value(NAME) == "never"
    del os.environ[NAME]
    assert env_value(NAME, "x") == "x"


@settings(max_examples=budget(40), deadline=None)
@given(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
               max_size=12))
def test_agrees_with_os_environ_get(value):
    """Any value (non-ASCII too) reads back as os.environ.get reads it."""
    os.environ[NAME] = value
    try:
        assert env_value(NAME) == os.environ.get(NAME)
    finally:
        del os.environ[NAME]


def test_a_mapping_standing_in_for_os_environ_is_asked(monkeypatch):
    """Code that replaces os.environ with a plain dict (some test harnesses) is still read."""
    monkeypatch.setattr(os, "environ", {NAME: "1"})
    assert env_value(NAME) == "1" and env_value("DMLC_NOT_SET", "d") == "d"


@pytest.mark.parametrize("name", ["DMLC_DYNAMIC", "DMLC_POISON", "DMLC_TARGET"])
def test_dmlc_reads_its_variables_through_it(monkeypatch, name):
    """The variables a call reads at every call go through env_value (not os.environ.get):
    set in the environment, dmlc sees them at once."""
    from dmlc.dynamic import resolve_mode
    from dmlc.runtime.pool import poisoning
    from dmlc.target import resolve
    monkeypatch.setenv(name, {"DMLC_DYNAMIC": "never", "DMLC_POISON": "1",
                              "DMLC_TARGET": "cpu"}[name])
    assert {"DMLC_DYNAMIC": lambda: resolve_mode(None) == "never",
            "DMLC_POISON": poisoning, "DMLC_TARGET": lambda: resolve(None) == "cpu"}[name]()
