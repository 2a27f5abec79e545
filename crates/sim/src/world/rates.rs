//! The world's glue for scheduled data-rate changes ([`crate::medium::wifi::RateChange`],
//! seed 004 section IV-B: uplink stations dropping from 11 to 2 Mb/s at t0 = 100 s).
//!
//! Each change is one event at its time. It sets the MAC's per-link rates and tells
//! every queue discipline, so that DQM plans with the rates the MAC will use (III-B:
//! the AP "is also aware of the bit-rates towards different destinations").

use super::{Event, MediumConfig, WifiMedium, World, WorldConfig};
use airqueue_kernel::EventQueue;

/// Schedules the wifi medium's rate changes that fall within the run. Called before
/// anything else is scheduled, so a change at `t` holds for every frame from `t` on, and
/// changes at one instant apply in list order.
pub(super) fn schedule(cfg: &WorldConfig, events: &mut EventQueue<Event>) {
    let wifi = match &cfg.medium {
        MediumConfig::Wifi(w) | MediumConfig::WifiAndWires { wifi: w, .. } => w,
        MediumConfig::Wired { .. } => return,
    };
    for (k, change) in wifi.rate_changes.iter().enumerate() {
        if change.at < cfg.duration {
            events.schedule_in(change.at, Event::RateChange(k as u32));
        }
    }
}

impl World {
    /// Rate change number `k` takes effect now.
    pub(super) fn rate_change(&mut self, k: u32) {
        let Some(WifiMedium { net, qdiscs, .. }) = &mut self.wifi else {
            return;
        };
        // Once per change, not per packet: the copy is cheap.
        let change = net.config().rate_changes[k as usize].clone();
        net.set_link_rates(&change.nodes, change.rate);
        for q in qdiscs.iter_mut() {
            q.on_link_rates(&change.nodes, change.rate);
        }
    }
}
