"""Shipped match configs and question sets, found with `configs_dir()`."""

from pathlib import Path


def configs_dir() -> Path:
    return Path(__file__).resolve().parent
