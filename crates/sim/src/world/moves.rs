//! The world's glue for scheduled node moves ([`crate::medium::wifi::NodeMove`], seed
//! 004 section IV-B: the uplink stations "move far away from the AP at the time of t0").
//!
//! Each move is one event at its time that hands the channel the node's new position;
//! everything else (rate control, queue disciplines) learns of it from the frames that
//! follow, as a real station's would.

use super::{Event, MediumConfig, WifiMedium, World, WorldConfig};
use crate::medium::configured_loss;
use airqueue_kernel::EventQueue;

/// Schedules the wifi medium's moves that fall within the run. Called after the rate
/// changes, so at one instant the rate changes apply first and moves in list order.
pub(super) fn schedule(cfg: &WorldConfig, events: &mut EventQueue<Event>) {
    let wifi = match &cfg.medium {
        MediumConfig::Wifi(w) | MediumConfig::WifiAndWires { wifi: w, .. } => w,
        MediumConfig::Wired { .. } => return,
    };
    for (k, m) in wifi.moves.iter().enumerate() {
        if m.at < cfg.duration {
            events.schedule_in(m.at, Event::Move(k as u32));
        }
    }
}

impl World {
    /// Move number `k` takes effect now.
    pub(super) fn move_node(&mut self, k: u32) {
        let Some(WifiMedium { net, link_loss, .. }) = &mut self.wifi else {
            return;
        };
        let m = &net.config().moves[k as usize];
        let (node, to_m) = (m.node, m.to_m);
        let loss = |a, b| configured_loss(link_loss, a, b);
        net.channel_mut().move_node(node, to_m, loss);
    }
}
