"""docs/scenario.md against the code.

1. Every fenced ```toml / ```yaml block whose first line is ``# complete scenario`` is a
   whole scenario: it loads, validates and runs (for about a second of simulated time).
   Other TOML blocks must at least be valid TOML. The block marked ``# invalid scenario``
   must fail with exactly the messages of the ```text block that follows it, and those
   messages must be quoted from the core's tests. Blocks marked ``# sweep file`` load as
   sweeps (their ``base`` taken from ``examples/``).
2. Drift guard: every key the scenario reader knows, taken from the Rust source with
   simple regexes (the const key arrays such as TOPOLOGY_KEYS, and the key names passed
   to the field getters), is named in the page as `key`. Every queue kind declares its
   keys in its module (airqueue_sim::qdisc::registry), and so does every source rate
   controller (`[diffq]`, `[backpressure]`: airqueue_sim::transport::RATE_SCHEMES), every
   routing protocol (`[routing]` of aodv and olsr: airqueue_sim::net::registry) and every
   flow kind (`[[flow]]` of udp, tcp, tfrc and more: airqueue_sim::transport::FLOW_KINDS);
   crates/scenario/tests/registered_docs.rs checks those against this page.
3. The extraction itself is checked: non-empty, and it finds keys known to exist.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

import airqueue as aq

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "scenario.md"
PARSE = ROOT / "crates" / "scenario" / "src" / "parse.rs"
PARSE_DIR = ROOT / "crates" / "scenario" / "src" / "parse"
PARSE_TESTS = PARSE_DIR / "tests.rs"

COMPLETE = "# complete scenario"
INVALID = "# invalid scenario"
SWEEP = "# sweep file"
EXAMPLES = ROOT / "examples"

# The key arrays the drift guard must find (name -> file); more are picked up if present.
EXPECTED_ARRAYS = {
    "TOPOLOGY_KEYS": PARSE,
    "MEDIUM_KEYS": PARSE_DIR / "wifi.rs",
    "PROPAGATION_KEYS": PARSE_DIR / "wifi.rs",
    "OWN_KEYS": PARSE_DIR / "random_flows.rs",
}

_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
# `const NAME: [TYPE; N] = [BODY];` with TYPE `&str` or `(&str, &[&str])`.
_CONST_DECL = re.compile(r"\bconst\s+([A-Z][A-Z0-9_]*)\s*:\s*\[\s*(\(\s*)?&str\b")
_CONST_ARRAY = re.compile(
    r"\bconst\s+([A-Z][A-Z0-9_]*)\s*:\s*\[(.*?);\s*\d+\s*\]\s*=\s*\[(.*?)\];", re.S
)
_TUPLE_HEAD = re.compile(r'\(\s*"([^"]+)"')
_STRING = re.compile(r'"([^"]+)"')
# Key names handed to the `Fields` getters (`f.number(errs, "duration", ...)`,
# `top.take("topology")`, `f.has("stop")`) and to the readers' local helpers
# (`retry(&mut f, errs, "short_retry_limit", ...)`, `seconds("d_ref", ...)`).
_GETTER = re.compile(
    r"\b(?:f|top)\s*\.\s*(?:number|optional_number|integer|packets|boolean|string|choice"
    r"|take|has|node|tables|section|consume)\s*\(\s*(?:errs\s*,\s*)?\"([a-z_]+)\""
)
_HELPER = re.compile(
    r"\b(?:retry|seconds|read_cw|hops|given)\s*\(\s*(?:(?:&mut\s+)?f\s*,\s*)?(?:errs\s*,\s*)?"
    r"\"([a-z_]+)\""
)


def _rust_sources() -> list[Path]:
    files = [PARSE, *sorted(PARSE_DIR.glob("*.rs"))]
    return [p for p in files if not p.name.endswith("tests.rs")]


def _const_arrays() -> dict[str, tuple[Path, list[str]]]:
    """Every const array of strings (or of (string, ...) tuples) in the parse sources:
    name -> (file, first string of each entry)."""
    found: dict[str, tuple[Path, list[str]]] = {}
    for path in _rust_sources():
        text = path.read_text(encoding="utf-8")
        declared = {m.group(1) for m in _CONST_DECL.finditer(text)}
        for m in _CONST_ARRAY.finditer(text):
            name, ty, body = m.groups()
            if name not in declared:
                continue  # e.g. DSSS_RATES_BPS: [f64; 4]
            pattern = _TUPLE_HEAD if ty.strip().startswith("(") else _STRING
            found[name] = (path, pattern.findall(body))
        unparsed = declared - set(found)
        assert not unparsed, (
            f"{path}: could not parse the const array(s) {sorted(unparsed)}; "
            "update the regexes in tests/test_docs_scenario.py"
        )
    return found


def _getter_keys() -> set[str]:
    keys: set[str] = set()
    for path in _rust_sources():
        text = path.read_text(encoding="utf-8")
        keys.update(_GETTER.findall(text))
        keys.update(_HELPER.findall(text))
    return keys


def _doc() -> str:
    return DOC.read_text(encoding="utf-8")


def _blocks(lang: str) -> list[str]:
    return [body for tag, body in _FENCE.findall(_doc()) if tag == lang]


def _complete_blocks() -> list[tuple[str, str]]:
    out = []
    for lang, suffix in (("toml", ".toml"), ("yaml", ".yaml")):
        out += [(suffix, b) for b in _blocks(lang) if b.startswith(COMPLETE + "\n")]
    return out


def test_key_arrays_are_found_and_hold_known_keys():
    arrays = _const_arrays()
    for name, path in EXPECTED_ARRAYS.items():
        assert name in arrays, f"{name} not found in {path}; was it renamed?"
        assert arrays[name][1], f"{name} parsed as empty"
    assert {"spacing", "nodes", "stations", "wire_capacity"} <= set(arrays["TOPOLOGY_KEYS"][1])
    # Every queue kind declares its keys in its module (registered_docs.rs checks them).
    assert "QUEUE_KEYS" not in arrays
    assert arrays["OWN_KEYS"][1] == ["random", "start", "min_hops", "max_hops"]
    getters = _getter_keys()
    assert {"capacity", "cc", "spacing", "duration", "tx_buffer"} <= getters
    # So does every source rate controller: `[diffq] utility` is no longer a getter call.
    assert "utility" not in getters
    assert {"short_retry_limit", "cw_min", "min_hops", "metric"} <= getters
    # And every routing protocol: AODV's `net_diameter` is declared in net/aodv/keys.rs.
    assert "ROUTING_KEYS" not in arrays
    assert "net_diameter" not in getters
    # And every flow kind: MORE's `batch` is declared in net/more/mod.rs.
    assert "FLOW_KEYS" not in arrays
    assert "batch" not in getters


@pytest.mark.parametrize("name", sorted(EXPECTED_ARRAYS))
def test_every_key_of_each_kind_list_is_documented(name):
    path, keys = _const_arrays()[name]
    doc = _doc()
    missing = [k for k in keys if f"`{k}`" not in doc]
    assert not missing, f"{path.name} {name}: not in docs/scenario.md as `key`: {missing}"


def test_every_kind_and_preset_value_is_documented():
    doc = _doc()
    values = {
        name: vals for name, (_, vals) in _const_arrays().items() if not name.endswith("_KEYS")
    }
    assert {"TOPOLOGY_KINDS", "MEDIUM_KINDS", "PROPAGATIONS", "LEVEL_PRESETS"} <= set(values)
    missing = [(n, v) for n, vals in values.items() for v in vals if f'`"{v}"`' not in doc]
    assert not missing, f'not in docs/scenario.md as `"value"`: {missing}'


def test_every_key_the_reader_takes_is_documented():
    doc = _doc()
    # Sections are documented as `[name]` / `[[name]]` headings, keys as `key`.
    missing = sorted(k for k in _getter_keys() if f"`{k}`" not in doc and f"[{k}]" not in doc)
    assert not missing, f"keys read in crates/scenario/src/parse*: not documented: {missing}"


def test_the_page_has_complete_examples():
    assert len(_complete_blocks()) >= 4


def test_every_toml_block_is_valid_toml():
    for block in _blocks("toml"):
        tomllib.loads(block)


@pytest.mark.parametrize("index", range(len(_complete_blocks())))
def test_complete_example_loads_and_runs(index, tmp_path):
    suffix, block = _complete_blocks()[index]
    path = tmp_path / f"example{index}{suffix}"
    path.write_text(block, encoding="utf-8")
    sc = aq.load_scenario(path)
    sc.validate()
    data = sc.to_dict()
    # About a second of simulated time, after the warmup and every start.
    starts = [float(data.get("warmup", 0.0))]
    starts += [float(f.get("start", 0.0)) for f in data.get("flow", [])]
    random_start = data.get("flows", {}).get("start", 0.0)
    starts += random_start if isinstance(random_start, list) else [random_start]
    duration = min(float(data["duration"]), max(starts) + 1.0)
    res = aq.run(sc, duration=duration)
    assert res.summary["simulated_seconds"] == pytest.approx(duration)
    listed = len(data.get("flow", [])) + data.get("flows", {}).get("random", 0)
    assert len(res.flows) == listed


def test_error_example_matches_the_core_and_its_tests(tmp_path):
    text = _doc()
    invalid = [b for b in _blocks("toml") if b.startswith(INVALID + "\n")]
    assert len(invalid) == 1, "expected one block marked # invalid scenario"
    fences = _FENCE.findall(text)
    at = next(i for i, (_, body) in enumerate(fences) if body == invalid[0])
    following = [body for tag, body in fences[at + 1 :] if tag == "text"]
    assert following, "no ```text block of messages after the invalid scenario"
    expected = [line for line in following[0].splitlines() if line]
    rust_tests = PARSE_TESTS.read_text(encoding="utf-8")
    for message in expected:
        quoted = '"' + message.replace('"', '\\"') + '"'
        assert quoted in rust_tests, f"not copied from {PARSE_TESTS.name}: {message}"
    path = tmp_path / "invalid.toml"
    path.write_text(invalid[0], encoding="utf-8")
    with pytest.raises(aq.ConfigError) as e:
        aq.load_scenario(path).validate()
    assert sorted(e.value.errors) == sorted(expected)


def test_sweep_example_loads(tmp_path):
    sweeps = [b for b in _blocks("toml") if b.startswith(SWEEP + "\n")]
    assert sweeps, "expected a block marked # sweep file"
    for i, block in enumerate(sweeps):
        base = tomllib.loads(block)["base"]
        path = tmp_path / f"sweep{i}.toml"
        path.write_text(block.replace(f'"{base}"', f'"{EXAMPLES / base}"'), encoding="utf-8")
        spec = aq.SweepSpec.load(path)
        assert spec.runs(), "the sweep has no runs"
