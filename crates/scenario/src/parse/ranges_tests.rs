//! The physical ranges of numeric keys (issue 20): values a network cannot have are
//! refused at their key path with the bound, its reason and what to write instead; and a
//! misspelt required key is reported both as missing and as unknown.

use super::tests::{base_with, errors, ok, one_error, BASE};

#[test]
fn a_misspelt_required_key_is_missing_and_unknown_with_a_suggestion() {
    let text = base_with("spacing = 200", "spacng = 200.0");
    assert_eq!(
        errors(&text),
        [
            "topology.spacing: missing required key; expected a distance in metres > 0",
            "topology.spacng: unknown key; did you mean \"spacing\"?",
        ]
    );
    // The same in a grid (rows), a star (radius), a bss (stations) and the wired medium,
    // whose invalid bandwidth used to hide its table's unknown keys.
    let grid = BASE.replace(
        "kind = \"chain\"\nnodes = 5\nspacing = 200",
        "kind = \"grid\"\nrwos = 2\ncols = 3\nspacing = 200",
    );
    let e = errors(&grid);
    assert!(e.contains(&"topology.rows: missing required key; expected an integer number >= 1 (rows x cols must be in 2..=10000)".to_string()), "{e:#?}");
    assert!(
        e.contains(&"topology.rwos: unknown key; did you mean \"rows\"?".to_string()),
        "{e:#?}"
    );
    let wired = format!("{BASE}[medium]\nkind = \"wired\"\nbandwidth = -1\ndelya = 0.1\n");
    assert_eq!(
        errors(&wired),
        [
            "medium.bandwidth: expected bit/s > 0, got -1",
            "medium.delya: unknown key; did you mean \"delay\"?",
        ]
    );
}

#[test]
fn an_offered_rate_far_above_the_fastest_link_is_refused_with_the_bound() {
    let e = one_error(&base_with("rate = 1e6", "rate = 1e308"));
    assert_eq!(
        e,
        "flow[0].rate: 1e308 bit/s is above 1.1e8 bit/s (a source offers at most 10 times \
         the fastest link of this scenario, 1.1e7 bit/s; more only fills its first queue, \
         with packets due ever closer to 0 ns apart); use a value in [1, 1.1e8] bit/s, or \
         \"saturate\" to keep the source's queue full"
    );
    // Overloading the link (here twice the top 802.11b rate) stays possible...
    ok(&base_with("rate = 1e6", "rate = 22e6"));
    // ... and the bound follows the fastest link: a 1 Gb/s wired medium takes 10 Gb/s.
    let wired = format!("{BASE}[medium]\nkind = \"wired\"\nbandwidth = 1e9\n");
    ok(&wired.replace("rate = 1e6", "rate = 1e10"));
    assert!(one_error(&wired.replace("rate = 1e6", "rate = 2e10"))
        .starts_with("flow[0].rate: 2e10 bit/s is above 1e10 bit/s"));
    // Below one bit per second is a unit slip.
    assert!(one_error(&base_with("rate = 1e6", "rate = 1e-3"))
        .starts_with("flow[0].rate: 0.001 bit/s is below 1 bit/s"));
}

#[test]
fn links_distances_and_powers_have_physical_ranges() {
    let cases = [
        (
            "spacing = 200",
            "spacing = 1e308",
            "topology.spacing: 1e308 m is above 1e6 m",
        ),
        (
            "[[flow]]",
            "[medium]\nkind = \"wired\"\nbandwidth = 1e12\n[[flow]]",
            "medium.bandwidth: 1e12 bit/s is above 1e11 bit/s",
        ),
        (
            "[[flow]]",
            "[medium]\nkind = \"wired\"\ndelay = 1e308\n[[flow]]",
            "medium.delay: 1e308 s is above 3600 s",
        ),
        (
            "[[flow]]",
            "[radio]\ntx_range = 1e308\ncs_range = 1e308\n[[flow]]",
            "radio.tx_range: 1e308 m is above 1e6 m",
        ),
        (
            "[[flow]]",
            "[radio]\ntx_power_dbm = 1e308\n[[flow]]",
            "radio.tx_power_dbm: 1e308 dBm is above 300 dBm",
        ),
        (
            "[[flow]]",
            "[radio]\ncapture_db = 1e3\n[[flow]]",
            "radio.capture_db: 1000 dB is above 300 dB",
        ),
        (
            "[[flow]]",
            "[queue]\ncapacity = 4294967295\n[[flow]]",
            "queue.capacity: expected an integer number of packets in 1..=100000, got 4294967295",
        ),
        (
            "[[flow]]",
            "[diffq]\nmax_rate = 1e308\n[[flow]]",
            "diffq.max_rate: 1e308 bit/s is above 1e12 bit/s",
        ),
        (
            "[[flow]]",
            "[diffq]\nupdate_interval = 1e-12\n[[flow]]",
            "diffq.update_interval: 1e-12 s is below 1e-6 s, the shortest period or timeout",
        ),
        (
            "[[flow]]",
            "[tcp]\nmin_rto = 1e-300\n[[flow]]",
            "tcp.min_rto: 1e-300 s is below 1e-6 s",
        ),
        (
            "[[flow]]",
            "[tcp]\ninitial_rto = 1e-300\n[[flow]]",
            "tcp.initial_rto: 1e-300 s is below 1e-6 s",
        ),
        (
            "[[flow]]",
            "[routing]\nkind = \"olsr\"\nhello_interval = 1e-9\n[[flow]]",
            "routing.hello_interval: 1e-9 s is below 1e-6 s",
        ),
    ];
    for (from, to, start) in cases {
        let e = errors(&base_with(from, to));
        assert!(e.iter().any(|m| m.starts_with(start)), "{to}: {e:#?}");
    }
    // 0 still means "off" where it did.
    let off = base_with(
        "[[flow]]",
        "[queue]\nkind = \"backpressure\"\ncontrol_interval = 0\n[[flow]]",
    );
    assert_eq!(ok(&off).queue.params.duration("control_interval"), None);
    // At most 10^8 time-series bins; the default bin counts too, and says so.
    let fine = base_with("duration = 60", "duration = 1000\n[outputs]\nbin = 1e-6");
    assert_eq!(
        one_error(&fine),
        "outputs.bin: 1e-6 s cuts duration (1000 s) into 1e9 bins; a run keeps at most 1e8 \
         (a sample per node and flow in each): use a bin of at least 1e-5 s"
    );
    let long = base_with("duration = 60", "duration = 2e8");
    assert!(one_error(&long).starts_with("outputs.bin: 1 s (the default) cuts duration"));
}
