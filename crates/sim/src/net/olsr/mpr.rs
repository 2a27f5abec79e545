//! MPR selection (RFC 3626 section 8.3.1), the heuristic without willingness (every node
//! has WILL_DEFAULT) and without the optional redundancy elimination: remaining ties go to
//! the lowest node id so the set is a pure function of the neighbourhood.

use super::link::{Link, LinkSet};
use crate::ids::NodeId;
use airqueue_kernel::Time;

/// Scratch vectors by node id, reused between selections.
#[derive(Clone, Debug, Default)]
pub struct MprScratch {
    /// Neighbours in N that cover each 2-hop node of N2 (0 for nodes outside N2).
    coverers: Vec<u32>,
    covered: Vec<bool>,
    in_n1: Vec<bool>,
}

/// Fills `mpr` (by node id) with `me`'s MPR set: a subset of its symmetric neighbours
/// such that every strict 2-hop neighbour is reachable through one of them. `known`
/// lists, ascending, the nodes `me` has a link tuple with (the others have none).
/// Returns until when the set holds without a change of state: the first expiry of a
/// symmetric link or 2-hop set it was chosen from.
pub fn select(
    me: NodeId,
    links: &LinkSet,
    known: &[u32],
    now: Time,
    s: &mut MprScratch,
    mpr: &mut [bool],
) -> Time {
    let n = links.len();
    let mut until = Time::MAX;
    s.coverers.clear();
    s.coverers.resize(n, 0);
    s.covered.clear();
    s.covered.resize(n, false);
    s.in_n1.clear();
    s.in_n1.resize(n, false);
    for &x in known {
        let l = &links[x as usize];
        if l.is_sym(now) {
            s.in_n1[x as usize] = true;
            until = until.min(l.sym_until);
            if l.two_hop_until > now {
                until = until.min(l.two_hop_until);
            }
        }
    }
    s.in_n1[me.index()] = false;
    mpr.iter_mut().for_each(|m| *m = false);
    // N2: symmetric neighbours of N's members that are neither me nor in N.
    let in_n2 = |y: NodeId, in_n1: &[bool]| y != me && !in_n1[y.index()];
    for &x in known {
        let x = x as usize;
        if !s.in_n1[x] {
            continue;
        }
        for &(y, _) in links[x].two_hops(now) {
            if in_n2(y, &s.in_n1) {
                s.coverers[y.index()] += 1;
            }
        }
    }
    let mut uncovered = s.coverers.iter().filter(|&&c| c > 0).count();
    // Step 3: neighbours that are the only way to some 2-hop node.
    for &x in known {
        let x = x as usize;
        if !s.in_n1[x] {
            continue;
        }
        let only = links[x]
            .two_hops(now)
            .iter()
            .any(|&(y, _)| in_n2(y, &s.in_n1) && s.coverers[y.index()] == 1);
        if only {
            mpr[x] = true;
            cover(&links[x], now, me, s, &mut uncovered);
        }
    }
    // Step 4: greedily by reachability, then degree, then lowest id.
    while uncovered > 0 {
        let mut best: Option<(usize, usize, usize)> = None; // (x, reach, degree)
        for &x in known {
            let x = x as usize;
            if !s.in_n1[x] || mpr[x] {
                continue;
            }
            let hops = links[x].two_hops(now);
            let reach = hops
                .iter()
                .filter(|&&(y, _)| in_n2(y, &s.in_n1) && !s.covered[y.index()])
                .count();
            let degree = hops.iter().filter(|&&(y, _)| in_n2(y, &s.in_n1)).count();
            if reach == 0 {
                continue;
            }
            if best.is_none_or(|(_, r, d)| reach > r || (reach == r && degree > d)) {
                best = Some((x, reach, degree));
            }
        }
        let Some((x, _, _)) = best else { break };
        mpr[x] = true;
        cover(&links[x], now, me, s, &mut uncovered);
    }
    until
}

fn cover(link: &Link, now: Time, me: NodeId, s: &mut MprScratch, uncovered: &mut usize) {
    for &(y, _) in link.two_hops(now) {
        let i = y.index();
        if y != me && !s.in_n1[i] && !s.covered[i] {
            s.covered[i] = true;
            *uncovered -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every node id below `n`, as the `known` list.
    fn all(n: u32) -> Vec<u32> {
        (0..n).collect()
    }

    /// `me` = 0 with symmetric neighbours and their announced neighbours.
    fn neighbourhood(n: usize, nbrs: &[(u32, &[u32])]) -> LinkSet {
        let mut links = LinkSet::new(n);
        let t = Time::from_secs(10);
        for &(x, ys) in nbrs {
            let l = &mut links[x as usize];
            l.sym_until = t;
            l.until = t;
            l.two_hop_until = t;
            l.two_hop = ys.iter().map(|&y| (NodeId(y), 1.0)).collect();
        }
        links
    }

    #[test]
    fn mprs_cover_every_two_hop_neighbour() {
        // 0's neighbours 1..=4; 2-hop nodes 5..=8.
        // 1 alone reaches 5; 2 reaches 6, 7; 3 reaches 6, 7, 8; 4 reaches 8.
        let links = neighbourhood(
            9,
            &[
                (1, &[0, 5, 2]),
                (2, &[0, 6, 7]),
                (3, &[0, 6, 7, 8]),
                (4, &[0, 8]),
            ],
        );
        let mut mpr = vec![false; 9];
        select(
            NodeId(0),
            &links,
            &all(9),
            Time::ZERO,
            &mut MprScratch::default(),
            &mut mpr,
        );
        // 1 is forced (only one to 5); then 3 covers 6, 7, 8.
        assert_eq!(
            mpr,
            [false, true, false, true, false, false, false, false, false]
        );
        for y in 5..9u32 {
            assert!(
                (1..5).any(|x| mpr[x] && links[x].two_hop.iter().any(|h| h.0 == NodeId(y))),
                "{y} uncovered"
            );
        }
    }

    #[test]
    fn ties_go_to_the_lowest_id_and_expired_links_do_not_count() {
        // 1 and 2 both reach 3 only.
        let mut links = neighbourhood(5, &[(1, &[3]), (2, &[3]), (4, &[])]);
        let mut mpr = vec![false; 5];
        let mut s = MprScratch::default();
        select(NodeId(0), &links, &all(5), Time::ZERO, &mut s, &mut mpr);
        assert_eq!(mpr, [false, true, false, false, false]);
        // 1's link expires: 2 takes over.
        links[1].sym_until = Time::ZERO;
        select(NodeId(0), &links, &all(5), Time::ZERO, &mut s, &mut mpr);
        assert_eq!(mpr, [false, false, true, false, false]);
    }
}
