"""File paths inside volumes and containers (validation.go validateLocalDescendingPath,
validatePathNoBacksteps, ValidateLocalNonReservedPath)."""

from __future__ import annotations


def no_backsteps(target: str, path: str, rule: str, f) -> None:
    if ".." in target.split("/"):
        f.invalid(rule, path, target, "must not contain '..'")


def local_descending(target: str, path: str, rule: str, f) -> None:
    if target.startswith("/"):
        f.invalid(rule, path, target, "must be a relative path")
    no_backsteps(target, path, rule, f)


def local_non_reserved(target: str, path: str, rule: str, f) -> None:
    local_descending(target, path, rule, f)
    if target.startswith("..") and not target.startswith("../"):
        f.invalid(rule, path, target, "must not start with '..'")
