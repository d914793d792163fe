"""``strided --version`` reads the distribution's METADATA itself where importlib.metadata would
read that same file (``cli.main._dist_info_version``), and asks importlib.metadata otherwise."""

from __future__ import annotations

import importlib.metadata
import sys

import pytest

from strided.cli import main as cli


@pytest.mark.parametrize("dist", ["strided", "numpy", "pytest", "torch"])
def test_the_direct_read_is_importlib_metadatas_answer(dist: str) -> None:
    assert cli._dist_info_version(dist) == importlib.metadata.version(dist)


def test_a_missing_distribution_is_left_to_importlib_metadata() -> None:
    assert cli._dist_info_version("no-such-distribution-here") is None


def test_a_distribution_finder_other_than_the_path_finder_is_left_to_importlib_metadata(monkeypatch) -> None:
    class Finder:
        @staticmethod
        def find_distributions(context=None):  # noqa: ANN001, ANN205
            return iter(())

    monkeypatch.setattr(sys, "meta_path", [Finder, *sys.meta_path])
    assert cli._dist_info_version("strided") is None
    assert cli._version() == importlib.metadata.version("strided")


def test_version_prints_the_installed_version(capsys) -> None:
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out == f"strided {importlib.metadata.version('strided')}\n"
