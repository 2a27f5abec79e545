#!/usr/bin/env bash
# Installs airqueue with its test dependencies and runs every check: Rust format, lint and
# tests, then Python lint and tests. This is the README's test command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== browser for the viewer tests (Debian's chromium, driven by Playwright)"
if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ]; then
        apt-get update -q
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium
    else
        echo "chromium is missing: run as root, or apt-get install -y chromium" >&2
    fi
fi

echo "== install (builds the Rust core with maturin)"
python3 -m pip install --quiet --disable-pip-version-check -c constraints.txt '.[test]'

echo "== cargo fmt"
cargo fmt --all --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets --locked --quiet -- -D warnings
echo "== cargo test"
cargo test --workspace --locked --quiet
echo "== ruff"
python3 -m ruff check python tests validation
python3 -m ruff format --check python tests validation
echo "== pytest"
python3 -m pytest -q
