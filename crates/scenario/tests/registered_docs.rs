//! Every registered queue discipline is documented: its kind and each of its keys are
//! named in docs/scenario.md's `[queue]` table (its table keys in the table of its own
//! section), and it has a scheme page (the one whose opening `[queue] kind = ...` line
//! names it) that names them too. So is every registered source rate controller with keys:
//! each key in the table of its own section.

use airqueue_sim::qdisc::registry::{Key, SCHEMES};
use airqueue_sim::transport::RATE_SCHEMES;
use std::path::Path;

fn doc(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs")
        .join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The section of docs/scenario.md headed `[name]`, up to the next section.
fn section<'a>(scenario: &'a str, name: &str) -> &'a str {
    let heading = format!("## `[{name}]`");
    let table = &scenario[scenario.find(&heading).expect(&heading)..];
    &table[..table[1..].find("\n## ").unwrap()]
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
