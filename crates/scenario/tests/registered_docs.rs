//! Every registered queue discipline is documented: its kind and each of its keys are
//! named in docs/scenario.md's `[queue]` table (its table keys in the table of its own
//! section), and it has a scheme page (the one whose opening `[queue] kind = ...` line
//! names it) that names them too. So is every registered source rate controller with keys:
//! each key in the table of its own section. And every registered routing protocol: its
//! kind in the `[routing]` table's `kind` row, each of its keys in a row that names the
//! kind and shows the declared default, range and choices. And every registered flow
//! kind: its kind in the `[[flow]]` table's `kind` row, each of its keys in a row that
//! names the kind.

use airqueue_scenario::parse::MAX_QUEUE_PKTS;
use airqueue_sim::net::registry::ROUTING_SCHEMES;
use airqueue_sim::qdisc::registry::{short, Fallback, Key, KeyValue, Range, SCHEMES};
use airqueue_sim::transport::{FLOW_KINDS, RATE_SCHEMES};
use std::path::Path;

fn doc(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs")
        .join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The section of docs/scenario.md headed `[name]` (`[[flow]]` for `[flow]`), up to the
/// next section.
fn section<'a>(scenario: &'a str, name: &str) -> &'a str {
    let heading = format!("## `[{name}]`");
    let table = &scenario[scenario.find(&heading).expect(&heading)..];
    &table[..table[1..].find("\n## ").unwrap()]
}

/// The row of `key` in `table`, the `[name]` section of docs/scenario.md.
#[track_caller]
fn row_of<'a>(table: &'a str, name: &str, key: &str) -> &'a str {
    let head = format!("| `{key}` |");
    let line = table.lines().find(|l| l.starts_with(&head));
    line.unwrap_or_else(|| panic!("no row for `{key}` in `[{name}]`"))
}

/// Checks that the `[name]` section of docs/scenario.md has a row for each of `keys`.
#[track_caller]
fn assert_rows(scenario: &str, name: &str, keys: &[Key]) {
    let table = section(scenario, name);
    for k in keys {
        let row = format!("| `{}` |", k.name);
        assert!(
            table.lines().any(|l| l.starts_with(&row)),
            "no row for `{}` in `[{name}]`",
            k.name
        );
    }
}

#[test]
fn every_registered_kind_and_key_is_in_the_scenario_reference() {
    let scenario = doc("scenario.md");
    let queue = section(&scenario, "queue");
    for s in SCHEMES {
        assert!(
            queue.contains(&format!("`\"{}\"`", s.name)),
            "kind {}",
            s.name
        );
        for k in s.keys {
            let row = format!("| `{}` |", k.name);
            let line = queue.lines().find(|l| l.starts_with(&row));
            let line = line.unwrap_or_else(|| panic!("{}: no row for `{}`", s.name, k.name));
            assert!(
                line.contains(s.name),
                "{}: row `{}` does not name the kind",
                s.name,
                k.name
            );
        }
        if !s.table_keys.is_empty() {
            assert_rows(&scenario, s.name, s.table_keys);
        }
    }
}

#[test]
fn every_registered_kind_has_a_scheme_page_naming_its_keys() {
    let pages: Vec<String> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/schemes"))
            .unwrap()
            .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
            .collect();
    for s in SCHEMES {
        let quoted = format!("\"{}\"", s.name);
        let page = pages
            .iter()
            .find(|p| {
                p.lines()
                    .any(|l| l.starts_with("`[queue] kind = ") && l.contains(&quoted))
            })
            .unwrap_or_else(|| panic!("no page for {}", s.name));
        for k in s.keys.iter().chain(s.table_keys) {
            assert!(
                page.contains(&format!("`{}`", k.name)),
                "{}: `{}`",
                s.name,
                k.name
            );
        }
    }
}

#[test]
fn every_registered_rate_controller_table_is_in_the_scenario_reference() {
    let scenario = doc("scenario.md");
    for s in RATE_SCHEMES.iter().filter(|s| !s.keys.is_empty()) {
        assert_rows(&scenario, s.name, s.keys);
    }
}

/// What the `[routing]` row of `k` must show: its default in the default column, and in
/// the meaning column its range and choices.
fn routing_row_shows(k: &Key) -> (Vec<String>, Vec<String>) {
    match k.value {
        KeyValue::Duration {
            default: Fallback::Value(d),
            max_s,
            zero_is_off,
            ..
        } => {
            let range = Range {
                min_inclusive: zero_is_off,
                ..Range::closed(0.0, max_s)
            };
            (vec![short(d)], vec![range.describe()])
        }
        KeyValue::Integer { default, min, max }
        | KeyValue::Count {
            default, min, max, ..
        } => (vec![default.to_string()], vec![format!("{min}..={max}")]),
        KeyValue::Packets { default: Some(d) } => {
            (vec![d.to_string()], vec![format!("1..={MAX_QUEUE_PKTS}")])
        }
        KeyValue::Bool { default } => (vec![default.to_string()], Vec::new()),
        KeyValue::Choice { default, names } => (
            vec![format!("`\"{default}\"`")],
            names.iter().map(|n| format!("`\"{n}\"`")).collect(),
        ),
        KeyValue::MoreThan {
            than,
            default_times,
            max_s,
            ..
        } => (
            vec![format!("{} x `{than}`", short(default_times))],
            vec![format!("more than `{than}`, at most {}", short(max_s))],
        ),
        KeyValue::ShareOf { of, .. } => {
            let names: Vec<String> = of.iter().map(|k| format!("`{k}`")).collect();
            (names, Vec::new())
        }
        ref other => panic!("{}: add what its row shows for {other:?}", k.name),
    }
}

#[test]
fn every_routing_protocol_and_key_is_in_the_scenario_reference() {
    let scenario = doc("scenario.md");
    let routing = section(&scenario, "routing");
    let row = |key: &str| {
        let line = row_of(routing, "routing", key);
        line.split(" | ").map(str::to_string).collect::<Vec<_>>()
    };
    for s in ROUTING_SCHEMES {
        let kind = row("kind");
        assert!(
            kind[3].contains(&format!("`\"{}\"`", s.name)),
            "kind {}",
            s.name
        );
        for k in s.keys {
            let cells = row(k.name);
            let (default, meaning) = (&cells[2], &cells[3]);
            assert!(
                meaning.contains(s.name),
                "{}: `{}` does not name it",
                s.name,
                k.name
            );
            let (defaults, shown) = routing_row_shows(k);
            for d in defaults {
                assert!(default.contains(&d), "{}.{}: default {d}", s.name, k.name);
            }
            for x in shown {
                assert!(meaning.contains(&x), "{}.{}: {x}", s.name, k.name);
            }
        }
    }
}

#[test]
fn every_flow_kind_and_key_is_in_the_scenario_reference() {
    let scenario = doc("scenario.md");
    let flow = section(&scenario, "[flow]");
    let row = |key: &str| row_of(flow, "[flow]", key);
    for s in FLOW_KINDS {
        assert!(
            row("kind").contains(&format!("`\"{}\"`", s.name)),
            "{}",
            s.name
        );
        for k in s.keys {
            let line = row(k.name);
            assert!(
                line.contains(&format!("({})", s.name)),
                "{}.{}",
                s.name,
                k.name
            );
        }
    }
}
