"""Type stubs of the compiled extension module (crates/py)."""

def run(scenario_json: str, seed: int | None = None, duration: float | None = None) -> str:
    """Runs a scenario given as JSON text; returns the report as JSON text."""

def validate(scenario_json: str) -> str:
    """Validates a scenario given as JSON text; returns ``{"ok": ..., ...}`` as JSON text."""

def version() -> str:
    """The crate version."""

def git_hash() -> str:
    """The git commit the extension was built from, or "unknown"."""

def _panic_for_tests(message: str) -> str:
    """Panics inside the panic guard and returns the resulting error report."""
