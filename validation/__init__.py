"""Cross-validation against other simulators (not part of CI)."""
