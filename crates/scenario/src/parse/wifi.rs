//! The link-layer sections: `[medium]` (wifi, the default, or wired), the 802.11b `[radio]`
//! and 802.11 channel access in `[mac]`, with every default and cross-key check.

use airqueue_phy::edca;
use airqueue_phy::{Dbm, EdcaError, EdcaLevel};
use airqueue_sim::medium::wifi::WifiConfig;
use serde_json::Value;

use super::fields::{self, describe, Errs, Fields};
use super::DSSS_RATES_BPS;
use crate::error::ConfigError;
use crate::schema::{
    Fading, LateCapture, Level, Mac, MacKind, Medium, Preamble, PropagationKind, Radio,
    RateControl, SensedFrames,
};

const MEDIUM_KINDS: [&str; 2] = ["wifi", "wired"];

/// Which medium kinds take each kind-specific key.
const MEDIUM_KEYS: [(&str, &[&str]); 2] = [("bandwidth", &["wired"]), ("delay", &["wired"])];

const PROPAGATIONS: [&str; 4] = ["two-ray-ground", "log-distance", "friis", "range"];

/// Which propagation models take each model-specific key.
const PROPAGATION_KEYS: [(&str, &[&str]); 1] = [("path_loss_exponent", &["log-distance"])];

/// Default `radio.path_loss_exponent`: a typical urban/indoor value (Rappaport table 4.2
/// gives 2.7 to 3.5 for urban cellular), and ns-3's `LogDistancePropagationLossModel`
/// default.
pub const DEFAULT_PATH_LOSS_EXPONENT: f64 = 3.0;

/// Largest `radio.path_loss_exponent`; measured exponents lie between 1.6 and 6
/// (Rappaport table 4.2).
pub const MAX_PATH_LOSS_EXPONENT: f64 = 10.0;

/// Powers and thresholds in dBm lie within +-300 dBm: -300 dBm is 10^-33 W, far below
/// thermal noise; 300 dBm would be 10^27 W. Outside, the arithmetic in milliwatts
/// overflows or underflows.
pub const MAX_ABS_DBM: f64 = 300.0;

/// Largest power ratio in dB (`radio.capture_db`).
pub const MAX_DB: f64 = 300.0;

/// A power in dBm within [`MAX_ABS_DBM`].
fn dbm(errs: &mut Errs, path: &str, x: Option<f64>) -> Option<f64> {
    fields::within(
        errs,
        path,
        x,
        (-MAX_ABS_DBM, MAX_ABS_DBM),
        "dBm",
        "-300 dBm is 1e-33 W, 300 dBm 1e27 W",
    )
}

/// The `mac.levels` presets, by name.
const LEVEL_PRESETS: [(&str, &[EdcaLevel]); 2] = [("dcf", &edca::DCF), ("diffq8", &edca::DIFFQ8)];

/// Largest contention window accepted, in slots: the 4-bit ECW field of the EDCA Parameter
/// Set element caps CW at 2^15 - 1 (IEEE 802.11-2016 9.4.2.29).
pub const MAX_CW: u16 = 32_767;

/// Largest `mac.tx_buffer`, frames. The MAC is meant to hold "a small transmit buffer"
/// (DESIGN.md) so that queue disciplines decide at the last moment; the bound admits a
/// driver's descriptor pool behind the queue discipline as well, such as MadWiFi's
/// `ATH_TXBUF` (200 transmit buffers shared by its per-AC hardware queues, if_athvar.h)
/// or later Atheros drivers' 512.
pub const MAX_TX_BUFFER_FRAMES: u64 = 512;
/// Largest `mac.tdma_slot_bytes`: an IP packet of 65535 bytes.
pub const MAX_TDMA_SLOT_BYTES: u32 = 65_535;
/// The payload a TDMA slot is sized for in a scenario without flows: a 1460-byte TCP
/// segment (an Ethernet MTU's).
pub const DEFAULT_TDMA_PAYLOAD_BYTES: u32 = 1460;

pub(super) fn read_medium(mut f: Fields, errs: &mut Errs) -> Option<Medium> {
    let given = f.has("kind");
    let kind = f.choice(errs, "kind", Some("wifi"), &MEDIUM_KINDS, &[]);
    f.only_for(errs, "kind", kind, given, &MEDIUM_KEYS);
    let medium = match kind {
        Some("wifi") => Some(Medium::Wifi),
        Some("wired") => {
            let bandwidth = f.number(errs, "bandwidth", Some(11e6), "bit/s > 0", |x| x > 0.0);
            let bandwidth = super::wire_bandwidth(errs, &f.path("bandwidth"), bandwidth);
            let delay = f.number(errs, "delay", Some(2e-6), "a number of seconds >= 0", |x| {
                x >= 0.0
            });
            let delay = super::link_delay(errs, &f.path("delay"), delay);
            bandwidth
                .zip(delay)
                .map(|(bandwidth_bps, delay_s)| Medium::Wired {
                    bandwidth_bps,
                    delay_s,
                })
        }
        _ => None,
    };
    f.finish(errs);
    medium
}

/// A threshold for messages: as written when the file gave it, else rounded to 0.01 dB and
/// followed by the range it was derived from.
fn threshold_shown(value: f64, given: bool, range_key: &str, range_m: Option<f64>) -> String {
    match (given, range_m) {
        (true, _) => format!("{value} dBm"),
        (false, Some(r)) => format!("{value:.2} dBm, derived from radio.{range_key} = {r} m"),
        (false, None) => format!("{value:.2} dBm"),
    }
}

pub(super) fn read_radio(mut f: Fields, errs: &mut Errs) -> Option<Radio> {
    let defaults = WifiConfig::dsss_default();
    let expected = "an 802.11b rate in bit/s, one of 1e6, 2e6, 5.5e6, 11e6";
    let is_rate = |x: f64| DSSS_RATES_BPS.contains(&x);
    let data_rate = f.number(errs, "data_rate", Some(11e6), expected, is_rate);
    let basic_rate = f.number(errs, "basic_rate", Some(1e6), expected, is_rate);
    let tx_range = f.number(
        errs,
        "tx_range",
        Some(250.0),
        "a distance in metres > 0",
        |x| x > 0.0,
    );
    let tx_range = super::distance(errs, &f.path("tx_range"), tx_range);
    let cs_given = f.has("cs_range");
    let cs_range = f.number(
        errs,
        "cs_range",
        Some(550.0),
        "a distance in metres > 0",
        |x| x > 0.0,
    );
    let cs_range = super::distance(errs, &f.path("cs_range"), cs_range);
    let mut ranges_ok = tx_range.is_some() && cs_range.is_some();
    if let (Some(tx), Some(cs)) = (tx_range, cs_range) {
        if cs < tx {
            ranges_ok = false;
            let default = if cs_given { "" } else { " (the default)" };
            errs.push(ConfigError::new(
                f.path("cs_range"),
                format!("must be >= radio.tx_range ({tx} m): a radio senses at least as far as it decodes, got {cs}{default}"),
            ));
        }
    }

    let propagation_given = f.has("propagation");
    let propagation_name = f.choice(
        errs,
        "propagation",
        Some("two-ray-ground"),
        &PROPAGATIONS,
        &[],
    );
    f.only_for(
        errs,
        "propagation",
        propagation_name,
        propagation_given,
        &PROPAGATION_KEYS,
    );
    let propagation = match propagation_name {
        Some("two-ray-ground") => Some(PropagationKind::TwoRayGround),
        Some("log-distance") => f
            .number(
                errs,
                "path_loss_exponent",
                Some(DEFAULT_PATH_LOSS_EXPONENT),
                "a path-loss exponent > 0 (2 is free space, 4 the two-ray asymptote)",
                |x| x > 0.0,
            )
            .and_then(|x| {
                fields::within(
                    errs,
                    &f.path("path_loss_exponent"),
                    Some(x),
                    (0.0, MAX_PATH_LOSS_EXPONENT),
                    "",
                    "measured exponents lie between 1.6 and 6",
                )
            })
            .map(|exponent| PropagationKind::LogDistance { exponent }),
        Some("friis") => Some(PropagationKind::Friis),
        Some("range") => Some(PropagationKind::Range),
        _ => None,
    };
    let fading = match f.choice(errs, "fading", Some("none"), &["none", "rayleigh"], &[]) {
        Some("rayleigh") => Some(Fading::Rayleigh),
        Some(_) => Some(Fading::None),
        None => None,
    };
    let tx_power = f.number(
        errs,
        "tx_power_dbm",
        Some(defaults.tx_power_dbm),
        "a transmit power in dBm",
        |_| true,
    );
    let tx_power = dbm(errs, &f.path("tx_power_dbm"), tx_power);

    // Thresholds: as given, else the power received at the matching range.
    let model = match (propagation, tx_range, cs_range) {
        (Some(p), Some(tx), Some(cs)) if ranges_ok => Some(p.model(tx, cs)),
        _ => None,
    };
    let derived = |range: Option<f64>| match (model, tx_power, range) {
        (Some(m), Some(p), Some(r)) => Some(airqueue_phy::threshold_for_range(&m, Dbm(p), r).0),
        _ => None,
    };
    let rx_given = f.has("rx_threshold_dbm");
    let rx_threshold = if rx_given {
        let x = f.number(
            errs,
            "rx_threshold_dbm",
            None,
            "a receive threshold in dBm",
            |_| true,
        );
        dbm(errs, &f.path("rx_threshold_dbm"), x)
    } else {
        let _ = f.take("rx_threshold_dbm"); // registers the key (a JSON null reads as absent)
        derived(tx_range)
    };
    let cs_thr_given = f.has("cs_threshold_dbm");
    let cs_threshold = if cs_thr_given {
        let x = f.number(
            errs,
            "cs_threshold_dbm",
            None,
            "a carrier-sense threshold in dBm",
            |_| true,
        );
        dbm(errs, &f.path("cs_threshold_dbm"), x)
    } else {
        let _ = f.take("cs_threshold_dbm");
        derived(cs_range)
    };
    let thresholds_ok = match (rx_threshold, cs_threshold) {
        (Some(rx), Some(cs)) if cs > rx => {
            const WHY: &str = "carrier sense must be at least as sensitive as decoding";
            if cs_thr_given {
                let rx = threshold_shown(rx, rx_given, "tx_range", tx_range);
                errs.push(ConfigError::new(
                    f.path("cs_threshold_dbm"),
                    format!("must be <= radio.rx_threshold_dbm ({rx}): {WHY}, got {cs}"),
                ));
            } else {
                let cs = threshold_shown(cs, false, "cs_range", cs_range);
                errs.push(ConfigError::new(
                    f.path("rx_threshold_dbm"),
                    format!(
                        "must be >= radio.cs_threshold_dbm ({cs}): {WHY}, got {rx}; raise it or \
                         set radio.cs_threshold_dbm"
                    ),
                ));
            }
            false
        }
        _ => true,
    };

    let noise = f.number(
        errs,
        "noise_dbm",
        Some(defaults.noise_dbm),
        "a noise power in dBm",
        |_| true,
    );
    let noise = dbm(errs, &f.path("noise_dbm"), noise);
    let capture = f.number(
        errs,
        "capture_db",
        Some(defaults.capture_db),
        "a power ratio in dB >= 0",
        |x| x >= 0.0,
    );
    let capture = fields::within(
        errs,
        &f.path("capture_db"),
        capture,
        (0.0, MAX_DB),
        "dB",
        "a ratio of up to 1e30",
    );
    let sensed_frames = match f.choice(
        errs,
        "sensed_frames",
        Some("rx_error"),
        &["rx_error", "energy"],
        &[],
    ) {
        Some("energy") => Some(SensedFrames::EnergyOnly),
        Some(_) => Some(SensedFrames::RxError),
        None => None,
    };
    // `true` / `false` keep their first meaning (`always` / `never`).
    let late_capture = match f.peek("late_capture") {
        Some(Value::Bool(_)) => f.boolean(errs, "late_capture", false).map(|b| {
            if b {
                LateCapture::Always
            } else {
                LateCapture::Never
            }
        }),
        Some(v) if !v.is_string() => {
            let path = f.path("late_capture");
            f.consume("late_capture");
            errs.push(ConfigError::new(
                path,
                format!(
                    "expected \"preamble\", \"always\" or \"never\" (or true / false for \
                     \"always\" / \"never\"), got {}",
                    describe(v)
                ),
            ));
            None
        }
        _ => match f.choice(
            errs,
            "late_capture",
            Some("preamble"),
            &["preamble", "always", "never"],
            &[],
        ) {
            Some("always") => Some(LateCapture::Always),
            Some("never") => Some(LateCapture::Never),
            Some(_) => Some(LateCapture::Preamble),
            None => None,
        },
    };
    let preamble_detection = read_preamble_detection(&mut f, errs);
    let preamble = match f.choice(errs, "preamble", Some("long"), &["long", "short"], &[]) {
        Some("short") => Some(Preamble::Short),
        Some(_) => Some(Preamble::Long),
        None => None,
    };
    f.finish(errs);
    if !thresholds_ok {
        return None;
    }
    Some(Radio {
        data_rate_bps: data_rate?,
        basic_rate_bps: basic_rate?,
        tx_range_m: tx_range?,
        cs_range_m: cs_range?,
        propagation: propagation?,
        fading: fading?,
        tx_power_dbm: tx_power?,
        rx_threshold_dbm: rx_threshold?,
        cs_threshold_dbm: cs_threshold?,
        noise_dbm: noise?,
        capture_db: capture?,
        sensed_frames: sensed_frames?,
        late_capture: late_capture?,
        preamble_detection_db: preamble_detection?,
        preamble: preamble?,
    })
}

pub(super) fn read_mac(mut f: Fields, nodes: Option<u32>, errs: &mut Errs) -> Option<Mac> {
    let defaults = WifiConfig::dsss_default();
    let kind_given = f.has("kind");
    let kind = f.choice(errs, "kind", Some("dcf"), &["dcf", "edca", "tdma"], &[]);
    let levels = match kind {
        Some("dcf") => {
            if f.take("levels").is_some() {
                let default = if kind_given { "" } else { " (the default)" };
                errs.push(ConfigError::new(
                    f.path("levels"),
                    format!(
                        "not used by kind \"dcf\"{default}, which is one level (aifsn 2, cw_min 31, \
                         cw_max 1023); set kind = \"edca\" to give levels"
                    ),
                ));
            }
            Some(levels_of(edca::dcf()))
        }
        Some("tdma") => {
            read_tdma_unused(&mut f, errs);
            Some(levels_of(edca::dcf()))
        }
        Some(_) => {
            let path = f.path("levels");
            match f.take("levels") {
                Some(v) => read_levels(v, &path, errs),
                None if f.is_broken() => None,
                None => Some(levels_of(edca::diffq8())),
            }
        }
        None => {
            f.consume("levels");
            None
        }
    };
    let retry = |f: &mut Fields, errs: &mut Errs, key, default: u32| {
        to_u32(f.integer(
            errs,
            key,
            Some(u64::from(default)),
            "an integer number of attempts in 1..=255",
            1..=255,
        ))
    };
    let short_retry = retry(
        &mut f,
        errs,
        "short_retry_limit",
        defaults.short_retry_limit,
    );
    let long_retry = retry(&mut f, errs, "long_retry_limit", defaults.long_retry_limit);
    let rts = read_rts_threshold(&mut f, errs);
    let nav_reset = f.boolean(errs, "nav_reset_after_rts", defaults.nav_reset_after_rts);
    let rate_control = match f.choice(
        errs,
        "rate_control",
        Some("constant"),
        &["constant", "aarf"],
        &[],
    ) {
        Some("aarf") => Some(RateControl::Aarf),
        Some(_) => Some(RateControl::Constant),
        None => None,
    };
    let tx_buffer = to_u32(f.integer(
        errs,
        "tx_buffer",
        Some(u64::from(defaults.tx_buffer_frames)),
        &format!("an integer number of frames in 1..={MAX_TX_BUFFER_FRAMES}"),
        1..=MAX_TX_BUFFER_FRAMES,
    ));
    let tdma_slot_bytes = read_tdma_slot_bytes(&mut f, kind, errs);
    let tdma_slots = read_tdma_slots(&mut f, kind, nodes, errs);
    f.finish(errs);
    let kind = match kind? {
        "edca" => MacKind::Edca,
        "tdma" => MacKind::Tdma,
        _ => MacKind::Dcf,
    };
    Some(Mac {
        kind,
        levels: levels?,
        short_retry_limit: short_retry?,
        long_retry_limit: long_retry?,
        rts_threshold_bytes: rts?,
        nav_reset_after_rts: nav_reset?,
        rate_control: rate_control?,
        tx_buffer_frames: tx_buffer?,
        tdma_slot_bytes: tdma_slot_bytes?,
        tdma_slots: tdma_slots?,
    })
}

/// Most slots one node may have per TDMA round.
pub const MAX_TDMA_SLOTS: u64 = 64;

/// `tdma_slots` (kind "tdma" only): `[node, slots]` pairs, each node once, slots in
/// 1..=[`MAX_TDMA_SLOTS`]. `None` on an error.
fn read_tdma_slots(
    f: &mut Fields,
    kind: Option<&str>,
    nodes: Option<u32>,
    errs: &mut Errs,
) -> Option<Vec<(u32, u32)>> {
    const KEY: &str = "tdma_slots";
    let path = f.path(KEY);
    let Some(v) = f.take(KEY) else {
        return Some(Vec::new());
    };
    if kind != Some("tdma") {
        if kind.is_some() {
            errs.push(ConfigError::new(
                path,
                "used only by kind = \"tdma\"; remove it or set kind = \"tdma\"",
            ));
        }
        return Some(Vec::new());
    }
    let expected =
        format!("a [node, slots] pair: a node id and its slots per round in 1..={MAX_TDMA_SLOTS}");
    let Some(items) = v.as_array() else {
        errs.push(ConfigError::new(
            path,
            format!(
                "expected an array of [node, slots] pairs, got {}",
                describe(v)
            ),
        ));
        return None;
    };
    let mut out: Vec<(u32, u32)> = Vec::with_capacity(items.len());
    let mut ok = true;
    for (i, item) in items.iter().enumerate() {
        let at = format!("{path}[{i}]");
        let pair = match item.as_array().map(Vec::as_slice) {
            Some([node, slots]) => node.as_u64().zip(slots.as_u64()),
            _ => None,
        };
        let problem = match pair {
            None => Some(format!("expected {expected}, got {}", describe(item))),
            Some((_, s)) if !(1..=MAX_TDMA_SLOTS).contains(&s) => {
                Some(format!("expected {expected}, got {s} slots"))
            }
            Some((node, _)) if nodes.is_some_and(|n| node >= u64::from(n)) => Some(format!(
                "node {node} does not exist; the topology has {} nodes",
                nodes.unwrap_or(0)
            )),
            Some((node, _)) if out.iter().any(|&(n, _)| u64::from(n) == node) => Some(format!(
                "node {node} is listed twice; give each node one entry"
            )),
            Some(_) => None,
        };
        match (problem, pair) {
            (Some(msg), _) => {
                errs.push(ConfigError::new(at, msg));
                ok = false;
            }
            (None, Some((node, slots))) => out.push((node as u32, slots as u32)),
            (None, None) => unreachable!("a missing pair is a problem"),
        }
    }
    ok.then_some(out)
}

/// The keys of contention that a TDMA schedule has no use for: an error each, rather
/// than a setting silently ignored.
fn read_tdma_unused(f: &mut Fields, errs: &mut Errs) {
    for (key, why) in [
        ("levels", "it has one buffer and no contention"),
        ("rts_threshold", "a slot carries no RTS/CTS"),
        (
            "nav_reset_after_rts",
            "a slot carries no RTS, so no NAV is set from one",
        ),
        (
            "long_retry_limit",
            "it counts frames protected by RTS/CTS, which a slot never carries; \
             short_retry_limit counts every attempt",
        ),
    ] {
        if f.take(key).is_some() {
            errs.push(ConfigError::new(
                f.path(key),
                format!("not used by kind \"tdma\": {why}; remove it"),
            ));
        }
    }
}

/// `tdma_slot_bytes`: the IP packet a TDMA slot is sized for (kind "tdma" only). `None`
/// on an error; `Some(None)` when not given (the default is resolved from the flows).
fn read_tdma_slot_bytes(
    f: &mut Fields,
    kind: Option<&str>,
    errs: &mut Errs,
) -> Option<Option<u32>> {
    const KEY: &str = "tdma_slot_bytes";
    if kind != Some("tdma") {
        if f.take(KEY).is_some() && kind.is_some() {
            errs.push(ConfigError::new(
                f.path(KEY),
                "used only by kind = \"tdma\"; remove it or set kind = \"tdma\"",
            ));
        }
        return Some(None);
    }
    if !f.has(KEY) {
        return Some(None);
    }
    let n = f.integer(
        errs,
        KEY,
        None,
        &format!("an integer number of bytes in 1..={MAX_TDMA_SLOT_BYTES}"),
        1..=u64::from(MAX_TDMA_SLOT_BYTES),
    );
    to_u32(n).map(Some)
}

fn to_u32(n: Option<u64>) -> Option<u32> {
    n.and_then(|n| u32::try_from(n).ok())
}

fn levels_of(preset: &[EdcaLevel]) -> Vec<Level> {
    preset
        .iter()
        .map(|l| Level {
            aifsn: l.aifsn,
            cw_min: l.cw_min,
            cw_max: l.cw_max,
        })
        .collect()
}

/// `mac.levels`: a preset name or an array of `{ aifsn, cw_min, cw_max }` tables.
/// Most EDCA levels a `mac.levels` array may have.
const MAX_LEVELS: usize = 64;

fn read_levels(v: &Value, path: &str, errs: &mut Errs) -> Option<Vec<Level>> {
    let names: Vec<&str> = LEVEL_PRESETS.iter().map(|(n, _)| *n).collect();
    let expected = format!(
        "a preset name ({}) or an array of {{ aifsn, cw_min, cw_max }} tables, lowest \
         priority first",
        fields::list(&names)
    );
    match v {
        Value::String(s) => {
            if let Some((_, preset)) = LEVEL_PRESETS.iter().find(|(n, _)| n == s) {
                return Some(levels_of(preset));
            }
            let hint = match fields::closest(s, &names) {
                Some(near) => format!("did you mean {near:?}? "),
                None => String::new(),
            };
            errs.push(ConfigError::new(
                path,
                format!("unknown preset {s:?}; {hint}expected {expected}"),
            ));
            None
        }
        Value::Array(items) if items.is_empty() => {
            errs.push(ConfigError::new(
                path,
                format!("expected at least one level: {expected}"),
            ));
            None
        }
        Value::Array(items) if items.len() > MAX_LEVELS => {
            errs.push(ConfigError::new(
                path,
                format!(
                    "expected at most {MAX_LEVELS} levels (the MAC resolves internal \
                     collisions over a 64-bit mask), got {}; merge levels with equal \
                     parameters",
                    items.len()
                ),
            ));
            None
        }
        Value::Array(items) => {
            let mut levels = Vec::with_capacity(items.len());
            let mut all_ok = true;
            for (i, item) in items.iter().enumerate() {
                match read_level(item, &format!("{path}[{i}]"), errs) {
                    Some(l) => levels.push(l),
                    None => all_ok = false,
                }
            }
            all_ok.then_some(levels)
        }
        _ => {
            errs.push(ConfigError::new(
                path,
                format!("expected {expected}, got {}", describe(v)),
            ));
            None
        }
    }
}

/// One `mac.levels` table, checked field by field, then by `EdcaLevel::validate`.
fn read_level(item: &Value, path: &str, errs: &mut Errs) -> Option<Level> {
    let mut f = Fields::table(item, path, errs);
    let aifsn = f
        .integer(
            errs,
            "aifsn",
            None,
            "an AIFSN in 2..=255 (AIFS = SIFS + aifsn slots; 2 gives DIFS)",
            2..=255,
        )
        .and_then(|n| u8::try_from(n).ok());
    let cw_min = read_cw(&mut f, errs, "cw_min");
    let cw_max = read_cw(&mut f, errs, "cw_max");
    f.finish(errs);
    let level = Level {
        aifsn: aifsn?,
        cw_min: cw_min?,
        cw_max: cw_max?,
    };
    if level.cw_min > level.cw_max {
        errs.push(ConfigError::new(
            format!("{path}.cw_max"),
            format!("must be >= cw_min ({}), got {}", level.cw_min, level.cw_max),
        ));
        return None;
    }
    let core = EdcaLevel {
        aifsn: level.aifsn,
        cw_min: level.cw_min,
        cw_max: level.cw_max,
    };
    match core.validate() {
        Ok(()) => Some(level),
        Err(e) => {
            let key = match e {
                EdcaError::Aifsn(_) => "aifsn",
                EdcaError::ContentionWindow { .. } => "cw_min",
            };
            errs.push(ConfigError::new(format!("{path}.{key}"), e.to_string()));
            None
        }
    }
}

/// A contention window in slots: `2^k - 1` up to [`MAX_CW`] (IEEE 802.11-2016 9.4.2.29).
fn read_cw(f: &mut Fields, errs: &mut Errs, key: &'static str) -> Option<u16> {
    let expected =
        format!("a contention window in slots, 2^k - 1 in 0..={MAX_CW} (such as 15, 31, 1023)");
    let path = f.path(key);
    let cw = f.integer(errs, key, None, &expected, 0..=u64::from(MAX_CW))?;
    if (cw + 1).is_power_of_two() {
        u16::try_from(cw).ok()
    } else {
        let below = (cw + 1).next_power_of_two() / 2 - 1;
        let above = (cw + 1).next_power_of_two() - 1;
        errs.push(ConfigError::new(
            path,
            format!(
                "expected {expected}, got {cw}; the nearest valid values are {below} and {above}"
            ),
        ));
        None
    }
}

/// `mac.rts_threshold`: bytes (an MPDU longer than this is sent after RTS/CTS; 0 means
/// every frame), or "off" (the default). `None` inside `Some` means off.
/// `radio.preamble_detection_db`: a ratio in dB, or `"off"` (the default).
fn read_preamble_detection(f: &mut Fields, errs: &mut Errs) -> Option<Option<f64>> {
    const EXPECTED: &str = "an SINR in dB in [0, 300] (ns-3 uses 4) or \"off\"";
    let path = f.path("preamble_detection_db");
    match f.take("preamble_detection_db") {
        None => (!f.is_broken()).then_some(None),
        Some(Value::String(s)) if s == "off" => Some(None),
        Some(Value::Number(x)) if x.as_f64().is_some_and(|x| (0.0..=MAX_DB).contains(&x)) => {
            Some(x.as_f64())
        }
        Some(v) => {
            errs.push(ConfigError::new(
                path,
                format!("expected {EXPECTED}, got {}", describe(v)),
            ));
            None
        }
    }
}

fn read_rts_threshold(f: &mut Fields, errs: &mut Errs) -> Option<Option<u32>> {
    const EXPECTED: &str =
        "an MPDU size in bytes (an integer >= 0; 0 protects every frame) or \"off\"";
    let path = f.path("rts_threshold");
    match f.take("rts_threshold") {
        None => (!f.is_broken()).then_some(None),
        Some(Value::String(s)) if s == "off" => Some(None),
        Some(Value::String(s)) => {
            let hint = if fields::closest(s, &["off"]).is_some() {
                "; did you mean \"off\"?"
            } else {
                ""
            };
            errs.push(ConfigError::new(
                path,
                format!("expected {EXPECTED}, got {s:?}{hint}"),
            ));
            None
        }
        Some(v) => to_u32(fields::integer(
            v,
            &path,
            errs,
            EXPECTED,
            0..=u64::from(u32::MAX),
        ))
        .map(Some),
    }
}
