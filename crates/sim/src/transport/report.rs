//! What the transports report at the end of a run: one table per transport that keeps
//! one, named and with its columns declared by the transport's module (so that the table
//! has its columns when no flow runs that transport), and one row per flow of it, filled
//! by the flow's endpoint ([`crate::transport::endpoint::FlowEndpoint::report`]). The
//! run's report writes the tables as they come, without knowing the transports.

use crate::ids::FlowId;
use crate::net::protocol::StatValue;
use std::any::Any;
use std::sync::Arc;

/// A transport's table: its name in the run's report and the names of a row's values
/// (after the `flow` column every table starts with).
#[derive(Debug, PartialEq, Eq)]
pub struct TransportTableSpec {
    pub name: &'static str,
    pub columns: &'static [&'static str],
}

/// A transport's end-of-run counters of one flow, which make its row of the transport's
/// table.
pub trait TransportStats: Any + Send + Sync {
    /// The table its rows go to.
    const TABLE: &'static TransportTableSpec;

    /// Its values, one per column of [`TransportStats::TABLE`], in order.
    fn values(&self) -> Vec<StatValue>;
}

/// One flow's row of its transport's table.
#[derive(Clone, Debug)]
pub struct TransportRow {
    pub flow: FlowId,
    /// One value per column of the table, in order.
    pub values: Vec<StatValue>,
    /// The transport's own end-of-run counters, for callers that know its type
    /// ([`TransportReports::stats`]).
    pub stats: Arc<dyn Any + Send + Sync>,
}

/// A transport's table as a run filled it: its rows by flow id.
#[derive(Clone, Debug)]
pub struct TransportTable {
    pub spec: &'static TransportTableSpec,
    pub rows: Vec<TransportRow>,
}

impl TransportTable {
    /// `flow`'s value of `column`, if `flow` has a row.
    pub fn value(&self, flow: FlowId, column: &str) -> Option<StatValue> {
        let c = self.spec.columns.iter().position(|&n| n == column)?;
        let row = self.rows.iter().find(|r| r.flow == flow)?;
        row.values.get(c).copied()
    }
}

/// The transports' tables of a run: every declared one
/// ([`crate::transport::flow_kind::TRANSPORT_TABLES`]), in that order, each with the rows
/// of the flows that ran its transport.
#[derive(Clone, Debug, Default)]
pub struct TransportReports {
    pub tables: Vec<TransportTable>,
}

impl TransportReports {
    /// Every declared table, without rows.
    pub fn declared() -> Self {
        let tables = super::flow_kind::TRANSPORT_TABLES.iter();
        TransportReports {
            tables: tables
                .map(|&spec| TransportTable {
                    spec,
                    rows: Vec::new(),
                })
                .collect(),
        }
    }

    /// Adds `flow`'s row, made from `stats`, to its table (appended after the declared
    /// ones if that is not declared).
    pub fn push<T: TransportStats>(&mut self, flow: FlowId, stats: T) {
        let (spec, values) = (T::TABLE, stats.values());
        debug_assert_eq!(values.len(), spec.columns.len(), "{}", spec.name);
        let at = match self.tables.iter().position(|t| t.spec.name == spec.name) {
            Some(at) => at,
            None => {
                let rows = Vec::new();
                self.tables.push(TransportTable { spec, rows });
                self.tables.len() - 1
            }
        };
        let stats = Arc::new(stats);
        self.tables[at].rows.push(TransportRow {
            flow,
            values,
            stats,
        });
    }

    /// The table called `name`.
    pub fn table(&self, name: &str) -> Option<&TransportTable> {
        self.tables.iter().find(|t| t.spec.name == name)
    }

    /// `flow`'s own end-of-run counters, if its transport reported them as a `T`.
    pub fn stats<T: Any>(&self, flow: FlowId) -> Option<&T> {
        let mut rows = self.tables.iter().flat_map(|t| &t.rows);
        rows.find(|r| r.flow == flow)?.stats.downcast_ref()
    }

    /// Whether no flow reported a row.
    pub fn is_empty(&self) -> bool {
        self.tables.iter().all(|t| t.rows.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::endpoint::FlowEndpoint;
    use crate::transport::flow_kind::TRANSPORT_TABLES;
    use crate::transport::tcp::{TcpFlow, TcpFlowConfig, TcpFlowStats};
    use crate::transport::tfrc::{TfrcFlow, TfrcFlowConfig, TfrcFlowStats};
    use crate::transport::udp::UdpFlow;

    #[test]
    fn declared_tables_have_distinct_names_and_columns_without_flow() {
        for (i, t) in TRANSPORT_TABLES.iter().enumerate() {
            assert!(TRANSPORT_TABLES[..i].iter().all(|o| o.name != t.name));
            for (j, c) in t.columns.iter().enumerate() {
                assert!(
                    *c != "flow" && !t.columns[..j].contains(c),
                    "{}: {c}",
                    t.name
                );
            }
        }
    }

    #[test]
    fn each_endpoint_fills_a_full_row_of_its_own_table_and_udp_none() {
        let mut reports = TransportReports::declared();
        let tcp = TcpFlow::new(&TcpFlowConfig::default(), 1000, false);
        let tfrc = TfrcFlow::new(&TfrcFlowConfig::default(), 1000);
        let udp = UdpFlow::new(
            crate::app::UdpRate::Saturate,
            1000,
            (
                airqueue_kernel::Time::ZERO,
                airqueue_kernel::Time::from_secs(1),
            ),
            airqueue_kernel::Time::from_secs(1),
        );
        tfrc.report(FlowId(0), &mut reports);
        udp.report(FlowId(1), &mut reports);
        tcp.report(FlowId(2), &mut reports);
        assert_eq!(reports.tables.len(), TRANSPORT_TABLES.len());
        for t in &reports.tables {
            assert_eq!(t.rows.len(), 1, "{}", t.spec.name);
            assert_eq!(
                t.rows[0].values.len(),
                t.spec.columns.len(),
                "{}",
                t.spec.name
            );
        }
        assert!(reports.stats::<TfrcFlowStats>(FlowId(0)).is_some());
        assert!(reports.stats::<TcpFlowStats>(FlowId(0)).is_none());
        assert!(reports.stats::<TcpFlowStats>(FlowId(1)).is_none());
        let tcp_table = reports.table("tcp").unwrap();
        assert_eq!(tcp_table.rows[0].flow, FlowId(2));
        assert_eq!(
            tcp_table.value(FlowId(2), "segments_sent"),
            Some(StatValue::Count(0))
        );
        assert_eq!(
            tcp_table.value(FlowId(2), "srtt_s"),
            Some(StatValue::Missing)
        );
        assert_eq!(
            tcp_table.value(FlowId(2), "coded_packets"),
            Some(StatValue::Missing)
        );
    }
}
