//! The channel's hearer lists, found by a sweep over the radios sorted by x, equal the
//! definition over every pair: the radios whose mean received power reaches the floor
//! (the carrier-sense threshold, a tenth of it under Rayleigh fading), by id.

use airqueue_kernel::{RngStream, StreamKey};
use airqueue_phy::{Dbm, Propagation};
use airqueue_sim::medium::wifi::channel::Channel;
use airqueue_sim::medium::wifi::{Fading, WifiConfig};
use airqueue_sim::NodeId;

fn every_pair(cfg: &WifiConfig, positions: &[[f64; 2]]) -> Vec<Vec<(NodeId, f64)>> {
    let cs = Dbm(cfg.cs_threshold_dbm).to_mw().0;
    let floor = if cfg.fading == Fading::Rayleigh {
        cs * 0.1
    } else {
        cs
    };
    (0..positions.len())
        .map(|a| {
            (0..positions.len())
                .filter(|&b| b != a)
                .filter_map(|b| {
                    let [xa, ya] = positions[a];
                    let [xb, yb] = positions[b];
                    let d = ((xa - xb).powi(2) + (ya - yb).powi(2)).sqrt();
                    let p = cfg.propagation.rx_power(Dbm(cfg.tx_power_dbm), d).to_mw().0;
                    (p >= floor && p > 0.0).then_some((NodeId(b as u32), p))
                })
                .collect()
        })
        .collect()
}

#[test]
fn hearers_equal_the_definition_over_every_pair() {
    let mut rng = RngStream::new(StreamKey::new(7, 0, "test.positions"));
    let models = [
        Propagation::two_ray_ground_default(),
        Propagation::log_distance(3.0),
        Propagation::range(250.0, 550.0),
    ];
    for (k, model) in models.into_iter().enumerate() {
        for fading in [Fading::None, Fading::Rayleigh] {
            // 120 radios in 3 x 1.5 km, two of them on the same spot.
            let mut positions: Vec<[f64; 2]> = (0..120)
                .map(|_| [3000.0 * rng.uniform(), 1500.0 * rng.uniform()])
                .collect();
            positions[7] = positions[3];
            let cfg = WifiConfig {
                propagation: model,
                fading,
                ..WifiConfig::dsss_default()
            };
            let loss = |a: NodeId, b: NodeId| (a.0 * 1000 + b.0) as f64 * 1e-7;
            let ch = Channel::new(&cfg, &positions, 1, loss);
            let want = every_pair(&cfg, &positions);
            let mut pairs = 0;
            for (a, want) in want.iter().enumerate() {
                let got: Vec<(NodeId, f64)> = ch
                    .hearers(NodeId(a as u32))
                    .iter()
                    .map(|h| (h.node, h.mean_rx_mw))
                    .collect();
                assert_eq!(&got, want, "model {k}, {fading:?}, transmitter {a}");
                for h in ch.hearers(NodeId(a as u32)) {
                    assert_eq!(h.loss, loss(NodeId(a as u32), h.node));
                }
                pairs += got.len();
            }
            assert!(
                pairs > 120,
                "model {k}: a layout this dense has links ({pairs})"
            );
        }
    }
}
